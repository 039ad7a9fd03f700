/**
 * Credentials and TLS from the kubeconfig against the fake HTTPS API: exec credential plugins (cached
 * until their expiry), tokens and token files, client certificates, the CA (a wrong one fails TLS),
 * tls-server-name for servers reached by IP, insecure-skip-tls-verify; and how a cluster is chosen.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { makePki, startKubeApi, writeKubeconfig, type KubeApi } from '../../support/kube-api.js';
import { loadKubeconfig, selectContext } from '../../../engine/core/kubeconfig/kubeconfig.js';
import { KubeClient } from '../../../engine/providers/k8s/client.js';
import { tempDir } from '../../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

let api: KubeApi;
const dir = () => tempDir('kcfg-');

test.before(async () => {
  api = await startKubeApi();
});
test.after(async () => api.close());

const PLUGIN = `import { appendFileSync } from 'node:fs';
appendFileSync(process.env.COUNT_FILE, 'x');
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO || '{}');
if (info.kind !== 'ExecCredential') process.exit(3);
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: process.argv[2], expirationTimestamp: process.env.EXPIRES } }));
`;

function execKubeconfig(expires: string): { path: string; count: () => number } {
  const d = dir();
  writeFileSync(join(d, 'plugin.mjs'), PLUGIN);
  const countFile = join(d, 'count');
  writeFileSync(countFile, '');
  const path = writeKubeconfig(d, api, {
    exec: { command: process.execPath, args: [join(d, 'plugin.mjs'), api.token], env: [{ name: 'COUNT_FILE', value: countFile }, { name: 'EXPIRES', value: expires }] },
  });
  return { path, count: () => readFileSync(countFile, 'utf8').length };
}

test('an exec credential plugin supplies the token, runs once per process while the token is valid, and is never printed', async () => {
  const { path, count } = execKubeconfig(new Date(Date.now() + 3600_000).toISOString());
  const before = api.requests().length;
  const r = await runCli(['--debug', 'k8s', 'deploy', 'nginx:1', '--name', 'exec-web', '--port', '80'], { env: { KUBECONFIG: path } });
  assert.is(r.code, 0, r.stderr);
  const sent = api.requests().slice(before);
  assert.ok(sent.length >= 4, `${sent.length} requests`);
  assert.ok(sent.every((q) => q.auth === 'token'));
  assert.is(count(), 1);
  assert.not.ok((r.stdout + r.stderr).includes(api.token), 'the token was printed');
  assert.match(r.stderr, /debug: k8s kind-test: PATCH/);
});

test('an exec token past its expirationTimestamp is fetched again for the next request', async () => {
  const { path, count } = execKubeconfig(new Date(Date.now() - 60_000).toISOString());
  const r = await runCli(['k8s', 'stats', 'nodes'], { env: { KUBECONFIG: path } });
  assert.is(r.code, 0, r.stderr);
  assert.is(count(), 2);
});

test('a failing exec plugin is a clear error; nothing is sent without credentials', async () => {
  const d = dir();
  const path = writeKubeconfig(d, api, { exec: { command: process.execPath, args: ['-e', 'process.stderr.write("token expired, run aws sso login\\n"); process.exit(4)'] } });
  const before = api.requests().length;
  const r = await runCli(['k8s', 'get', 'pods'], { env: { KUBECONFIG: path } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /error: credential_plugin_failed: .*exited with 4: token expired, run aws sso login/);
  assert.is(api.requests().length, before);
});

test('a token file and a client certificate (inline or as files, a relative key path) authenticate; a wrong token is refused (unauthorized, exit 1)', async () => {
  const d = dir();
  writeFileSync(join(d, 'token'), api.token + '\n');
  const viaFile = await runCli(['k8s', 'get', 'nodes'], { env: { KUBECONFIG: writeKubeconfig(d, api, { context: 'file', tokenFile: join(d, 'token') }) } });
  assert.is(viaFile.code, 0, viaFile.stderr);
  assert.is(api.requests().at(-1)!.auth, 'token');
  const viaCert = await runCli(['k8s', 'get', 'nodes'], { env: { KUBECONFIG: writeKubeconfig(d, api, { context: 'cert', clientCert: true }) } });
  assert.is(viaCert.code, 0, viaCert.stderr);
  assert.is(api.requests().at(-1)!.auth, 'cert');
  const viaFiles = await runCli(['k8s', 'get', 'nodes'], { env: { KUBECONFIG: writeKubeconfig(d, api, { context: 'certfiles', clientCert: 'files' }) } });
  assert.is(viaFiles.code, 0, viaFiles.stderr);
  assert.is(api.requests().at(-1)!.auth, 'cert');
  const wrong = await runCli(['--debug', 'k8s', 'get', 'nodes'], { env: { KUBECONFIG: writeKubeconfig(d, api, { context: 'wrong', token: 'not-the-token-123456' }) } });
  assert.is(wrong.code, 1);
  assert.match(wrong.stderr, /error: unauthorized: /);
  assert.not.match(wrong.stderr, /not-the-token-123456/);
});

test('a CA that did not sign the server certificate fails TLS (tls_failed) before any request is read', async () => {
  const other = makePki('other-ca-');
  const before = api.requests().length;
  const r = await runCli(['k8s', 'get', 'pods'], { env: { KUBECONFIG: writeKubeconfig(dir(), api, { caPem: other.caCert }) } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /error: tls_failed: TLS verification of https:\/\/localhost:\d+ \(context "kind-test"\) failed/);
  assert.is(api.requests().length, before);
  // insecure-skip-tls-verify is honoured, with a warning.
  const insecure = await runCli(['k8s', 'get', 'pods'], { env: { KUBECONFIG: writeKubeconfig(dir(), api, { insecure: true }) } });
  assert.is(insecure.code, 0, insecure.stderr);
  assert.match(insecure.stderr, /warning: context "kind-test" sets insecure-skip-tls-verify/);
});

test('a server reached by IP verifies through tls-server-name; without it the certificate does not match', async () => {
  const server = `https://127.0.0.1:${api.port}`;
  const without = await runCli(['k8s', 'get', 'nodes'], { env: { KUBECONFIG: writeKubeconfig(dir(), api, { server }) } });
  assert.is(without.code, 1);
  assert.match(without.stderr, /error: tls_failed: /);
  assert.match(without.stderr, /tls-server-name/);
  const d = dir();
  const withName = await runCli(['k8s', 'get', 'nodes'], { env: { KUBECONFIG: writeKubeconfig(d, api, { server, tlsServerName: 'kube.test', caAsFile: true }) } });
  assert.is(withName.code, 0, withName.stderr);
  assert.match(withName.stdout, /node-a/);
});

test('KUBECONFIG with several files merges them like kubectl: the first definition of a name and current-context win', () => {
  const d = dir();
  const a = writeKubeconfig(d, api, { context: 'alpha' });
  const b = writeKubeconfig(d, { ...api, url: 'https://other:1' }, { context: 'beta', extraContexts: ['alpha'] });
  const kc = loadKubeconfig([a, join(d, 'missing.yaml'), b]);
  assert.equal([...kc.contexts.keys()].sort(), ['alpha', 'beta']);
  assert.is(kc.currentContext, 'alpha');
  assert.is(kc.contexts.get('alpha')!.value.cluster, 'alpha-cluster');
  assert.is(selectContext(kc, [a, b], {}), 'alpha');
  assert.is(selectContext(kc, [a, b], { kubernetes: { default_context: 'beta' } }), 'beta');
  assert.is(selectContext(kc, [a, b], { cluster: 'prod', kubernetes: { clusters: { prod: { type: 'existing', context: 'beta' } } } }), 'beta');
  assert.throws(() => selectContext(kc, [a, b], { cluster: 'prod', kubernetes: { clusters: { prod: { type: 'existing', context: 'gamma' } } } }), /context "gamma" is not in the kubeconfig/);
});

test('--cluster of an eks entry finds the context `aws eks update-kubeconfig` wrote (alias, else the cluster ARN)', () => {
  const d = dir();
  const arn = 'arn:aws:eks:eu-west-1:123456789012:cluster/shop';
  const kc = loadKubeconfig([writeKubeconfig(d, api, { context: arn, extraContexts: ['unrelated'] })]);
  const clusters = { shop: { type: 'eks' as const, name: 'shop', region: 'eu-west-1', profile: 'work' } };
  assert.is(selectContext(kc, [], { cluster: 'shop', kubernetes: { clusters } }), arn);
  const elsewhere = { shop: { type: 'eks' as const, name: 'shop', region: 'us-east-1' } };
  try {
    selectContext(kc, [], { cluster: 'shop', kubernetes: { clusters: elsewhere } });
    assert.unreachable('a context of another region was taken');
  } catch (err) {
    assert.match((err as Error).message, /no kubeconfig context for eks cluster "shop" in us-east-1/);
    assert.match((err as { hint?: string }).hint ?? '', /aws eks update-kubeconfig --name shop --region us-east-1 --alias shop/);
  }
  const aliased = loadKubeconfig([writeKubeconfig(dir(), api, { context: 'shop' })]);
  assert.is(selectContext(aliased, [], { cluster: 'shop', kubernetes: { clusters } }), 'shop');
});

test('an unknown --cluster is an input error naming the contexts that exist; nothing is sent', async () => {
  const home = tempHome();
  const before = api.requests().length;
  const r = await runCli(['k8s', 'get', 'pods', '--cluster', 'nope'], { env: { KUBECONFIG: writeKubeconfig(dir(), api, { context: 'dev', extraContexts: ['qa'] }) }, home });
  assert.is(r.code, 2);
  assert.match(r.stderr, /error: unknown_cluster: no cluster "nope"/);
  assert.match(r.stderr, /contexts that exist: dev, qa/);
  assert.is(api.requests().length, before);
  const none = await runCli(['k8s', 'get', 'pods'], { home });
  assert.is(none.code, 2);
  assert.match(none.stderr, /error: no_kubeconfig: .*\.kube\/config/);
});

test('an API server that never answers ends at --timeout with error: timeout (exit 1), not as an interruption', async () => {
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const port = (silent.address() as { port: number }).port;
    const path = writeKubeconfig(dir(), api, { server: `https://127.0.0.1:${port}`, insecure: true });
    const r = await runCli(['--timeout', '2', 'k8s', 'get', 'pods'], { env: { KUBECONFIG: path } });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /error: timeout: /);
  } finally {
    silent.close();
  }
});

test('a cached exec token the server stops accepting (401) is fetched from the plugin once more, in a long-lived client', async () => {
  const d = dir();
  writeFileSync(join(d, 'plugin.mjs'), PLUGIN.replace('process.argv[2]', "require('node:fs').readFileSync(process.argv[2], 'utf8').trim()").replace("import { appendFileSync } from 'node:fs';", "import { appendFileSync } from 'node:fs';\nimport { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);"));
  const countFile = join(d, 'count');
  writeFileSync(countFile, '');
  writeFileSync(join(d, 'current-token'), api.token);
  const path = writeKubeconfig(d, api, {
    exec: { command: process.execPath, args: [join(d, 'plugin.mjs'), join(d, 'current-token')], env: [{ name: 'COUNT_FILE', value: countFile }, { name: 'EXPIRES', value: new Date(Date.now() + 3600_000).toISOString() }] },
  });
  const client = new KubeClient({ kubeconfig: loadKubeconfig([path]), env: process.env });
  try {
    assert.is((await client.request('kind-test', { method: 'GET', path: '/api/v1/nodes' })).status, 200);
    const rotated = `rotated-${api.token}`;
    api.setTokens([rotated]);
    writeFileSync(join(d, 'current-token'), rotated);
    assert.is((await client.request('kind-test', { method: 'GET', path: '/api/v1/nodes' })).status, 200);
    assert.is(readFileSync(countFile, 'utf8').length, 2);
  } finally {
    client.close();
    api.setTokens([api.token]);
  }
});

test.run();
