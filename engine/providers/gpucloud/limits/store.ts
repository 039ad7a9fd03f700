/**
 * The contract of a shared rate-limit store (issue 12, issue 25): the record every `assistant` process of
 * one project + origin consults before sending, on this machine (file.ts) or across machines (redis.ts).
 *
 * The record is kept per counted key (the project, or one method + path) in the compact form of
 * record.ts: one entry per holder (a process's limiter) with the slots it holds, and the responses that
 * arrived as counts per expiry group. A process leases a batch of slots at once (`lease`) and admits its
 * requests from that batch in memory (shared.ts), so the store is consulted once per batch, not once per
 * request. A slot counts from before its request is sent until one window after its response arrived:
 *   - held (in flight, or free, or its response not reported yet): until the holder's lease ends
 *     (use period + request timeout + window), so a holder killed with kill -9 stops counting after at
 *     most one lease (on this machine: one window, once its pid is seen dead);
 *   - reported: arrival + window.
 * That is the in-process limiter's rule (rate-limiter.ts), so its proof carries over to every process
 * that shares the record. A 429 seen by anyone also marks the key as full until its Retry-After ends.
 *
 * `tryAcquire` and `release` are the one-request form of the same thing (a lease of one slot to a
 * holder of its own), kept for tools and tests that count single requests.
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

export interface LeaseKeyRequest extends LimitKey {
  /** Slots the holder wants to hold after this call (in flight, free and not yet reported included). */
  want: number;
  /** Slots it keeps whatever the room: its requests in flight and its responses it does not report now. */
  keep: number;
  /** Responses that arrived since its last call and are reported now: how long ago each arrived (ms). */
  doneAgoMs: readonly number[];
}

export interface LeaseRequest {
  /** One per limiter: `<pid>.<random>.<n>`. */
  holder: string;
  windowMs: number;
  /** How long its slots count if it never comes back: use period + request timeout + window. */
  leaseMs: number;
  /** How long its demand is remembered (for fair shares) when it is granted nothing. */
  demandMs: number;
  keys: LeaseKeyRequest[];
  /** All keys get what they want, or none gets more than it keeps (one request needing every key). */
  atomic?: boolean;
}

export interface LeaseGrant {
  /** Slots the holder holds now, on the store's record. */
  held: number;
  /** Slots counting on the key now, the holder's included. */
  used: number;
  /** When it got fewer than it wanted: how long until room may appear (0: unknown; ask again later). */
  retryInMs: number;
  /** The key is blocked after a 429. */
  blocked: boolean;
}

export interface SharedLimitStore {
  readonly kind: 'file' | 'redis';
  /** Reports responses and sets what the holder holds, per key, in one atomic step. */
  lease(req: LeaseRequest): Promise<LeaseGrant[]>;
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

/** The one-request form on top of `lease`: a holder of its own gets one slot of every key, or none. */
export async function acquireOne(store: Pick<SharedLimitStore, 'lease'>, req: AcquireRequest): Promise<AcquireResult> {
  const grants = await store.lease({
    holder: req.holder,
    windowMs: req.windowMs,
    leaseMs: req.leaseMs,
    demandMs: req.windowMs,
    atomic: true,
    keys: req.keys.map((k) => ({ ...k, want: 1, keep: 0, doneAgoMs: [] })),
  });
  const admitted = grants.every((g) => g.held >= 1);
  return {
    admitted,
    retryInMs: admitted ? 0 : Math.max(1, ...grants.map((g) => g.retryInMs)),
    used: grants.map((g) => g.used - g.held),
  };
}

/** The response of a one-request holder arrived: its slot counts until then + window. */
export async function releaseOne(store: Pick<SharedLimitStore, 'lease'>, holder: string, keys: string[], windowMs: number, arrivedAgoMs: number): Promise<void> {
  await store.lease({ holder, windowMs, leaseMs: 0, demandMs: 0, keys: keys.map((key) => ({ key, limit: 0, want: 0, keep: 0, doneAgoMs: [Math.max(0, arrivedAgoMs)] })) });
}

/** The URL as it may be shown: no user or password. */
export function displayRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return 'redis (unparseable URL)';
  }
}
