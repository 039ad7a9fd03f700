/**
 * vps_b (a Hetzner-Cloud-style API v1) as an ask context, driven through the CLI against its fake
 * (emulator/fakes/vps_b.ts) over real HTTP: routed by its words and by --vps-b, combined with vps_a,
 * `meta.pagination.next_page` followed, 401 and 429 said clearly, the token never printed, a hostile
 * server bounded in pages, bytes and time, the MCP ask tool reading the same context, writes refused.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startVpsBFake } from '../../../emulator/fakes/vps_b.js';
import { startVpsAFake } from '../../../emulator/fakes/vps_a.js';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { fakePerTest, vpsAEnv, withStarted } from '../../support/integration.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const { home, withFake, ask, timesOut, mcpAnswer } = fakePerTest('assistant-vps-b-', startVpsBFake, (fake) => ({ ASSISTANT_VPS_B_BASE_URL: fake.url, VPS_B_API_TOKEN: fake.token }));

test('a question about server types is routed to vps_b without a flag and answered with their prices per location', () =>
  withFake(async (fake, env) => {
    const r = await ask(['what server types are there?'], env);
    assert.is(r.code, 0, r.stderr);
    assert.is(
      r.stdout.trim(),
      ['3 server types:', '- cpx11 (2 vCPU, 2 GB RAM, 40 GB disk, from €4.58/month (fsn1, nbg1, ash))', '- cpx21 (3 vCPU, 4 GB RAM, 80 GB disk, from €7.72/month (fsn1, nbg1))', '- ccx23 (4 vCPU, 16 GB RAM, 160 GB disk, from €29.14/month (fsn1, hel1))'].join('\n'),
    );
    assert.equal(fake.requests().map((q) => q.path), ['/v1/server_types?per_page=50']);
  }));

test('--vps-b: servers with the gross price of their type in their own location, every page read (meta.pagination.next_page), and a total', () =>
  withFake(
    async (fake, env) => {
      const r = await ask(['--vps-b', 'what do my machines cost?'], env);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /^4 servers:\n- api-1 \(cpx21, fsn1, 198\.51\.100\.20, €7\.72\/month, running\)/);
      assert.match(r.stdout, /- worker \(ccx23, hel1, 198\.51\.100\.22, €29\.14\/month, off\)/);
      assert.match(r.stdout, /Total: €49\.17 per month \(€0\.08 per hour\) for 4 servers\./);
      assert.equal(fake.requests().map((q) => q.path), ['/v1/servers?per_page=50', '/v1/servers?per_page=50&page=2', '/v1/servers?per_page=50&page=3', '/v1/servers?per_page=50&page=4']);
    },
    { pageSize: 1 },
  ));

test('--vps-a with --vps-b gives one combined view, each in its own currency', () =>
  withFake((_fake, env) =>
    withStarted(() => startVpsAFake(), vpsAEnv, async (_a, aEnv) => {
      const r = await ask(['--vps-a', '--vps-b', 'what do my servers cost?'], { ...env, ...aEnv });
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /Total: \$90\.00 per month \(\$0\.13 per hour\) for 5 droplets\.\n4 servers:/);
      assert.match(r.stdout, /Total: €49\.17 per month/);
    }),
  ));

test('a 401 is one clear error with the hint; a 429 is waited out, one that never lifts is a clear error', () =>
  withFake(async (fake, env) => {
    const bad = await ask(['--vps-b', 'list my servers'], { ...env, VPS_B_API_TOKEN: 'hc-wrong-token-wrong-token' });
    assert.is(bad.code, 1);
    assert.match(bad.stderr, /^error: unauthorized: vps_b: 401 the token was not accepted \(\/v1\/servers\)$/m);
    assert.match(bad.stderr, /^hint: .*VPS_B_API_TOKEN/m);
    assert.not.match(bad.stdout + bad.stderr, /wrong-token/);
    fake.rateLimit(1, 1);
    const ok = await ask(['--vps-b', 'how many servers are running?'], env);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(ok.stdout.trim(), '3 servers running.');
    fake.rateLimit(100, 0);
    const r = await ask(['--vps-b', 'how many servers are running?'], env);
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: rate_limited: vps_b: still rate limited after waiting three times$/m);
  }));

test('the token never reaches stdout or stderr, with --debug and -o json', () =>
  withFake(async (_fake, env) => {
    const r = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '-o', 'json', '--vps-b', 'what do my servers cost?'], { env, home: home() });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /vps_b: GET \/v1\/servers/);
    assert.not.ok((r.stdout + r.stderr).includes(env.VPS_B_API_TOKEN!));
  }));

test('hostile: an endless next_page stops at 10 pages, huge pages at 5 MB (both said), a server that never finishes ends at --timeout', () =>
  withFake(
    async (fake, env) => {
      fake.hostile({ endlessNext: true });
      const endless = await ask(['--vps-b', 'how many servers?'], env);
      assert.is(endless.code, 0, endless.stderr);
      assert.match(endless.stdout, /\(Incomplete: vps_b servers: only the first 10 pages \(\d+ items\) were read; the list above is not the whole account\.\)/);
      assert.is(fake.requests().length, 10);
      fake.hostile({ hugePageBytes: 3 * 1024 * 1024 });
      const big = await ask(['--vps-b', 'how many servers?'], env);
      assert.is(big.code, 0, big.stderr);
      assert.match(big.stdout, /\(Incomplete: vps_b servers: stopped at 5242880 bytes/);
      fake.hostile({ slow: true });
      await timesOut(['--vps-b', 'list servers'], env);
    },
    { pageSize: 1 },
  ));

test('the MCP ask tool reads the same vps_b context (read-only)', () =>
  withFake(async (fake, env) => {
    assert.match(await mcpAnswer(env, 'which server types does vps_b offer?', 'vps_b', fake.token), /3 server types:/);
    assert.ok(fake.requests().every((q) => q.method === 'GET'));
  }));

test('credentials test vps_b reads the price list; config api_token and base_url work; a write is refused without --destroyer', () =>
  withFake(async (fake, env) => {
    const ok = await runCli(['credentials', 'test', 'vps_b'], { env, home: home() });
    assert.is(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^vps_b credentials work \(source: VPS_B_API_TOKEN\); prices in EUR \(VAT 19\.00%\)$/m);
    const h = home();
    writeFileSync(join(h, '.assistant.yaml'), `ai:\n  default_provider: builtin\nvps_b:\n  api_token: ${fake.token}\n  base_url: ${fake.url}\n`, { mode: 0o600 });
    const fromConfig = await runCli(['ask', '--vps-b', 'how many servers are off?'], { home: h });
    assert.is(fromConfig.code, 0, fromConfig.stderr);
    assert.is(fromConfig.stdout.trim(), '1 server off.');
    const shown = await runCli(['config', 'show'], { home: h });
    assert.not.ok(shown.stdout.includes(fake.token), 'config show masks vps_b.api_token');
    const before = fake.requests().length;
    const plan = JSON.stringify({ version: 1, provider: 'vps_b', commands: [{ args: ['vps-b-api', 'POST', '/v1/servers/42/actions/poweroff'], reason: 'stop api-1' }] });
    const r = await runCli(['--yes', 'ask', '--apply'], { env, home: home(), input: plan });
    assert.is(r.code, 3, r.stderr);
    assert.is(fake.requests().length, before, 'nothing sent');
  }));

test.run();
