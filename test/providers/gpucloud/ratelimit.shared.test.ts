/**
 * Rate limits shared by every process of one project (issue 12): several real CLI processes (and an MCP
 * server) against one emulator with small limits, on one machine (one HOME: the locked file) and on two
 * "machines" (two HOMEs sharing a real redis-server). The emulator counts 429s; the target is zero.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Emulator } from '../../../emulator/index.js';
import { createGpuCloudClient } from '../../../engine/providers/gpucloud/client.js';
import { FileLimitStore } from '../../../engine/providers/gpucloud/limits/file.js';
import type { ClientEvent } from '../../../engine/providers/gpucloud/types.js';
import { runCli, tempHome, withEmulator, type CliResult } from '../../support/cli.js';
import { callTool, connectStdio, textOf } from '../../support/mcp.js';
import { redisMissing, startRedis, type RedisProcess } from '../../support/redis.js';
import { testWhen } from '../../support/skip.js';

const LIMITS = { perProject: 1000, perPath: 5, windowMs: 1000 };
const TIMEOUT = 180_000;
/** Tests that start a real redis-server: skipped, with the reason, where it is not installed. */
const redisTest = testWhen(test, redisMissing);

/** A HOME whose config uses the emulator's small limits (and, optionally, a Redis URL). */
function machine(redisUrl?: string): string {
  const home = tempHome('assistant-rl-');
  const lines = ['gpucloud:', '  rate_limit:', `    per_project: ${LIMITS.perProject}`, `    per_path: ${LIMITS.perPath}`, `    window_ms: ${LIMITS.windowMs}`];
  if (redisUrl) lines.push(`    redis_url: "${redisUrl}"`);
  writeFileSync(join(home, '.assistant.yaml'), lines.join('\n') + '\n', { mode: 0o600 });
  return home;
}

/** A plan of `n` GETs on one path; `tag` keeps plans distinct (each run has its own journal). */
function getsPlan(n: number, tag: string): string {
  const commands = Array.from({ length: n }, (_, i) => ({ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: `${tag} read ${i + 1}` }));
  return JSON.stringify({ version: 1, provider: 'gpucloud', commands });
}

function applyGets(env: Record<string, string>, home: string, n: number, tag: string, extra: string[] = []): Promise<CliResult> {
  return runCli([...extra, 'ask', '--apply'], { env, home, input: getsPlan(n, tag), timeoutMs: TIMEOUT });
}

function assertAllSucceeded(results: CliResult[]): void {
  results.forEach((r, i) => assert.is(r.code, 0, `process ${i} exited ${r.code}:\n${r.stderr}`));
}

test('five CLI processes on one machine share one window: zero 429s and every run succeeds', () =>
  withEmulator(
    async ({ emu, env }) => {
      const home = machine();
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => applyGets(env, home, 6, `p${i}`, ['--debug'])));
      assert.is(emu.stats().status429, 0, 'the emulator answered 429');
      assertAllSucceeded(results);
      assert.is(emu.requests().filter((r) => r.path === '/v1/instances').length, 30);
      // --debug shows the shared budget whenever a request waits for it.
      assert.ok(
        results.some((r) => /debug: rate limit GET \/v1\/instances: \d+\/5 in window \(shared: file\)/.test(r.stderr)),
        results.map((r) => r.stderr).join('\n---\n'),
      );
    },
    { rateLimit: LIMITS },
  ));

test('an MCP server and a CLI on one machine share one window: zero 429s, both succeed', () =>
  withEmulator(
    async ({ emu, env }) => {
      const home = machine();
      const { client } = await connectStdio({ env, home });
      try {
        const [tool, cli] = await Promise.all([
          callTool(client, 'assistant_plan_apply', { plan: JSON.parse(getsPlan(10, 'mcp')) }),
          applyGets(env, home, 10, 'cli'),
        ]);
        assert.not.ok(tool.isError, textOf(tool));
        assertAllSucceeded([cli]);
      } finally {
        await client.close();
      }
      assert.is(emu.stats().status429, 0, 'the emulator answered 429');
      assert.is(emu.requests().filter((r) => r.path === '/v1/instances').length, 20);
    },
    { rateLimit: LIMITS },
  ));

/** Two machines (two HOMEs) sharing one password-protected redis-server, against one rate-limited emulator. */
async function withSharedRedis(fn: (at: { emu: Emulator; env: Record<string, string>; redis: RedisProcess; homes: string[] }) => Promise<void>): Promise<void> {
  const redis = await startRedis({ password: 'pw-Never-Shown' });
  try {
    await withEmulator(({ emu, env }) => fn({ emu, env, redis, homes: [machine(redis.url), machine(redis.url)] }), { rateLimit: LIMITS });
  } finally {
    await redis.stop();
  }
}

redisTest('two machines (two HOMEs) sharing a real redis-server: zero 429s, every run succeeds, the password never shows', async () => {
  await withSharedRedis(async ({ emu, env, redis, homes }) => {
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => applyGets(env, homes[i % 2]!, 6, `m${i}`, ['--debug'])));
    assertAllSucceeded(results);
    assert.is(emu.stats().status429, 0, 'the emulator answered 429');
    const stderr = results.map((r) => r.stderr).join('\n');
    assert.match(stderr, /\(shared: redis\)/);
    assert.not.match(stderr, /warning: redis/);
    assert.not.match(stderr + results.map((r) => r.stdout).join(''), /pw-Never-Shown/);
  });
});

redisTest('redis-server killed mid-run: one warning naming the URL without its password, and every run still succeeds', async () => {
  await withSharedRedis(async ({ emu, env, redis, homes }) => {
    const runs = Array.from({ length: 2 }, (_, i) => applyGets(env, homes[i]!, 12, `k${i}`));
    // Kill once the runs are well under way (counted by the server, not by the clock).
    while (emu.requests().filter((r) => r.path === '/v1/instances').length < 6) await new Promise((r) => setTimeout(r, 20));
    await redis.kill();
    const results = await Promise.all(runs);
    assertAllSucceeded(results);
    for (const r of results) {
      assert.match(r.stderr, new RegExp(`^warning: redis at redis://127\\.0\\.0\\.1:${redis.port} unreachable; using this machine's limiter$`, 'm'));
      assert.is(r.stderr.match(/warning: redis/g)?.length, 1, r.stderr);
      assert.not.match(r.stderr, /pw-Never-Shown/);
    }
  });
});

test('redis unreachable from the start: one warning, the run uses this machine\'s limiter and succeeds', () =>
  withEmulator(
    async ({ emu, env }) => {
      const home = machine('redis://user:pw-Never-Shown@127.0.0.1:1');
      const r = await applyGets(env, home, 3, 'down');
      assertAllSucceeded([r]);
      assert.match(r.stderr, /^warning: redis at redis:\/\/127\.0\.0\.1:1 unreachable; using this machine's limiter$/m);
      assert.not.match(r.stderr, /pw-Never-Shown/);
      assert.is(emu.stats().status429, 0);
    },
    { rateLimit: LIMITS },
  ));

test('a 429 from a client we cannot see shrinks the path\'s budget for every process: the next requests wait instead of provoking more 429s', () =>
  withEmulator(
    async ({ emu }) => {
      const dir = join(tempHome('assistant-rl-'), 'ratelimit');
      const events: ClientEvent[] = [];
      // Two clients sharing this machine's record stand for two processes.
      const make = () =>
        createGpuCloudClient({
          baseUrl: emu.url,
          credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret },
          rateLimit: LIMITS,
          sharedLimits: { dir },
          onEvent: (e) => events.push(e),
        });
      const [a, b] = [make(), make()];
      // "The web console": a client that shares nothing uses up the path's window.
      const console_ = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret }, rateLimit: LIMITS });
      await Promise.all(Array.from({ length: LIMITS.perPath }, () => console_.request({ method: 'GET', path: '/v1/instances' })));
      let sawRetry!: () => void;
      const retried = new Promise<void>((r) => (sawRetry = r));
      events.length = 0;
      const first = a.request({ method: 'GET', path: '/v1/instances' });
      const poll = setInterval(() => events.some((e) => e.type === 'retry' && e.reason === 'rate_limit_exceeded') && sawRetry(), 5);
      await retried;
      clearInterval(poll);
      // Sent while `a` waits out its Retry-After: without the shared block these would be 429s too.
      const later = await Promise.all([b.request({ method: 'GET', path: '/v1/instances' }), a.request({ method: 'GET', path: '/v1/instances' })]);
      const res = await first;
      assert.is(res.status, 200);
      assert.ok(later.every((r) => r.status === 200));
      assert.is(emu.stats().status429, 1, 'only the first request met the 429');
      await Promise.all([a.close?.(), b.close?.()]);
    },
    { rateLimit: LIMITS },
  ));

test('without a shared record, a 429 still holds the path back in this process: a request sent during the Retry-After waits', () =>
  withEmulator(
    async ({ emu }) => {
      const events: ClientEvent[] = [];
      const credentials = { clientId: emu.clientId, clientSecret: emu.clientSecret };
      const c = createGpuCloudClient({ baseUrl: emu.url, credentials, rateLimit: LIMITS, onEvent: (e) => events.push(e) });
      const console_ = createGpuCloudClient({ baseUrl: emu.url, credentials, rateLimit: LIMITS });
      await Promise.all(Array.from({ length: LIMITS.perPath }, () => console_.request({ method: 'GET', path: '/v1/instances' })));
      const first = c.request({ method: 'GET', path: '/v1/instances' });
      while (!events.some((e) => e.type === 'retry')) await new Promise((r) => setTimeout(r, 5));
      const second = await c.request({ method: 'GET', path: '/v1/instances' });
      assert.is((await first).status, 200);
      assert.is(second.status, 200);
      assert.is(emu.stats().status429, 1, 'only the first request met the 429');
      assert.ok(events.some((e) => e.type === 'rate-limit-wait'), 'the held-back request reported a rate-limit wait');
    },
    { rateLimit: LIMITS },
  ));

test('config show and ASSISTANT_REDIS_URL: the redis URL is shown without its password', async () => {
  const home = machine('redis://user:pw-Never-Shown@10.0.0.1:6379/0');
  const r = await runCli(['config', 'show'], { home, timeoutMs: 60_000 });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /redis_url: redis:\/\/user:\*\*\*@10\.0\.0\.1:6379\/0/);
  assert.not.match(r.stdout + r.stderr, /pw-Never-Shown/);
});

test('a slot whose holder was killed stops counting after its lease, and a lock left by a killed process is taken over', async () => {
  const file = join(tempHome('assistant-rl-'), 'ratelimit', 'r.json');
  const store = new FileLimitStore(file);
  const keys = [{ key: 'GET /v1/x', limit: 1 }];
  const leaseMs = 300;
  assert.ok((await store.tryAcquire({ holder: 'killed', keys, windowMs: 100, leaseMs })).admitted);
  // The holder never releases (kill -9): the slot blocks others only until the lease ends.
  const blocked = await store.tryAcquire({ holder: 'next', keys, windowMs: 100, leaseMs });
  assert.not.ok(blocked.admitted);
  assert.ok(blocked.retryInMs > 0 && blocked.retryInMs <= leaseMs);
  await new Promise((r) => setTimeout(r, blocked.retryInMs + 5));
  // A process killed inside the lock leaves the lock directory behind; once stale it is taken over.
  mkdirSync(`${file}.lock`);
  const old = new Date(Date.now() - 60_000);
  utimesSync(`${file}.lock`, old, old);
  assert.ok((await store.tryAcquire({ holder: 'next', keys, windowMs: 100, leaseMs })).admitted);
});

test('a process killed with -9 while its request is in flight frees its slot one window later, not after the lease', async () => {
  const file = join(tempHome('assistant-rl-'), 'ratelimit', 'r.json');
  const store = new FileLimitStore(file);
  const keys = [{ key: 'GET /v1/x', limit: 1 }];
  const victim = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((r) => victim.once('exit', r));
  assert.ok((await store.tryAcquire({ holder: `${victim.pid}.abcd.1`, keys, windowMs: 200, leaseMs: 600_000 })).admitted);
  victim.kill('SIGKILL');
  await exited;
  const blocked = await store.tryAcquire({ holder: `${process.pid}.abcd.2`, keys, windowMs: 200, leaseMs: 600_000 });
  assert.not.ok(blocked.admitted);
  assert.ok(blocked.retryInMs <= 200, `the dead holder's slot still counts for ${blocked.retryInMs} ms`);
  await new Promise((r) => setTimeout(r, blocked.retryInMs + 5));
  assert.ok((await store.tryAcquire({ holder: `${process.pid}.abcd.3`, keys, windowMs: 200, leaseMs: 600_000 })).admitted);
});

test('an unreadable shared record counts as empty instead of failing the run', async () => {
  const file = join(tempHome('assistant-rl-'), 'ratelimit', 'r.json');
  const store = new FileLimitStore(file);
  writeFileSync(file, '{"v":1,"keys":{"GET /v1/x":{"slots":');
  assert.ok((await store.tryAcquire({ holder: 'h', keys: [{ key: 'GET /v1/x', limit: 1 }], windowMs: 100, leaseMs: 300 })).admitted);
  assert.not.ok((await store.tryAcquire({ holder: 'h2', keys: [{ key: 'GET /v1/x', limit: 1 }], windowMs: 100, leaseMs: 300 })).admitted);
});

test.run();
