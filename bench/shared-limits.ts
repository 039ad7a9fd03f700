/**
 * Shared rate limits benchmark (issue 12): 5 real CLI processes × a plan of 60 GETs on one path, with a
 * 20-per-second per-path limit on both the client (config) and the emulator. Run once with the processes
 * sharing this machine's record (one HOME) and once sharing a real redis-server (two HOMEs, "two
 * machines"). Target: zero 429s, and the server-side span of the GETs within 1.1× of the theoretical
 * minimum.
 *
 * Minimum: a server counting receipts in sliding 1 s windows accepts at most 20 in any window, so receipt
 * i + 20 comes at least W after receipt i; 300 receipts need r₃₀₀ ≥ r₁ + ⌊299 / 20⌋·W = 14 W = 14 s, and
 * likewise r₃₀₀ ≥ r₂₀ + 14 W (the measure reported first, as it leaves out the processes' start-up).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../emulator/index.js';
import { FileLimitStore } from '../engine/providers/gpucloud/limits/file.js';
import { RedisLimitStore } from '../engine/providers/gpucloud/limits/redis.js';
import { SharedLimiter } from '../engine/providers/gpucloud/limits/shared.js';
import type { SharedLimitStore } from '../engine/providers/gpucloud/limits/store.js';
import { binOf, childEnv, startRedis, tempDir, THIS_BUILD, timeNodeAsync } from './fixtures.js';

const tempHome = (prefix: string) => tempDir(prefix);
const emulatorEnv = (emu: Emulator) => ({ GPUCLOUD_BASE_URL: emu.url, GPUCLOUD_CLIENT_ID: emu.clientId, GPUCLOUD_CLIENT_SECRET: emu.clientSecret });
/** `assistant <args>` with its own HOME; exit code and stderr. */
async function runCli(args: string[], o: { env: Record<string, string>; home: string; input: string }): Promise<{ code: number | null; stderr: string }> {
  return timeNodeAsync([binOf(THIS_BUILD), ...args], childEnv({ ...o.env, HOME: o.home }), o.input);
}

const PROCESSES = 5;
const GETS = 60;
const LIMITS = { perProject: 100_000, perPath: 20, windowMs: 1000 };
const MIN_SPAN_MS = Math.floor((PROCESSES * GETS - 1) / LIMITS.perPath) * LIMITS.windowMs;

function home(redisUrl?: string): string {
  const dir = tempHome('assistant-bench-rl-');
  const lines = ['gpucloud:', '  rate_limit:', `    per_project: ${LIMITS.perProject}`, `    per_path: ${LIMITS.perPath}`, `    window_ms: ${LIMITS.windowMs}`];
  if (redisUrl) lines.push(`    redis_url: "${redisUrl}"`);
  writeFileSync(join(dir, '.assistant.yaml'), lines.join('\n') + '\n', { mode: 0o600 });
  return dir;
}

async function once(label: string, homes: string[]): Promise<void> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: LIMITS, lifecycleMs: 1 });
  try {
    const env = emulatorEnv(emu);
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: PROCESSES }, (_, p) => {
        const commands = Array.from({ length: GETS }, (_, i) => ({ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: `p${p} read ${i}` }));
        const input = JSON.stringify({ version: 1, provider: 'gpucloud', commands });
        return runCli(['ask', '--apply'], { env, home: homes[p % homes.length]!, input });
      }),
    );
    const wall = performance.now() - started;
    const failed = results.filter((r) => r.code !== 0);
    const gets = emu.requests().filter((r) => r.path === '/v1/instances' && r.status === 200).map((r) => r.at).sort((a, b) => a - b);
    const span = gets[gets.length - 1]! - gets[0]!;
    // The processes start one by one (node start-up on a busy machine), so the first window is rarely
    // full at once; receipt 300 ≥ receipt 20 + 14 W holds just the same and leaves start-up out.
    const steady = gets[gets.length - 1]! - gets[LIMITS.perPath - 1]!;
    const ratio = steady / MIN_SPAN_MS;
    // What each refill costs beyond the window: receipt i + limit versus receipt i + W (response travel,
    // timer wake-up, record lock, request travel; all of it scheduling on a busy machine).
    const lag = gets.slice(LIMITS.perPath).map((t, i) => t - gets[i]! - LIMITS.windowMs).sort((a, b) => a - b);
    const pct = (p: number) => lag[Math.min(lag.length - 1, Math.floor(p * lag.length))]!.toFixed(0);
    console.log(
      `  ${label}: ${gets.length} GETs; receipt ${LIMITS.perPath} to last ${(steady / 1000).toFixed(2)} s ` +
        `(minimum ${MIN_SPAN_MS / 1000} s, ratio ${ratio.toFixed(3)}, target ≤ 1.1: ${ratio <= 1.1 ? 'met' : 'MISSED'}); ` +
        `first to last ${(span / 1000).toFixed(2)} s (ratio ${(span / MIN_SPAN_MS).toFixed(3)}, start-up included); ` +
        `429s: ${emu.stats().status429} (target 0: ${emu.stats().status429 === 0 ? 'met' : 'MISSED'}); ` +
        `failed runs: ${failed.length}; refill lag median ${pct(0.5)} ms, p90 ${pct(0.9)} ms; ` +
        `wall time with process start-up ${(wall / 1000).toFixed(2)} s; load average ${loadavg()[0]!.toFixed(1)}`,
    );
    for (const f of failed) console.log(`    exit ${f.code}: ${f.stderr.trim().split('\n').slice(-2).join(' | ')}`);
  } finally {
    await emu.close();
  }
}

/**
 * What the shared stage costs a request, uncontended, in one process: through the leasing limiter (what
 * the client uses: the record is asked once per batch) and, for comparison, asking the record for every
 * request (acquire + release of one slot, which is what each request cost before leases).
 */
async function leasedCost(label: string, limiter: SharedLimiter, requests = 5000): Promise<void> {
  const started = performance.now();
  for (let i = 0; i < requests; i++) (await limiter.acquire('GET /v1/instances', undefined))!.release();
  const each = ((performance.now() - started) / requests) * 1000;
  console.log(`  ${label}: ${each.toFixed(1)} µs per request through the leasing limiter (${requests} requests, ${limiter.stats.leases} record exchanges)`);
  await limiter.close();
}

/** The shared stage's own cost: one acquire + release pair, uncontended, in one process. */
async function perRequestCost(label: string, store: SharedLimitStore, pairs = 500): Promise<void> {
  const keys = [
    { key: 'project', limit: 1e9 },
    { key: 'GET /v1/instances', limit: 1e9 },
  ];
  const started = performance.now();
  for (let i = 0; i < pairs; i++) {
    await store.tryAcquire({ holder: `bench.${i}`, keys, windowMs: 1000, leaseMs: 31_000 });
    await store.release(`bench.${i}`, keys.map((k) => k.key), 1000, Date.now());
  }
  const each = (performance.now() - started) / pairs;
  console.log(`  ${label}: ${each.toFixed(2)} ms per request (acquire + release, ${pairs} pairs, uncontended)`);
  await store.close();
}

export async function runSharedLimitsBench(): Promise<void> {
  console.log(`shared rate limits: ${PROCESSES} CLI processes × ${GETS} GETs on one path, ${LIMITS.perPath} per ${LIMITS.windowMs} ms per path`);
  const high = { perProject: 1e9, perPath: 1e9, windowMs: 1000 };
  await leasedCost('file record', new SharedLimiter(high, 'bench', 31_000, { dir: tempHome('assistant-bench-rl-') }));
  await perRequestCost('file record, asked per request', new FileLimitStore(join(tempHome('assistant-bench-rl-'), 'r.json')));
  await once('one machine (file record)', [home()]);
  let redis;
  try {
    redis = await startRedis();
  } catch (err) {
    console.log(`  through redis: not measured (${(err as Error).message})`);
    return;
  }
  try {
    await leasedCost('redis record', new SharedLimiter(high, 'bench', 31_000, { dir: tempHome('assistant-bench-rl-'), redisUrl: redis.url }));
    await perRequestCost('redis record, asked per request', new RedisLimitStore(redis.url, 'bench'));
    await once('two machines through redis', [home(redis.url), home(redis.url)]);
  } finally {
    await redis.stop();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) await runSharedLimitsBench();
