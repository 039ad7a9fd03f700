/**
 * The shared rate-limit record across machines, in Redis: per counted key a hash of holders
 * (`holder → "slots,until,want,since"`), a hash of done groups (`expiry → count`) and a block key, changed only
 * by the Lua script below, which Redis runs atomically and which applies the rules of record.ts (the
 * file store runs the same rules in TypeScript; keep the two in step). All times come from the Redis server's clock (TIME), so
 * clients on machines with skewed clocks still agree: a client reports how long ago its responses arrived,
 * never when. Like the file record it stays compact: entries per process and per expiry group, never per
 * request; processes lease slots in batches (shared.ts), so Redis is asked once per batch.
 *
 * Why not bottleneck's clustering: it is a fixed-window reservoir refreshed on an interval, so two
 * bursts around a refresh can double the rate inside one sliding window; nor rate-limiter-flexible: its
 * Redis limiters count fixed windows (or tokens), and neither can hold a slot until the response arrives.
 *
 * The connection never queues commands while down and never reconnects behind our back: a failure
 * surfaces at once so the caller (shared.ts) can fall back to this machine's limiter.
 */
import type { Redis } from 'ioredis';
import { acquireOne, releaseOne, type AcquireRequest, type AcquireResult, type LeaseGrant, type LeaseRequest, type SharedLimitStore } from './store.js';

const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS: per counted key its holders hash, done hash and block key (3 per key).
 * ARGV: holder, window, lease, demand, atomic (0/1), then per key: limit, want, keep, n, n ages (ms).
 * Returns per key: held, used, retry (ms), blocked (0/1).
 */
const LEASE = `${NOW_MS}
local holder = ARGV[1]
local window = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local demand = tonumber(ARGV[4])
local atomic = ARGV[5] == '1'
local n = #KEYS / 3
local merge = math.max(1, math.floor(window / 64))
local p = 6
local reqs, recs = {}, {}
for i = 1, n do
  local r = { limit = tonumber(ARGV[p]), want = tonumber(ARGV[p + 1]), keep = tonumber(ARGV[p + 2]), done = {} }
  local nd = tonumber(ARGV[p + 3])
  p = p + 4
  for j = 1, nd do
    r.done[j] = now - tonumber(ARGV[p]) + window
    p = p + 1
  end
  reqs[i] = r
  local rec = { h = {}, d = {}, b = tonumber(redis.call('GET', KEYS[3 * i]) or '0') }
  local hv = redis.call('HGETALL', KEYS[3 * i - 2])
  for j = 1, #hv, 2 do
    local a, u, w, s = string.match(hv[j + 1], '^([^,]+),([^,]+),([^,]+),([^,]+)$')
    u = tonumber(u)
    if u and u > now then rec.h[hv[j]] = { tonumber(a), u, tonumber(w), tonumber(s) } end
  end
  local dv = redis.call('HGETALL', KEYS[3 * i - 1])
  for j = 1, #dv, 2 do
    local e = tonumber(dv[j])
    if e and e > now then table.insert(rec.d, { e, tonumber(dv[j + 1]) }) end
  end
  table.sort(rec.d, function(x, y) return x[1] < y[1] end)
  recs[i] = rec
end

local function addDone(d, e, c, m)
  local at = #d + 1
  while at > 1 and d[at - 1][1] > e do at = at - 1 end
  local after, before = d[at], d[at - 1]
  if after and after[1] - e <= m then after[2] = after[2] + c return end
  if before and e - before[1] <= m then before[1] = e before[2] = before[2] + c return end
  table.insert(d, at, { e, c })
end

local function occupied(rec, except)
  local s = 0
  for h, e in pairs(rec.h) do if h ~= except then s = s + e[1] end end
  for _, g in ipairs(rec.d) do s = s + g[2] end
  return s
end

local held = {}
local short = false
for i = 1, n do
  local rec, r = recs[i], reqs[i]
  for _, e in ipairs(r.done) do if e > now then addDone(rec.d, e, 1, merge) end end
  local mine = rec.h[holder]
  if mine then mine[1] = math.max(0, mine[1] - #r.done) end
  local demanders = 0
  if r.want > 0 then demanders = 1 end
  for h, e in pairs(rec.h) do if h ~= holder and (e[1] > 0 or e[3] > 0) then demanders = demanders + 1 end end
  local share = math.ceil(r.limit / math.max(1, demanders))
  local mySince = math.huge
  if rec.h[holder] and rec.h[holder][4] > 0 then mySince = rec.h[holder][4] end
  local reserved = 0
  for h, e in pairs(rec.h) do
    if h ~= holder and e[4] > 0 and e[4] < mySince then reserved = reserved + math.max(0, math.min(e[3], share) - e[1]) end
  end
  local room = r.limit - occupied(rec, holder) - reserved
  local fresh = 0
  if rec.b <= now then fresh = math.max(0, math.min(r.want, room, share)) end
  held[i] = math.max(r.keep, fresh)
  if held[i] < r.want then short = true end
end
if atomic and short then for i = 1, n do held[i] = reqs[i].keep end end

local out = {}
for i = 1, n do
  local rec, r = recs[i], reqs[i]
  local since = 0
  if held[i] <= r.keep and held[i] < r.want then
    since = now
    if rec.h[holder] and rec.h[holder][4] > 0 then since = rec.h[holder][4] end
  end
  if held[i] > 0 then rec.h[holder] = { held[i], now + lease, r.want, since }
  elseif r.want > 0 then rec.h[holder] = { 0, now + demand, r.want, since }
  else rec.h[holder] = nil end
  local hk, dk = KEYS[3 * i - 2], KEYS[3 * i - 1]
  redis.call('DEL', hk, dk)
  local last = 0
  for h, e in pairs(rec.h) do
    redis.call('HSET', hk, h, e[1] .. ',' .. e[2] .. ',' .. e[3] .. ',' .. e[4])
    last = math.max(last, e[2])
  end
  if last > now then redis.call('PEXPIREAT', hk, math.ceil(last)) end
  last = 0
  for _, g in ipairs(rec.d) do
    redis.call('HSET', dk, string.format('%.0f', g[1]), g[2])
    last = math.max(last, g[1])
  end
  if last > now then redis.call('PEXPIREAT', dk, math.ceil(last)) end
  local retry = 0
  if held[i] < r.want then
    if rec.b > now then retry = rec.b - now
    else
      local at = math.huge
      if rec.d[1] then at = rec.d[1][1] end
      for h, e in pairs(rec.h) do if h ~= holder and e[1] > 0 then at = math.min(at, e[2]) end end
      if at ~= math.huge then retry = math.max(1, math.ceil(at - now)) end
    end
  end
  local blocked = 0
  if rec.b > now then blocked = 1 end
  table.insert(out, held[i])
  table.insert(out, occupied(rec, nil))
  table.insert(out, retry)
  table.insert(out, blocked)
end
return out`;

/** KEYS: one block key. ARGV: for how many ms. */
const BLOCK = `${NOW_MS}
local untilMs = now + tonumber(ARGV[1])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > cur then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1])) end
return 1`;

// The URL as it may be shown lives in store.ts, so that a fallback warning loads nothing of Redis.
export { displayRedisUrl } from './store.js';

export class RedisLimitStore implements SharedLimitStore {
  readonly kind = 'redis' as const;
  private redis: Redis | undefined;
  private connected: Promise<Redis> | undefined;

  /** `namespace` separates projects + origins. */
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

  /** The keys of one counted key; the namespace is a hash tag, so every key of a project lands on one cluster slot. */
  private keysOf(key: string): string[] {
    const base = `assistant:rl2:{${this.namespace}}:${key}`;
    return [`${base}:h`, `${base}:d`, `${base}:b`];
  }

  async lease(req: LeaseRequest): Promise<LeaseGrant[]> {
    const redis = await this.ready();
    const args: (string | number)[] = [req.holder, Math.ceil(req.windowMs), Math.ceil(req.leaseMs), Math.ceil(req.demandMs), req.atomic ? 1 : 0];
    for (const k of req.keys) args.push(Math.floor(k.limit), k.want, k.keep, k.doneAgoMs.length, ...k.doneAgoMs.map((ms) => Math.max(0, Math.floor(ms))));
    const keys = req.keys.flatMap((k) => this.keysOf(k.key));
    const out = (await redis.eval(LEASE, keys.length, ...keys, ...args)) as number[];
    return req.keys.map((_, i) => ({ held: Number(out[4 * i]), used: Number(out[4 * i + 1]), retryInMs: Number(out[4 * i + 2]), blocked: out[4 * i + 3] === 1 }));
  }

  tryAcquire(req: AcquireRequest): Promise<AcquireResult> {
    return acquireOne(this, req);
  }

  /** `arrivedAt` is this machine's clock; Redis is told how long ago instead. */
  async release(holder: string, keys: string[], windowMs: number, arrivedAt: number): Promise<void> {
    await releaseOne(this, holder, keys, windowMs, Date.now() - arrivedAt);
  }

  async block(key: string, forMs: number): Promise<void> {
    const redis = await this.ready();
    await redis.eval(BLOCK, 1, this.keysOf(key)[2]!, Math.max(1, Math.ceil(forMs)));
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }
}
