/**
 * The contract of a shared rate-limit store (issue 12): the record every `assistant` process of one
 * project + origin consults before sending, on this machine (file.ts) or across machines (redis.ts).
 *
 * Per counted key (the project, or one method + path) the store keeps a set of slots, each with the
 * time it stops counting:
 *   - admitted, response not yet back: admission + lease (lease = request timeout + window), so a
 *     holder killed with kill -9 stops counting after at most one lease;
 *   - released (response or failure arrived at `t`): t + window.
 * That is exactly the in-process limiter's rule (rate-limiter.ts: a slot is held from admission until
 * the response arrives, then for one more window), so its proof carries over to every process that
 * shares the record. A 429 seen by anyone also marks the key as full until its Retry-After ends.
 */

export interface LimitKey {
  /** `project` or `GET /v1/instances`. */
  key: string;
  limit: number;
}

export interface AcquireRequest {
  /** Unique per admission (pid, random part, counter). */
  holder: string;
  keys: LimitKey[];
  windowMs: number;
  /** How long an unreleased slot counts (request timeout + window). */
  leaseMs: number;
}

export interface AcquireResult {
  admitted: boolean;
  /** When not admitted: how long until the store may have room (a slot's expiry or a 429 block). */
  retryInMs: number;
  /** Slots counting per key before this admission, in the order of `keys`. */
  used: number[];
}

export interface SharedLimitStore {
  readonly kind: 'file' | 'redis';
  tryAcquire(req: AcquireRequest): Promise<AcquireResult>;
  /**
   * The response (or failure) arrived: the slot now counts for one more window. `arrivedAt` (this
   * machine's Date.now() at arrival) is used by stores on this machine's clock; Redis uses its own.
   */
  release(holder: string, keys: string[], windowMs: number, arrivedAt: number): Promise<void>;
  /** A 429 arrived anyway: nobody sends on `key` for `forMs`. */
  block(key: string, forMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Slot expiries of one key → the admission decision (shared by the file store and tests). */
export function decide(slots: number[], blockedUntil: number, limit: number, now: number): { used: number; retryInMs: number } {
  const live = slots.filter((t) => t > now).sort((a, b) => a - b);
  let retryInMs = blockedUntil > now ? blockedUntil - now : 0;
  if (live.length >= limit) retryInMs = Math.max(retryInMs, live[live.length - limit]! - now);
  return { used: live.length, retryInMs };
}
