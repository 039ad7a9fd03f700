/**
 * The credential backend end to end, on both storages: the real server (`assistant backend serve` as a
 * child), the real CLI as its client, the gpucloud emulator over HTTP, and the embedded PGlite or a real
 * PostgreSQL (Debian's package; SKIP when missing) underneath.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { startRepohostFake } from '../../emulator/fakes/repohost.js';
import { asClient, createApiKey, startBackendProcess, storageArgs, type BackendProcess } from './backend.js';
import { runCli, tempHome } from './cli.js';
import { callTool, connectHttp, startMcpServer, textOf } from './mcp.js';
import { postgresMissing, startPostgres, type RunningPostgres } from './postgres.js';

const SECRET = 'gpucloud-secret-Zq81-backend-e2e-5521';
const TESTING_SECRET = 'gpucloud-secret-testing-Wm44-e2e-9083';

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    const st = statSync(p);
    return st.isDirectory() ? files(p) : st.isFile() ? [p] : [];
  });
}

interface Ctx {
  pg?: RunningPostgres;
  database?: string;
  backend: BackendProcess;
  emu: Emulator;
  keyA: string;
  keyB: string;
  homes: string[];
}

export function backendE2eSuite(label: 'pglite' | 'postgres') {
  const s = suite<Ctx>(`backend on ${label}`);
  const skip = label === 'postgres' ? postgresMissing() : undefined;
  const it = (name: string, fn: (c: Ctx) => Promise<void>) =>
    s(name, async (c) => {
      if (skip) return void console.log(`SKIP backend on ${label}: ${name}: ${skip}`);
      await fn(c);
    });
  const client = (c: Ctx, key: string, extra: Record<string, string | undefined> = {}) => {
    const home = tempHome('assistant-backend-client-');
    c.homes.push(home);
    return { home, env: asClient(c.backend, key, { GPUCLOUD_BASE_URL: c.emu.url, ...extra }) };
  };
  const json = async (r: Response | Promise<Response>): Promise<any> => (await r).json();
  const api = (c: Ctx, key: string, path: string, init: RequestInit = {}) =>
    fetch(`${c.backend.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });

  s.before(async (c) => {
    c.homes = [];
    if (skip) return;
    if (label === 'postgres') {
      c.pg = await startPostgres();
      c.database = await c.pg.createDatabase('backend_e2e');
    }
    c.backend = await startBackendProcess({ database: c.database });
    c.emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, debit: false, clientSecret: SECRET });
    c.keyA = await createApiKey(c.backend, 'team-a');
    c.keyB = await createApiKey(c.backend, 'team-b');
  });
  s.after(async (c) => {
    await c.backend?.kill('SIGTERM');
    await c.emu?.close();
    await c.pg?.stop();
    for (const h of [...c.homes, c.backend?.home]) if (h) rmSync(h, { recursive: true, force: true });
  });

  it('store via the CLI, then gpucloud list instances with no other credentials resolves them from the backend', async (c) => {
    const { home, env } = client(c, c.keyA);
    const stored = await runCli(['credentials', 'store', 'gpucloud', '--client-id', c.emu.clientId, '--client-secret', '-'], { home, env, input: `${SECRET}\n` });
    assert.is(stored.code, 0, stored.stderr);
    assert.match(stored.stderr, /stored gpucloud\/default \(client_id, client_secret\) in env production/);
    assert.not.match(stored.stderr, /shell history/, 'a secret from stdin draws no history warning');

    const listed = await runCli(['gpucloud', 'list', 'instances', '-o', 'json', '--debug'], { home, env });
    assert.is(listed.code, 0, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as { hostname: string }[]).some((i) => i.hostname === 'demo-a100'));
    assert.match(listed.stderr, /debug: gpucloud credentials from backend \(http:\/\/127\.0\.0\.1:\d+, env production, gpucloud\/default\)/);
    for (const out of [listed.stdout, listed.stderr, stored.stdout, stored.stderr]) assert.not.ok(out.includes(SECRET), 'the secret never appears in output');
    assert.not.ok(c.keyA && listed.stderr.includes(c.keyA), 'the API key never appears in output');
    // Fetched secrets live in memory only: no token cache, nothing under the client's ~/.assistant holds the secret.
    for (const f of files(home)) assert.not.ok(readFileSync(f).includes(SECRET), `${f} holds the secret`);

    const tested = await runCli(['credentials', 'test', 'gpucloud'], { home, env });
    assert.is(tested.code, 0, tested.stderr);
    assert.match(tested.stdout, /gpucloud credentials work \(source: backend \(/);
  });

  it('MCP: assistant_credentials_test says the credentials come from the backend, and returns no value', async (c) => {
    const { home, env } = client(c, c.keyA);
    c.homes.push(home);
    const server = await startMcpServer(['--listen', '127.0.0.1:0', '--read-only'], { env, home });
    try {
      const mcp = await connectHttp(server.url);
      const r = await callTool(mcp, 'assistant_credentials_test', {});
      assert.not.ok(r.isError, textOf(r));
      assert.is(r.structuredContent.ok, true);
      assert.match(r.structuredContent.source, /^backend \(/);
      const all = JSON.stringify(r);
      assert.not.ok(all.includes(SECRET) || all.includes(c.keyA), 'no credential value in the result');
      await mcp.close();
    } finally {
      await server.stop();
    }
  });

  it('a local source wins over the backend: the store never overrides config, environment or the credentials file', async (c) => {
    const { home, env } = client(c, c.keyA, { GPUCLOUD_CLIENT_ID: c.emu.clientId, GPUCLOUD_CLIENT_SECRET: SECRET });
    const r = await runCli(['credentials', 'test', 'gpucloud', '-o', 'json'], { home, env });
    assert.is(r.code, 0, r.stderr);
    assert.match(JSON.parse(r.stdout).source, /^env /);
    const reads = (await runCli(['backend', 'audit', '-o', 'json', '--tenant', 'team-a', ...storageArgs(c.backend)], { home: c.backend.home })).stdout;
    const before = (JSON.parse(reads) as { action: string }[]).filter((e) => e.action === 'read').length;
    await runCli(['gpucloud', 'list', 'instances'], { home, env });
    const after = (JSON.parse((await runCli(['backend', 'audit', '-o', 'json', '--tenant', 'team-a', ...storageArgs(c.backend)], { home: c.backend.home })).stdout) as { action: string }[]).filter(
      (e) => e.action === 'read',
    ).length;
    assert.is(after, before, 'with a local source the backend is not even asked');
  });

  it("tenant B's key cannot read tenant A's credentials", async (c) => {
    const direct = await api(c, c.keyB, '/v1/credentials/production/gpucloud/default');
    assert.is(direct.status, 404);
    const { home, env } = client(c, c.keyB);
    const listed = await runCli(['credentials', 'list', '-o', 'json'], { home, env });
    assert.is(listed.code, 0, listed.stderr);
    assert.equal(JSON.parse(listed.stdout), []);
    const r = await runCli(['gpucloud', 'list', 'instances'], { home, env });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error: no_credentials: .*\(4\) backend credential store http:\/\/127\.0\.0\.1:\d+ \(env production, gpucloud\/default\): nothing stored/m);
  });

  it('testing and production are separate: what is stored under testing is never returned for production', async (c) => {
    const t = client(c, c.keyA, { ASSISTANT_BACKEND_ENV: 'testing' });
    const empty = await runCli(['credentials', 'list', '-o', 'json'], t);
    assert.equal(JSON.parse(empty.stdout), []);
    const stored = await runCli(['credentials', 'store', 'gpucloud', '--client-id', 'testing-id', '--client-secret', '-'], { ...t, input: TESTING_SECRET });
    assert.is(stored.code, 0, stored.stderr);
    const prod = await json(api(c, c.keyA, '/v1/credentials/production/gpucloud/default'));
    assert.is(prod.fields.client_secret, SECRET);
    const testing = await json(api(c, c.keyA, '/v1/credentials/testing/gpucloud/default'));
    assert.is(testing.fields.client_secret, TESTING_SECRET);
    const all = await runCli(['credentials', 'list', '--all', '-o', 'json'], t);
    assert.equal((JSON.parse(all.stdout) as { env: string }[]).map((e) => e.env), ['production', 'testing']);
    const listed = await runCli(['credentials', 'list'], t);
    assert.match(listed.stdout, /^PROVIDER\s+NAME\s+ENV\s+UPDATED$/m);
    assert.not.ok(listed.stdout.includes(TESTING_SECRET) || listed.stdout.includes('testing-id'), 'list shows no values');
  });

  it('a revoked key is refused on its very next request; other keys keep working', async (c) => {
    const extra = await createApiKey(c.backend, 'team-a');
    assert.is((await api(c, extra, '/v1/whoami')).status, 200);
    const prefix = extra.split('_')[1]!;
    const revoked = await runCli(['backend', 'keys', 'revoke', prefix, ...storageArgs(c.backend)], { home: c.backend.home });
    assert.is(revoked.code, 0, revoked.stderr);
    const refused = await api(c, extra, '/v1/credentials/production/gpucloud/default');
    assert.is(refused.status, 401);
    assert.match((await json(refused)).error.message, /revoked/);
    const { home, env } = client(c, extra);
    const r = await runCli(['gpucloud', 'list', 'instances'], { home, env });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /refused the API key: this API key was revoked/);
    assert.is((await api(c, c.keyA, '/v1/whoami')).status, 200);
    const keys = JSON.parse((await runCli(['backend', 'keys', 'list', '-o', 'json', ...storageArgs(c.backend)], { home: c.backend.home })).stdout) as { prefix: string; revoked_at: string | null }[];
    assert.ok(keys.find((k) => k.prefix === prefix)?.revoked_at);
    assert.not.ok(JSON.stringify(keys).includes(extra), 'keys list never shows a key');
  });

  it("the secret's bytes appear nowhere in the data directory or the database dump, and neither does an API key", async (c) => {
    if (label === 'pglite') {
      // PGlite writes through to its files; stop the server so that nothing is left only in memory.
      await c.backend.kill('SIGTERM');
      const all = files(c.backend.dataDir);
      assert.ok(all.length > 100, 'the data directory was read');
      for (const f of all) {
        const bytes = readFileSync(f);
        for (const needle of [SECRET, TESTING_SECRET, c.keyA, c.keyB]) assert.not.ok(bytes.includes(needle), `${f} holds a secret`);
      }
      c.backend = await startBackendProcess({ home: c.backend.home });
    } else {
      const dump = c.pg!.dump('backend_e2e');
      assert.match(dump, /CREATE TABLE public\.credentials/);
      for (const needle of [SECRET, TESTING_SECRET, c.keyA, c.keyB]) assert.not.ok(dump.includes(needle), 'the dump holds a secret');
    }
    assert.is((await json(api(c, c.keyA, '/v1/credentials/production/gpucloud/default'))).fields.client_secret, SECRET, 'still readable');
  });

  it('a record tampered with, or moved to another tenant, fails to decrypt with a clear error', async (c) => {
    const sql = [
      // Moved: tenant A's production record copied under tenant B.
      "INSERT INTO credentials (tenant, env, provider, name, master_key_id, wrapped_key, payload, updated_by) SELECT 'team-b', env, provider, name, master_key_id, wrapped_key, payload, updated_by FROM credentials WHERE tenant = 'team-a' AND env = 'production'",
      // Tampered: one bit of tenant A's testing record flipped.
      "UPDATE credentials SET payload = overlay(payload placing decode(lpad(to_hex(get_byte(payload, 40) # 1), 2, '0'), 'hex') from 41 for 1) WHERE tenant = 'team-a' AND env = 'testing'",
    ];
    if (label === 'pglite') {
      await c.backend.kill('SIGTERM');
      const { PGlite } = await import('@electric-sql/pglite');
      const db = await PGlite.create(join(c.backend.dataDir, 'pgdata'));
      for (const q of sql) await db.query(q);
      await db.close();
      c.backend = await startBackendProcess({ home: c.backend.home });
    } else {
      for (const q of sql) c.pg!.psql(q, 'backend_e2e');
    }
    const moved = await api(c, c.keyB, '/v1/credentials/production/gpucloud/default');
    assert.is(moved.status, 500);
    const err = (await json(moved)).error;
    assert.is(err.code, 'decrypt_failed');
    assert.match(err.message, /cannot be decrypted: .*moved from another tenant or name/);
    const tampered = await api(c, c.keyA, '/v1/credentials/testing/gpucloud/default');
    assert.is(tampered.status, 500);
    assert.is((await json(tampered)).error.code, 'decrypt_failed');

    const { home, env } = client(c, c.keyB);
    const r = await runCli(['gpucloud', 'list', 'instances'], { home, env });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error: decrypt_failed: .*gpucloud\/default \(production\) of tenant team-b cannot be decrypted/m);
    assert.is((await json(api(c, c.keyA, '/v1/credentials/production/gpucloud/default'))).fields.client_secret, SECRET, 'the original is intact');
  });

  it('credentials test without a provider tests every stored credential; delete asks first', async (c) => {
    // repohost's stored token is tested against its fake (a cheap GET /user with the stored token only).
    const repohost = await startRepohostFake({ token: 'ghp_exampletoken000000000000000000000001' });
    const { home, env } = client(c, c.keyA, { ASSISTANT_REPOHOST_BASE_URL: repohost.url });
    await runCli(['credentials', 'store', 'repohost', '--token', '-'], { home, env, input: 'ghp_exampletoken000000000000000000000001' });
    const r = await runCli(['credentials', 'test'], { home, env }).finally(() => repohost.close());
    assert.is(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /^gpucloud\s+default\s+ok\s+balance /m);
    assert.match(r.stdout, /^repohost\s+default\s+ok\s+token of @octo-dev/m);
    assert.ok(repohost.requests().some((q) => q.path === '/user' && q.authorized), 'the stored token was sent to the code host');
    const refused = await runCli(['credentials', 'delete', 'repohost'], { home, env });
    assert.is(refused.code, 3, refused.stderr);
    const deleted = await runCli(['credentials', 'delete', 'repohost', '--yes'], { home, env });
    assert.is(deleted.code, 0, deleted.stderr);
    const gone = await runCli(['credentials', 'delete', 'repohost', '--yes'], { home, env });
    assert.is(gone.code, 2);
    assert.match(gone.stderr, /credential_not_found/);
  });

  it('the audit log says who read or wrote what (key prefix, address, action), never a value', async (c) => {
    const r = await runCli(['backend', 'audit', '--limit', '1000', '-o', 'json', ...storageArgs(c.backend)], { home: c.backend.home });
    assert.is(r.code, 0, r.stderr);
    const entries = JSON.parse(r.stdout) as { action: string; key_prefix: string; address: string; provider: string; outcome: string }[];
    const prefixA = c.keyA.split('_')[1];
    assert.ok(entries.some((e) => e.action === 'store' && e.key_prefix === prefixA && e.address === '127.0.0.1' && e.provider === 'gpucloud'));
    assert.ok(entries.some((e) => e.action === 'read' && e.outcome === 'decrypt_failed'));
    assert.ok(entries.some((e) => e.action === 'auth_failed' && e.outcome === 'revoked'));
    for (const needle of [SECRET, TESTING_SECRET, c.keyA, c.keyB]) assert.not.ok(r.stdout.includes(needle));
  });

  return s;
}

