/**
 * Client-side sliding-window rate limiter (DESIGN.md §2, SPEC 8): never more than `perProject` requests in
 * any window of `windowMs`, and never more than `perPath` per method + concrete path. It waits instead of
 * provoking 429.
 *
 * Why it is provably safe against a server that counts *receipts* in a sliding window: a request holds
 * its slot from admission until its response (or failure) arrives, and the slot stays occupied until
 * `arrival + windowMs`. A request received by the server inside a window (a, a+W] arrived back at the
 * client after a, so its slot is still occupied when any later request of that window is admitted
 * (admission ≤ receipt ≤ a+W < arrival+W). Hence at most `limit` of them can be admitted.
 *
 * Why not bottleneck: it has no sliding window, and its job pipeline serialises every job through an
 * internal lock with a timer yield — measured at ~2.4 ms per job here, i.e. seconds for 1,000 queued
 * requests. This limiter admits synchronously when there is room, so unthrottled traffic pays nothing.
 */
import { abortError } from './retry.js';

export interface SlidingWindowLimits {
  perProject: number;
  perPath: number;
  windowMs: number;
  /** Bound on requests in flight at once (sockets), independent of the windows. */
  maxConcurrent?: number;
}

export interface Slot {
  /** Records the arrival time of the response (or failure); idempotent. */
  release(): void;
}

export interface Admission {
  slot: Slot;
  /** How long the request waited for room (0 when admitted at once). */
  waitedMs: number;
}

/** One counted key: requests in flight plus completion times still inside the window. */
class Window {
  inFlight = 0;
  /** Full until then after a 429 that arrived anyway (the server saw traffic this process did not). */
  blockedUntil = -Infinity;
  private done: number[] = [];
  private head = 0;

  constructor(readonly limit: number) {}

  /** Drops completions whose window has passed. */
  prune(now: number, windowMs: number): void {
    if (now >= this.blockedUntil) this.blockedUntil = -Infinity;
    while (this.head < this.done.length && this.done[this.head]! + windowMs <= now) this.head++;
    if (this.head > 1024 && this.head * 2 > this.done.length) {
      this.done = this.done.slice(this.head);
      this.head = 0;
    }
  }

  occupancy(now: number, windowMs: number): number {
    this.prune(now, windowMs);
    return this.inFlight + (this.done.length - this.head);
  }

  isFull(now: number, windowMs: number): boolean {
    const occupied = this.occupancy(now, windowMs) >= this.limit;
    return occupied || now < this.blockedUntil;
  }

  complete(at: number): void {
    this.inFlight--;
    this.done.push(at);
  }

  isIdle(): boolean {
    return this.inFlight === 0 && this.head >= this.done.length && this.blockedUntil === -Infinity;
  }

  /** When the next slot frees by time (undefined when only in-flight requests block). Call after prune. */
  nextFreeAt(windowMs: number): number | undefined {
    const recorded = this.done.length - this.head;
    const excess = this.inFlight + recorded - this.limit; // ≥ 0 when full
    const byTime = this.inFlight >= this.limit || recorded === 0 ? undefined : this.done[this.head + Math.max(0, excess)]! + windowMs;
    if (this.blockedUntil === -Infinity) return byTime;
    if (excess < 0) return this.blockedUntil; // full only because of the 429 block
    return byTime === undefined ? this.blockedUntil : Math.max(byTime, this.blockedUntil);
  }
}

interface Waiter {
  key: string;
  enqueuedAt: number;
  resolve: (a: Admission) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  admitted?: boolean;
}

export class SlidingWindowLimiter {
  private readonly project: Window;
  private readonly paths = new Map<string, Window>();
  private waiters: Waiter[] = [];
  private inFlightTotal = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private admissions = 0;
  private readonly maxConcurrent: number;

  constructor(
    private readonly limits: SlidingWindowLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const [name, v] of Object.entries({ perProject: limits.perProject, perPath: limits.perPath, windowMs: limits.windowMs })) {
      if (!Number.isFinite(v) || v < 1) throw new RangeError(`rate limit ${name} must be a positive number, got ${v}`);
    }
    this.project = new Window(Math.floor(limits.perProject));
    this.maxConcurrent = limits.maxConcurrent && limits.maxConcurrent > 0 ? limits.maxConcurrent : Infinity;
  }

  /** Requests waiting for room. */
  get pending(): number {
    return this.waiters.length;
  }

  /**
   * A lower bound of how long a request for `key` would wait now: 0 when it would be admitted at once
   * or is blocked only by requests in flight.
   */
  estimateWaitMs(key: string): number {
    const now = this.now();
    let at = now;
    for (const w of [this.project, this.paths.get(key)]) {
      if (w && w.isFull(now, this.limits.windowMs)) at = Math.max(at, w.nextFreeAt(this.limits.windowMs) ?? now);
    }
    return Math.max(0, Math.ceil(at - now));
  }

  /**
   * Waits for room under both windows, then holds a slot until `release()`. Rejects with InterruptedError
   * on abort. `onQueued` is told (with a lower-bound estimate of the wait) when the request has to wait.
   */
  acquire(key: string, signal?: AbortSignal, onQueued?: (estimateMs: number) => void): Promise<Admission> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const now = this.now();
    if (this.waiters.length === 0 && this.fits(key, now)) return Promise.resolve({ slot: this.admit(key), waitedMs: 0 });
    return new Promise<Admission>((resolve, reject) => {
      const waiter: Waiter = { key, enqueuedAt: now, resolve, reject, signal };
      enqueueAbortable(this.waiters, waiter, () => this.pump());
      // Waiting only for a free socket (maxConcurrent) is not a rate-limit wait.
      if (onQueued && !waiter.admitted && this.windowFull(key, this.now())) onQueued(this.estimateWaitMs(key));
    });
  }

  /**
   * A 429 arrived for `key` anyway (other clients share the project's limits): treat its window as full
   * for `forMs`, so the next requests wait instead of provoking more 429s.
   */
  blockFor(key: string, forMs: number): void {
    if (!(forMs > 0)) return;
    const w = this.pathWindow(key);
    w.blockedUntil = Math.max(w.blockedUntil, this.now() + forMs);
  }

  private pathWindow(key: string): Window {
    let w = this.paths.get(key);
    if (!w) {
      w = new Window(Math.floor(this.limits.perPath));
      this.paths.set(key, w);
    }
    return w;
  }

  private projectBlocked(now: number): boolean {
    return this.inFlightTotal >= this.maxConcurrent || this.project.isFull(now, this.limits.windowMs);
  }

  private windowFull(key: string, now: number): boolean {
    return this.project.isFull(now, this.limits.windowMs) || (this.paths.get(key)?.isFull(now, this.limits.windowMs) ?? false);
  }

  private fits(key: string, now: number): boolean {
    if (this.projectBlocked(now)) return false;
    const w = this.paths.get(key);
    return !w || !w.isFull(now, this.limits.windowMs);
  }

  private admit(key: string): Slot {
    if (++this.admissions % 1024 === 0) this.sweep();
    const path = this.pathWindow(key);
    this.project.inFlight++;
    path.inFlight++;
    this.inFlightTotal++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const at = this.now();
        this.project.complete(at);
        path.complete(at);
        this.inFlightTotal--;
        if (this.waiters.length > 0) this.pump();
      },
    };
  }

  /** Forgets per-path windows with nothing in flight or in the window, so distinct paths do not pile up. */
  private sweep(): void {
    const now = this.now();
    for (const [key, w] of this.paths) {
      w.prune(now, this.limits.windowMs);
      if (w.isIdle()) this.paths.delete(key);
    }
  }

  /** Admits waiters in FIFO order wherever both windows have room; arms a timer for the next expiry. */
  private pump(): void {
    const now = this.now();
    const blockedKeys = new Set<string>();
    let kept = 0;
    let i = 0;
    for (; i < this.waiters.length; i++) {
      const w = this.waiters[i]!;
      if (this.projectBlocked(now)) break;
      if (blockedKeys.has(w.key) || !this.fits(w.key, now)) {
        blockedKeys.add(w.key);
        this.waiters[kept++] = w;
        continue;
      }
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      w.admitted = true;
      w.resolve({ slot: this.admit(w.key), waitedMs: Math.max(0, now - w.enqueuedAt) });
    }
    for (; i < this.waiters.length; i++) this.waiters[kept++] = this.waiters[i]!;
    this.waiters.length = kept;
    this.arm(now, blockedKeys);
  }

  private arm(now: number, blockedKeys: Set<string>): void {
    if (this.waiters.length === 0) {
      this.disarm();
      return;
    }
    let at = Infinity;
    const W = this.limits.windowMs;
    if (this.project.isFull(now, W)) at = Math.min(at, this.project.nextFreeAt(W) ?? Infinity);
    else {
      for (const key of blockedKeys) {
        const w = this.paths.get(key);
        if (w && w.isFull(now, W)) at = Math.min(at, w.nextFreeAt(W) ?? Infinity);
      }
    }
    // Infinity: only in-flight requests block; their release() pumps again.
    if (at === Infinity) {
      this.disarm();
      return;
    }
    if (this.timer && this.timerAt <= at) return;
    this.disarm();
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, Math.ceil(at - now)) + 1);
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}

/** Queues a waiter that leaves the queue, rejected with its signal's reason, when the signal aborts; then lets the queue move. */
export function enqueueAbortable<W extends { signal?: AbortSignal; onAbort?: () => void; reject(err: unknown): void }>(waiters: W[], waiter: W, pump: () => void): void {
  const signal = waiter.signal;
  if (signal) {
    waiter.onAbort = () => {
      const i = waiters.indexOf(waiter);
      if (i >= 0) waiters.splice(i, 1);
      waiter.reject(abortError(signal));
      pump();
    };
    signal.addEventListener('abort', waiter.onAbort, { once: true });
  }
  waiters.push(waiter);
  pump();
}
