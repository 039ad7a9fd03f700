/**
 * The shared rate-limit record across machines: one Redis sorted set per counted key (member = holder,
 * score = when the slot stops counting), changed only by the Lua scripts below, which Redis runs
 * atomically. All times come from the Redis server's clock (TIME), so clients on machines with skewed
 * clocks still agree. This is the usual sorted-set sliding-window pattern, with one change that keeps the
 * in-process guarantee (store.ts): a slot is added with score admission + lease and moved to
 * arrival + window when the response arrives, instead of being counted from admission.
 *
 * Why not bottleneck's clustering: it is a fixed-window reservoir refreshed on an interval, so two
 * bursts around a refresh can double the rate inside one sliding window; nor rate-limiter-flexible: its
 * Redis limiters count fixed windows (or tokens), and neither can hold a slot until the response arrives.
 *
 * The connection never queues commands while down and never reconnects behind our back: a failure
 * surfaces at once so the caller (shared.ts) can fall back to this machine's limiter.
 */
import type { Redis } from 'ioredis';
import type { AcquireRequest, AcquireResult, SharedLimitStore } from './store.js';

const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: n slot sets, then their n block keys. ARGV: holder, lease, n limits. */
const ACQUIRE = `${NOW_MS}
local n = #KEYS / 2
local holder = ARGV[1]
local lease = tonumber(ARGV[2])
local wait = 0
local used = {}
for i = 1, n do
  local key = KEYS[i]
  local limit = tonumber(ARGV[2 + i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local c = redis.call('ZCARD', key)
  used[i] = c
  local blocked = tonumber(redis.call('GET', KEYS[n + i]) or '0')
  if blocked > now then wait = math.max(wait, blocked - now) end
  if c >= limit then
    local e = redis.call('ZRANGE', key, c - limit, c - limit, 'WITHSCORES')
    wait = math.max(wait, tonumber(e[2]) - now)
  end
end
if wait > 0 then return {0, wait, unpack(used)} end
for i = 1, n do
  redis.call('ZADD', KEYS[i], now + lease, holder)
  if redis.call('PTTL', KEYS[i]) < lease then redis.call('PEXPIRE', KEYS[i], lease) end
end
return {1, 0, unpack(used)}`;

/** KEYS: the slot sets. ARGV: holder, window. */
const RELEASE = `${NOW_MS}
local window = tonumber(ARGV[2])
for i = 1, #KEYS do
  if redis.call('ZSCORE', KEYS[i], ARGV[1]) then
    redis.call('ZADD', KEYS[i], 'XX', now + window, ARGV[1])
    if redis.call('PTTL', KEYS[i]) < window then redis.call('PEXPIRE', KEYS[i], window) end
  end
end
return 1`;

/** KEYS: one block key. ARGV: for how many ms. */
const BLOCK = `${NOW_MS}
local untilMs = now + tonumber(ARGV[1])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > cur then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1])) end
return 1`;

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

export class RedisLimitStore implements SharedLimitStore {
  readonly kind = 'redis' as const;
  private redis: Redis | undefined;
  private connected: Promise<Redis> | undefined;

  /** `namespace` separates projects + origins; it is wrapped in a hash tag so every key of a project lands on one cluster slot. */
  constructor(
    private readonly url: string,
    private readonly namespace: string,
    private readonly opts: { connectTimeoutMs?: number; commandTimeoutMs?: number } = {},
  ) {}

  /** Connects on first use; ioredis itself is loaded only then, so commands without a Redis URL never pay for it. */
  private ready(): Promise<Redis> {
    return (this.connected ??= (async () => {
      const { Redis } = await import('ioredis');
      const redis = new Redis(this.url, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        connectTimeout: this.opts.connectTimeoutMs ?? 2_000,
        commandTimeout: this.opts.commandTimeoutMs ?? 2_000,
        enableReadyCheck: false,
      });
      // Failures surface through the commands; an unhandled 'error' event would crash the process.
      redis.on('error', () => undefined);
      this.redis = redis;
      await redis.connect();
      return redis;
    })());
  }

  private slotKey(key: string): string {
    return `assistant:rl:{${this.namespace}}:${key}`;
  }

  async tryAcquire(req: AcquireRequest): Promise<AcquireResult> {
    const redis = await this.ready();
    const keys = req.keys.map((k) => this.slotKey(k.key));
    const out = (await redis.eval(
      ACQUIRE,
      keys.length * 2,
      ...keys,
      ...keys.map((k) => `${k}:blocked`),
      req.holder,
      Math.ceil(req.leaseMs),
      ...req.keys.map((k) => k.limit),
    )) as number[];
    return { admitted: out[0] === 1, retryInMs: Number(out[1]), used: out.slice(2).map(Number) };
  }

  async release(holder: string, keys: string[], windowMs: number): Promise<void> {
    const redis = await this.ready();
    await redis.eval(RELEASE, keys.length, ...keys.map((k) => this.slotKey(k)), holder, Math.ceil(windowMs));
  }

  async block(key: string, forMs: number): Promise<void> {
    const redis = await this.ready();
    await redis.eval(BLOCK, 1, `${this.slotKey(key)}:blocked`, Math.max(1, Math.ceil(forMs)));
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }
}
