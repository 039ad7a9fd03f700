/**
 * `backend serve`: TLS, refusing clear text off loopback, one process per data directory, graceful
 * SIGTERM, request limits and the failed-authentication slowdown. (The client's rules:
 * cli.credentials-store.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openPglite } from '../../backend/storage.js';
import { asClient, backendForFile, createApiKey, startBackendProcess, type BackendProcess } from '../support/backend.js';
import { cliInThisProcess, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); the server itself is a child (startBackendProcess).
cliInThisProcess();

let backend: BackendProcess;
let key = '';
const dirs: string[] = [];
const temp = tempDir;

// The file's server makes its cluster from an empty data directory: the first start users see (and the test of its message below).
backendForFile(test, 'team-s', (b, k) => ((backend = b), (key = k)), { freshCluster: true });
test.after(async () => {
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

test('the first start says it is preparing the embedded database before it listens; a later start says it opens it', async () => {
  const lines = backend.stderr().split('\n');
  const preparing = lines.findIndex((l) => /^backend: preparing the embedded database in .* \(first start: this takes about 10 s\)…$/.test(l));
  const listening = lines.findIndex((l) => l.includes('listening on'));
  assert.ok(preparing >= 0 && preparing < listening, backend.stderr());
  const second = await runCli(['backend', 'serve', '--listen', '127.0.0.1:0'], { home: backend.home });
  assert.match(second.stderr, /^backend: opening the embedded database in /m);
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

test('a server started on a copy of the empty cluster (what the other backend tests start on) sets up the same schema and makes its master key, as the first start from an empty directory did', async () => {
  const copy = await startBackendProcess();
  dirs.push(copy.home);
  try {
    assert.match(copy.stderr(), /^backend: opening the embedded database in /m, 'the copy is an existing cluster');
    for (const b of [backend, copy]) assert.match(b.stderr(), /warning: created the master key file .*backend-master\.key/, b.stderr());
    const k = await createApiKey(copy, 'team-copy');
    const who = await fetch(`${copy.url}/v1/whoami`, { headers: { authorization: `Bearer ${k}` } });
    assert.equal(await who.json(), { tenant: 'team-copy', key_prefix: k.split('_')[1] });
  } finally {
    await copy.kill('SIGTERM');
  }
  await backend.kill('SIGTERM');
  // Both clusters opened as the product opens them: the same tables and the same migrations applied.
  const schema = async (dataDir: string) => {
    const storage = await openPglite(dataDir);
    try {
      const tables = await storage.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
      const migrations = await storage.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY 1');
      return { tables: tables.map((t) => t.name), migrations: migrations.map((m) => Number(m.version)) };
    } finally {
      await storage.close();
    }
  };
  const first = await schema(backend.dataDir);
  assert.ok(first.tables.includes('credentials') && first.migrations.length > 0, JSON.stringify(first));
  assert.equal(await schema(copy.dataDir), first);
});

test.run();
