/**
 * A conversation with an external ACP agent that outlives the agent process: when the agent has
 * crashed (or the session was resumed from disk), the next prompt starts it again and hands it the
 * conversation so far, as context ahead of the new message. ACP's session/load would need the agent
 * to have saved the session itself, which a crashed process may not have done; the transcript we
 * keep is always there.
 */
import type { AcpAgent, AcpPromptOptions, AcpPromptResult } from './client.js';

export interface TranscriptTurn {
  user: string;
  assistant: string;
}

export interface AgentConversationOptions {
  /** Starts the agent (a fresh process with a fresh session). */
  start: () => Promise<AcpAgent>;
  /** The conversation so far, oldest first, already trimmed to what may be sent. */
  transcript: () => TranscriptTurn[];
  /** Told when the agent is (re)started: `restarted` after a crash, and how many turns were handed over. */
  onStart?: (agent: AcpAgent, info: { restarted: boolean; replayed: number }) => void;
}

export class AgentConversation {
  private agent?: AcpAgent;
  private starting?: Promise<AcpAgent>;
  /** Set after a crash: the next start is a restart. */
  private crashed = false;

  constructor(private readonly opts: AgentConversationOptions) {}

  /** The running agent, if one is up. */
  get current(): AcpAgent | undefined {
    return this.agent?.running ? this.agent : undefined;
  }

  /** Starts the agent now (at the beginning of a session), so a broken agent is reported at once. */
  async ensureStarted(): Promise<AcpAgent> {
    return (await this.ready()).agent;
  }

  private async ready(): Promise<{ agent: AcpAgent; fresh: boolean }> {
    if (this.agent?.running) return { agent: this.agent, fresh: false };
    if (this.agent) this.crashed = true;
    this.starting ??= this.opts.start().finally(() => (this.starting = undefined));
    this.agent = await this.starting;
    return { agent: this.agent, fresh: true };
  }

  async prompt(text: string, opts: AcpPromptOptions): Promise<AcpPromptResult & { restarted: boolean }> {
    const before = this.agent;
    const { agent, fresh } = await this.ready();
    const restarted = Boolean(before) && this.crashed;
    // A new process knows nothing: the conversation so far goes first (the very first start of a
    // resumed session too, so a session resumed from disk goes on where it was).
    const turns = fresh ? this.opts.transcript() : [];
    if (fresh) this.opts.onStart?.(agent, { restarted, replayed: turns.length });
    this.crashed = false;
    const result = await agent.prompt(turns.length ? withTranscript(turns, text) : text, opts);
    return { ...result, restarted };
  }

  /** Forgets the conversation on the agent's side: a new session on the same process. */
  async reset(): Promise<void> {
    if (this.agent?.running) await this.agent.newSession();
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }
}

/** The prompt that hands a new agent process the conversation so far, then the new message. */
export function withTranscript(turns: readonly TranscriptTurn[], text: string): string {
  const lines = ['[Context: the conversation so far, handed over because the agent process was started again. Continue it; do not repeat earlier actions.]'];
  for (const t of turns) lines.push(`User: ${t.user}`, `Assistant: ${t.assistant}`);
  lines.push('[End of context]', '', text);
  return lines.join('\n');
}
