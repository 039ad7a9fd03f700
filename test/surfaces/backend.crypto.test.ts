/**
 * The backend's building blocks on their own: envelope encryption bound to the record's identity,
 * master key parsing and the key file, API keys, and the failed-authentication slowdown.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateApiKey, hashApiKey, parseApiKey } from '../../backend/api-keys.js';
import { open, rewrap, seal, UnsealError } from '../../backend/envelope.js';
import { generateMasterKey, loadKeyring, masterKeyId } from '../../backend/keyring.js';
import { AuthThrottle, FREE_FAILURES, MAX_DELAY_MS } from '../../backend/throttle.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'assistant-backend-unit-'));
  dirs.push(d);
  return d;
};
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const unsealed = (e: unknown) => e instanceof UnsealError;
const ID = { tenant: 'team-a', env: 'production', provider: 'gpucloud', name: 'default' };
const FIELDS = { client_id: 'id-1', client_secret: 'the-secret-value-123' };

test('a sealed record opens under its own identity and holds no plaintext', () => {
  const master = generateMasterKey();
  const sealed = seal(FIELDS, ID, master);
  assert.equal(open(sealed, ID, master), FIELDS);
  assert.not.ok(sealed.payload.includes(FIELDS.client_secret));
  assert.is(sealed.masterKeyId, master.id);
});

test('a record copied to another tenant, env, provider or name does not open', () => {
  const master = generateMasterKey();
  const sealed = seal(FIELDS, ID, master);
  for (const other of [{ tenant: 'team-b' }, { env: 'testing' }, { provider: 'cloud_d' }, { name: 'other' }]) {
    assert.throws(() => open(sealed, { ...ID, ...other }, master), unsealed, JSON.stringify(other));
  }
});

test('one flipped bit anywhere in the record makes it fail to open', () => {
  const master = generateMasterKey();
  const sealed = seal(FIELDS, ID, master);
  for (const part of ['payload', 'wrappedKey'] as const) {
    for (const at of [0, 13, 30, sealed[part].length - 1]) {
      const bad = { ...sealed, [part]: Buffer.from(sealed[part]) };
      bad[part][at]! ^= 1;
      assert.throws(() => open(bad, ID, master), unsealed, `${part}[${at}]`);
    }
  }
  assert.throws(() => open(sealed, ID, generateMasterKey()), unsealed, 'another master key');
});

test('rewrap moves a record to a new master key and keeps its payload', () => {
  const [a, b] = [generateMasterKey(), generateMasterKey()];
  const sealed = seal(FIELDS, ID, a);
  const again = rewrap(sealed, ID, a, b);
  assert.is(again.masterKeyId, b.id);
  assert.ok(again.payload.equals(sealed.payload));
  assert.equal(open(again, ID, b), FIELDS);
  assert.throws(() => open(again, ID, a), unsealed);
});

test('master keys: env in base64 or hex (new,old), a key file created 0600 only for an empty database, a readable one refused', () => {
  const k = generateMasterKey();
  const old = generateMasterKey();
  const fromEnv = loadKeyring({ env: { ASSISTANT_BACKEND_MASTER_KEY: `${k.key.toString('base64')}, ${old.key.toString('hex')}` }, file: '/nonexistent', createIfMissing: false });
  assert.equal(fromEnv.keys.map((x) => x.id), [k.id, old.id]);
  assert.throws(() => loadKeyring({ env: { ASSISTANT_BACKEND_MASTER_KEY: 'c2hvcnQ=' }, file: '/x', createIfMissing: true }), /32 random bytes/);

  const dir = tempDir();
  const file = join(dir, 'sub', 'master.key');
  assert.throws(() => loadKeyring({ env: {}, file, createIfMissing: false }), /master key is missing/);
  const created = loadKeyring({ env: {}, file, createIfMissing: true });
  assert.ok(created.created);
  assert.is(statSync(file).mode & 0o777, 0o600);
  const again = loadKeyring({ env: {}, file, createIfMissing: true });
  assert.not.ok(again.created);
  assert.is(again.keys[0]!.id, created.keys[0]!.id);
  assert.is(masterKeyId(Buffer.from(readFileSync(file, 'utf8').split('\n').find((l) => l && !l.startsWith('#'))!, 'base64')), created.keys[0]!.id);
  chmodSync(file, 0o644);
  assert.throws(() => loadKeyring({ env: {}, file, createIfMissing: false }), /readable by other users/);
});

test('API keys carry 256 random bits, a public prefix, and only their hash is kept', () => {
  const k = generateApiKey();
  assert.match(k.key, /^asb_[a-z0-9]{10}_[A-Za-z0-9_-]{43}$/);
  assert.is(Buffer.from(k.key.split('_').slice(2).join('_'), 'base64url').length, 32);
  assert.equal(parseApiKey(k.key), { prefix: k.prefix });
  assert.ok(hashApiKey(k.key).equals(k.hash));
  assert.not.ok(k.hash.toString('hex').includes(k.key));
  assert.is(parseApiKey('asb_short_x'), undefined);
  assert.is.not(generateApiKey().prefix, k.prefix);
});

test('failed authentications: a few are free, then the address waits longer each time, capped; others are not affected', () => {
  let now = 1_000_000;
  const t = new AuthThrottle(() => now);
  for (let i = 0; i < FREE_FAILURES - 1; i++) {
    t.failed('10.0.0.1');
    assert.is(t.waitFor('10.0.0.1'), 0);
  }
  t.failed('10.0.0.1');
  assert.is(t.waitFor('10.0.0.1'), 1000);
  now += 1000;
  t.failed('10.0.0.1');
  assert.is(t.waitFor('10.0.0.1'), 2000);
  for (let i = 0; i < 20; i++) t.failed('10.0.0.1');
  assert.is(t.waitFor('10.0.0.1'), MAX_DELAY_MS);
  assert.is(t.waitFor('10.0.0.2'), 0);
  now += 16 * 60_000;
  assert.is(t.waitFor('10.0.0.1'), 0, 'forgotten after a quiet quarter hour');
});

test.run();
