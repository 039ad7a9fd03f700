/**
 * `onboarding scan --check` against real servers: moto with the real aws CLI (cloud_a), the fake
 * Kubernetes API server over HTTPS with a kubeconfig (k8s), the gpucloud emulator; a refused or missing
 * credential of each kind is configured but not authenticated. And the scan's every output, debug lines
 * included, holds none of the secret values it was given.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ScanReportSchema, type ScanReport } from '../../schemas/onboarding.js';
import { cliInThisProcess, configFile, runCli, withEmulator } from '../support/cli.js';
import { startKubeApi, writeKubeconfig, type KubeApi } from '../support/kube-api.js';
import { motoSuite } from '../support/moto.js';
import { cleanup, tempDir } from '../support/onboarding-support.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const motoTest = motoSuite(test);
let kube: KubeApi;
test.before(async () => {
  kube = await startKubeApi();
});
test.after(async () => {
  await kube?.close();
  cleanup();
});

const provider = (r: ScanReport, name: string) => r.providers.find((p) => p.provider === name)!;
const json = (stdout: string): ScanReport => ScanReportSchema.parse(JSON.parse(stdout));

motoTest('cloud_a: keys in the environment are used and `aws sts get-caller-identity` against moto says who they belong to', async (moto) => {
  const r = await runCli(['onboarding', 'scan', '--provider', 'cloud_a', '--check', '-o', 'json'], { env: { ...moto.env } });
  assert.is(r.code, 0, r.stderr);
  const a = provider(json(r.stdout), 'cloud_a');
  assert.equal(a.sources.map((s) => [s.kind, s.where.replace(/ in .*$/, ''), s.present, Boolean(s.used)]), [
    ['env', 'AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY', true, true],
    ['cli-profile', 'profile [default]', true, false],
  ]);
  assert.equal([a.configured, a.checked, a.authenticated, a.ready], [true, true, true, true]);
  assert.match(a.identity!, /^arn:aws:(iam|sts)::\d{12}:/);
});

motoTest('cloud_a: the configured environment names a profile the aws CLI does not have: configured, not authenticated, with the login command', async (moto) => {
  const cfg = configFile('infra:\n  default_environment: prod\n  cloud_a:\n    environments:\n      prod:\n        profile: ghost\n        region: eu-west-1\n');
  const env = { ...moto.env, AWS_DEFAULT_REGION: undefined };
  const r = await runCli(['--config', cfg, 'onboarding', 'scan', '--provider', 'cloud_a', '--check', '-o', 'json'], { env });
  assert.is(r.code, 0, r.stderr);
  const report = json(r.stdout);
  const a = provider(report, 'cloud_a');
  assert.equal(a.sources.map((s) => [s.kind, s.present, Boolean(s.used)]), [['config', true, false], ['cli-profile', false, false], ['env', true, false]]);
  assert.match(a.sources[0]!.note!, /selects aws profile \[ghost\] in eu-west-1/);
  assert.match(a.sources[2]!.note!, /ignored: the profile assistant passes \(--profile ghost\) wins/);
  assert.equal([a.configured, a.authenticated, a.ready], [true, false, false]);
  assert.match(a.detail!, /ghost/);
  assert.ok(report.next_steps.some((s) => s.provider === 'cloud_a' && s.command === 'aws configure --profile ghost'), JSON.stringify(report.next_steps));
});

test('k8s: the kubeconfig context is accepted by the API server (identity, read-only requests only)', async () => {
  const kc = writeKubeconfig(tempDir('onboarding-kube-'), kube);
  const before = kube.requests().length;
  const r = await runCli(['onboarding', 'scan', '--provider', 'k8s', '--check', '-o', 'json'], { env: { KUBECONFIG: kc } });
  assert.is(r.code, 0, r.stderr);
  const k = provider(json(r.stdout), 'k8s');
  assert.equal(k.sources.map((s) => [s.kind, s.present, Boolean(s.used)]), [['env', true, true]]);
  assert.match(k.sources[0]!.note!, /1 context; context "kind-test" \(current-context\)/);
  assert.equal([k.configured, k.authenticated, k.ready], [true, true, true]);
  assert.is(k.identity, 'context "kind-test"');
  const sent = kube.requests().slice(before);
  assert.ok(sent.length >= 1 && sent.every((q) => q.method === 'GET'), 'only reads');
  assert.ok(sent.every((q) => q.auth === 'token'));
});

test('k8s: a token the API server refuses is configured but not authenticated; an unreachable server is "could not tell"; no kubeconfig is not configured', async () => {
  const dir = tempDir('onboarding-kube-');
  const wrong = writeKubeconfig(dir, kube, { token: 'kube-token-the-server-refuses-0001' });
  const r = await runCli(['onboarding', 'scan', '--provider', 'k8s', '--check', '-o', 'json'], { env: { KUBECONFIG: wrong } });
  assert.is(r.code, 0, r.stderr);
  const report = json(r.stdout);
  const k = provider(report, 'k8s');
  assert.equal([k.configured, k.authenticated, k.ready], [true, false, false]);
  assert.match(k.detail!, /refused the credentials/);
  assert.ok(report.next_steps.some((s) => s.provider === 'k8s' && s.command === 'kubectl auth whoami'));
  assert.not.ok(r.stdout.includes('kube-token-the-server-refuses-0001'));

  // A port nothing listens on.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const unreachable = writeKubeconfig(tempDir('onboarding-kube-'), kube, { server: `https://localhost:${port}` });
  const u = await runCli(['onboarding', 'scan', '--provider', 'k8s', '--check', '-o', 'json'], { env: { KUBECONFIG: unreachable } });
  const ku = provider(json(u.stdout), 'k8s');
  assert.equal([ku.configured, ku.authenticated, ku.ready], [true, null, false]);
  assert.match(ku.detail!, /cannot reach the API server/);

  const none = await runCli(['onboarding', 'scan', '--provider', 'k8s', '--check', '-o', 'json'], { env: { KUBECONFIG: join(tempDir(), 'missing') } });
  const kn = provider(json(none.stdout), 'k8s');
  assert.equal([kn.configured, kn.checked, kn.authenticated], [false, false, null]);
  assert.match(kn.sources[0]!.note!, /file not found/);
});

motoTest('no secret value reaches any scan output or debug line (table, json, yaml; --check --debug)', async (moto) => {
  const secrets = {
    gpucloud: 'emu-secret-onboarding-grep-0001',
    aws: 'aws-secret-onboarding-grep-0002',
    kube: kube.token,
    repohost: 'ghp_onboardingGrepRepohost0123456789abcd',
    ai: 'sk-onboarding-grep-ai-0123456789abcdefgh',
    edge: 'edge-token-onboarding-grep-0003',
    cloudD: 'cloud-d-secret-onboarding-grep-0004',
    backend: 'backend-key-onboarding-grep-0005',
    notes: 'notes-token-onboarding-grep-0006',
  };
  await withEmulator(
    async ({ emu }) => {
      const kc = writeKubeconfig(tempDir('onboarding-kube-'), kube);
      const cfg = configFile(
        [
          `gpucloud:\n  client_id: ${emu.clientId}\n  client_secret: ${secrets.gpucloud}\n  base_url: ${emu.url}`,
          `repohost:\n  token: ${secrets.repohost}`,
          `ai:\n  default_provider: openai\n  providers:\n    openai:\n      api_key: ${secrets.ai}\n      base_url: http://127.0.0.1:9/v1`,
          `cloud_d:\n  secret_id: cloud-d-id\n  secret_key: ${secrets.cloudD}`,
          `notes:\n  integration_token: ${secrets.notes}`,
        ].join('\n') + '\n',
      );
      const env = { ...moto.env, AWS_SECRET_ACCESS_KEY: secrets.aws, KUBECONFIG: kc, EDGE_API_TOKEN: secrets.edge, ASSISTANT_BACKEND_API_KEY: secrets.backend };
      const runs = [
        ['onboarding', 'scan', '--check', '--debug'],
        ['onboarding', 'scan', '--check', '--debug', '-o', 'json'],
        ['onboarding', 'scan', '--debug', '-o', 'yaml'],
        ['onboarding', 'scan', '--check', '--debug', '--provider', 'gpucloud,cloud_a,k8s,repohost,edge,cloud_d,notes,backend'],
      ];
      let sawDebug = false;
      for (const args of runs) {
        const r = await runCli(['--config', cfg, ...args], { env });
        assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        if (/^debug: /m.test(r.stderr)) sawDebug = true;
        for (const [name, value] of Object.entries(secrets)) {
          assert.not.ok(r.stdout.includes(value), `${name} in stdout of ${args.join(' ')}`);
          assert.not.ok(r.stderr.includes(value), `${name} in stderr of ${args.join(' ')}`);
        }
        if (args.includes('json')) {
          const report = json(r.stdout);
          assert.is(provider(report, 'gpucloud').authenticated, true, 'the emulator accepted the config secret');
          assert.is(provider(report, 'cloud_a').authenticated, true);
          assert.is(provider(report, 'k8s').authenticated, true);
        }
      }
      assert.ok(sawDebug, 'debug lines were written (and checked)');
    },
    { clientSecret: secrets.gpucloud },
  );
});

test.run();
