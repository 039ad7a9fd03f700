/**
 * What the box server asks of an agent. The server owns HTTP, sessions, limits and deadlines; an
 * AgentRunner only turns one message (with the session's earlier turns) into an answer, streaming
 * text as it comes, and stops when the request's signal aborts. The built-in agents implement it
 * here (agents/assistant.ts, agents/empty.ts); external agents speak ACP (agents/acp.ts).
 */
import type { Plan } from '../schemas/plan.js';
import type { RunReport } from '../schemas/run-report.js';

/** What a message asks for: an answer (reads only), a plan (nothing applied), or a plan applied (`--allow-apply` only). */
export type MessageMode = 'answer' | 'plan' | 'apply';
export const MESSAGE_MODES: readonly MessageMode[] = ['answer', 'plan', 'apply'];

export interface Turn {
  role: 'user' | 'assistant';
  text: string;
  at: string;
  /** The mode of a user turn. */
  mode?: MessageMode;
}

export interface AgentRequest {
  /** The box session the message belongs to (an ACP agent keeps one agent session per box session). */
  sessionId: string;
  message: string;
  mode: MessageMode;
  /** The session's earlier turns, oldest first (already bounded by the server). */
  history: readonly Turn[];
  /** Aborted at the request's deadline, when the client goes away, or when the box shuts down. */
  signal: AbortSignal;
  /** Text of the answer as it arrives (SSE and WebSocket clients see it live). */
  onToken?: (text: string) => void;
}

export interface AgentReply {
  answer: string;
  /** The plan made (modes plan and apply). */
  plan?: Plan;
  /** The run report (mode apply). */
  report?: RunReport;
  /** Facts for the client: providers asked, AI provider and model. */
  meta?: Record<string, unknown>;
}

export interface AgentRunner {
  readonly name: string;
  readonly kind: 'builtin' | 'acp' | 'none';
  /** The modes this agent (as started) accepts; empty for an agent that takes no messages. */
  readonly modes: readonly MessageMode[];
  /** One line for /v1/box/info. */
  readonly description: string;
  /** Why this agent takes no messages at all (the empty agent, an ACP agent not wired), checked before a session is made. */
  readonly unavailable?: BoxError;
  answer(req: AgentRequest): Promise<AgentReply>;
  /** The box session ended (expired or the box stopped): release what the agent kept for it. */
  endSession?(sessionId: string): void;
  close(): Promise<void>;
}

/**
 * A refusal or failure the server maps to an HTTP status (and the same code over SSE and WebSocket).
 * Anything else an agent throws is mapped from its error class (box/errors.ts).
 */
export class BoxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'BoxError';
  }
}
