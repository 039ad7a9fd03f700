/**
 * vps_a (a DigitalOcean-style API v2) as an ask context, driven through the CLI against its fake
 * (emulator/fakes/vps_a.ts) over real HTTP: routed by its words and by --vps-a, combined with gpucloud,
 * pages followed, 401 and 429 said clearly, the token never printed, a hostile server bounded in pages,
 * bytes and time, the MCP ask tool reading the same context, and writes refused without --destroyer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startVpsAFake } from '../../../emulator/fakes/vps_a.js';
import { cliInThisProcess, runCli, withEmulator } from '../../support/cli.js';
import { fakePerTest, vpsAEnv } from '../../support/integration.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const { home, withFake, ask, timesOut, mcpAnswer } = fakePerTest('assistant-vps-a-', startVpsAFake, vpsAEnv);

test('a question about droplets is routed to vps_a without a flag, every page is read, and the cost is answered with a total', () =>
  withFake(
    async (fake, env) => {
      const r = await ask(['what do my droplets cost?'], env);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /^5 droplets:\n- web-1 \(s-1vcpu-1gb, nyc3, 203\.0\.113\.10, \$6\.00\/month, active\)/);
      assert.match(r.stdout, /- build-1 \(s-4vcpu-8gb, ams3, 203\.0\.113\.13, \$48\.00\/month, off\)/);
      assert.match(r.stdout, /Total: \$90\.00 per month \(\$0\.13 per hour\) for 5 droplets\./);
      const paths = fake.requests().map((q) => `${q.method} ${q.path}`);
      assert.equal(paths, ['GET /v2/droplets?per_page=200', 'GET /v2/droplets?page=2&per_page=2', 'GET /v2/droplets?page=3&per_page=2'], 'links.pages.next followed to the end');
    },
    { pageSize: 2 },
  ));

test('--vps-a selects vps_a for a question without its words; the state asked for filters the list', () =>
  withFake(async (_fake, env) => {
    const r = await ask(['--vps-a', 'which machines are off?'], env);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout.trim(), '1 droplet off:\n- build-1 (s-4vcpu-8gb, ams3, 203.0.113.13, $48.00/month, off)');
    const route = await runCli(['ask', '--route-only', '-o', 'json', 'how many droplets are active'], { env, home: home() });
    assert.equal(JSON.parse(route.stdout).providers, ['vps_a']);
    assert.equal(JSON.parse(route.stdout).context_kinds, ['vps_a/droplets']);
  }));

test('--vps-a with --gpucloud gives one combined view of both accounts', () =>
  withFake((_fake, env) =>
    withEmulator(async ({ env: gpu }) => {
      const r = await ask(['--gpucloud', '--vps-a', 'how many instances and droplets do I have?'], { ...env, ...gpu });
      assert.is(r.code, 0, r.stderr);
      assert.is(r.stdout.trim(), 'You have 2 instances: 1 offline, 1 running.\n5 droplets.', 'gpucloud first, then vps_a');
    }),
  ));

test('a token the API refuses (401) is one clear error naming where the token came from; nothing is printed of it', () =>
  withFake(async (_fake, env) => {
    const r = await ask(['list my droplets'], { ...env, VPS_A_API_TOKEN: 'dop_v1_wrongwrongwrongwrong' });
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: unauthorized: vps_a: 401 the token was not accepted \(\/v2\/droplets\)(: .+)?$/m);
    assert.match(r.stderr, /^hint: .*VPS_A_API_TOKEN.*credentials test vps_a/m);
    assert.not.match(r.stdout + r.stderr, /wrongwrongwrong/);
    assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
  }));

test('a 429 with Retry-After is waited out and the answer comes; a limit that never lifts is a clear error', () =>
  withFake(async (fake, env) => {
    fake.rateLimit(1, 1);
    const ok = await ask(['how many droplets do I have?'], env);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(ok.stdout.trim(), '5 droplets.');
    assert.is(fake.requests().length, 2, 'one refused, one answered');
    fake.rateLimit(100, 0);
    const r = await ask(['how many droplets do I have?'], env);
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: rate_limited: vps_a: still rate limited after waiting three times$/m);
  }));

test('the token never reaches stdout or stderr, with --debug and -o json', () =>
  withFake(async (_fake, env) => {
    const r = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '-o', 'json', 'what do my droplets cost?'], { env, home: home() });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /vps_a: GET \/v2\/droplets/, 'the debug output shows the requests');
    assert.not.ok((r.stdout + r.stderr).includes(env.VPS_A_API_TOKEN!), 'the token is not printed');
  }));

test('an endless next link stops at the page bound and the answer says the list is incomplete', () =>
  withFake(async (fake, env) => {
    fake.hostile({ endlessNext: true });
    const r = await ask(['how many droplets do I have?'], env);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /\(Incomplete: vps_a droplets: only the first 10 pages \(\d+ items\) were read; the list above is not the whole account\.\)/);
    assert.is(fake.requests().length, 10);
  }, { pageSize: 1 }));

test('huge pages stop at the byte bound (the answer says so), and a server that never finishes cannot hold ask past --timeout', () =>
  withFake(async (fake, env) => {
    fake.hostile({ hugePageBytes: 3 * 1024 * 1024 });
    const big = await ask(['how many droplets do I have?'], env);
    assert.is(big.code, 0, big.stderr);
    assert.match(big.stdout, /\(Incomplete: vps_a droplets: stopped at 5242880 bytes \(\d+ items read\)/);
    fake.hostile({ hugePageBytes: 8 * 1024 * 1024 });
    const huge = await ask(['how many droplets do I have?'], env);
    assert.is(huge.code, 0, huge.stderr);
    assert.is(huge.stdout.trim(), '(Incomplete: vps_a droplets could not be read: the answer was larger than 5242880 bytes and was not read.)', 'a first page over the bound is not read, and not called empty');
    fake.hostile({ slow: true });
    await timesOut(['what do my droplets cost?'], env);
  }, { pageSize: 1 }));

test('the MCP ask tool reads the same vps_a context (read-only) and answers', () =>
  withFake(async (fake, env) => {
    assert.match(await mcpAnswer(env, 'what do my droplets cost?', 'vps_a', fake.token), /Total: \$90\.00 per month/);
    assert.ok(fake.requests().every((q) => q.method === 'GET'));
  }));

test('credentials test vps_a reads the account; a plain-HTTP base URL to another host is refused before the token is sent', () =>
  withFake(async (fake, env) => {
    const ok = await runCli(['credentials', 'test', 'vps_a'], { env, home: home() });
    assert.is(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^vps_a credentials work \(source: VPS_A_API_TOKEN\); account active, droplet limit 25$/m);
    const clear = await ask(['list my droplets'], { ...env, ASSISTANT_VPS_A_BASE_URL: 'http://vps.example.com' });
    assert.is(clear.code, 2);
    assert.match(clear.stderr, /plain HTTP to another host, and a token is configured/);
    assert.is(fake.requests().length, 1, 'only the credentials test reached the fake');
  }));

test('a write to vps_a (DELETE a droplet) is refused without --destroyer; nothing is sent', () =>
  withFake(async (fake, env) => {
    const plan = JSON.stringify({ version: 1, provider: 'vps_a', commands: [{ args: ['vps-a-api', 'DELETE', '/v2/droplets/3164444'], reason: 'remove web-1' }] });
    const r = await runCli(['--yes', 'ask', '--apply'], { env, home: home(), input: plan });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /destroyer/);
    assert.equal(fake.requests(), []);
  }));

test.run();
