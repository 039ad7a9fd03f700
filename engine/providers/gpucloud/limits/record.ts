/**
 * The shared rate-limit record of one counted key (the project, or one method + path), kept compact:
 *
 *   - holders: one entry per holder (a process's limiter, not a request): how many slots it holds, until
 *     when they count if it never comes back, and how many it wants (its demand, for fair shares);
 *   - done: responses that arrived, as [expiry, count] groups: each response counts until it arrived plus
 *     one window. Groups less than `mergeMs` apart merge into the later expiry (counting a little longer
 *     is safe, shorter never), so a key holds at most about window / mergeMs groups however busy it is;
 *   - a 429 block: nobody is granted slots on the key until then.
 *
 * A holder's slots are everything it may have sent and not yet reported: requests in flight, responses
 * not yet reported, and free slots it may still use. So at every moment
 *     Σ holders' slots + Σ live done ≥ requests the server may count in its current window,
 * and a grant never takes the sum above the limit: the sliding-window guarantee of rate-limiter.ts holds
 * across processes (a slot is occupied from before its request is sent until one window after its
 * response arrived), now with a lock taken once per batch of slots instead of once per request.
 *
 * The file store (file.ts) runs these functions under its lock; the Redis store (redis.ts) runs the same
 * rules in Lua. Times are the store's clock in ms.
 */

/** [slots held, counting until (ms), slots wanted, waiting since (ms; 0 when it got what it wanted)]. */
export type HolderEntry = [n: number, until: number, want: number, since: number];

export interface KeyRecord {
  h: Record<string, HolderEntry>;
  /** [expiry, count], sorted by expiry. */
  d: [number, number][];
  /** Blocked (after a 429) until. */
  b?: number;
}

export const emptyKeyRecord = (): KeyRecord => ({ h: {}, d: [] });

/** Groups of done slots closer than this merge: about 64 groups per window at most. */
export function mergeMsFor(windowMs: number): number {
  return Math.max(1, Math.floor(windowMs / 64));
}

export function prune(k: KeyRecord, now: number): void {
  let i = 0;
  while (i < k.d.length && k.d[i]![0] <= now) i++;
  if (i) k.d.splice(0, i);
  for (const [holder, [, until]] of Object.entries(k.h)) if (!(until > now)) delete k.h[holder];
  if (k.b !== undefined && !(k.b > now)) delete k.b;
}

export function isEmpty(k: KeyRecord): boolean {
  return k.d.length === 0 && Object.keys(k.h).length === 0 && k.b === undefined;
}

/** Adds `count` slots counting until `expiry`, merged into a group within `mergeMs` (the group keeps the later expiry). */
export function addDone(k: KeyRecord, expiry: number, count: number, mergeMs: number): void {
  if (count <= 0) return;
  let at = k.d.length;
  while (at > 0 && k.d[at - 1]![0] > expiry) at--;
  // Neighbours: the group just before (earlier or equal expiry) and just after (later expiry).
  const before = k.d[at - 1];
  const after = k.d[at];
  if (after && after[0] - expiry <= mergeMs) {
    after[1] += count;
    return;
  }
  if (before && expiry - before[0] <= mergeMs) {
    before[0] = expiry;
    before[1] += count;
    return;
  }
  k.d.splice(at, 0, [expiry, count]);
}

/** Slots counting now, all holders but `except`. */
export function occupied(k: KeyRecord, except?: string): number {
  let n = 0;
  for (const [holder, [held]] of Object.entries(k.h)) if (holder !== except) n += held;
  for (const [, count] of k.d) n += count;
  return n;
}

/**
 * Holders whose process is gone (kill -9): what they held cannot be sent any more, and what they sent was
 * received by now, so it counts for one window from now instead of for the rest of the lease. Holders are
 * `<pid>.<random>.<n>` (shared.ts); a pid reused by another process just keeps the lease.
 */
export function forgetDeadHolders(k: KeyRecord, now: number, windowMs: number, isAlive: (pid: number) => boolean): void {
  for (const [holder, [n]] of Object.entries(k.h)) {
    const pid = Number.parseInt(holder, 10);
    if (!Number.isSafeInteger(pid) || pid <= 0 || isAlive(pid)) continue;
    delete k.h[holder];
    addDone(k, now + windowMs, n, 0);
  }
}

export interface KeyLease {
  holder: string;
  limit: number;
  /** Slots the holder wants to hold after this call. */
  want: number;
  /** Slots it keeps whatever the room: requests in flight cannot be taken back. */
  keep: number;
  /** Responses that arrived since its last call, by expiry (arrival + window) on the store's clock. */
  doneExpiries: readonly number[];
  /** Until when its slots count if it never comes back. */
  until: number;
  /** With nothing granted (a waiting holder), how long its demand is remembered. */
  demandUntil: number;
  windowMs: number;
}

export interface KeyGrant {
  held: number;
  /** Slots counting on the key after this call, this holder's included. */
  used: number;
  /** When fewer were granted than wanted: the earliest a slot of someone else's frees by time (0 when unknown). */
  retryInMs: number;
  /** The key is blocked by a 429. */
  blocked: boolean;
}

/** Moves the holder's reported responses from its slots to the done groups (before anything is granted). */
export function recordDone(k: KeyRecord, req: Pick<KeyLease, 'holder' | 'doneExpiries' | 'windowMs'>, now: number): void {
  const mergeMs = mergeMsFor(req.windowMs);
  for (const expiry of req.doneExpiries) if (expiry > now) addDone(k, expiry, 1, mergeMs);
  const mine = k.h[req.holder];
  if (mine) mine[0] = Math.max(0, mine[0] - req.doneExpiries.length);
}

/**
 * What the holder may hold now: what it keeps, plus what it wants within its fair share (the limit split
 * between the holders that hold or want slots) and within the room left after the holders that have
 * waited longer got theirs (up to their share). That order is what makes the split hold over a window:
 * a holder that was just served goes behind every waiting one, so a process that reports and leases
 * quickly cannot take each slot as it frees while a slower one is between two asks. The holder that has
 * waited longest is never held back, so whenever the key has room someone gets it (no deadlock), and
 * the room is used as soon as it appears (nothing is set aside for holders that are not asking).
 */
export function grantable(k: KeyRecord, req: Pick<KeyLease, 'holder' | 'limit' | 'want' | 'keep'>, now: number): number {
  const blocked = k.b !== undefined && k.b > now;
  let demanders = req.want > 0 ? 1 : 0;
  for (const [holder, [n, , want]] of Object.entries(k.h)) if (holder !== req.holder && (n > 0 || want > 0)) demanders++;
  const share = Math.ceil(req.limit / Math.max(1, demanders));
  const mySince = k.h[req.holder]?.[3] || Infinity;
  let ahead = 0;
  for (const [holder, [n, , want, since]] of Object.entries(k.h)) {
    if (holder !== req.holder && since > 0 && since < mySince) ahead += Math.max(0, Math.min(want, share) - n);
  }
  const room = req.limit - occupied(k, req.holder) - ahead;
  const fresh = blocked ? 0 : Math.max(0, Math.min(req.want, room, share));
  return Math.max(req.keep, fresh);
}

/** Sets what the holder holds (a holder that holds nothing but waits is remembered for fair shares). */
export function setHeld(k: KeyRecord, req: KeyLease, held: number, now: number): KeyGrant {
  // Waiting since: when it last asked and got nothing new (it goes to the back of the line once served).
  const since = held > req.keep || held >= req.want ? 0 : k.h[req.holder]?.[3] || now;
  if (held > 0 || req.want > 0) k.h[req.holder] = [held, held > 0 ? req.until : req.demandUntil, req.want, since];
  else delete k.h[req.holder];
  return { held, used: occupied(k), retryInMs: held < req.want ? retryIn(k, req.holder, now) : 0, blocked: k.b !== undefined && k.b > now };
}

/** One key's lease: report the responses, then grant. The record must be pruned (`prune`). */
export function leaseKey(k: KeyRecord, req: KeyLease, now: number): KeyGrant {
  recordDone(k, req, now);
  return setHeld(k, req, grantable(k, req, now), now);
}

/** How long until room may appear: the block's end, else the earliest done group or someone else's lease to expire (0: unknown). */
export function retryIn(k: KeyRecord, holder: string, now: number): number {
  if (k.b !== undefined && k.b > now) return Math.ceil(k.b - now);
  let at = Infinity;
  if (k.d.length) at = k.d[0]![0];
  for (const [h, [n, until]] of Object.entries(k.h)) if (h !== holder && n > 0) at = Math.min(at, until);
  return at === Infinity ? 0 : Math.max(1, Math.ceil(at - now));
}
