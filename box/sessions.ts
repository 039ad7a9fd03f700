/**
 * Box sessions: one conversation each, with its history (bounded to the last `maxTurns` exchanges),
 * answered one message at a time. At most `max` live sessions: a new one is refused when the table is
 * full (after expired ones are dropped), never made by evicting someone's live conversation. A session
 * unused for `idleMs` expires (its agent state is released); a busy session never does.
 * IDs are random UUIDs chosen by the box; a client cannot pick or guess one.
 */
import { randomUUID } from 'node:crypto';
import type { Turn } from './agent.js';

export interface BoxSession {
  id: string;
  createdAt: number;
  lastUsedAt: number;
  /** Oldest first; at most 2 × maxTurns entries (a user turn and its answer per exchange). */
  turns: Turn[];
  /** A message is being answered. */
  busy: boolean;
}

export interface SessionStoreOptions {
  max: number;
  idleMs: number;
  /** Exchanges (question and answer) kept per session. */
  maxTurns: number;
  now?: () => number;
  /** A session ended (expired); the agent may release what it kept for it. */
  onEnd?: (id: string) => void;
}

export class SessionStore {
  private readonly sessions = new Map<string, BoxSession>();
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: SessionStoreOptions) {
    this.now = opts.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(opts.idleMs, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get max(): number {
    return this.opts.max;
  }

  /** Drops every idle session past its expiry. */
  sweep(): void {
    const cutoff = this.now() - this.opts.idleMs;
    for (const s of this.sessions.values()) if (!s.busy && s.lastUsedAt < cutoff) this.end(s.id);
  }

  /** The live session `id`, or undefined (unknown or expired). */
  get(id: string): BoxSession | undefined {
    const s = this.sessions.get(id);
    if (s && !s.busy && s.lastUsedAt < this.now() - this.opts.idleMs) {
      this.end(id);
      return undefined;
    }
    return s;
  }

  /** A new session, or undefined when `max` sessions are live. */
  create(): BoxSession | undefined {
    if (this.sessions.size >= this.opts.max) this.sweep();
    if (this.sessions.size >= this.opts.max) return undefined;
    const at = this.now();
    const s: BoxSession = { id: randomUUID(), createdAt: at, lastUsedAt: at, turns: [], busy: false };
    this.sessions.set(s.id, s);
    return s;
  }

  /** Appends an exchange and keeps the last `maxTurns` of them. */
  record(s: BoxSession, question: Turn, answer: Turn): void {
    s.turns.push(question, answer);
    const excess = s.turns.length - 2 * this.opts.maxTurns;
    if (excess > 0) s.turns.splice(0, excess);
  }

  touch(s: BoxSession): void {
    s.lastUsedAt = this.now();
  }

  expiresAt(s: BoxSession): number {
    return s.lastUsedAt + this.opts.idleMs;
  }

  end(id: string): void {
    if (this.sessions.delete(id)) this.opts.onEnd?.(id);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }
}
