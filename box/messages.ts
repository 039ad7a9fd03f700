/**
 * Answering one message, whatever carried it (a POST, answered as JSON or SSE, or a WebSocket frame):
 * find or start the session, hold it for this message, give the agent a signal that ends at the
 * request's deadline, when the client goes away or when the box stops, and keep the exchange in the
 * session's history when it succeeds.
 */
import { z } from 'zod';
import { createRedactingStream, maskSecretLooking, maskSecretsInText } from '../engine/core/redact.js';
import { MESSAGE_MODES, type AgentReply, type AgentRunner, type MessageMode } from './agent.js';
import { clientError, RequestAborted, type ClientError } from './errors.js';
import type { SessionStore } from './sessions.js';

export interface MessageLimits {
  maxMessageChars: number;
  requestTimeoutMs: number;
}

export const messageSchema = (maxChars: number) =>
  z.strictObject({
    session_id: z.uuid().optional(),
    message: z.string().min(1, 'message is empty').max(maxChars, `message is longer than ${maxChars} characters`),
    mode: z.enum(MESSAGE_MODES as [MessageMode, ...MessageMode[]]).optional(),
  });

export type MessageInput = z.infer<ReturnType<typeof messageSchema>>;

/** `{code, message}` of a body that is not a message; the first problem, with its field. */
export function inputProblem(error: z.ZodError): ClientError {
  const issue = error.issues[0]!;
  const field = issue.path.join('.') || 'body';
  const message = issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : `${field}: ${issue.message}`;
  return { status: 400, code: 'invalid_message', message, hint: 'send {"message": "...", "session_id"?: "<id from an earlier answer>", "mode"?: "answer" | "plan" | "apply"}' };
}

export interface MessageHooks {
  /** The session is known (sent first, so a client can follow up even when the answer fails). */
  onSession?: (sessionId: string) => void;
  onToken?: (text: string) => void;
  /** Aborts when the client goes away. */
  clientGone?: AbortSignal;
}

export type MessageOutcome =
  | { ok: true; sessionId: string; mode: MessageMode; reply: AgentReply }
  | { ok: false; sessionId?: string; error: ClientError };

/** In-flight answers, so that shutdown can wait for them and then cancel the rest. */
export class InFlight {
  private readonly live = new Set<AbortController>();
  private readonly waiters = new Set<() => void>();
  add(c: AbortController): void {
    this.live.add(c);
  }
  delete(c: AbortController): void {
    this.live.delete(c);
    if (this.live.size === 0) for (const w of [...this.waiters]) w();
  }
  get size(): number {
    return this.live.size;
  }
  /** Resolves when none is left, or after `ms`; true when none is left. */
  async drained(ms: number): Promise<boolean> {
    if (this.live.size === 0) return true;
    return new Promise((resolve) => {
      const done = (v: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(onEmpty);
        resolve(v);
      };
      const onEmpty = () => done(true);
      const timer = setTimeout(() => done(this.live.size === 0), ms);
      this.waiters.add(onEmpty);
    });
  }
  abortAll(reason: unknown): void {
    for (const c of this.live) c.abort(reason);
  }
}

export interface MessageContext {
  agent: AgentRunner;
  sessions: SessionStore;
  inFlight: InFlight;
  limits: MessageLimits;
  /** The box is stopping: new messages are refused. */
  draining: () => boolean;
  log?: (line: string) => void;
}

export async function answerMessage(ctx: MessageContext, input: MessageInput, hooks: MessageHooks = {}): Promise<MessageOutcome> {
  const mode = input.mode ?? 'answer';
  if (ctx.draining()) return { ok: false, error: { status: 503, code: 'shutting_down', message: 'the box is shutting down' } };
  if (ctx.agent.unavailable) return { ok: false, error: clientError(ctx.agent.unavailable) };
  const session = input.session_id === undefined ? ctx.sessions.create() : ctx.sessions.get(input.session_id);
  if (!session) {
    return input.session_id === undefined
      ? { ok: false, error: { status: 503, code: 'too_many_sessions', message: `the box holds ${ctx.sessions.max} sessions already`, hint: 'continue an existing session (session_id), or retry once idle ones expire' } }
      : { ok: false, error: { status: 404, code: 'session_not_found', message: `session ${input.session_id} does not exist (or expired)`, hint: 'start a new session: send the message without session_id' } };
  }
  if (session.busy) {
    return { ok: false, sessionId: session.id, error: { status: 409, code: 'session_busy', message: 'this session is answering another message', hint: 'wait for that answer, or use another session' } };
  }
  session.busy = true;
  ctx.sessions.touch(session);
  hooks.onSession?.(session.id);

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new RequestAborted('timeout', `no answer within ${ctx.limits.requestTimeoutMs / 1000} s (the box's request timeout)`)), ctx.limits.requestTimeoutMs);
  const onGone = () => controller.abort(new RequestAborted('client_gone', 'the client went away'));
  hooks.clientGone?.addEventListener('abort', onGone, { once: true });
  if (hooks.clientGone?.aborted) onGone();
  ctx.inFlight.add(controller);
  const started = performance.now();
  const at = new Date().toISOString();
  // Streamed tokens are masked as `ask` masks its answer: a few words held back, so a secret split over
  // two tokens is still caught (engine/core/redact.ts); what is held back goes out before the reply.
  const tokens = hooks.onToken ? createRedactingStream(hooks.onToken) : undefined;
  try {
    const reply = await ctx.agent.answer({ sessionId: session.id, message: input.message, mode, history: session.turns, signal: controller.signal, onToken: tokens && ((t) => tokens.write(t)) });
    tokens?.end();
    // The agent may finish just as the deadline passes; a late answer is still an answer.
    // The reply, and the turn kept (later sent to the AI as the conversation), with secret-looking text
    // masked by the one masker, as `ask` shows and keeps its answers.
    const masked = maskSecretLooking(reply);
    ctx.sessions.record(session, { role: 'user', text: maskSecretsInText(input.message), at, mode }, { role: 'assistant', text: masked.answer, at: new Date().toISOString() });
    ctx.log?.(`message ${mode} answered in ${Math.round(performance.now() - started)} ms`);
    return { ok: true, sessionId: session.id, mode, reply: masked };
  } catch (err) {
    tokens?.end();
    const error = clientError(err, controller.signal);
    // A new session whose first message failed holds nothing: it does not take a place under the cap.
    if (input.session_id === undefined && session.turns.length === 0) {
      session.busy = false;
      ctx.sessions.end(session.id);
    }
    ctx.log?.(`message ${mode} failed after ${Math.round(performance.now() - started)} ms: ${error.code}${error.status === 500 ? ` (${err instanceof Error ? err.message : String(err)})` : ''}`);
    return { ok: false, ...(ctx.sessions.get(session.id) ? { sessionId: session.id } : {}), error };
  } finally {
    clearTimeout(timer);
    hooks.clientGone?.removeEventListener('abort', onGone);
    ctx.inFlight.delete(controller);
    session.busy = false;
    ctx.sessions.touch(session);
  }
}
