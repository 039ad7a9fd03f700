/**
 * The backend's domain: tenants' API keys, their encrypted credentials, and the audit log, over one
 * Storage (PGlite or PostgreSQL). Every write is one transaction; every request authenticates against
 * the table (no cache), so a revoked key is refused on its very next request.
 */
import { InvalidInputError, OperationError } from '../engine/core/errors.js';
import { BACKEND_ENVS } from '../schemas/backend-api.js';
import { canonicalEnvs, generateApiKey, hashApiKey, hashesMatch, isKeyPrefix, keyRowMac, parseApiKey } from './api-keys.js';
import { open, rewrap, seal, UnsealError, type RecordIdentity, type Sealed } from './envelope.js';
import { generateMasterKey, loadKeyring, writeKeyFile, type Keyring, type MasterKey } from './keyring.js';
import { migrate } from './migrations.js';
import type { Queryable, Row, Storage } from './storage.js';

export interface Principal {
  tenant: string;
  prefix: string;
  /** The envs the key may read and write (`testing`, `staging`, `production`). */
  envs: string[];
  /** The key's label (its name in run history: who applied); may be empty. */
  label?: string;
}

/** Who did something, for the audit log. */
export interface Actor {
  tenant?: string;
  prefix?: string;
  address: string;
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked'; prefix?: string };

export interface StoredSummary {
  env: string;
  provider: string;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyInfo {
  prefix: string;
  tenant: string;
  envs: string[];
  /** false: the row fails its MAC (written by someone without the master key); the server ignores it. */
  valid: boolean;
  label: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AuditEntry {
  id: number;
  at: string;
  tenant: string | null;
  key_prefix: string | null;
  address: string;
  action: string;
  env: string | null;
  provider: string | null;
  name: string | null;
  outcome: string;
}

/** A record that exists but does not decrypt: altered, copied from another tenant or name, or a wrong key. */
export class RecordUnreadableError extends OperationError {
  constructor(id: RecordIdentity, why: string) {
    super(
      'decrypt_failed',
      `the stored credential ${id.provider}/${id.name} (${id.env}) of tenant ${id.tenant} cannot be decrypted: ${why}; it was altered, moved from another tenant or name, or sealed with another master key`,
      { hint: 'store it again (credentials store), and check who can write to the database' },
    );
  }
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));
const buf = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array));

export interface OpenStoreOptions {
  storage: Storage;
  env: Record<string, string | undefined>;
  keyFile: string;
}

export class CredentialStore {
  private lastUsedWritten = new Map<string, number>();

  private constructor(
    readonly storage: Storage,
    private keyring: Keyring,
    private readonly env: Record<string, string | undefined>,
  ) {}

  /** Migrates the schema, loads the master keys and checks they open what the database holds. */
  static async open(opts: OpenStoreOptions): Promise<CredentialStore & { keyCreated: boolean }> {
    const applied = await migrate(opts.storage);
    const meta = await primaryKeyId(opts.storage);
    const holdsRecords = (await opts.storage.query('SELECT 1 FROM credentials LIMIT 1')).length > 0;
    const loaded = loadKeyring({ env: opts.env, file: opts.keyFile, createIfMissing: meta === undefined && !holdsRecords });
    const { created, ...keyring } = loaded;
    const store = new CredentialStore(opts.storage, keyring, opts.env);
    const primary = meta ?? (await store.initPrimary(keyring.keys[0]!));
    const used = (await opts.storage.query<{ id: string }>('SELECT DISTINCT master_key_id AS id FROM credentials')).map((r) => r.id);
    const missing = [...new Set([primary, ...used])].filter((id) => !keyring.keys.some((k) => k.id === id));
    if (missing.length) {
      throw new InvalidInputError(
        'wrong_master_key',
        `wrong master key: the database's records are wrapped with master key ${missing.join(', ')}, and ${keyring.source} holds ${keyring.keys.map((k) => k.id).join(', ')}`,
        { hint: 'start the backend with the master key it was first started with (its key file, or the same ASSISTANT_BACKEND_MASTER_KEY)' },
      );
    }
    // The keys that existed before rows carried a MAC: made by this (trusted) server, so they are sealed
    // now, once, with every env they could reach before (revoke and recreate them to narrow them).
    if (applied.includes(2)) await store.sealLegacyKeys();
    return Object.assign(store, { keyCreated: created });
  }

  private async sealLegacyKeys(): Promise<void> {
    const primary = this.masterKey((await primaryKeyId(this.storage))!);
    await this.storage.transaction(async (tx) => {
      const rows = await tx.query<Row>('SELECT prefix, tenant, key_hash, revoked_at FROM api_keys WHERE mac IS NULL FOR UPDATE');
      for (const r of rows) {
        const facts = { prefix: String(r.prefix), tenant: String(r.tenant), envs: canonicalEnvs(BACKEND_ENVS), hash: buf(r.key_hash), revoked: r.revoked_at !== null && r.revoked_at !== undefined };
        await tx.query('UPDATE api_keys SET envs = $1, mac = $2, mac_key_id = $3 WHERE prefix = $4', [facts.envs.join(','), keyRowMac(primary, facts), primary.id, facts.prefix]);
        await audit(tx, { tenant: facts.tenant, prefix: facts.prefix, address: 'migration' }, 'key_sealed', {}, 'ok');
      }
    });
  }

  /** The key rows' MACs under the new master key; a row that fails its MAC now stays as it is (ignored). */
  private async resealKeys(next: MasterKey): Promise<void> {
    await this.storage.transaction(async (tx) => {
      const rows = await tx.query<Row>('SELECT prefix, tenant, key_hash, revoked_at, envs, mac, mac_key_id FROM api_keys WHERE mac_key_id IS DISTINCT FROM $1 FOR UPDATE', [next.id]);
      for (const r of rows) {
        if (!this.rowIsAuthentic(r)) continue;
        const mac = keyRowMac(next, { prefix: String(r.prefix), tenant: String(r.tenant), envs: envsOf(r), hash: buf(r.key_hash), revoked: r.revoked_at !== null && r.revoked_at !== undefined });
        await tx.query('UPDATE api_keys SET mac = $1, mac_key_id = $2 WHERE prefix = $3', [mac, next.id, String(r.prefix)]);
      }
    });
  }

  /**
   * Whether a key row is one this backend wrote: its MAC verifies under the master key it names. A key
   * not loaded is looked for in the key file once (`masterKey`): a rotation run by another process (the
   * CLI against PostgreSQL) re-seals every row with the new key while this server keeps serving.
   */
  private rowIsAuthentic(r: Row): boolean {
    if (!Buffer.isBuffer(r.mac) && !(r.mac instanceof Uint8Array)) return false;
    if (typeof r.mac_key_id !== 'string') return false;
    let key: MasterKey;
    try {
      key = this.masterKey(r.mac_key_id);
    } catch (err) {
      if (err instanceof OperationError) return false; // no such key here: not a row this backend sealed
      throw err;
    }
    const expected = keyRowMac(key, { prefix: String(r.prefix), tenant: String(r.tenant), envs: envsOf(r), hash: buf(r.key_hash), revoked: r.revoked_at !== null && r.revoked_at !== undefined });
    return hashesMatch(buf(r.mac), expected);
  }

  private async initPrimary(key: MasterKey): Promise<string> {
    await this.storage.query("INSERT INTO backend_meta (key, value) VALUES ('primary_master_key', $1) ON CONFLICT (key) DO NOTHING", [key.id]);
    return (await primaryKeyId(this.storage))!;
  }

  /** The master key with this id; re-reads the key file once when it is not loaded (rotated by another process). */
  private masterKey(id: string): MasterKey {
    let key = this.keyring.keys.find((k) => k.id === id);
    if (!key && this.keyring.file) {
      const { created: _c, ...reloaded } = loadKeyring({ env: this.env, file: this.keyring.file, createIfMissing: false });
      this.keyring = reloaded;
      key = this.keyring.keys.find((k) => k.id === id);
    }
    if (!key) {
      throw new OperationError('master_key_missing', `the master key ${id} is not loaded (keys from ${this.keyring.source}: ${this.keyring.keys.map((k) => k.id).join(', ')})`, {
        hint: 'a rotation may have run elsewhere: restart this server with the current key file or ASSISTANT_BACKEND_MASTER_KEY',
      });
    }
    return key;
  }

  async close(): Promise<void> {
    await this.storage.close();
  }

  // ---- authentication --------------------------------------------------------------------------

  async authenticate(presented: string): Promise<AuthResult> {
    const parsed = parseApiKey(presented);
    const hash = hashApiKey(presented);
    if (!parsed) return { ok: false, reason: 'malformed' };
    const [row] = await this.storage.query<Row>('SELECT prefix, tenant, label, key_hash, revoked_at, envs, mac, mac_key_id FROM api_keys WHERE prefix = $1', [parsed.prefix]);
    if (!row || !hashesMatch(buf(row.key_hash), hash)) return { ok: false, reason: 'unknown', prefix: parsed.prefix };
    // A row the master key did not seal (inserted or altered in the database) is not a key.
    if (!this.rowIsAuthentic(row)) {
      await audit(this.storage, { tenant: String(row.tenant), prefix: parsed.prefix, address: 'database' }, 'key_row_ignored', {}, 'mac_mismatch');
      return { ok: false, reason: 'unknown', prefix: parsed.prefix };
    }
    if (row.revoked_at !== null && row.revoked_at !== undefined) return { ok: false, reason: 'revoked', prefix: parsed.prefix };
    await this.touch(parsed.prefix);
    return { ok: true, principal: { tenant: String(row.tenant), prefix: parsed.prefix, envs: envsOf(row), label: String(row.label ?? '') } };
  }

  /** last_used_at, written at most once a minute per key so reads stay reads. */
  private async touch(prefix: string): Promise<void> {
    const now = Date.now();
    if (now - (this.lastUsedWritten.get(prefix) ?? 0) < 60_000) return;
    this.lastUsedWritten.set(prefix, now);
    await this.storage.query('UPDATE api_keys SET last_used_at = now() WHERE prefix = $1', [prefix]);
  }

  // ---- credentials ----------------------------------------------------------------------------

  async put(actor: Principal & Actor, id: RecordIdentity, fields: Record<string, string>): Promise<StoredSummary & { created: boolean }> {
    return this.storage.transaction(async (tx) => {
      // FOR SHARE: a rotation changing the primary key waits for this write, and this write sees its result.
      const [meta] = await tx.query<{ value: string }>("SELECT value FROM backend_meta WHERE key = 'primary_master_key' FOR SHARE");
      const sealed = seal(fields, id, this.masterKey(meta!.value));
      const [row] = await tx.query<Row>(
        `INSERT INTO credentials (tenant, env, provider, name, master_key_id, wrapped_key, payload, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (tenant, env, provider, name) DO UPDATE SET
           master_key_id = excluded.master_key_id, wrapped_key = excluded.wrapped_key, payload = excluded.payload,
           updated_at = now(), updated_by = excluded.updated_by
         RETURNING created_at, updated_at, (xmax = 0) AS created`,
        [id.tenant, id.env, id.provider, id.name, sealed.masterKeyId, sealed.wrappedKey, sealed.payload, actor.prefix],
      );
      await audit(tx, actor, 'store', id, 'ok');
      return { env: id.env, provider: id.provider, name: id.name, created_at: iso(row!.created_at), updated_at: iso(row!.updated_at), created: Boolean(row!.created) };
    });
  }

  async get(actor: Principal & Actor, id: RecordIdentity): Promise<(StoredSummary & { fields: Record<string, string> }) | undefined> {
    const [row] = await this.storage.query<Row>(
      'SELECT master_key_id, wrapped_key, payload, created_at, updated_at FROM credentials WHERE tenant = $1 AND env = $2 AND provider = $3 AND name = $4',
      [id.tenant, id.env, id.provider, id.name],
    );
    if (!row) {
      await audit(this.storage, actor, 'read', id, 'not_found');
      return undefined;
    }
    let fields: Record<string, string>;
    try {
      fields = open(sealedOf(row), id, this.masterKey(String(row.master_key_id)));
    } catch (err) {
      await audit(this.storage, actor, 'read', id, 'decrypt_failed');
      if (err instanceof UnsealError) throw new RecordUnreadableError(id, err.message);
      throw err;
    }
    await audit(this.storage, actor, 'read', id, 'ok');
    return { env: id.env, provider: id.provider, name: id.name, created_at: iso(row.created_at), updated_at: iso(row.updated_at), fields };
  }

  async list(actor: Principal & Actor, env?: string): Promise<StoredSummary[]> {
    const rows = await this.storage.query<Row>(
      `SELECT env, provider, name, created_at, updated_at FROM credentials WHERE tenant = $1 ${env ? 'AND env = $2' : ''} ORDER BY env, provider, name`,
      env ? [actor.tenant, env] : [actor.tenant],
    );
    await audit(this.storage, actor, 'list', { env }, 'ok');
    return rows.map((r) => ({ env: String(r.env), provider: String(r.provider), name: String(r.name), created_at: iso(r.created_at), updated_at: iso(r.updated_at) }));
  }

  async delete(actor: Principal & Actor, id: RecordIdentity): Promise<boolean> {
    return this.storage.transaction(async (tx) => {
      const rows = await tx.query('DELETE FROM credentials WHERE tenant = $1 AND env = $2 AND provider = $3 AND name = $4 RETURNING 1', [id.tenant, id.env, id.provider, id.name]);
      await audit(tx, actor, 'delete', id, rows.length ? 'ok' : 'not_found');
      return rows.length > 0;
    });
  }

  /** A failed authentication (never the key presented, at most its public prefix). */
  /** Whether a key (by prefix) still exists unrevoked: a console session ends with its key. */
  async keyIsLive(prefix: string): Promise<boolean> {
    const [row] = await this.storage.query<Row>('SELECT revoked_at FROM api_keys WHERE prefix = $1', [prefix]);
    return Boolean(row) && (row!.revoked_at === null || row!.revoked_at === undefined);
  }

  async authFailed(address: string, reason: string, prefix?: string): Promise<void> {
    await audit(this.storage, { address, prefix }, 'auth_failed', {}, reason);
  }

  // ---- administration -------------------------------------------------------------------------

  /** A key for `tenant` that reads and writes `envs` only; a key with no env is refused. */
  async createKey(tenant: string, label: string, envs: readonly string[], address = 'admin'): Promise<{ key: string; prefix: string; envs: string[] }> {
    const scope = canonicalEnvs(envs);
    if (scope.length === 0) throw new InvalidInputError('key_without_env', 'an API key needs at least one env (testing, staging, production)', { hint: 'e.g. --env testing, or --env staging --env production' });
    const unknown = scope.filter((e) => !(BACKEND_ENVS as readonly string[]).includes(e));
    if (unknown.length) throw new InvalidInputError('invalid_env', `unknown env ${unknown.join(', ')} (envs: ${BACKEND_ENVS.join(', ')})`);
    const k = generateApiKey();
    await this.storage.transaction(async (tx) => {
      const [meta] = await tx.query<{ value: string }>("SELECT value FROM backend_meta WHERE key = 'primary_master_key' FOR SHARE");
      const master = this.masterKey(meta!.value);
      const mac = keyRowMac(master, { prefix: k.prefix, tenant, envs: scope, hash: k.hash, revoked: false });
      await tx.query('INSERT INTO api_keys (prefix, tenant, key_hash, label, envs, mac, mac_key_id) VALUES ($1, $2, $3, $4, $5, $6, $7)', [k.prefix, tenant, k.hash, label, scope.join(','), mac, master.id]);
      await audit(tx, { tenant, prefix: k.prefix, address }, 'key_created', {}, 'ok');
    });
    return { key: k.key, prefix: k.prefix, envs: scope };
  }

  async listKeys(tenant?: string): Promise<ApiKeyInfo[]> {
    const rows = await this.storage.query<Row>(
      `SELECT prefix, tenant, label, created_at, last_used_at, revoked_at, envs, key_hash, mac, mac_key_id FROM api_keys ${tenant ? 'WHERE tenant = $1' : ''} ORDER BY tenant, created_at`,
      tenant ? [tenant] : [],
    );
    return rows.map((r) => ({
      prefix: String(r.prefix),
      tenant: String(r.tenant),
      envs: envsOf(r),
      valid: this.rowIsAuthentic(r),
      label: String(r.label),
      created_at: iso(r.created_at),
      last_used_at: isoOrNull(r.last_used_at),
      revoked_at: isoOrNull(r.revoked_at),
    }));
  }

  /** Revokes at once: the next request with the key is refused. Returns false for an unknown prefix. */
  async revokeKey(prefix: string, address = 'admin'): Promise<{ revoked: boolean; tenant?: string; already?: boolean }> {
    if (!isKeyPrefix(prefix)) return { revoked: false };
    return this.storage.transaction(async (tx) => {
      const [row] = await tx.query<Row>('SELECT prefix, tenant, key_hash, envs, revoked_at FROM api_keys WHERE prefix = $1 FOR UPDATE', [prefix]);
      if (!row) return { revoked: false };
      if (row.revoked_at) return { revoked: true, tenant: String(row.tenant), already: true };
      // Sealed as revoked: clearing revoked_at in the database breaks the MAC instead of reviving the key.
      const [meta] = await tx.query<{ value: string }>("SELECT value FROM backend_meta WHERE key = 'primary_master_key' FOR SHARE");
      const master = this.masterKey(meta!.value);
      const mac = keyRowMac(master, { prefix, tenant: String(row.tenant), envs: envsOf(row), hash: buf(row.key_hash), revoked: true });
      await tx.query('UPDATE api_keys SET revoked_at = now(), mac = $2, mac_key_id = $3 WHERE prefix = $1', [prefix, mac, master.id]);
      await audit(tx, { tenant: String(row.tenant), prefix, address }, 'key_revoked', {}, 'ok');
      return { revoked: true, tenant: String(row.tenant) };
    });
  }

  async audit(filter: { tenant?: string; limit?: number } = {}): Promise<AuditEntry[]> {
    const limit = Math.max(1, Math.min(filter.limit ?? 100, 10_000));
    const rows = await this.storage.query<Row>(
      `SELECT id, at, tenant, key_prefix, address, action, env, provider, name, outcome FROM audit_log
       ${filter.tenant ? 'WHERE tenant = $2' : ''} ORDER BY id DESC LIMIT $1`,
      filter.tenant ? [limit, filter.tenant] : [limit],
    );
    return rows.reverse().map((r) => ({
      id: Number(r.id),
      at: iso(r.at),
      tenant: (r.tenant as string | null) ?? null,
      key_prefix: (r.key_prefix as string | null) ?? null,
      address: String(r.address),
      action: String(r.action),
      env: (r.env as string | null) ?? null,
      provider: (r.provider as string | null) ?? null,
      name: (r.name as string | null) ?? null,
      outcome: String(r.outcome),
    }));
  }

  /**
   * Re-wraps every record's data key under a new master key while the server keeps serving:
   * 1. a key file gets a new primary key, the old ones kept (so every process can still unwrap);
   *    with ASSISTANT_BACKEND_MASTER_KEY the operator puts the new key first (`new,old`);
   * 2. the database's primary becomes the new key (writers read it under FOR SHARE, so none writes
   *    with the old key afterwards);
   * 3. records still under another key are re-wrapped in batches, each batch one transaction;
   * 4. the key file keeps only the new key.
   * Interrupted, it leaves every record readable with the keys in the file; running it again finishes.
   */
  async rotateMasterKey(address = 'admin'): Promise<{ from: string[]; to: string; rewrapped: number }> {
    const before = this.keyring;
    let next: MasterKey;
    if (before.file) {
      next = generateMasterKey();
      writeKeyFile(before.file, [next, ...before.keys]);
      this.keyring = { ...before, keys: [next, ...before.keys] };
    } else {
      next = before.keys[0]!;
      const primary = await primaryKeyId(this.storage);
      const stale = await this.storage.query('SELECT 1 FROM credentials WHERE master_key_id <> $1 LIMIT 1', [next.id]);
      if (primary === next.id && stale.length === 0) {
        throw new InvalidInputError('nothing_to_rotate', `every record is already wrapped with the first key of ${before.source} (${next.id})`, {
          hint: `put the new key first: ${before.source}=<new>,<old> (new: openssl rand -base64 32), restart the servers with it, then rotate`,
        });
      }
    }
    const from = (await this.storage.query<{ id: string }>('SELECT DISTINCT master_key_id AS id FROM credentials WHERE master_key_id <> $1', [next.id])).map((r) => r.id);
    await this.storage.transaction(async (tx) => {
      await tx.query("UPDATE backend_meta SET value = $1 WHERE key = 'primary_master_key'", [next.id]);
    });
    let rewrapped = 0;
    for (;;) {
      const n = await this.storage.transaction(async (tx) => {
        const rows = await tx.query<Row>(
          'SELECT tenant, env, provider, name, master_key_id, wrapped_key, payload FROM credentials WHERE master_key_id <> $1 LIMIT 100 FOR UPDATE',
          [next.id],
        );
        for (const r of rows) {
          const id = { tenant: String(r.tenant), env: String(r.env), provider: String(r.provider), name: String(r.name) };
          let again: Sealed;
          try {
            again = rewrap(sealedOf(r), id, this.masterKey(String(r.master_key_id)), next);
          } catch (err) {
            if (err instanceof UnsealError) throw new RecordUnreadableError(id, err.message);
            throw err;
          }
          await tx.query(
            'UPDATE credentials SET master_key_id = $1, wrapped_key = $2 WHERE tenant = $3 AND env = $4 AND provider = $5 AND name = $6',
            [again.masterKeyId, again.wrappedKey, id.tenant, id.env, id.provider, id.name],
          );
        }
        return rows.length;
      });
      rewrapped += n;
      if (n === 0) break;
    }
    await this.resealKeys(next);
    if (before.file) {
      writeKeyFile(before.file, [next]);
      this.keyring = { ...before, keys: [next] };
    }
    await audit(this.storage, { address }, 'master_key_rotated', {}, 'ok');
    return { from, to: next.id, rewrapped };
  }
}

function envsOf(r: Row): string[] {
  return String(r.envs ?? '').split(',').filter(Boolean);
}

async function primaryKeyId(q: Queryable): Promise<string | undefined> {
  const [row] = await q.query<{ value: string }>("SELECT value FROM backend_meta WHERE key = 'primary_master_key'");
  return row?.value;
}

function sealedOf(row: Row): Sealed {
  return { masterKeyId: String(row.master_key_id), wrappedKey: buf(row.wrapped_key), payload: buf(row.payload) };
}

async function audit(q: Queryable, actor: Actor, action: string, id: Partial<RecordIdentity>, outcome: string): Promise<void> {
  await q.query('INSERT INTO audit_log (tenant, key_prefix, address, action, env, provider, name, outcome) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
    actor.tenant ?? id.tenant ?? null,
    actor.prefix ?? null,
    actor.address,
    action,
    id.env ?? null,
    id.provider ?? null,
    id.name ?? null,
    outcome,
  ]);
}
