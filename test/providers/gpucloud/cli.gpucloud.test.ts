/**
 * End-to-end: `assistant gpucloud …` as a child process against an in-test emulator, credentials
 * from the environment, over real HTTP.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEMO_IDS } from '../../../emulator/index.js';
import { emulatorClient } from '../../../emulator/test-client.js';
import { KINDS } from '../../../engine/providers/gpucloud/catalogue.js';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

type Rec = Record<string, unknown>;

test('list instances -o json prints exactly the JSON array the API returns', () =>
  withEmulator(async ({ emu, env }) => {
    const r = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env });
    assert.is(r.code, 0, r.stderr);
    const direct = await emulatorClient(emu).call('GET', '/v1/instances');
    assert.equal(JSON.parse(r.stdout), direct.json);
    assert.ok((direct.json as Rec[]).length >= 2, 'demo seed has instances');
  }));

test('list instances (table) has a STATUS column with the seeded statuses', () =>
  withEmulator(async ({ env }) => {
    const r = await runCli(['gpucloud', 'list', 'instances'], { env });
    assert.is(r.code, 0, r.stderr);
    const [header] = r.stdout.split('\n');
    assert.match(header!, /STATUS/);
    assert.match(r.stdout, /demo-a100/);
    assert.match(r.stdout, /running/);
    assert.match(r.stdout, /offline/);
  }));

test('every catalogue kind lists with exit 0 and valid JSON on stdout', () =>
  withEmulator(async ({ env }) => {
    const home = tempHome();
    const results = await Promise.all(KINDS.map((k) => runCli(['gpucloud', 'list', k.kind, '-o', 'json'], { env, home, timeoutMs: 120_000 }))); // ~22 children at once on a busy box
    results.forEach((r, i) => {
      assert.is(r.code, 0, `${KINDS[i]!.kind}: ${r.stderr}`);
      assert.not.throws(() => JSON.parse(r.stdout), `${KINDS[i]!.kind} printed JSON`);
    });
  }));

test('an unknown kind exits 2 with "error: usage:" and sends nothing', () =>
  withEmulator(async ({ emu, env }) => {
    const r = await runCli(['gpucloud', 'list', 'gizmos'], { env });
    assert.is(r.code, 2);
    assert.match(r.stderr, /^error: usage: .*gizmos/m);
    assert.match(r.stderr, /^hint: /m);
    assert.is(r.stdout, '');
    assert.is(emu.requests().length, 0);
  }));

test('get instance by hostname and by UUID return the same record', () =>
  withEmulator(async ({ env }) => {
    const home = tempHome();
    const byName = await runCli(['gpucloud', 'get', 'instance', 'demo-a100', '-o', 'json'], { env, home });
    const byId = await runCli(['gpucloud', 'get', 'instance', EMULATOR_DEMO_IDS.runningInstance, '-o', 'json'], { env, home });
    assert.is(byName.code, 0, byName.stderr);
    assert.is(byId.code, 0, byId.stderr);
    const a = JSON.parse(byName.stdout) as Rec;
    const b = JSON.parse(byId.stdout) as Rec;
    assert.is(a.id, EMULATOR_DEMO_IDS.runningInstance);
    assert.is(a.hostname, 'demo-a100');
    assert.equal(a, b);
    const yaml = await runCli(['gpucloud', 'get', 'instance', 'demo-a100'], { env, home });
    assert.is(yaml.code, 0);
    assert.match(yaml.stdout, /hostname: demo-a100/, 'default get output is YAML');
  }));

test('get instance with an unknown hostname exits 1 with error: not_found and a hint', () =>
  withEmulator(async ({ env }) => {
    const r = await runCli(['gpucloud', 'get', 'instance', 'no-such-box'], { env });
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: not_found: .*no-such-box/m);
    assert.match(r.stderr, /^hint: /m);
    assert.is(r.stdout, '');
  }));

test('balance prints the raw JSON on stdout and a Balance: line on stderr', () =>
  withEmulator(async ({ emu, env }) => {
    emu.setBalance(123.456);
    const r = await runCli(['gpucloud', 'balance'], { env });
    assert.is(r.code, 0, r.stderr);
    const direct = await emulatorClient(emu).call('GET', '/v1/balance');
    assert.equal(JSON.parse(r.stdout), direct.json);
    assert.match(r.stderr, /^Balance: 123\.46 USD$/m);
    assert.not.match(r.stdout, /Balance:/);
  }));

test('action shutdown <hostname> turns the running instance offline', () =>
  withEmulator(async ({ emu, env }) => {
    const r = await runCli(['gpucloud', 'action', 'shutdown', 'demo-a100'], { env });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /shutdown: demo-a100 .*accepted/);
    const inst = await emulatorClient(emu).call('GET', `/v1/instances/${EMULATOR_DEMO_IDS.runningInstance}`);
    assert.is((inst.json as Rec).status, 'offline');
  }));

test('action delete without --yes and without a TTY exits 3 and sends no PUT', () =>
  withEmulator(async ({ emu, env }) => {
    const r = await runCli(['gpucloud', 'action', 'delete', 'demo-a100'], { env, input: 'demo-a100\n' });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /^error: refused: /m);
    assert.match(r.stderr, /^hint: .*--yes/m);
    assert.is(emu.requests().filter((q) => q.method === 'PUT').length, 0);
    const inst = await emulatorClient(emu).call('GET', `/v1/instances/${EMULATOR_DEMO_IDS.runningInstance}`);
    assert.is(inst.status, 200, 'the instance still exists');
  }));

test('action delete --yes deletes the instance', () =>
  withEmulator(async ({ emu, env }) => {
    const r = await runCli(['gpucloud', 'action', 'delete', 'demo-a100', '--yes'], { env });
    assert.is(r.code, 0, r.stderr);
    const puts = emu.requests().filter((q) => q.method === 'PUT');
    assert.is(puts.length, 1);
    assert.equal(JSON.parse(puts[0]!.body!), { action: 'delete', id: EMULATOR_DEMO_IDS.runningInstance });
    const inst = await emulatorClient(emu).call('GET', `/v1/instances/${EMULATOR_DEMO_IDS.runningInstance}`);
    assert.is(inst.status, 404);
  }));

test('each API error code maps to exit 1 with "error: <code>:" and a hint line (faults exhaust retries)', async () => {
  const cases: { status: number; code: string }[] = [
    { status: 402, code: 'insufficient_funds' },
    { status: 403, code: 'forbidden_action' },
    { status: 404, code: 'not_found' },
    { status: 503, code: 'service_unavailable' },
    { status: 401, code: 'unauthorized_request' },
  ];
  await Promise.all(
    cases.map((c) =>
      withEmulator(async ({ emu, env }) => {
        emu.addFault({ path: '/v1/instances', status: c.status, times: -1 });
        const r = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, timeoutMs: 20_000 });
        assert.is(r.code, 1, `${c.status}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`^error: ${c.code}: `, 'm'), `${c.status}: ${r.stderr}`);
        assert.match(r.stderr, /^hint: \S/m, `${c.status} has a hint`);
        assert.is(r.stdout, '', `${c.status}: nothing on stdout`);
        const gets = emu.requests().filter((q) => q.path === '/v1/instances').length;
        if (c.status === 503) assert.is(gets, 4, '503: first attempt plus 3 retries');
        else if (c.status === 401) assert.is(gets, 2, '401: one re-authentication, then give up');
        else assert.is(gets, 1, `${c.status} is not retried`);
      }),
    ),
  );
});

test('a 503 that recovers after 2 failures exits 0', () =>
  withEmulator(async ({ emu, env }) => {
    emu.addFault({ path: '/v1/instances', status: 503, times: 2 });
    const r = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env });
    assert.is(r.code, 0, r.stderr);
    assert.ok(Array.isArray(JSON.parse(r.stdout)));
    assert.is(emu.requests().filter((q) => q.path === '/v1/instances').length, 3);
  }));

test('--debug never prints the client secret or an access/refresh token', () =>
  withEmulator(
    async ({ env }) => {
      const home = tempHome();
      const runs = [
        await runCli(['gpucloud', 'list', 'instances', '--debug'], { env, home }),
        await runCli(['gpucloud', 'balance', '--debug'], { env, home }),
        await runCli(['credentials', 'test', 'gpucloud', '--debug'], { env, home }),
      ];
      const tokenDir = join(home, '.assistant', 'tokens');
      const tokens: string[] = [];
      for (const f of readdirSync(tokenDir)) {
        const cached = JSON.parse(readFileSync(join(tokenDir, f), 'utf8')) as { access_token: string; refresh_token?: string };
        tokens.push(cached.access_token);
        if (cached.refresh_token) tokens.push(cached.refresh_token);
      }
      assert.ok(tokens.length >= 1, 'a token was cached, so we know what to look for');
      for (const r of runs) {
        assert.is(r.code, 0, r.stderr);
        assert.match(r.stderr, /^debug: /m, '--debug printed something');
        const all = r.stdout + r.stderr;
        assert.not.ok(all.includes(env.GPUCLOUD_CLIENT_SECRET!), 'client secret leaked');
        for (const t of tokens) assert.not.ok(all.includes(t), 'token leaked');
        assert.not.match(all, /eyJ[A-Za-z0-9_-]{6,}/);
        assert.not.match(all, /Bearer [A-Za-z0-9]/);
      }
    },
    { clientSecret: 'e2e-s3cr3t-Zq81xYw04' },
  ));

test('two CLI processes with the same HOME reuse one token (one token request)', () =>
  withEmulator(async ({ emu, env }) => {
    const home = tempHome();
    const a = await runCli(['gpucloud', 'list', 'instances'], { env, home });
    const b = await runCli(['gpucloud', 'list', 'volumes'], { env, home });
    assert.is(a.code, 0, a.stderr);
    assert.is(b.code, 0, b.stderr);
    assert.is(emu.stats().tokenRequests, 1);
    const c = await runCli(['gpucloud', 'list', 'instances'], { env });
    assert.is(c.code, 0);
    assert.is(emu.stats().tokenRequests, 2, 'a fresh HOME fetches its own token');
  }));

test.run();
