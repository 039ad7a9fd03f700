/**
 * cloud_d (a Tencent-Cloud-style API: signed POSTs naming actions) as an ask context, driven through the
 * CLI against its fake (emulator/fakes/cloud_d.ts), which verifies every signature: instances by region,
 * routed by its words and by --cloud-d, combined with vps_a, Offset/Limit paging followed, AuthFailure
 * and RequestLimitExceeded said clearly, the SPEC's credential order, the keys never printed, a hostile
 * server bounded, the MCP ask tool reading the same context, and actions other than Describe or Inquiry
 * refused without --destroyer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startCloudDFake, type CloudDFake } from '../../../emulator/fakes/cloud_d.js';
import { startVpsAFake } from '../../../emulator/fakes/vps_a.js';
import { cliInThisProcess, configFile, runCli } from '../../support/cli.js';
import { fakePerTest, vpsAEnv, withStarted } from '../../support/integration.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const { home, withFake, ask, timesOut, mcpAnswer } = fakePerTest('assistant-cloud-d-', startCloudDFake, (fake) => ({ ASSISTANT_CLOUD_D_BASE_URL: fake.url, CLOUD_D_SECRET_ID: fake.secretId, CLOUD_D_SECRET_KEY: fake.secretKey }));
const bodies = (fake: CloudDFake) => fake.requests().map((q) => `${String(q.headers['x-tc-action'])} ${String(q.headers['x-tc-region'])} ${q.body}`);

test('a question about cvm instances is routed to cloud_d without a flag, read in ap-singapore by default, every page followed (Offset/Limit)', () =>
  withFake(
    async (fake, env) => {
      const r = await ask(['which cvm instances are running?'], env);
      assert.is(r.code, 0, r.stderr);
      assert.is(r.stdout.trim(), ['2 CVM instances RUNNING:', '- sg-web-1 (S5.MEDIUM4, 2 vCPU, 4 GB, ap-singapore-1, 43.156.0.11, POSTPAID_BY_HOUR, RUNNING)', '- sg-web-2 (S5.MEDIUM4, 2 vCPU, 4 GB, ap-singapore-2, 43.156.0.12, POSTPAID_BY_HOUR, RUNNING)'].join('\n'));
      assert.equal(bodies(fake), ['DescribeInstances ap-singapore {"Limit":100}', 'DescribeInstances ap-singapore {"Limit":100,"Offset":1}', 'DescribeInstances ap-singapore {"Limit":100,"Offset":2}']);
      assert.ok(fake.requests().every((q) => q.method === 'POST' && String(q.headers.authorization).startsWith('TC3-HMAC-SHA256 Credential=')));
    },
    { pageSize: 1 },
  ));

test('--cloud-d answers by region: the configured region and every region the question names, with a count per region', () =>
  withFake(async (fake, env) => {
    const r = await runCli(['--config', configFile('cloud_d:\n  region: ap-guangzhou\n'), 'ask', '--ai-profile', 'builtin', '--cloud-d', 'what runs in ap-singapore and eu-frankfurt?'], { env, home: home() });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^4 CVM instances:\n- gz-api \(SA2\.MEDIUM4/);
    assert.match(r.stdout.trim(), /\nBy region: ap-guangzhou 1, ap-singapore 3, eu-frankfurt 0\.$/);
    assert.equal(fake.requests().map((q) => q.headers['x-tc-region']), ['ap-guangzhou', 'ap-singapore', 'eu-frankfurt']);
  }));

test('--cloud-d with --vps-a gives one combined view', () =>
  withFake((_fake, env) =>
    withStarted(() => startVpsAFake(), vpsAEnv, async (_a, aEnv) => {
      const r = await ask(['--vps-a', '--cloud-d', 'how many servers do I have?'], { ...env, ...aEnv });
      assert.is(r.code, 0, r.stderr);
      assert.is(r.stdout.trim(), '5 droplets.\n3 CVM instances.');
    }),
  ));

test('keys the API refuses (AuthFailure, answered with HTTP 200) are one clear unauthorized error; nothing of the key is printed', () =>
  withFake(async (_fake, env) => {
    const r = await ask(['--cloud-d', 'list instances'], { ...env, CLOUD_D_SECRET_KEY: 'wrong-secret-key-0123456789' });
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: unauthorized: cloud_d: AuthFailure\.SignatureFailure: The provided credentials could not be validated\. .*\(RequestId [0-9a-f-]+\)$/m);
    assert.match(r.stderr, /^hint: check the cloud_d API keys \(CLOUD_D_SECRET_ID\/CLOUD_D_SECRET_KEY\)/m);
    assert.not.match(r.stdout + r.stderr, /wrong-secret-key/);
    const id = await ask(['--cloud-d', 'list instances'], { ...env, CLOUD_D_SECRET_ID: 'AKIDnobodyknowsthisid000000000000' });
    assert.is(id.code, 1);
    assert.match(id.stderr, /^error: unauthorized: cloud_d: AuthFailure\.SecretIdNotFound/m);
  }));

test('RequestLimitExceeded is waited out and the answer comes; a limit that never lifts is a clear error', () =>
  withFake(async (fake, env) => {
    fake.rateLimit(1, 1);
    const ok = await ask(['--cloud-d', 'how many instances are stopped?'], env);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(ok.stdout.trim(), '1 CVM instance STOPPED.');
    assert.is(fake.requests().length, 2);
    fake.rateLimit(100, 0);
    const r = await ask(['--cloud-d', 'how many instances?'], env);
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: rate_limited: cloud_d: DescribeInstances: still rate limited after waiting three times \(RequestLimitExceeded\)$/m);
  }));

test('credentials in the SPEC order: config, then CLOUD_D_SECRET_ID/KEY, then CLOUD_D_API_SECRET_ID/KEY; half a pair is passed over', () =>
  withFake(async (fake) => {
    const base = { ASSISTANT_CLOUD_D_BASE_URL: fake.url };
    const second = await runCli(['credentials', 'test', 'cloud_d'], { env: { ...base, CLOUD_D_SECRET_ID: 'only-the-first-id', CLOUD_D_API_SECRET_ID: fake.secretId, CLOUD_D_API_SECRET_KEY: fake.secretKey }, home: home() });
    assert.is(second.code, 0, second.stderr);
    assert.is(second.stdout, 'cloud_d credentials work (source: CLOUD_D_API_SECRET_ID/CLOUD_D_API_SECRET_KEY); 3 regions visible\n');
    const first = await runCli(['credentials', 'test', 'cloud_d'], { env: { ...base, CLOUD_D_SECRET_ID: fake.secretId, CLOUD_D_SECRET_KEY: fake.secretKey, CLOUD_D_API_SECRET_ID: 'x', CLOUD_D_API_SECRET_KEY: 'y' }, home: home() });
    assert.match(first.stdout, /source: CLOUD_D_SECRET_ID\/CLOUD_D_SECRET_KEY/);
    const cfg = configFile(`cloud_d:\n  secret_id: ${fake.secretId}\n  secret_key: ${fake.secretKey}\n  base_url: ${fake.url}\n`);
    const fromConfig = await runCli(['--config', cfg, 'credentials', 'test', 'cloud_d'], { env: { CLOUD_D_SECRET_ID: 'a', CLOUD_D_SECRET_KEY: 'b' }, home: home() });
    assert.is(fromConfig.code, 0, fromConfig.stderr);
    assert.match(fromConfig.stdout, /source: cloud_d\.secret_id\/secret_key in the config file/);
    const shown = await runCli(['--config', cfg, 'config', 'show'], { home: home() });
    assert.not.ok(shown.stdout.includes(fake.secretKey), 'config show masks cloud_d.secret_key');
    const none = await runCli(['ask', '--ai-profile', 'builtin', '--cloud-d', 'list instances'], { env: { ...base, CLOUD_D_SECRET_ID: 'only-an-id' }, home: home() });
    assert.is(none.code, 2);
    assert.match(none.stderr, /^error: .*cloud_d: no API keys configured \(CLOUD_D_SECRET_ID\/CLOUD_D_SECRET_KEY has only the id\)/m);
  }));

test('the keys never reach stdout or stderr, with --debug and -o json', () =>
  withFake(async (fake, env) => {
    const r = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '-o', 'json', '--cloud-d', 'list my instances'], { env, home: home() });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /cloud_d: POST .* cvm DescribeInstances \(ap-singapore\)/);
    for (const secret of [fake.secretKey, fake.secretId]) assert.not.ok((r.stdout + r.stderr).includes(secret), 'a key was printed');
  }));

test('hostile: an endless TotalCount stops at 10 pages, huge pages at 5 MB (both said), a server that never finishes ends at --timeout', () =>
  withFake(async (fake, env) => {
    fake.hostile({ endlessNext: true });
    const endless = await ask(['--cloud-d', 'how many instances?'], env);
    assert.is(endless.code, 0, endless.stderr);
    assert.match(endless.stdout, /^10 CVM instances\.\n\(Incomplete: cloud_d CVM instances: only the first 10 pages \(10 of 1000000 items\) were read;/);
    assert.is(fake.requests().length, 10);
    fake.hostile({ endlessNext: true, hugePageBytes: 3 * 1024 * 1024 });
    const big = await ask(['--cloud-d', 'how many instances?'], env);
    assert.is(big.code, 0, big.stderr);
    assert.match(big.stdout, /\(Incomplete: cloud_d CVM instances: stopped at 5242880 bytes \(\d+ of 1000000 items read\)/);
    fake.hostile({ slow: true });
    await timesOut(['--cloud-d', 'list instances'], env);
  }, { pageSize: 1 }));

test('the MCP ask tool reads the same cloud_d context (read-only)', () =>
  withFake(async (fake, env) => {
    assert.is(await mcpAnswer(env, 'how many cvm instances are running?', 'cloud_d', fake.secretKey), '2 CVM instances RUNNING.');
    assert.ok(fake.requests().every((q) => /^Describe/.test(String(q.headers['x-tc-action']))));
  }));

test('actions other than Describe*/Inquiry* (TerminateInstances, a placeholder action) are destructive; a plain-HTTP base URL off this machine is refused', () =>
  withFake(async (fake, env) => {
    const plan = (action: string) =>
      JSON.stringify({
        version: 1,
        provider: 'cloud_d',
        commands: [
          { args: ['cloud-d-api', 'cvm', 'DescribeRegions', '{}'], reason: 'a read that produces the action', produces: { ACTION: '$[0].Region' } },
          { args: ['cloud-d-api', 'cvm', action, '{"InstanceIds":["ins-sg000003"]}'], reason: 'r' },
        ],
      });
    for (const action of ['TerminateInstances', 'RunInstances', '<ACTION>']) {
      const r = await runCli(['--yes', 'ask', '--apply'], { env, home: home(), input: plan(action) });
      assert.is(r.code, 3, `${action}: ${r.stderr}`);
    }
    const inquiry = await runCli(['plan', 'validate'], { env, home: home(), input: plan('InquiryPriceRunInstances') });
    assert.is(inquiry.code, 0, inquiry.stderr + inquiry.stdout);
    assert.equal(fake.requests(), [], 'nothing sent');
    const clear = await ask(['--cloud-d', 'list instances'], { ...env, ASSISTANT_CLOUD_D_BASE_URL: 'http://cvm.example.com' });
    assert.is(clear.code, 2);
    assert.match(clear.stderr, /plain HTTP to another host, and API keys are configured/);
  }));

test.run();
