/**
 * The one schema of the backend, as an ordered list of migrations applied at start-up, for PGlite and
 * PostgreSQL alike. Append new migrations; never edit one that shipped. Concurrent starters (two
 * servers on one PostgreSQL) are serialised by a transaction-scoped advisory lock.
 */
import type { Storage } from './storage.js';

interface Migration {
  version: number;
  what: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    what: 'meta, API keys, encrypted credentials, audit log',
    sql: `
      CREATE TABLE backend_meta (
        key text PRIMARY KEY,
        value text NOT NULL
      );
      CREATE TABLE api_keys (
        prefix text PRIMARY KEY,
        tenant text NOT NULL,
        key_hash bytea NOT NULL,
        label text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      CREATE INDEX api_keys_tenant ON api_keys (tenant);
      CREATE TABLE credentials (
        tenant text NOT NULL,
        env text NOT NULL CHECK (env IN ('testing', 'staging', 'production')),
        provider text NOT NULL,
        name text NOT NULL,
        master_key_id text NOT NULL,
        wrapped_key bytea NOT NULL,
        payload bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        updated_by text NOT NULL,
        PRIMARY KEY (tenant, env, provider, name)
      );
      CREATE INDEX credentials_master_key ON credentials (master_key_id);
      CREATE TABLE audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        tenant text,
        key_prefix text,
        address text NOT NULL,
        action text NOT NULL,
        env text,
        provider text,
        name text,
        outcome text NOT NULL
      );
      CREATE INDEX audit_log_tenant_at ON audit_log (tenant, at);
    `,
  },
  {
    version: 2,
    what: 'API keys scoped to envs, each row authenticated by a MAC under a key derived from the master key',
    // envs: sorted, comma-separated (`production,testing`). Rows that exist when this runs get every env
    // and their MAC in the same start (CredentialStore.open), since the server that made them was trusted.
    sql: `
      ALTER TABLE api_keys ADD COLUMN envs text NOT NULL DEFAULT '';
      ALTER TABLE api_keys ADD COLUMN mac bytea;
      ALTER TABLE api_keys ADD COLUMN mac_key_id text
    `,
  },
  {
    version: 3,
    what: 'run history: each apply, dry run and refusal a client reported, keyed by its idempotency key',
    // The record is the masked JSON the client sent (schemas/backend-api.ts RunRecordSchema); the
    // columns beside it are what lists sort and filter on, so a list never parses 10,000 records.
    sql: `
      CREATE TABLE runs (
        tenant text NOT NULL,
        id text NOT NULL,
        env text NOT NULL CHECK (env IN ('testing', 'staging', 'production')),
        who text NOT NULL,
        key_prefix text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        kind text NOT NULL,
        status text NOT NULL,
        exit_code integer NOT NULL,
        started_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL,
        plan_hash text NOT NULL,
        summary text,
        hourly_change double precision,
        currency text,
        resources integer NOT NULL,
        record jsonb NOT NULL,
        PRIMARY KEY (tenant, id)
      );
      CREATE INDEX runs_tenant_env_started ON runs (tenant, env, started_at DESC);
      CREATE INDEX runs_tenant_plan ON runs (tenant, env, plan_hash, started_at DESC)
    `,
  },
  {
    version: 4,
    what: 'a full run history stays cheap: retention by a count per tenant, indexes in the orders read, the burn summed per day',
    // Retention used to find the runs beyond the newest `keep` with an OFFSET on every insert (10,000
    // inserts took 736 s on PGlite). The count, kept in the same transaction as every insert and delete
    // (backend/runs.ts), says at once whether a tenant is over its limit; runs_tenant_started finds its
    // oldest runs and those past the age limit without reading the others. The console's list reads
    // the newest of one env in (started_at, id) order, which the index of migration 3 lacked (a sort of
    // the whole env per page); its burn per provider and cost trend summed every applied run (reading
    // each record's JSON for the provider) on every page, and now read run_burn_days, kept with the runs.
    sql: `
      CREATE TABLE run_counts (
        tenant text PRIMARY KEY,
        runs integer NOT NULL CHECK (runs >= 0)
      );
      INSERT INTO run_counts (tenant, runs) SELECT tenant, count(*) FROM runs GROUP BY tenant;
      CREATE INDEX runs_tenant_started ON runs (tenant, started_at, id);
      DROP INDEX runs_tenant_env_started;
      CREATE INDEX runs_tenant_env_newest ON runs (tenant, env, started_at DESC, id DESC);
      ALTER TABLE runs ADD COLUMN provider text;
      UPDATE runs SET provider = record->'providers'->>0;
      CREATE TABLE run_burn_days (
        tenant text NOT NULL,
        env text NOT NULL,
        provider text NOT NULL,
        day date NOT NULL,
        change double precision NOT NULL,
        runs integer NOT NULL,
        PRIMARY KEY (tenant, env, provider, day)
      );
      INSERT INTO run_burn_days (tenant, env, provider, day, change, runs)
        SELECT tenant, env, coalesce(provider, 'unknown'), (started_at AT TIME ZONE 'UTC')::date, sum(hourly_change), count(*) FROM runs
        WHERE kind = 'apply' AND status = 'succeeded' AND hourly_change IS NOT NULL GROUP BY 1, 2, 3, 4
    `,
  },
];

/** Arbitrary, fixed: the advisory lock every starter takes while migrating. */
const MIGRATION_LOCK = 874_190_263;

/** Brings the schema up to date; returns the versions applied now. */
export async function migrate(storage: Storage): Promise<number[]> {
  return storage.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      // One statement per query: PGlite's extended protocol takes no multi-statement strings.
      for (const statement of m.sql.split(';').map((s) => s.trim()).filter(Boolean)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
      applied.push(m.version);
    }
    return applied;
  });
}
