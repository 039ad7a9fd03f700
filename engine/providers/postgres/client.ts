/**
 * The postgres client of a session: one `pg` connection per configured connection, opened on the first
 * step that needs it and closed with the session. A named read runs in a READ ONLY transaction with a
 * statement_timeout and a lock_timeout, always rolled back; the command's deadline (or Ctrl-C) cuts
 * the socket, so a silent or hostile server never holds a command past --timeout.
 *
 * Everything of libpq's environment is read from the command's env and home, not this process's:
 * pg would otherwise consult process.env and ~/.pgpass on its own.
 */
import type pg from 'pg';
import type { Config } from '../../../schemas/config.js';
import { abortReason } from '../../core/deadline.js';
import { AssistantError, OperationError } from '../../core/errors.js';
import type { ConnectOptions } from '../../core/provider.js';
import { backendPasswordLookup, resolveConnection, type ResolvedConnection } from './credentials.js';
import { maskRows, type PostgresRead, type Row } from './reads.js';

export interface ReadResult {
  connection: string;
  /** `host:port/database as user` (no password). */
  server: string;
  read: string;
  rows: Row[];
  /** Said when the read's LIMIT was reached: the list may go on. */
  truncated?: string;
}

export interface ExecResult {
  connection: string;
  server: string;
  command: string;
  row_count: number | null;
  rows: Row[];
  truncated?: string;
}

export interface PostgresClient {
  read(connection: string, read: PostgresRead, signal: AbortSignal): Promise<ReadResult>;
  /** Free SQL (the destructive `postgres-sql` verb): one transaction, committed, with the same timeouts. */
  execute(connection: string, sql: string, signal: AbortSignal): Promise<ExecResult>;
  /** Where the password of a connection comes from (never the value). */
  source(connection: string): Promise<string>;
  close(): Promise<void>;
}

/** At most this many rows of a free SQL statement are kept. */
const MAX_EXEC_ROWS = 500;
/** The most a server may send for one step: a hostile server's endless rows cannot exhaust memory. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** A lock held by someone else fails a read after this long instead of waiting out the whole deadline. */
const LOCK_TIMEOUT_MS = 5_000;

type Env = Record<string, string | undefined>;

function sslFor(env: Env): pg.ClientConfig['ssl'] {
  switch (env.PGSSLMODE) {
    case 'require':
    case 'no-verify':
      return { rejectUnauthorized: false };
    case 'verify-ca':
    case 'verify-full':
      return true;
    default:
      return false;
  }
}

export const describeServer = (c: Pick<ResolvedConnection, 'host' | 'port' | 'database' | 'user'>) => `${c.host}:${c.port}/${c.database} as ${c.user}`;

/** A pg error as one clear line with a hint; anything else passes through. */
export function postgresError(err: unknown, c: ResolvedConnection): unknown {
  if (err instanceof AssistantError) return err;
  const e = err as { code?: string; message?: string; errno?: number };
  const where = `postgres ${c.name} (${describeServer(c)})`;
  const msg = e.message ?? String(err);
  switch (e.code) {
    case '28P01':
    case '28000':
      return new OperationError('unauthorized', `${where}: the server refused the login: ${msg}`, {
        hint: `check the password (source: ${c.passwordSource}) and the user; \`assistant credentials test postgres\` checks it`,
      });
    case '53300':
      return new OperationError('too_many_connections', `${where}: the server has no free connection slot: ${msg}`, {
        hint: 'try again when connections are released; `assistant ask --postgres "how many connections"` shows who holds them (from a superuser connection)',
      });
    case '57P03':
      return new OperationError('postgres_starting', `${where}: the server is not accepting connections yet: ${msg}`, { hint: 'try again in a moment' });
    case '57014':
      return new OperationError('statement_timeout', `${where}: the query was cancelled by its statement_timeout: ${msg}`, { hint: 'a larger --timeout gives it longer' });
    case '55P03':
      return new OperationError('lock_timeout', `${where}: waited ${LOCK_TIMEOUT_MS / 1000} s for a lock another session holds: ${msg}`, {
        hint: 'ask "which queries are blocked" to see who holds it',
      });
    case '3D000':
      return new OperationError('postgres_no_database', `${where}: ${msg}`, { hint: `check postgres.connections.${c.name}.database` });
    case '42501':
      return new OperationError('postgres_permission', `${where}: ${msg}`, { hint: 'the user needs the pg_monitor role (or pg_read_all_stats) for the statistics views' });
  }
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'EHOSTUNREACH' || e.code === 'ECONNRESET' || e.code === 'ETIMEDOUT' || /timeout expired|Connection terminated/i.test(msg)) {
    return new OperationError('postgres_unreachable', `${where}: cannot reach the server: ${msg}`, { hint: `check postgres.connections.${c.name} (host, port) and that the server runs` });
  }
  if (/password must be a string|password authentication|no password/i.test(msg)) {
    return new OperationError('password_required', `${where}: the server wants a password and none was found (looked in PGPASSWORD, ~/.pgpass, the backend store)`, {
      hint: `add a line ${c.host}:${c.port}:${c.database}:${c.user}:<password> to ~/.pgpass (chmod 600), or \`assistant credentials store postgres --name ${c.name} --password -\``,
    });
  }
  if (e.code && /^[0-9A-Z]{5}$/.test(e.code)) return new OperationError('postgres_error', `${where}: ${msg} (SQLSTATE ${e.code})`);
  return err;
}

interface Open {
  conn: ResolvedConnection;
  client: pg.Client;
  /** One statement at a time on a connection (steps of a plan run in order; this keeps it so). */
  busy: Promise<unknown>;
  /** Bytes the server sent for the current statement; past MAX_ANSWER_BYTES the socket is cut. */
  received: number;
  cut?: boolean;
}

export function postgresClient(opts: Pick<ConnectOptions, 'config' | 'env' | 'home' | 'timeoutMs' | 'debug' | 'warn' | 'signal' | 'backendOnly'>): PostgresClient {
  const config: Config = opts.config;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const resolved = new Map<string, Promise<ResolvedConnection>>();
  const open = new Map<string, Promise<Open>>();

  const resolve = (name: string) => {
    let r = resolved.get(name);
    if (!r) {
      r = resolveConnection(config, opts.env, opts.home, name, { warn: opts.warn, backend: backendPasswordLookup(config, opts.env, opts.signal), backendOnly: opts.backendOnly });
      r.catch(() => resolved.delete(name));
      resolved.set(name, r);
    }
    return r;
  };

  /** Cuts the socket: pending queries fail at once, the server ends the backend (and its transaction). */
  const destroy = (o: Open) => {
    (o.client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    void o.client.end().catch(() => undefined);
  };

  /** `work` until done, or until the signal ends it (the connection is cut and dropped). */
  async function guarded<T>(name: string, o: Open | undefined, signal: AbortSignal, work: Promise<T>, conn: ResolvedConnection): Promise<T> {
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        if (o) destroy(o);
        open.delete(name);
        reject(abortReason(signal, { while: `reading postgres ${name}` }));
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    work.catch(() => undefined);
    try {
      return await Promise.race([work, aborted]);
    } catch (err) {
      throw postgresError(err, conn);
    } finally {
      signal.removeEventListener('abort', onAbort!);
    }
  }

  const connect = (name: string, signal: AbortSignal): Promise<Open> => {
    let o = open.get(name);
    if (!o) {
      o = (async () => {
        const conn = await resolve(name);
        // pg (19 CommonJS files) loads on a first connection, not with the provider: every session
        // builds its providers, and an ask about gpucloud never opens a postgres connection.
        const { default: pgLib } = await import('pg');
        const client = new pgLib.Client({
          host: conn.host,
          port: conn.port,
          database: conn.database,
          user: conn.user,
          // A function: pg asks for it only when the server wants a password, and never looks in
          // process.env or this process's ~/.pgpass itself.
          password: async () => conn.password ?? '',
          ssl: sslFor(opts.env),
          application_name: 'assistant',
          connectionTimeoutMillis: timeoutMs,
          keepAlive: true,
        });
        // A server that asks for the password in clear text over a connection without TLS to another
        // machine would have it travel readable: refused (SCRAM and md5 never send it).
        const loopback = conn.host.startsWith('/') || /^(localhost|127\.\d+\.\d+\.\d+|::1)$/i.test(conn.host);
        if (!sslFor(opts.env) && !loopback) {
          const internals = client as unknown as { _handleAuthCleartextPassword(): void; connection: NodeJS.EventEmitter };
          internals._handleAuthCleartextPassword = () =>
            internals.connection.emit(
              'error',
              new OperationError('cleartext_password_refused', `postgres ${name} (${describeServer(conn)}): the server asked for the password in clear text over a connection without TLS; it was not sent`, {
                hint: 'set PGSSLMODE=require (or verify-full), or have the server use scram-sha-256 authentication',
              }),
            );
        }
        // An error between queries (the server went away) drops the connection; the next step reconnects.
        client.on('error', () => open.delete(name));
        opts.debug?.(`postgres ${name}: connecting to ${describeServer(conn)} (password from ${conn.passwordSource})`);
        const entry: Open = { conn, client, busy: Promise.resolve(), received: 0 };
        const stream = (client as unknown as { connection?: { stream?: NodeJS.EventEmitter } }).connection?.stream;
        stream?.on('data', (chunk: Buffer) => {
          entry.received += chunk.length;
          if (entry.received > MAX_ANSWER_BYTES && !entry.cut) {
            entry.cut = true;
            open.delete(name);
            destroy(entry);
          }
        });
        try {
          await guarded(name, entry, signal, client.connect(), conn);
        } catch (err) {
          destroy(entry);
          throw err;
        }
        return entry;
      })();
      o.catch(() => open.delete(name));
      open.set(name, o);
    }
    return o;
  };

  /** Runs `fn` on the connection, one at a time, under the signal. */
  async function onConnection<T>(name: string, signal: AbortSignal, fn: (client: pg.Client) => Promise<T>): Promise<{ value: T; conn: ResolvedConnection }> {
    const o = await connect(name, signal);
    const turn = o.busy.then(() => ((o.received = 0), fn(o.client)));
    o.busy = turn.catch(() => undefined);
    try {
      return { value: await guarded(name, o, signal, turn, o.conn), conn: o.conn };
    } catch (err) {
      if (o.cut) {
        throw new OperationError('postgres_answer_too_large', `postgres ${name}: the server sent more than ${MAX_ANSWER_BYTES / 1024 / 1024} MB for one step; the connection was cut and nothing of it was kept`, {
          hint: 'the named reads are bounded (LIMIT): a server sending more is not behaving',
        });
      }
      throw err;
    }
  }

  const limits = (ms: number) => [`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(ms))}`, `SET LOCAL lock_timeout = ${Math.min(LOCK_TIMEOUT_MS, Math.max(1, Math.floor(ms)))}`, 'SET LOCAL idle_in_transaction_session_timeout = 60000'];

  return {
    async read(name, read, signal) {
      const { value: rows, conn } = await onConnection(name, signal, async (client) => {
        await client.query('BEGIN TRANSACTION READ ONLY');
        try {
          for (const s of limits(timeoutMs)) await client.query(s);
          opts.debug?.(`postgres ${name}: read ${read.name}`);
          return maskRows((await client.query(read.sql)).rows as Row[]);
        } finally {
          await client.query('ROLLBACK').catch(() => undefined);
        }
      });
      const truncated = read.limit !== undefined && rows.length >= read.limit ? `only the first ${read.limit} rows were read` : undefined;
      return { connection: name, server: describeServer(conn), read: read.name, rows, ...(truncated ? { truncated } : {}) };
    },
    async execute(name, sql, signal) {
      const { value, conn } = await onConnection(name, signal, async (client) => {
        await client.query('BEGIN');
        try {
          for (const s of limits(timeoutMs)) await client.query(s);
          opts.debug?.(`postgres ${name}: executing SQL (${sql.length} characters)`);
          const r = await client.query(sql);
          await client.query('COMMIT');
          const last = Array.isArray(r) ? (r.at(-1) as pg.QueryResult) : r;
          return last;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      });
      const rows = (value?.rows ?? []) as Row[];
      return {
        connection: name,
        server: describeServer(conn),
        command: value?.command ?? '',
        row_count: value?.rowCount ?? null,
        rows: rows.slice(0, MAX_EXEC_ROWS),
        ...(rows.length > MAX_EXEC_ROWS ? { truncated: `only the first ${MAX_EXEC_ROWS} of ${rows.length} rows are kept` } : {}),
      };
    },
    async source(name) {
      const conn = await resolve(name);
      return `postgres.connections.${name} (${describeServer(conn)}; password from ${conn.passwordSource})`;
    },
    async close() {
      await Promise.all(
        [...open.values()].map(async (p) => {
          const o = await p.catch(() => undefined);
          if (o) await Promise.race([o.client.end().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]).then(() => destroy(o));
        }),
      );
      open.clear();
    },
  };
}
