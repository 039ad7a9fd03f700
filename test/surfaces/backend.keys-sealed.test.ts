/**
 * Credential backend keys (issue 36 §4), against the real `backend serve` (PGlite) and the real CLI:
 * a key reads and writes only its envs (the README's promise: a testing key cannot read production), a
 * key with no env is refused, and key rows written into the database without the master key (a new
 * key, a key widened to another env, a revoked key brought back) are ignored and audited.
 */
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pgliteDir } from '../../backend/storage.js';
import { asClient, createApiKey, startBackendProcess, type BackendProcess } from '../support/backend.js';
import { cliInThisProcess, runCli, tempHome } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); the server itself is a child (startBackendProcess).
cliInThisProcess();

const api = (b: BackendProcess, key: string, path: string, init: RequestInit = {}) => fetch(`${b.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });
const prefixOf = (key: string) => key.split('_')[1]!;

test('a testing key cannot read, list or delete production; a key with no env is refused', async () => {
  const b = await startBackendProcess();
  try {
    const none = await runCli(['backend', 'keys', 'create', '--tenant', 'team-a'], { home: b.home });
    assert.is(none.code, 2, none.stderr);
    assert.match(none.stderr, /^error: usage: keys create needs --env <env>/m);
    assert.is(none.stdout, '', 'no key was made');
    const prod = await createApiKey(b, 'team-a', {}, ['production']);
    const testing = await createApiKey(b, 'team-a', {}, ['testing']);
    const stored = await runCli(['credentials', 'store', 'edge', '--api-token', '-'], { home: tempHome(), env: asClient(b, prod), input: 'edge-production-token-0123456789' });
    assert.is(stored.code, 0, stored.stderr);
    const read = await api(b, testing, '/v1/credentials/production/edge/default');
    assert.is(read.status, 403);
    assert.is(((await read.json()) as any).error.code, 'env_forbidden');
    assert.is((await api(b, testing, '/v1/credentials/production/edge/default', { method: 'DELETE' })).status, 403);
    assert.is((await api(b, testing, '/v1/credentials?env=production')).status, 403);
    const listed = (await (await api(b, testing, '/v1/credentials')).json()) as any;
    assert.equal(listed.credentials, [], 'production is not even listed');
    const viaCli = await runCli(['credentials', 'list', '-o', 'json'], { home: tempHome(), env: asClient(b, testing, { ASSISTANT_BACKEND_ENV: 'production' }) });
    assert.not.ok(viaCli.stdout.includes('edge-production-token'));
    assert.is((await api(b, prod, '/v1/credentials/production/edge/default')).status, 200, 'still there for a production key');
    const keys = JSON.parse((await runCli(['backend', 'keys', 'list', '-o', 'json'], { home: b.home })).stdout) as { prefix: string; envs: string[] }[];
    assert.equal(keys.find((k) => k.prefix === prefixOf(testing))?.envs, ['testing']);
  } finally {
    await b.kill('SIGTERM');
  }
});

test('key rows written without the master key are ignored and audited: a forged key, a widened one, a revoked one revived', async () => {
  const home = tempHome('assistant-backend-sealed-');
  let b = await startBackendProcess({ home });
  const good = await createApiKey(b, 'team-a', {}, ['testing']);
  const widened = await createApiKey(b, 'team-a', {}, ['testing']);
  const revived = await createApiKey(b, 'team-a', {}, ['production']);
  assert.is((await runCli(['backend', 'keys', 'revoke', prefixOf(revived)], { home })).code, 0);
  assert.is((await b.kill('SIGTERM')).code, 0);

  // Someone with write access to the database, not the master key.
  const forged = `asb_forged0001_${randomBytes(32).toString('base64url')}`;
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(pgliteDir(b.dataDir));
  const [{ mac_key_id }] = (await db.query<{ mac_key_id: string }>('SELECT mac_key_id FROM api_keys LIMIT 1')).rows;
  await db.query('INSERT INTO api_keys (prefix, tenant, key_hash, envs, mac, mac_key_id) VALUES ($1, $2, $3, $4, $5, $6)', [
    'forged0001',
    'team-b',
    createHash('sha256').update(forged).digest(),
    'production,staging,testing',
    randomBytes(32),
    mac_key_id,
  ]);
  await db.query("UPDATE api_keys SET envs = 'production,testing' WHERE prefix = $1", [prefixOf(widened)]);
  await db.query('UPDATE api_keys SET revoked_at = NULL WHERE prefix = $1', [prefixOf(revived)]);
  await db.close();

  b = await startBackendProcess({ home });
  try {
    assert.is((await api(b, good, '/v1/whoami')).status, 200, 'an untouched key works');
    for (const [what, key] of [['forged', forged], ['widened', widened], ['revived', revived]] as const) {
      assert.is((await api(b, key, '/v1/whoami')).status, 401, what);
    }
    const audit = JSON.parse((await runCli(['backend', 'audit', '-o', 'json'], { home })).stdout) as { action: string; key_prefix: string; outcome: string }[];
    const ignored = audit.filter((e) => e.action === 'key_row_ignored').map((e) => e.key_prefix);
    for (const p of ['forged0001', prefixOf(widened), prefixOf(revived)]) assert.ok(ignored.includes(p), `${p} audited: ${JSON.stringify(ignored)}`);
    const keys = JSON.parse((await runCli(['backend', 'keys', 'list', '-o', 'json'], { home })).stdout) as { prefix: string; valid: boolean }[];
    assert.equal(keys.filter((k) => !k.valid).map((k) => k.prefix).sort(), ['forged0001', prefixOf(widened), prefixOf(revived)].sort());
  } finally {
    await b.kill('SIGTERM');
  }
});

test.run();
