/**
 * Rate limits shared by every `assistant` process of one project + origin (issue 12; SPEC 8 limits are
 * the project's, not a process's). Two stages per request:
 *   1. this process's sliding-window limiter (rate-limiter.ts): admits synchronously, bounds sockets, and
 *      keeps one process with 32 concurrent requests from hammering the shared record;
 *   2. the shared record (the authority): Redis when `redis_url` is set, else a locked file under
 *      ~/.assistant/ratelimit/. Redis unreachable or gone mid-run → one warning, then this machine's file.
 * Both stages hold the slot until the response arrives (store.ts), so the sliding-window proof holds
 * across processes. A 429 that still arrives blocks the path in both stages for its Retry-After.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { InterruptedError } from '../../errors.js';
import { SlidingWindowLimiter, type Admission, type SlidingWindowLimits } from '../rate-limiter.js';
import { sleep } from '../retry.js';
import { FileLimitStore } from './file.js';
import { RedisLimitStore, displayRedisUrl } from './redis.js';
import type { AcquireResult, LimitKey, SharedLimitStore } from './store.js';

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
  close(): Promise<void>;
}

/** The per-project record's name: a hash, so neither the origin nor the project id shows in file or key names. */
export function limitNamespace(origin: string, project: string): string {
  return createHash('sha256').update(`${origin}\n${project}`).digest('hex').slice(0, 24);
}

let holderSeq = 0;
const holderPrefix = `${process.pid}.${randomBytes(4).toString('hex')}`;

/** The shared stage: retries the store until admitted, falls back from Redis to the file, then to nothing. */
export class SharedLimiter {
  private store: SharedLimitStore | undefined;
  private readonly fileStore: FileLimitStore;
  private readonly closing: SharedLimitStore[] = [];

  constructor(
    private readonly limits: SlidingWindowLimits,
    namespace: string,
    /** How long an unreleased slot counts: request timeout + window. */
    private readonly leaseMs: number,
    private readonly opts: SharedLimitsOptions,
  ) {
    this.fileStore = new FileLimitStore(join(opts.dir, `${namespace}.json`));
    this.store = opts.redisUrl ? new RedisLimitStore(opts.redisUrl, namespace) : this.fileStore;
    this.closing.push(this.store);
  }

  get kind(): 'file' | 'redis' | undefined {
    return this.store?.kind;
  }

  /** Waits until the shared record admits `key`; resolves with the release (undefined when no shared store is left). */
  async acquire(key: string, signal: AbortSignal | undefined, onWait?: (wait: LimitWait) => void): Promise<{ release: () => void; waitedMs: number } | undefined> {
    const started = performance.now();
    const holder = `${holderPrefix}.${++holderSeq}`;
    const keys: LimitKey[] = [
      { key: 'project', limit: Math.floor(this.limits.perProject) },
      { key, limit: Math.floor(this.limits.perPath) },
    ];
    for (let told = false; ; ) {
      if (signal?.aborted) throw new InterruptedError();
      const result = await this.call((s) => s.tryAcquire({ holder, keys, windowMs: this.limits.windowMs, leaseMs: this.leaseMs }));
      if (!result) return undefined;
      const { store, value } = result;
      if (value.admitted) {
        const release = () => {
          const arrivedAt = Date.now();
          void this.callOn(store, (s) => s.release(holder, keys.map((k) => k.key), this.limits.windowMs, arrivedAt));
        };
        return { release, waitedMs: told ? performance.now() - started : 0 };
      }
      if (!told) {
        told = true;
        onWait?.(describeWait(value, keys, store.kind));
      }
      // A slot still in flight frees no earlier than one window from now, so a window is the longest useful sleep.
      await sleep(Math.min(value.retryInMs, this.limits.windowMs) + 1, signal);
    }
  }

  async penalize(key: string, forMs: number): Promise<void> {
    await this.call((s) => s.block(key, forMs));
  }

  async close(): Promise<void> {
    await Promise.all(this.closing.map((s) => s.close().catch(() => undefined)));
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

  /** Release goes to the store that admitted (a fallback store never saw the holder). */
  private async callOn(store: SharedLimitStore, fn: (s: SharedLimitStore) => Promise<void>): Promise<void> {
    try {
      await fn(store);
    } catch (err) {
      this.fallBackFrom(store, err);
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

function describeWait(r: AcquireResult, keys: LimitKey[], store: 'file' | 'redis'): LimitWait {
  // Name the window that is full (the path's when only a 429 block holds it).
  const i = r.used.findIndex((u, j) => u >= keys[j]!.limit);
  const at = i >= 0 ? i : keys.length - 1;
  return { estimateMs: r.retryInMs, shared: { scope: keys[at]!.key, used: r.used[at] ?? 0, limit: keys[at]!.limit, store } };
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

  async close(): Promise<void> {
    await this.shared?.close();
  }
}
