/**
 * `onboarding scan`: tools on a controlled PATH (found, missing, too old), every credential source in
 * the project's own order with the one that would be used, `--check` against the real gpucloud emulator
 * and stand-in gcloud / az / gh CLIs (configured and authenticated are separate: a refused or missing
 * credential of each kind is configured but not authenticated), AI providers that answer or not,
 * `--require` for CI, the JSON report and its schema, and no secret in any output, debug included.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ScanReportSchema, type ScanReport } from '../../schemas/onboarding.js';
import { cliInThisProcess, configFile, runCli, tempHome, withEmulator } from '../support/cli.js';
import { openAiServerFor } from '../support/openai-server.js';
import { cleanup, fakeBin } from '../support/onboarding-support.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const ai = openAiServerFor(test);
test.after(() => cleanup());

const GH_TOKEN_VALUE = 'ghp_onboardingScanTest0123456789abcdefABCD';
const AI_KEY = 'sk-onboarding-scan-ai-key-0123456789abcdef';

const provider = (r: ScanReport, name: string) => r.providers.find((p) => p.provider === name)!;
const json = (stdout: string): ScanReport => ScanReportSchema.parse(JSON.parse(stdout));

/** Stand-in cloud CLIs: logged in (or not), each answering its version. */
function clis(opts: { gcloud?: 'active' | 'none'; az?: 'ok' | 'logged-out'; gh?: 'ok' | 'logged-out'; ghVersion?: string } = {}) {
  const bin = fakeBin();
  bin.add('gcloud', [
    { match: '--version', stdout: 'Google Cloud SDK 500.0.0\nbq 2.1.9\ncore 2024.11.08' },
    { match: 'auth list', stdout: JSON.stringify(opts.gcloud === 'none' ? [] : [{ account: 'me@example.com', status: 'ACTIVE' }]) },
  ]);
  bin.add('az', [
    { match: '--version', stdout: 'azure-cli                         2.67.0\ncore                              2.67.0' },
    opts.az === 'logged-out'
      ? { match: 'account show', stderr: "\u001b[31mPlease run 'az login' to setup account.\u001b[0m\u0007", exit: 1 }
      : { match: 'account show', stdout: JSON.stringify({ name: 'Pay-As-You-Go', id: 'sub-1', user: { name: 'me@example.com', type: 'user' } }) },
  ]);
  bin.add('gh', [
    { match: '--version', stdout: `gh version ${opts.ghVersion ?? '2.62.0'} (2024-11-14)` },
    opts.gh === 'logged-out'
      ? { match: 'auth status', stderr: 'You are not logged into any GitHub hosts. To log in, run: gh auth login', exit: 1 }
      : { match: 'auth status', stdout: 'github.com\n  ✓ Logged in to github.com account octocat (GH_TOKEN)\n  - Token: ghp_************************************' },
  ]);
  return bin;
}

test('a fresh machine: exit 0, nothing configured, gpucloud and AI next steps as exact commands, JSON with schema_version', async () => {
  const bin = fakeBin();
  const r = await runCli(['onboarding', 'scan'], { env: { PATH: bin.path, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^gpucloud\s+no\s+-/m);
  assert.match(r.stdout, /^aws\s+no\s/m);
  assert.match(r.stdout, /assistant --sandbox gpucloud list instances/);
  assert.match(r.stdout, /export GPUCLOUD_CLIENT_ID=<CLIENT_ID> GPUCLOUD_CLIENT_SECRET=<CLIENT_SECRET>/);
  assert.match(r.stdout, /export OPENAI_API_KEY=<API_KEY>/);
  const j = await runCli(['onboarding', 'scan', '--format', 'json'], { env: { PATH: bin.path, OPENAI_API_KEY: undefined } });
  assert.is(j.code, 0, j.stderr);
  const report = json(j.stdout);
  assert.is(report.schema_version, 1);
  assert.is(report.checked, false);
  assert.equal(provider(report, 'gpucloud').sources.map((s) => s.kind), ['config', 'env', 'file', 'backend']);
  assert.ok(report.tools.every((t) => !t.found), 'nothing is on this PATH');
  assert.ok(report.next_steps.some((s) => s.command === 'assistant credentials test gpucloud'));
  // -o json is the same report.
  const o = await runCli(['onboarding', 'scan', '-o', 'json'], { env: { PATH: bin.path } });
  assert.is(json(o.stdout).schema_version, 1);
});

test('gpucloud sources in the resolver order; the one used is the one the resolver picks; --check gets a token and the balance from the emulator', async () => {
  await withEmulator(async ({ emu, env }) => {
    const bin = fakeBin();
    const home = tempHome();
    // Credentials file present too, and a half-set config: the env pair is what gets used.
    mkdirSync(join(home, '.gpucloud'), { recursive: true });
    writeFileSync(join(home, '.gpucloud', 'credentials'), `[default]\nclient_id = ${emu.clientId}\nclient_secret = file-secret-value-0001\n`, { mode: 0o600 });
    const cfg = configFile('gpucloud:\n  client_id: only-the-id\n');
    const r = await runCli(['--config', cfg, 'onboarding', 'scan', '--provider', 'gpucloud', '--check', '-o', 'json'], { env: { ...env, PATH: bin.path }, home });
    assert.is(r.code, 0, r.stderr);
    const g = provider(json(r.stdout), 'gpucloud');
    assert.equal(
      g.sources.map((s) => [s.kind, s.present, Boolean(s.used)]),
      [['config', false, false], ['env', true, true], ['file', true, false], ['backend', false, false]],
    );
    assert.match(g.sources[0]!.note!, /gpucloud\.client_id set but gpucloud\.client_secret missing/);
    assert.equal(g.source, { kind: 'env', where: 'GPUCLOUD_CLIENT_ID + GPUCLOUD_CLIENT_SECRET' });
    assert.is(g.configured, true);
    assert.is(g.checked, true);
    assert.is(g.authenticated, true);
    assert.is(g.ready, true);
    assert.match(g.detail!, /token issued and balance read \(balance \d+(\.\d+)? \w+\)/);
    assert.ok(emu.requests().some((q) => q.path === '/v1/oauth2/token'), 'a fresh token was asked for');
    assert.ok(emu.requests().some((q) => q.path === '/v1/balance'));
    assert.ok(emu.requests().every((q) => q.method === 'GET' || q.path === '/v1/oauth2/token'), 'read-only');

    // Only the file: it is used (and, with the wrong secret in it, configured but not authenticated).
    const fileOnly = await runCli(['onboarding', 'scan', '--provider', 'gpucloud', '--check', '-o', 'json'], { env: { PATH: bin.path, GPUCLOUD_BASE_URL: emu.url }, home });
    assert.is(fileOnly.code, 0, fileOnly.stderr);
    const f = provider(json(fileOnly.stdout), 'gpucloud');
    assert.equal(f.source, { kind: 'file', where: '~/.gpucloud/credentials [default]' });
    assert.is(f.configured, true);
    assert.is(f.authenticated, false, f.detail);
    assert.is(f.ready, false);
    const table = await runCli(['onboarding', 'scan', '--provider', 'gpucloud', '--check'], { env: { PATH: bin.path, GPUCLOUD_BASE_URL: emu.url }, home });
    assert.match(table.stdout, /gpucloud: not authenticated/);
    assert.match(table.stdout, /the credentials were refused/);
    assert.not.ok(table.stdout.includes('file-secret-value-0001'));
  });
});

test('gpucloud configured but unreachable: authenticated is unknown (null), not false; the check is bounded by --check-timeout', async () => {
  const bin = fakeBin();
  // A server that accepts the connection and never answers.
  const sockets = new Set<import('node:net').Socket>();
  const silent: Server = createServer(() => undefined);
  silent.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const r = await runCli(['onboarding', 'scan', '--provider', 'gpucloud', '--check', '--check-timeout', '2', '-o', 'json'], {
      env: { PATH: bin.path, GPUCLOUD_BASE_URL: url, GPUCLOUD_CLIENT_ID: 'id', GPUCLOUD_CLIENT_SECRET: 'secret-unreachable-0001' },
    });
    assert.is(r.code, 0, r.stderr);
    const g = provider(json(r.stdout), 'gpucloud');
    assert.is(g.configured, true);
    assert.is(g.authenticated, null);
    assert.match(g.detail!, /no answer within 2 s/);
    assert.is(g.ready, false);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});

test('cloud_b, cloud_c and repohost: checked through their CLIs (stand-ins), authenticated or configured-but-not, identities shown', async () => {
  const cfg = configFile(`infra:\n  cloud_b:\n    project_id: my-project\n  cloud_c:\n    subscription_id: sub-1\nrepohost:\n  token: ${GH_TOKEN_VALUE}\n`);
  const ok = clis();
  const r = await runCli(['--config', cfg, 'onboarding', 'scan', '--provider', 'cloud_b,cloud_c,repohost', '--check', '-o', 'json'], { env: { PATH: ok.path } });
  assert.is(r.code, 0, r.stderr);
  const report = json(r.stdout);
  assert.equal(['cloud_b', 'cloud_c', 'repohost'].map((p) => [p, provider(report, p).configured, provider(report, p).authenticated]), [['cloud_b', true, true], ['cloud_c', true, true], ['repohost', true, true]]);
  assert.is(provider(report, 'cloud_b').identity, 'me@example.com');
  assert.is(provider(report, 'cloud_c').identity, 'me@example.com, subscription "Pay-As-You-Go"');
  assert.is(provider(report, 'repohost').identity, 'octocat on github.com');
  assert.equal(ok.calls('az').find((c) => c.argv[0] === 'account')!.argv, ['account', 'show', '-o', 'json', '--subscription', 'sub-1']);
  assert.equal(ok.calls('gcloud').find((c) => c.argv[0] === 'auth')!.argv, ['auth', 'list', '--format=json']);
  // The project's own repohost token is the one checked: it reaches gh in its environment, never in argv.
  const ghCall = ok.calls('gh').find((c) => c.argv[0] === 'auth')!;
  assert.equal(ghCall.argv, ['auth', 'status']);
  assert.is(ghCall.env.GH_TOKEN, GH_TOKEN_VALUE);
  assert.is(provider(report, 'repohost').source!.kind, 'config');
  assert.match(provider(report, 'repohost').source!.where, /: repohost\.token$/);

  const bad = clis({ gcloud: 'none', az: 'logged-out', gh: 'logged-out' });
  const r2 = await runCli(['--config', cfg, 'onboarding', 'scan', '--provider', 'cloud_b,cloud_c,repohost', '--check', '-o', 'json'], { env: { PATH: bad.path } });
  assert.is(r2.code, 0, r2.stderr);
  const report2 = json(r2.stdout);
  for (const p of ['cloud_b', 'cloud_c', 'repohost']) {
    assert.is(provider(report2, p).configured, true, p);
    assert.is(provider(report2, p).authenticated, false, p);
    assert.is(provider(report2, p).ready, false, p);
  }
  assert.match(provider(report2, 'cloud_b').detail!, /no credentialed accounts/);
  // A hostile or colourful CLI cannot drive the terminal through the report: control characters are shown escaped.
  assert.match(provider(report2, 'cloud_c').detail!, /exit 1: \\u001b\[31mPlease run 'az login' to setup account\.\\u001b\[0m\\u0007$/);
  const table = await runCli(['--config', cfg, 'onboarding', 'scan', '--provider', 'cloud_c', '--check'], { env: { PATH: bad.path } });
  assert.match(table.stdout, /\\u001b\[31mPlease run 'az login'/);
  assert.not.ok(/[\u0000-\u0008\u000b-\u001f]/.test(table.stdout), 'no raw control character reaches the terminal');
  assert.ok(report2.next_steps.some((s) => s.provider === 'cloud_b' && s.command === 'gcloud auth login'));
  assert.ok(report2.next_steps.some((s) => s.provider === 'cloud_c' && s.command === 'az login'));
  assert.ok(report2.next_steps.some((s) => s.provider === 'repohost' && s.command === 'gh auth login'));
});

test('children of the scan get an environment allowlist: no gpucloud secret, AI key or foreign token', async () => {
  const bin = clis();
  const secrets = { GPUCLOUD_CLIENT_SECRET: 'gpucloud-secret-allowlist-0007', OPENAI_API_KEY: AI_KEY, ASSISTANT_BACKEND_API_KEY: 'backend-key-allowlist-0008', EDGE_API_TOKEN: 'edge-token-allowlist-0009', GITHUB_TOKEN: 'ghp_notForGcloudOrAz0123456789abcdefghij' };
  const cfg = configFile('infra:\n  cloud_b:\n    project_id: p\n  cloud_c:\n    subscription_id: s\n');
  const r = await runCli(['--config', cfg, 'onboarding', 'scan', '--check'], { env: { PATH: bin.path, GPUCLOUD_CLIENT_ID: 'id', GPUCLOUD_BASE_URL: 'http://127.0.0.1:9', ...secrets } });
  assert.is(r.code, 0, r.stderr);
  const calls = bin.calls();
  assert.ok(calls.length >= 6, 'version probes and checks ran');
  for (const c of calls) {
    const envText = JSON.stringify(c.env);
    for (const [name, value] of Object.entries(secrets)) {
      if (c.tool === 'gh' && name === 'GITHUB_TOKEN' && c.argv[0] === 'auth') continue; // gh's own credential, for its own check
      assert.not.ok(envText.includes(value), `${c.tool} ${c.argv.join(' ')} saw ${name}`);
    }
    assert.is(c.env.PATH, bin.path);
  }
});

test('tools: found with their version, missing, or older than the minimum (with the reason and the update command)', async () => {
  const bin = clis({ ghVersion: '2.10.1' });
  const cfg = configFile(`repohost:\n  token: ${GH_TOKEN_VALUE}\n`);
  const r = await runCli(['--config', cfg, 'onboarding', 'scan', '-o', 'json'], { env: { PATH: bin.path } });
  assert.is(r.code, 0, r.stderr);
  const report = json(r.stdout);
  const tool = (n: string) => report.tools.find((t) => t.name === n)!;
  assert.equal([tool('gcloud').found, tool('gcloud').version], [true, '500.0.0']);
  assert.equal([tool('az').found, tool('az').version], [true, '2.67.0']);
  assert.equal([tool('aws').found, tool('aws').version], [false, undefined]);
  assert.equal([tool('gh').version, tool('gh').min_version, tool('gh').version_ok], ['2.10.1', '2.17.0', false]);
  assert.match(tool('gh').problem!, /older than 2\.17\.0: `gh auth token` \(github-models\) needs 2\.17\.0/);
  assert.equal(tool('git').found, false);
  // repohost is configured and lacks git (required): install it; gh is too old: update it.
  assert.ok(report.next_steps.some((s) => s.command === 'assistant onboarding install git'));
  assert.ok(report.next_steps.some((s) => s.command === 'assistant onboarding install --force gh'));
  assert.is(provider(report, 'repohost').tools_ok, false);
  const table = await runCli(['--config', cfg, 'onboarding', 'scan'], { env: { PATH: bin.path, COLUMNS: '200' } });
  assert.match(table.stdout, /^gh\s+outdated\s+2\.10\.1\s+2\.17\.0/m);
});

test('--require: exit 1 naming each provider that is not ready (and why), exit 0 when all are; unknown names exit 2', async () => {
  await withEmulator(async ({ env }) => {
    const bin = clis({ gcloud: 'none' });
    const cfg = configFile('infra:\n  cloud_b:\n    project_id: p\n');
    const ok = await runCli(['--config', cfg, 'onboarding', 'scan', '--require', 'gpucloud', '-o', 'json'], { env: { ...env, PATH: bin.path } });
    assert.is(ok.code, 0, ok.stderr);
    const g = provider(json(ok.stdout), 'gpucloud');
    assert.is(g.checked, true, '--require checks what it names, without --check');
    assert.is(g.authenticated, true);

    const bad = await runCli(['--config', cfg, 'onboarding', 'scan', '--require', 'gpucloud,cloud_b,cloud_c'], { env: { ...env, PATH: bin.path } });
    assert.is(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /^error: not_ready: cloud_b \(not authenticated\); cloud_c \(not configured\)$/m);

    const unknown = await runCli(['onboarding', 'scan', '--require', 'gpucloud,cloud_q'], { env: { PATH: bin.path } });
    assert.is(unknown.code, 2);
    assert.match(unknown.stderr, /^error: usage: --require: unknown provider "cloud_q"$/m);
    assert.match(unknown.stderr, /^hint: providers: gpucloud, cloud_a, cloud_b, cloud_c, k8s, /m);
  });
});

test('AI providers: which are configured (and where the key comes from), which answer their model list', async () => {
  const refusing: Server = createServer((_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"invalid api key"}}');
  });
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  try {
    const refusingUrl = `http://127.0.0.1:${(refusing.address() as { port: number }).port}/v1`;
    const cfg = configFile(
      `ai:\n  default_provider: openai\n  providers:\n    openai:\n      api_key_env: TEST_ONB_AI_KEY\n      base_url: ${ai.baseURL}\n    wrong:\n      provider: openai\n      api_key: ${AI_KEY}-wrong\n      base_url: ${refusingUrl}\n    claude:\n      provider: anthropic\n`,
    );
    const bin = fakeBin();
    const r = await runCli(['--config', cfg, 'onboarding', 'scan', '--check', '-o', 'json'], { env: { PATH: bin.path, TEST_ONB_AI_KEY: AI_KEY, ANTHROPIC_API_KEY: undefined } });
    assert.is(r.code, 0, r.stderr);
    const entries = json(r.stdout).ai.providers;
    const by = (p: string) => entries.find((e) => e.profile === p)!;
    assert.equal([by('openai').default, by('openai').configured, by('openai').answers], [true, true, true]);
    assert.equal(by('openai').source, { kind: 'env', where: 'TEST_ONB_AI_KEY (ai.providers.openai.api_key_env)' });
    assert.equal([by('wrong').configured, by('wrong').answers], [true, false]);
    assert.equal(by('wrong').source, { kind: 'config', where: 'ai.providers.wrong.api_key' });
    assert.match(by('wrong').detail!, /the key was refused \(HTTP 401\)/);
    assert.equal([by('claude').configured, by('claude').checked], [false, false]);
    assert.match(by('claude').note!, /export ANTHROPIC_API_KEY/);
    const models = ai.requests.filter((q) => q.path === '/v1/models');
    assert.is(models.length, 1, 'one read-only request');
    assert.is(models[0]!.headers.authorization, `Bearer ${AI_KEY}`);
    assert.is(ai.chatRequests().length, 0, 'no chat was sent');
    assert.not.ok(r.stdout.includes(AI_KEY), 'the key is not in the report');
  } finally {
    await new Promise((resolve) => refusing.close(resolve));
  }
});

test('a broken config does not stop the scan: exit 0, the problem reported; --provider with an unknown name exits 2', async () => {
  const bin = fakeBin();
  const cfg = configFile('gpucloud:\n  client_id: [not, a, string]\n');
  const r = await runCli(['--config', cfg, 'onboarding', 'scan', '-o', 'json'], { env: { PATH: bin.path } });
  assert.is(r.code, 0, r.stderr);
  assert.match(json(r.stdout).config.problem!, /gpucloud\.client_id: expected string/);
  assert.match(r.stderr, /^warning: the config cannot be used/m);
  const unknown = await runCli(['onboarding', 'scan', '--provider', 'gpucloud,nope'], { env: { PATH: bin.path } });
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown provider "nope"/);
});

test('the integrations: config keys and their environment variables in order, half-set families named, never a value', async () => {
  const bin = fakeBin();
  const cfg = configFile('cloud_d:\n  secret_id: only-the-id-in-config\nedge:\n  api_token: edge-token-in-config-0001\n');
  const r = await runCli(['--config', cfg, 'onboarding', 'scan', '--provider', 'cloud_d,edge,vps_a', '-o', 'json'], {
    env: { PATH: bin.path, CLOUD_D_SECRET_ID: 'family-one-id', CLOUD_D_API_SECRET_ID: 'family-two-id', CLOUD_D_API_SECRET_KEY: 'family-two-key-0002', VPS_A_API_TOKEN: 'vps-a-token-0003' },
  });
  assert.is(r.code, 0, r.stderr);
  const report = json(r.stdout);
  const d = provider(report, 'cloud_d');
  assert.equal(d.sources.map((s) => [s.kind, s.where.replace(/^.*: /, ''), s.present, Boolean(s.used)]), [
    ['config', 'cloud_d.secret_id + cloud_d.secret_key', false, false],
    ['env', 'CLOUD_D_SECRET_ID + CLOUD_D_SECRET_KEY', false, false],
    ['env', 'CLOUD_D_API_SECRET_ID + CLOUD_D_API_SECRET_KEY', true, true],
  ]);
  assert.match(d.sources[0]!.note!, /cloud_d\.secret_id set but not cloud_d\.secret_key/);
  assert.match(d.sources[1]!.note!, /CLOUD_D_SECRET_ID set but CLOUD_D_SECRET_KEY missing/);
  assert.equal(provider(report, 'edge').source!.kind, 'config');
  assert.equal(provider(report, 'vps_a').source, { kind: 'env', where: 'VPS_A_API_TOKEN' });
  for (const value of ['edge-token-in-config-0001', 'family-two-key-0002', 'vps-a-token-0003', 'only-the-id-in-config']) assert.not.ok(r.stdout.includes(value), value);
});

test('a tool whose version command hangs is reported (found, no version) and the scan still finishes', async () => {
  const bin = fakeBin();
  bin.add('gcloud', [{ match: '--version', stdout: 'Google Cloud SDK 1.0.0', sleepMs: 120_000 }]);
  const r = await runCli(['onboarding', 'scan', '--provider', 'cloud_b', '-o', 'json'], { env: { PATH: bin.path } });
  assert.is(r.code, 0, r.stderr);
  const gcloud = json(r.stdout).tools.find((t) => t.name === 'gcloud')!;
  assert.equal([gcloud.found, gcloud.version], [true, undefined]);
  assert.match(gcloud.problem!, /`gcloud --version` gave no answer within 15 s/);
  const pid = bin.calls('gcloud')[0]!.pid;
  assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the hanging probe was stopped');
});

test.run();
