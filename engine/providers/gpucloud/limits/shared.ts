/**
 * Rate limits shared by every `assistant` process of one project + origin (issue 12; SPEC 8 limits are
 * the project's, not a process's). Two stages per request, both admitting in memory when there is room:
 *   1. this process's sliding-window limiter (rate-limiter.ts): bounds sockets and this process's own rate;
 *   2. this process's share of the shared record (SharedLimiter below): slots leased from the record in
 *      batches. The record (the authority) is Redis when `redis_url` is set, else a locked file under
 *      ~/.assistant/ratelimit/; Redis unreachable or gone mid-run → one warning, then this machine's file.
 *
 * Why batches (issue 25): asking the record for every request took the cross-process file lock and
 * rewrote the record per request, which serialised one busy process (an MCP server with 8 agents: +38 ms
 * p50, 349 ms p95) and made the record grow with every request of the window. Now a process leases N
 * slots at a time, for a short use period, and admits requests from them without any I/O; the record is
 * touched once per batch, and it holds counts, not requests (record.ts).
 *
 * Why this keeps 0 × 429 across processes: a leased slot counts in the record from before a request may
 * use it until the holder reports that request's response, then until that response + one window. That
 * is the in-process rule of rate-limiter.ts, so its proof holds for the sum of all processes. A holder
 * uses its slots only during the use period after a lease; the record counts them for that period +
 * request timeout + window, so a killed holder never leaves a request uncounted. Fairness: a lease
 * never exceeds the holder's fair share (the limit split between the holders that hold or want slots),
 * and a holder gives back what it does not use when it goes idle, at its next lease, and when it closes.
 * A 429 that still arrives blocks the path in both stages for its Retry-After (holders learn of it at
 * their next lease, within one use period).
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { enqueueAbortable, SlidingWindowLimiter, type Admission, type SlidingWindowLimits } from '../rate-limiter.js';
import { abortError } from '../retry.js';
import { FileLimitStore } from './file.js';
import { displayRedisUrl, type AcquireRequest, type AcquireResult, type LeaseGrant, type LeaseKeyRequest, type LeaseRequest, type SharedLimitStore } from './store.js';

export interface SharedLimitsOptions {
  /** Where the machine-wide records live (`~/.assistant/ratelimit`). */
  dir: string;
  /** `gpucloud.rate_limit.redis_url` / ASSISTANT_REDIS_URL: share across machines. */
  redisUrl?: string;
  /** One line per problem (Redis unreachable, record unusable); never carries a password. */
  warn?: (line: string) => void;
}

/** What a wait is for, for `--debug` and progress. */
export interface LimitWait {
  estimateMs: number;
  /** Present for waits on the shared record. */
  shared?: { scope: string; used: number; limit: number; store: 'file' | 'redis' };
}

export interface RequestLimiter {
  acquire(key: string, signal: AbortSignal | undefined, onQueued?: (estimateMs: number, wait?: LimitWait) => void): Promise<Admission>;
  /** A 429 arrived for `key` anyway: no request on it for `forMs`, here and in the shared record. Never rejects. */
  penalize(key: string, forMs: number): Promise<void>;
  close(how?: { processEnding?: boolean }): Promise<void>;
}

/** The per-project record's name: a hash, so neither the origin nor the project id shows in file or key names. */
export function limitNamespace(origin: string, project: string): string {
  return createHash('sha256').update(`${origin}\n${project}`).digest('hex').slice(0, 24);
}

let holderSeq = 0;
const holderPrefix = `${process.pid}.${randomBytes(4).toString('hex')}`;

/** The most slots one lease asks for beyond what is needed now (a busy process doubles up to it). */
const MAX_HEADROOM = 256;

/** This process's slots of one counted key. */
class KeyPool {
  /** Slots the record counts as this holder's. */
  held = 0;
  inFlight = 0;
  /** Arrival times (performance.now) of responses not reported to the record yet; they still occupy held slots. */
  done: number[] = [];
  admittedSinceLease = 0;
  /** Until when the record refused more (performance.now); a waiter for this key waits for the timer, not a new lease. */
  refusedUntil = 0;
  /** When the record expects room (performance.now; 0: it cannot tell), for the wait estimate. */
  roomAt = 0;
  /** The record's answer at the last lease, for --debug. */
  last: LeaseGrant | undefined;

  constructor(readonly limit: number) {}

  get free(): number {
    return this.held - this.inFlight - this.done.length;
  }

  get idle(): boolean {
    return this.held === 0 && this.inFlight === 0 && this.done.length === 0;
  }
}

interface Waiter {
  keys: string[];
  enqueuedAt: number;
  resolve: (admission: { release: () => void; waitedMs: number } | undefined) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  onWait?: (wait: LimitWait) => void;
  told: boolean;
}

/**
 * The shared stage: admits requests from slots leased from the shared record, leases more in batches
 * when they run out, falls back from Redis to the file, then to nothing (this process's limiter only).
 */
export class SharedLimiter {
  private store: SharedLimitStore | undefined;
  private readonly fileStore: FileLimitStore;
  private readonly closing: SharedLimitStore[] = [];
  private readonly holder = `${holderPrefix}.${++holderSeq}`;
  /** Exchanges with the record so far (tests and the bench: once per batch, not per request). */
  readonly stats = { leases: 0 };
  private readonly pools = new Map<string, KeyPool>();
  private waiters: Waiter[] = [];
  /** A lease in progress: admissions wait for it (what it keeps must cover every slot in use). */
  private leasing: Promise<void> | undefined;
  /** New requests may use leased slots until then (performance.now); the record counts them longer. */
  private usableUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private closed = false;
  /** The last admission or response (performance.now), for giving slots back when idle. */
  private lastActivity = 0;
  /** How long leased slots may admit new requests. */
  private readonly useMs: number;
  /** How long a holder's slots count if it never comes back: use period + request timeout + window. */
  private readonly leaseMs: number;
  /** How often a waiter asks again when it cannot tell when room will appear. */
  private readonly pollMs: number;
  /** A holder with nothing to do gives its slots back after this long, and not before its use period ends (givebackAt). */
  private readonly idleMs: number;

  constructor(
    private readonly limits: SlidingWindowLimits,
    namespace: string,
    /** Longest a request can take plus one window (client.ts). */
    requestLeaseMs: number,
    private readonly opts: SharedLimitsOptions,
  ) {
    this.fileStore = new FileLimitStore(join(opts.dir, `${namespace}.json`));
    this.store = opts.redisUrl ? new RedisOnFirstUse(opts.redisUrl, namespace) : this.fileStore;
    this.closing.push(this.store);
    const W = limits.windowMs;
    this.useMs = Math.min(1000, Math.max(50, Math.floor(W / 4)));
    // Slots may admit until one use period after the lease's answer arrived; the record counts them from
    // its own clock, which read earlier by the round trip: one more use period covers that.
    this.leaseMs = 2 * this.useMs + requestLeaseMs;
    this.pollMs = Math.min(1000, Math.max(10, Math.floor(W / 20)));
    this.idleMs = Math.min(this.useMs, 100);
  }

  get kind(): 'file' | 'redis' | undefined {
    return this.store?.kind;
  }

  /**
   * Waits until this process holds a slot of the project and of `key`; resolves with the release (call it
   * when the response arrived), or undefined when no shared store is left.
   */
  acquire(key: string, signal: AbortSignal | undefined, onWait?: (wait: LimitWait) => void): Promise<{ release: () => void; waitedMs: number } | undefined> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (!this.store) return Promise.resolve(undefined);
    if (this.closed) return Promise.reject(new Error('the rate limiter is closed'));
    const keys = ['project', key];
    if (this.waiters.length === 0 && this.canAdmit(keys, performance.now())) return Promise.resolve({ release: this.admit(keys), waitedMs: 0 });
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { keys, enqueuedAt: performance.now(), resolve, reject, signal, onWait, told: false };
      enqueueAbortable(this.waiters, waiter, () => this.pump());
    });
  }

  async penalize(key: string, forMs: number): Promise<void> {
    await this.call((s) => s.block(key, forMs));
  }

  /**
   * Gives every slot back (reporting the responses) and lets go of the store. With `processEnding` (a
   * CLI command that sent its few requests), when every slot it holds was used and answered, this
   * machine's record is not touched again: the next process that leases sees the holder's pid gone and
   * counts its slots from then for one window (record.ts forgetDeadHolders), which is later than their
   * responses arrived plus one window, so nothing is under-counted. A one-read command takes the lock
   * once instead of twice. Slots it did not use, and Redis (which cannot see a pid), are given back.
   */
  async close(how?: { processEnding?: boolean }): Promise<void> {
    this.closed = true;
    this.disarm();
    for (const w of this.waiters.splice(0)) {
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      w.reject(new Error('the rate limiter was closed while a request waited'));
    }
    await this.leasing?.catch(() => undefined);
    const pools = [...this.pools.values()];
    const leftToTheExit = how?.processEnding && this.store?.kind === 'file' && pools.every((p) => p.free === 0 && p.inFlight === 0);
    if (!leftToTheExit && pools.some((p) => !p.idle)) await this.lease(false).catch(() => undefined);
    await Promise.all(this.closing.map((s) => s.close().catch(() => undefined)));
  }

  private pool(key: string): KeyPool {
    let p = this.pools.get(key);
    if (!p) {
      p = new KeyPool(Math.floor(key === 'project' ? this.limits.perProject : this.limits.perPath));
      this.pools.set(key, p);
    }
    return p;
  }

  private canAdmit(keys: string[], now: number): boolean {
    if (this.leasing || now >= this.usableUntil) return false;
    for (const k of keys) if ((this.pools.get(k)?.free ?? 0) < 1) return false;
    return true;
  }

  private admit(keys: string[]): () => void {
    const pools = keys.map((k) => this.pool(k));
    this.lastActivity = performance.now();
    for (const p of pools) {
      p.inFlight++;
      p.admittedSinceLease++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const at = performance.now();
      this.lastActivity = at;
      for (const p of pools) {
        p.inFlight--;
        p.done.push(at);
      }
      this.pump();
    };
  }

  /** Admits waiters in FIFO order where their keys have free slots; leases more, or waits, for the rest. */
  private pump(): void {
    if (this.closed) return;
    const now = performance.now();
    if (!this.leasing && now < this.usableUntil) {
      let kept = 0;
      const stuck = new Set<string>();
      for (const w of this.waiters) {
        // A waiter behind one that waits for the same key stays behind it (FIFO per key).
        if (w.keys.some((k) => stuck.has(k)) || !this.canAdmit(w.keys, now)) {
          for (const k of w.keys) if ((this.pools.get(k)?.free ?? 0) < 1) stuck.add(k);
          this.waiters[kept++] = w;
          continue;
        }
        if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
        w.resolve({ release: this.admit(w.keys), waitedMs: w.told ? now - w.enqueuedAt : 0 });
      }
      this.waiters.length = kept;
    }
    if (this.leasing) return;
    if (this.waiters.length === 0) {
      // Nothing waits: give the slots back once nothing has happened for a moment.
      const busy = [...this.pools.values()].some((p) => p.inFlight > 0);
      const holding = [...this.pools.values()].some((p) => p.held > 0 || p.done.length > 0);
      if (!busy && holding) this.arm(this.givebackAt());
      else this.disarm();
      return;
    }
    // Someone waits. Lease now unless every key they wait for was refused and its retry time is ahead.
    let next = Infinity;
    let leaseNow = now >= this.usableUntil;
    for (const w of this.waiters) {
      for (const k of w.keys) {
        const p = this.pool(k);
        if (p.free >= 1 && now < this.usableUntil) continue;
        if (p.refusedUntil > now) next = Math.min(next, p.refusedUntil);
        else leaseNow = true;
      }
    }
    if (leaseNow) this.startLease();
    else this.arm(next);
  }

  private startLease(more = true): void {
    this.disarm();
    this.leasing = this.lease(more)
      .catch(() => undefined)
      .finally(() => {
        this.leasing = undefined;
        this.pump();
      });
  }

  /**
   * One exchange with the record: reports the responses that arrived and asks for what the waiters need
   * plus some headroom (`more`), or for nothing beyond what is in flight (giving the rest back).
   */
  private async lease(more: boolean): Promise<void> {
    // Requests that arrive in the same turn of the event loop go into this lease too.
    if (more) await new Promise((resolve) => setImmediate(resolve));
    const store = this.store;
    if (!store) {
      this.failWaiters();
      return;
    }
    const started = performance.now();
    const demand = new Map<string, number>();
    for (const w of this.waiters) for (const k of w.keys) demand.set(k, (demand.get(k) ?? 0) + 1);
    const entries = [...this.pools.entries()].filter(([k, p]) => !p.idle || demand.has(k));
    for (const k of demand.keys()) if (!this.pools.has(k)) entries.push([k, this.pool(k)]);
    const reported = entries.map(([, p]) => p.done.length);
    const keys: LeaseKeyRequest[] = entries.map(([key, p], i) => {
      const wanted = demand.get(key) ?? 0;
      // A busy holder asks for twice what it used since its last lease, so it leases less and less often;
      // a first ask is for what waits, no more (a one-request command holds nothing it does not use).
      const headroom = more ? Math.min(MAX_HEADROOM, 2 * p.admittedSinceLease) : 0;
      return {
        key,
        limit: p.limit,
        want: p.inFlight + (more ? wanted : 0) + headroom,
        keep: p.inFlight,
        doneAgoMs: p.done.slice(0, reported[i]).map((t) => started - t),
      };
    });
    let grants: LeaseGrant[];
    try {
      grants = await store.lease({ holder: this.holder, windowMs: this.limits.windowMs, leaseMs: this.leaseMs, demandMs: 3 * this.pollMs + 1000, keys });
      this.stats.leases++;
    } catch (err) {
      this.fallBackFrom(store, err);
      // The next store knows nothing of this holder: nothing is free until it has been asked (what is
      // in flight or unreported is reported to it as kept).
      for (const p of this.pools.values()) p.held = p.inFlight + p.done.length;
      this.usableUntil = 0;
      if (!this.store) this.failWaiters();
      return;
    }
    const now = performance.now();
    this.usableUntil = now + this.useMs;
    entries.forEach(([key, p], i) => {
      const g = grants[i]!;
      p.done.splice(0, reported[i]);
      p.held = g.held;
      p.admittedSinceLease = 0;
      p.last = g;
      const short = g.held - p.inFlight - p.done.length < (demand.get(key) ?? 0);
      p.refusedUntil = short ? now + Math.min(g.retryInMs > 0 ? g.retryInMs + 1 : this.pollMs, this.pollMs) : 0;
      p.roomAt = short && g.retryInMs > 0 ? now + g.retryInMs : 0;
      // Forget a key nobody holds or waits for (the pools stay as few as the paths in use).
      if (p.idle && !this.waiters.some((w) => w.keys.includes(key))) this.pools.delete(key);
    });
    this.tellWaiters(store.kind);
  }

  /** Says once to each waiter still waiting after a lease what it waits for (--debug, progress). */
  private tellWaiters(kind: 'file' | 'redis'): void {
    const now = performance.now();
    for (const w of this.waiters) {
      if (w.told || !w.onWait) continue;
      const scope = w.keys.find((k) => (this.pools.get(k)?.free ?? 0) < 1 && this.pools.get(k)?.last);
      if (scope === undefined) continue;
      const full = this.pools.get(scope)!;
      w.told = true;
      w.onWait({ estimateMs: Math.max(0, Math.round((full.roomAt || full.refusedUntil) - now)), shared: { scope, used: Math.min(full.last!.used, full.limit), limit: full.limit, store: kind } });
    }
  }

  /** No shared store left: the waiters go on with this process's limiter only. */
  private failWaiters(): void {
    for (const w of this.waiters.splice(0)) {
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      w.resolve(undefined);
    }
  }

  /**
   * When an idle holder gives its slots back: `idleMs` after its last request or response, but not
   * while its lease's use period lasts, within which the slots admit without any I/O. Giving them back
   * earlier made a holder that paused a little longer than `idleMs` (an MCP server whose one agent
   * thinks, or is slowed by a busy machine, between calls) lease again for its next request: two record
   * updates (lock, read, write) per call instead of one per use period. Others wait at most one use period (≤ W/4, ≤ 1 s) longer
   * for slots an idle holder had leased.
   */
  private givebackAt(): number {
    return Math.max(this.lastActivity + this.idleMs, this.usableUntil);
  }

  private arm(at: number): void {
    if (this.closed) return;
    if (!this.timer || this.timerAt > at) {
      this.disarm();
      this.timerAt = at;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.timerAt = Infinity;
        if (this.closed || this.leasing) return;
        if (this.waiters.length) this.pump();
        else if ([...this.pools.values()].some((p) => p.inFlight > 0)) return; // a release will look again
        else if (performance.now() < this.givebackAt()) this.arm(this.givebackAt());
        else this.startLease(false); // idle: give everything back
      }, Math.max(0, Math.ceil(at - performance.now())));
    }
    // Only the idle give-back may let the process exit (close() gives the slots back then); a wait may not.
    if (this.waiters.length) this.timer!.ref();
    else this.timer!.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  /** Runs `fn` on the current store, falling back on failure; undefined when no shared store is left. */
  private async call<T>(fn: (s: SharedLimitStore) => Promise<T>): Promise<{ store: SharedLimitStore; value: T } | undefined> {
    for (;;) {
      const store = this.store;
      if (!store) return undefined;
      try {
        return { store, value: await fn(store) };
      } catch (err) {
        this.fallBackFrom(store, err);
      }
    }
  }

  private fallBackFrom(store: SharedLimitStore, err: unknown): void {
    if (this.store !== store) return; // already fell back
    const why = err instanceof Error ? err.message : String(err);
    if (store.kind === 'redis') {
      this.opts.warn?.(`redis at ${displayRedisUrl(this.opts.redisUrl ?? '')} unreachable; using this machine's limiter`);
      this.store = this.fileStore;
      this.closing.push(this.fileStore);
      void store.close().catch(() => undefined);
    } else {
      this.opts.warn?.(`shared rate-limit record ${this.fileStore.file} unusable (${why}); limiting this process only`);
      this.store = undefined;
    }
  }
}

/**
 * The Redis record, its module (the Lua scripts, the client) loaded at the first exchange: a command
 * without a redis_url never loads it, and one with a redis_url loads it when it first leases.
 */
class RedisOnFirstUse implements SharedLimitStore {
  readonly kind = 'redis' as const;
  private store: Promise<SharedLimitStore> | undefined;

  constructor(
    private readonly url: string,
    private readonly namespace: string,
  ) {}

  private opened(): Promise<SharedLimitStore> {
    return (this.store ??= import('./redis.js').then(({ RedisLimitStore }) => new RedisLimitStore(this.url, this.namespace)));
  }

  async lease(req: LeaseRequest): Promise<LeaseGrant[]> {
    return (await this.opened()).lease(req);
  }

  async tryAcquire(req: AcquireRequest): Promise<AcquireResult> {
    return (await this.opened()).tryAcquire(req);
  }

  async release(holder: string, keys: string[], windowMs: number, arrivedAt: number): Promise<void> {
    await (await this.opened()).release(holder, keys, windowMs, arrivedAt);
  }

  async block(key: string, forMs: number): Promise<void> {
    await (await this.opened()).block(key, forMs);
  }

  async close(): Promise<void> {
    await (await this.store)?.close();
  }
}

/** This process's limiter, then (when given) the shared record. */
export class LayeredLimiter implements RequestLimiter {
  constructor(
    private readonly local: SlidingWindowLimiter,
    private readonly shared?: SharedLimiter,
  ) {}

  async acquire(key: string, signal: AbortSignal | undefined, onQueued?: (estimateMs: number, wait?: LimitWait) => void): Promise<Admission> {
    const local = await this.local.acquire(key, signal, onQueued ? (ms) => onQueued(ms, { estimateMs: ms }) : undefined);
    if (!this.shared) return local;
    let shared: { release: () => void; waitedMs: number } | undefined;
    try {
      shared = await this.shared.acquire(key, signal, onQueued ? (w) => onQueued(w.estimateMs, w) : undefined);
    } catch (err) {
      local.slot.release();
      throw err;
    }
    let released = false;
    return {
      slot: {
        release: () => {
          if (released) return;
          released = true;
          local.slot.release();
          shared?.release();
        },
      },
      waitedMs: local.waitedMs + (shared?.waitedMs ?? 0),
    };
  }

  async penalize(key: string, forMs: number): Promise<void> {
    this.local.blockFor(key, forMs);
    await this.shared?.penalize(key, forMs);
  }

  async close(how?: { processEnding?: boolean }): Promise<void> {
    await this.shared?.close(how);
  }
}
