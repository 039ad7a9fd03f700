/**
 * Waits that say so, and `--timeout` bounding the whole command (issue 9 §4): the real CLI against the
 * emulator. No assertion on elapsed time: a command that waited its Retry-After out would outlast the
 * child's generous timeout instead.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { progressObserver } from '../../mcp/progress.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const LONG = { timeoutMs: 90_000 };

test('--timeout bounds the whole command, waits included: a 429 with Retry-After 120 ends with error: timeout (exit 1), and the wait is announced', async () => {
  await withEmulator(async ({ emu, env }) => {
    emu.addFault({ method: 'GET', path: '/v1/instances', status: 429, retryAfter: '120', times: -1 });
    const r = await runCli(['--timeout', '10', 'gpucloud', 'list', 'instances'], { env, ...LONG });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /waiting 120 s \(Retry-After\) for the rate limit of GET \/v1\/instances/);
    assert.match(r.stderr, /^error: timeout: timeout after 10 s \(--timeout\)/m);
    assert.match(r.stderr, /^hint: .*--timeout <seconds> or config `timeout`/m);
    assert.is(r.stdout, '');
  });
});

test('config timeout bounds the whole plan run the same way: the run fails with timeout, not interrupted', async () => {
  await withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    writeFileSync(join(home, 'c.yaml'), 'timeout: 3\n', { mode: 0o600 });
    emu.addFault({ method: 'GET', path: '/v1/balance', status: 429, retryAfter: '120', times: -1 });
    const plan = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' }] });
    const r = await runCli(['--config', join(home, 'c.yaml'), 'ask', '--apply', '-o', 'json'], { env, home, input: plan, ...LONG });
    assert.is(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.is(report.status, 'failed');
    assert.is(report.error.code, 'timeout');
    assert.match(report.error.message, /config timeout/);
  });
});

test('a client-side rate-limit wait is announced on stderr once, with the method and path', async () => {
  await withEmulator(async ({ env }) => {
    const home = tempHome();
    writeFileSync(join(home, 'c.yaml'), 'gpucloud:\n  rate_limit:\n    per_path: 1\n    window_ms: 2500\n', { mode: 0o600 });
    const get = { args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' };
    const plan = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [get, get, get] });
    const r = await runCli(['--config', join(home, 'c.yaml'), 'ask', '--apply'], { env, home, input: plan, ...LONG });
    assert.is(r.code, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('waiting '));
    assert.ok(lines.length >= 1, r.stderr);
    assert.match(lines[0]!, /^waiting [1-3] s for the rate limit of GET \/v1\/balance$/);
    assert.is(r.stdout.includes('waiting'), false, 'only on stderr');
  });
});

test('a gpucloud-wait step says what it is waiting for', async () => {
  await withEmulator(
    async ({ env }) => {
      const create = {
        args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: 'CPU.4V.16G', image: 'ubuntu-24.04', hostname: 'wait-1', description: '', location_code: 'FIN-01' })],
        reason: 'create',
        produces: { ID: '$.id' },
      };
      const wait = { args: ['gpucloud-wait', 'instances', '<ID>', 'running', '60', '0.5'], reason: 'wait until running' };
      const plan = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [create, wait] });
      const r = await runCli(['ask', '--apply'], { env, input: plan, ...LONG });
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stderr, /waiting for instance [0-9a-f-]{36} to be running \(status (ordered|provisioning), \d+ s\)/);
    },
    { lifecycleMs: 1500 },
  );
});

test('--debug shows every event of the run from the same observer: steps started and done, and the waits', async () => {
  await withEmulator(async ({ env }) => {
    const home = tempHome();
    writeFileSync(join(home, 'c.yaml'), 'gpucloud:\n  rate_limit:\n    per_path: 1\n    window_ms: 1500\n', { mode: 0o600 });
    const get = { args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' };
    const plan = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [get, get] });
    const r = await runCli(['--debug', '--config', join(home, 'c.yaml'), 'ask', '--apply'], { env, home, input: plan, ...LONG });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /^debug: run: step 0 started: GET \/v1\/balance$/m);
    assert.match(r.stderr, /^debug: run: step 0 done \(status 200, \d+ ms\)$/m);
    assert.match(r.stderr, /^debug: run: waiting \(rate-limit, \d+ ms\) in step 1$/m);
    assert.match(r.stderr, /^debug: run: step 1 done/m);
  });
});

test('the MCP progress of a run comes from the same events: steps and waits become notifications', () => {
  const sent: [number, number, string][] = [];
  const observe = progressObserver((done, total, message) => sent.push([done, total, message]));
  observe({ type: 'step-started', index: 0, total: 2, description: 'GET /v1/balance', reason: 'balance' });
  observe({ type: 'step-done', index: 0, total: 2, status: 200, durationMs: 3, produced: {} });
  observe({ type: 'step-started', index: 1, total: 2, description: 'GET /v1/balance', reason: 'again' });
  observe({ type: 'waiting', index: 1, wait: { reason: 'rate-limit', waitMs: 1200, message: 'waiting 2 s for the rate limit of GET /v1/balance' } });
  assert.equal(sent, [
    [0, 2, 'step 1/2: GET /v1/balance (balance)'],
    [1, 2, 'step 1/2 done'],
    [1, 2, 'step 2/2: GET /v1/balance (again)'],
    [1, 2, 'waiting 2 s for the rate limit of GET /v1/balance'],
  ]);
});

test.run();
