/**
 * Where the backend keeps its tables: an embedded PostgreSQL (PGlite, PostgreSQL compiled to WASM, in a
 * data directory) by default, or a real PostgreSQL server (`--database postgres://…`, the `pg` library).
 * Both speak the same SQL, so one schema and one migration set (backend/migrations.ts) serve both.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { OperationError } from '../engine/core/errors.js';

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Storage extends Queryable {
  kind: 'pglite' | 'postgres';
  /** Where the data lives, for messages (a URL never carries its password here). */
  where: string;
  /** Runs `fn` in one transaction: all of it commits, or none of it. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The PGlite data directory inside the backend's data directory (the lock and admin socket sit beside it). */
export function pgliteDir(dataDir: string): string {
  return join(dataDir, 'pgdata');
}

export async function openPglite(dataDir: string): Promise<Storage> {
  const dir = pgliteDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { PGlite } = await import('@electric-sql/pglite');
  let db: InstanceType<typeof PGlite>;
  try {
    db = await PGlite.create(dir);
  } catch (err) {
    throw new OperationError('storage_unavailable', `cannot open the embedded database in ${dir}: ${(err as Error).message}`, {
      hint: 'is another backend process using this data directory? Each data directory serves one process',
      cause: err,
    });
  }
  const run = async <T extends Row>(q: { query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }> }, sql: string, params?: unknown[]) =>
    (await q.query(sql, params)).rows as T[];
  return {
    kind: 'pglite',
    where: dir,
    query: (sql, params) => run(db, sql, params),
    transaction: (fn) => db.transaction((tx) => fn({ query: (sql, params) => run(tx, sql, params) })),
    close: () => db.close(),
  };
}

export async function openPostgres(url: string): Promise<Storage> {
  const { default: pg } = await import('pg');
  // bytea comes back as Buffer, timestamptz as Date: the same shapes PGlite returns.
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
  // An idle client losing its server (a restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const where = redactDatabaseUrl(url);
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new OperationError('storage_unavailable', `cannot connect to PostgreSQL at ${where}: ${(err as Error).message}`, {
      hint: 'check --database (postgres://user:password@host:port/database) and that the server accepts connections',
      cause: err,
    });
  }
  return {
    kind: 'postgres',
    where,
    query: async (sql, params) => (await pool.query(sql, params)).rows,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({ query: async (sql, params) => (await client.query(sql, params)).rows });
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable database URL)';
  }
}
