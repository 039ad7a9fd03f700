/**
 * Slows down guessing: after FREE_FAILURES failed authentications from one client address, that address
 * must wait before its next attempt (1 s, doubling per further failure, at most MAX_DELAY_MS), and
 * attempts during the wait are answered 429 without looking at the key. Answering at once instead of
 * holding the connection keeps an attacker from tying up the server's sockets. Entries expire after
 * FORGET_MS without failures; the table is bounded (the oldest entries go first).
 */
export const FREE_FAILURES = 5;
const BASE_DELAY_MS = 1000;
export const MAX_DELAY_MS = 60_000;
const FORGET_MS = 15 * 60_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  failures: number;
  lastFailure: number;
  blockedUntil: number;
}

export class AuthThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds the address must still wait, or 0 when it may try. */
  waitFor(address: string): number {
    const e = this.entries.get(address);
    if (!e) return 0;
    const now = this.now();
    if (now - e.lastFailure > FORGET_MS) {
      this.entries.delete(address);
      return 0;
    }
    return Math.max(0, e.blockedUntil - now);
  }

  failed(address: string): void {
    const now = this.now();
    let e = this.entries.get(address);
    if (!e || now - e.lastFailure > FORGET_MS) e = { failures: 0, lastFailure: now, blockedUntil: 0 };
    this.entries.delete(address); // re-inserted below: Map order is recency order
    e.failures++;
    e.lastFailure = now;
    if (e.failures >= FREE_FAILURES) e.blockedUntil = now + Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (e.failures - FREE_FAILURES));
    this.entries.set(address, e);
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}
