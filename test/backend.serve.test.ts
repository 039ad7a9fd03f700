/**
 * `backend serve` and the client's transport rules: TLS, refusing clear text off loopback, one process
 * per data directory, graceful SIGTERM, request limits and the failed-authentication slowdown, and the
 * client never sending its key over plain HTTP off this machine or to another origin.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asClient, createApiKey, startBackendProcess, type BackendProcess } from './support/backend.js';
import { runCli, tempHome } from './support/cli.js';

let backend: BackendProcess;
let key = '';
const dirs: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

test.before(async () => {
  backend = await startBackendProcess();
  dirs.push(backend.home);
  key = await createApiKey(backend, 'team-s');
});
test.after(async () => {
  await backend?.kill('SIGTERM');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (init.key !== null) headers.authorization = `Bearer ${init.key ?? key}`;
  return fetch(`${backend.url}${path}`, { ...init, headers });
};

test('health needs no key; everything else needs one, as a bearer header', async () => {
  const h = await call('/v1/health', { key: null });
  assert.is(h.status, 200);
  const health = (await h.json()) as { status: string; storage: string; version: string };
  assert.is(health.status, 'ok');
  assert.is(health.storage, 'pglite');
  assert.type(health.version, 'string');
  const none = await call('/v1/credentials', { key: null });
  assert.is(none.status, 401);
  assert.is(none.headers.get('www-authenticate'), 'Bearer');
  const who = await call('/v1/whoami');
  assert.equal(await who.json(), { tenant: 'team-s', key_prefix: key.split('_')[1] });
});

test('bodies are validated and bounded: 413 too large, 415 not JSON, 400 malformed or invalid, 404 unknown route', async () => {
  const put = (body: string, type = 'application/json') => call('/v1/credentials/production/repohost/default', { method: 'PUT', body, headers: { 'content-type': type } });
  assert.is((await put(JSON.stringify({ fields: { token: 'x'.repeat(300 * 1024) } }))).status, 413);
  assert.is((await put('token=x', 'application/x-www-form-urlencoded')).status, 415);
  assert.is((await put('{"fields":')).status, 400);
  const extra = await put(JSON.stringify({ fields: { token: 'abc' }, tenant: 'team-other' }));
  assert.is(extra.status, 400, 'unknown keys are refused (a body cannot name a tenant)');
  const badField = await put(JSON.stringify({ fields: { 'Bad-Name': 'abc' } }));
  assert.is(badField.status, 400);
  assert.is((await call('/v1/credentials/prod/repohost/default')).status, 400, 'env must be testing|staging|production');
  assert.is((await call('/v1/credentials/production/repohost/%E0%A4%A')).status, 400);
  assert.is((await call('/v1/credentials/production/repohost/..%2F..%2Fetc')).status, 400);
  assert.is((await call('/v2/anything')).status, 404);
});

test('repeated failed authentication from one address is slowed down (429 with Retry-After), and audited without the key', async () => {
  const wrong = 'asb_0000000000_' + 'A'.repeat(43);
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push((await call('/v1/whoami', { key: wrong })).status);
  assert.equal(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
  const slowed = await call('/v1/whoami', { key });
  assert.is(slowed.status, 429, 'while slowed down, even a good key waits: the address is what is throttled');
  assert.ok(Number(slowed.headers.get('retry-after')) >= 1);
  const audit = await runCli(['backend', 'audit', '-o', 'json'], { home: backend.home });
  const failed = (JSON.parse(audit.stdout) as { action: string; key_prefix: string; outcome: string }[]).filter((e) => e.action === 'auth_failed');
  assert.ok(failed.length >= 5);
  assert.ok(failed.every((e) => e.key_prefix === '0000000000' && e.outcome === 'unknown'));
  assert.not.ok(audit.stdout.includes(wrong));
});

test('a second server on the same data directory is refused while the first runs', async () => {
  const second = await runCli(['backend', 'serve', '--listen', '127.0.0.1:0'], { home: backend.home });
  assert.is(second.code, 1, second.stderr);
  assert.match(second.stderr, /^error: data_dir_in_use: the data directory .* is in use by process \d+/m);
});

test('off loopback the server needs TLS or --insecure (with a warning); the flags go together', async () => {
  const home = temp('assistant-backend-flags-');
  const plain = await runCli(['backend', 'serve', '--listen', '0.0.0.0:0'], { home });
  assert.is(plain.code, 2, plain.stderr);
  assert.match(plain.stderr, /^error: usage: listening on 0\.0\.0\.0 without TLS would send API keys and secrets in clear text/m);
  assert.not.ok(existsSync(join(home, '.assistant', 'backend')), 'nothing was started');
  const half = await runCli(['backend', 'serve', '--tls-cert', 'x.pem'], { home });
  assert.is(half.code, 2);
  assert.match(half.stderr, /--tls-cert and --tls-key go together/);
  const insecure = await startBackendProcess({ home, args: ['--listen', '0.0.0.0:0', '--insecure'] }).catch((e: Error) => e);
  assert.ok(!(insecure instanceof Error), String(insecure));
  const b = insecure as BackendProcess;
  assert.match(b.stderr(), /warning: serving plain HTTP on 0\.0\.0\.0 \(--insecure\)/);
  const stopped = await b.kill('SIGTERM');
  assert.is(stopped.code, 0, 'SIGTERM stops it gracefully');
  assert.match(b.stderr(), /backend: stopping \(SIGTERM\)[\s\S]*backend stopped/);
  assert.not.ok(existsSync(join(b.dataDir, 'backend.lock')), 'the lock is released');
  assert.not.ok(existsSync(join(b.dataDir, 'admin.sock')), 'the admin socket is removed');
});

test('with --tls-cert/--tls-key it serves https, and the CLI reaches it trusting that certificate', async () => {
  const dir = temp('assistant-backend-tls-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], {
    cwd: dir,
    stdio: 'ignore',
  });
  const b = await startBackendProcess({ args: ['--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')] });
  dirs.push(b.home);
  try {
    assert.match(b.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const k = await createApiKey(b, 'team-tls');
    const home = temp('assistant-backend-tls-client-');
    const stored = await runCli(['credentials', 'store', 'edge', '--api-token', '-'], { home, env: { ...asClient(b, k), NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') }, input: 'edge-token-value-123456' });
    assert.is(stored.code, 0, stored.stderr);
    const untrusted = await runCli(['credentials', 'list'], { home, env: asClient(b, k) });
    assert.is(untrusted.code, 1, 'an untrusted certificate is not accepted');
    assert.match(untrusted.stderr, /^error: backend_unreachable: /m);
  } finally {
    await b.kill('SIGTERM');
  }
});

test('the client refuses plain HTTP to a host that is not this machine, before sending anything', async () => {
  const home = tempHome();
  dirs.push(home);
  const r = await runCli(['credentials', 'list'], { home, env: { ASSISTANT_BACKEND_URL: 'http://backend.invalid:8790', ASSISTANT_BACKEND_API_KEY: key } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: insecure_backend_url: refusing to send the backend API key over plain HTTP to backend\.invalid:8790/m);
  assert.not.ok(r.stderr.includes(key));
});

test('the client follows no redirect to another origin: the key never reaches it', async () => {
  const seen: string[] = [];
  const listen = (s: Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
  const other = createServer((req, res) => {
    seen.push(String(req.headers.authorization ?? 'none'));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"credentials":[]}');
  });
  const otherPort = await listen(other);
  const redirector = createServer((req, res) => res.writeHead(307, { location: `http://127.0.0.1:${otherPort}${req.url}` }).end());
  const port = await listen(redirector);
  try {
    const home = tempHome();
    dirs.push(home);
    const r = await runCli(['credentials', 'list'], { home, env: { ASSISTANT_BACKEND_URL: `http://127.0.0.1:${port}`, ASSISTANT_BACKEND_API_KEY: key } });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error: backend_redirect_refused: the credential backend at http:\/\/127\.0\.0\.1:\d+ redirected to another origin/m);
    assert.equal(seen, [], 'the other origin got no request');
  } finally {
    redirector.close();
    other.close();
  }
});

test('store: fields per provider, secrets from stdin or refused without a terminal, a command-line secret warned about', async () => {
  const home = tempHome();
  dirs.push(home);
  const env = asClient(backend, key);
  const stray = await runCli(['credentials', 'store', 'gpucloud', '--client-id', 'a', '--token', 'b'], { home, env });
  assert.is(stray.code, 2);
  assert.match(stray.stderr, /--token is not a field of gpucloud/);
  const noSecret = await runCli(['credentials', 'store', 'gpucloud', '--client-id', 'a'], { home, env });
  assert.is(noSecret.code, 2);
  assert.match(noSecret.stderr, /gpucloud needs --client-secret[\s\S]*hint: give "--client-secret -" and pipe the value in/);
  const onLine = await runCli(['credentials', 'store', 'cloud_d', '--secret-id', '000123', '--secret-key', '00099887766778'], { home, env });
  assert.is(onLine.code, 0, onLine.stderr);
  const cloudD = (await (await call('/v1/credentials/production/cloud_d/default')).json()) as { fields: Record<string, string> };
  assert.equal(cloudD.fields, { secret_id: '000123', secret_key: '00099887766778' }, 'number-looking values are kept as typed');
  assert.match(onLine.stderr, /warning: --secret-key on the command line lands in your shell history/);
  assert.not.ok(onLine.stderr.includes('00099887766778'));
  const k8s = await runCli(['credentials', 'store', 'k8s'], { home, env });
  assert.is(k8s.code, 2);
  assert.match(k8s.stderr, /k8s kubeconfigs come later/);
  const noKey = await runCli(['credentials', 'list'], { home });
  assert.is(noKey.code, 2);
  assert.match(noKey.stderr, /^error: usage: no backend API key configured/m);
});

test("cloud_a stores a profile's long-term keys; expiring session keys only with --allow-session", async () => {
  const home = tempHome();
  dirs.push(home);
  mkdirSync(join(home, '.aws'));
  writeFileSync(
    join(home, '.aws', 'credentials'),
    '[prod]\naws_access_key_id = AKIAEXAMPLEPROD00001\naws_secret_access_key = prod-secret-access-key-0001\n' +
      '[temp]\naws_access_key_id = ASIAEXAMPLETEMP00001\naws_secret_access_key = temp-secret-0001\naws_session_token = temp-session-token-0001\n',
  );
  writeFileSync(join(home, '.aws', 'config'), '[profile prod]\nregion = eu-west-1\n');
  const env = asClient(backend, key);
  const prod = await runCli(['credentials', 'store', 'cloud_a', '--profile', 'prod', '-o', 'json'], { home, env });
  assert.is(prod.code, 0, prod.stderr);
  assert.is(JSON.parse(prod.stdout).name, 'prod');
  const stored = (await (await call('/v1/credentials/production/cloud_a/prod')).json()) as { fields: unknown };
  assert.equal(stored.fields, { access_key_id: 'AKIAEXAMPLEPROD00001', secret_access_key: 'prod-secret-access-key-0001', region: 'eu-west-1' });
  const temp = await runCli(['credentials', 'store', 'cloud_a', '--profile', 'temp'], { home, env });
  assert.is(temp.code, 3, temp.stderr);
  assert.match(temp.stderr, /expiring session keys/);
  assert.is((await call('/v1/credentials/production/cloud_a/temp')).status, 404, 'nothing was stored');
  const allowed = await runCli(['credentials', 'store', 'cloud_a', '--profile', 'temp', '--allow-session'], { home, env });
  assert.is(allowed.code, 0, allowed.stderr);
});

test.run();
