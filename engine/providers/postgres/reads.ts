/**
 * The postgres reads: each a name (the only thing a plan step may say), the question words that ask
 * for it, one fixed query over the catalogue and statistics views, and how its rows become the lines
 * of an answer. Default deny: a step can run these by name and nothing else without --destroyer, so a
 * question (or a model, or a plan from elsewhere) never gets to write SQL that runs freely.
 *
 * Every query is bounded (LIMIT) and reads only; engine/providers/postgres/client.ts runs each in a READ ONLY
 * transaction with a statement_timeout and a lock_timeout.
 */
import { readsChooser, targetsFor } from '../../core/kits/cli/reads.js';
import { maskSecretsInText } from '../../core/redact.js';

export type Row = Record<string, unknown>;

export interface PostgresRead {
  /** The read's name in a plan step (`["postgres-read", "main", "largest-tables"]`). */
  name: string;
  /** What it reads, for the prompt and the answers (`the largest tables`). */
  label: string;
  words: readonly string[];
  /** Read when the question only named postgres (or the flag chose it). */
  byDefault: boolean;
  sql: string;
  /** The most rows the query returns (its LIMIT): an answer with this many says the list may go on. */
  limit?: number;
  /** The answer's paragraph from the rows. */
  answer(rows: readonly Row[], question: string): string;
}

/** Long-running: active (or idle in a transaction) for longer than this. */
export const LONG_RUNNING_S = 60;

/** Query texts are shown only this long (and with password literals masked). */
const QUERY_CHARS = 300;

const num = (v: unknown): number | undefined => (v === null || v === undefined || v === '' ? undefined : Number.isFinite(Number(v)) ? Number(v) : undefined);
const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** Bytes as people read them (1.5 GB). */
export function bytes(v: unknown): string {
  const n = num(v);
  if (n === undefined) return '?';
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let x = n;
  let i = 0;
  while (x >= 1024 && i < units.length - 1) (x /= 1024), i++;
  return `${i === 0 ? x : x.toFixed(x >= 10 ? 0 : 1)} ${units[i]}`;
}

/** Seconds as people read them (2 h 5 min, 42 s). */
export function duration(v: unknown): string {
  const s = num(v);
  if (s === undefined) return '?';
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
  return `${Math.round(s / 86400)} days`;
}

/**
 * A query's text as it may be shown: control characters out (a terminal escape in SQL never reaches
 * the terminal), password literals masked (`ALTER ROLE … PASSWORD '…'` is visible in pg_stat_activity),
 * one line, bounded.
 */
export function safeQueryText(q: unknown): string {
  const s = maskQueryPasswords(text(q))
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > QUERY_CHARS ? `${s.slice(0, QUERY_CHARS)}…` : s;
}

/**
 * Secrets masked in a query text kept whole for the prompt, by the one masker (engine/core/redact.ts):
 * `ALTER ROLE … PASSWORD '…'` in every quoting (E'…', U&'…', $$…$$, $tag$…$tag$, cut short by the
 * server's truncation), `set_config('…', '…')` values, `token = '…'`, well-known key formats.
 */
export const maskQueryPasswords = (q: string) => maskSecretsInText(q);

/** The rows as they leave the client: every query text (also of blockers) with its password literals masked. */
export function maskRows(rows: Row[]): Row[] {
  const fix = (r: Row): Row => {
    const out: Row = { ...r };
    if (typeof out.query === 'string') out.query = maskQueryPasswords(out.query);
    if (Array.isArray(out.blockers)) out.blockers = (out.blockers as Row[]).map(fix);
    return out;
  };
  return rows.map(fix);
}

/** A name from the database (a table, a user): control characters replaced. */
const name = (v: unknown) => text(v).replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

const more = (rows: readonly Row[], limit: number | undefined) => (limit !== undefined && rows.length >= limit ? `\n(only the first ${limit} are read)` : '');

const list = (head: string, lines: string[], rows: readonly Row[], limit?: number) => [head, ...lines.map((l) => `- ${l}`)].join('\n') + more(rows, limit);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function queryLine(r: Row): string {
  const who = [name(r.usename), name(r.datname)].filter(Boolean).join('@');
  const state = text(r.state);
  const wait = r.wait_event_type ? `, waiting on ${name(r.wait_event_type)}${r.wait_event ? `/${name(r.wait_event)}` : ''}` : '';
  return `pid ${text(r.pid)} ${who ? `(${who}) ` : ''}${state}${r.duration_s !== null && r.duration_s !== undefined ? ` for ${duration(r.duration_s)}` : ''}${wait}: ${safeQueryText(r.query)}`;
}

/** Activity columns shared by the query reads. */
const ACTIVITY = `pid, usename, datname, state, wait_event_type, wait_event,
  extract(epoch FROM now() - coalesce(query_start, xact_start, backend_start))::float8 AS duration_s, left(query, 2000) AS query`;

export const POSTGRES_READS: readonly PostgresRead[] = [
  {
    name: 'server-version',
    label: 'the server version',
    words: ['version', 'server version', 'uptime', 'upgrade'],
    byDefault: true,
    sql: `SELECT current_setting('server_version') AS server_version, version() AS version,
  extract(epoch FROM now() - pg_postmaster_start_time())::float8 AS uptime_s, pg_is_in_recovery() AS in_recovery`,
    answer: (rows) => {
      const r = rows[0] ?? {};
      return `PostgreSQL ${name(r.server_version)}${r.in_recovery ? ' (a standby, in recovery)' : ''}, up ${duration(r.uptime_s)}.`;
    },
  },
  {
    name: 'databases',
    label: 'the databases and their sizes',
    words: ['database', 'databases', 'database size', 'database sizes', 'disk', 'size', 'sizes', 'space', 'storage'],
    byDefault: true,
    limit: 100,
    // pg_database_size needs CONNECT on the database: without it the size is unknown, not an error.
    sql: `SELECT datname AS name, CASE WHEN has_database_privilege(oid, 'CONNECT') THEN pg_database_size(oid) END::float8 AS size_bytes
  FROM pg_database WHERE NOT datistemplate ORDER BY 2 DESC NULLS LAST, 1 LIMIT 100`,
    answer: (rows, question) => {
      const total = rows.reduce((s, r) => s + (num(r.size_bytes) ?? 0), 0);
      if (/\bhow many\b/i.test(question)) return `${plural(rows.length, 'database')} (${bytes(total)} in all).`;
      return list(`${plural(rows.length, 'database')}, ${bytes(total)} in all:`, rows.map((r) => `${name(r.name)}: ${r.size_bytes === null ? 'size unknown (no CONNECT privilege)' : bytes(r.size_bytes)}`), rows, 100);
    },
  },
  {
    name: 'largest-tables',
    label: 'the largest tables (with indexes and TOAST) of the connected database',
    words: ['largest tables', 'biggest tables', 'largest table', 'biggest table', 'table sizes', 'table size', 'tables', 'table', 'bloat'],
    byDefault: false,
    limit: 20,
    sql: `SELECT n.nspname AS schema, c.relname AS table, pg_total_relation_size(c.oid)::float8 AS total_bytes,
  pg_relation_size(c.oid)::float8 AS table_bytes, greatest(c.reltuples, 0)::float8 AS rows_estimate
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'm', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
  ORDER BY 3 DESC, 1, 2 LIMIT 20`,
    answer: (rows) =>
      rows.length
        ? list(
            `The ${plural(rows.length, 'largest table')}:`,
            rows.map((r) => `${name(r.schema)}.${name(r.table)}: ${bytes(r.total_bytes)} (table ${bytes(r.table_bytes)}, about ${Math.round(num(r.rows_estimate) ?? 0)} rows)`),
            rows,
            20,
          )
        : 'The database has no tables.',
  },
  {
    name: 'active-queries',
    label: 'the queries running now',
    words: ['active queries', 'running queries', 'queries', 'query', 'activity', 'what is running', 'sessions'],
    byDefault: true,
    limit: 50,
    sql: `SELECT ${ACTIVITY} FROM pg_stat_activity
  WHERE state IS NOT NULL AND state <> 'idle' AND pid <> pg_backend_pid() AND backend_type = 'client backend'
  ORDER BY duration_s DESC NULLS LAST LIMIT 50`,
    answer: (rows) => (rows.length ? list(`${plural(rows.length, 'active query', 'active queries')}:`, rows.map(queryLine), rows, 50) : 'No queries are running (besides this one).'),
  },
  {
    name: 'long-running-queries',
    label: `the queries (and open transactions) running for more than ${LONG_RUNNING_S} s`,
    words: ['long running', 'long-running', 'long running queries', 'slow queries', 'slow query', 'stuck', 'idle in transaction', 'oldest transaction'],
    byDefault: false,
    limit: 50,
    sql: `SELECT ${ACTIVITY} FROM pg_stat_activity
  WHERE state IS NOT NULL AND state <> 'idle' AND pid <> pg_backend_pid() AND backend_type = 'client backend'
    AND now() - coalesce(query_start, xact_start, backend_start) > interval '${LONG_RUNNING_S} seconds'
  ORDER BY duration_s DESC NULLS LAST LIMIT 50`,
    answer: (rows) =>
      rows.length
        ? list(`${plural(rows.length, 'query', 'queries')} running for more than ${LONG_RUNNING_S} s:`, rows.map(queryLine), rows, 50)
        : `No query has been running for more than ${LONG_RUNNING_S} s.`,
  },
  {
    name: 'blocked-queries',
    label: 'the queries waiting for a lock, and who blocks them',
    words: ['locks', 'lock', 'blocked', 'blocking', 'blocked queries', 'waiting', 'deadlock', 'deadlocks', 'lock waits'],
    byDefault: false,
    limit: 50,
    sql: `SELECT w.pid, w.usename, w.datname, w.state, w.wait_event_type, w.wait_event,
  extract(epoch FROM now() - w.query_start)::float8 AS duration_s, left(w.query, 2000) AS query, pg_blocking_pids(w.pid) AS blocked_by,
  (SELECT json_agg(json_build_object('pid', b.pid, 'usename', b.usename, 'state', b.state, 'query', left(b.query, 2000)))
     FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(w.pid))) AS blockers
  FROM pg_stat_activity w WHERE cardinality(pg_blocking_pids(w.pid)) > 0
  ORDER BY duration_s DESC NULLS LAST LIMIT 50`,
    answer: (rows) => {
      if (!rows.length) return 'No query is waiting for a lock.';
      const lines = rows.map((r) => {
        const blockers = (Array.isArray(r.blockers) ? (r.blockers as Row[]) : []).map((b) => `pid ${text(b.pid)} (${name(b.usename)}, ${text(b.state)}: ${safeQueryText(b.query)})`);
        return `${queryLine(r)}\n  blocked by ${blockers.length ? blockers.join('; ') : (r.blocked_by as unknown[]).join(', ')}`;
      });
      return list(`${plural(rows.length, 'query', 'queries')} waiting for a lock:`, lines, rows, 50);
    },
  },
  {
    name: 'replication',
    label: 'replication: the standbys of this server and their lag, or this standby\'s replay delay',
    words: ['replication', 'replication lag', 'replica', 'replicas', 'standby', 'standbys', 'lag', 'wal'],
    byDefault: false,
    sql: `SELECT pg_is_in_recovery() AS in_recovery,
  CASE WHEN pg_is_in_recovery() THEN extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END AS replay_delay_s,
  (SELECT coalesce(json_agg(json_build_object('application_name', application_name, 'client_addr', client_addr::text, 'state', state,
     'sync_state', sync_state, 'replay_lag_s', extract(epoch FROM replay_lag)::float8,
     'replay_lag_bytes', CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8 END)), '[]'::json)
   FROM pg_stat_replication) AS replicas`,
    answer: (rows) => {
      const r = rows[0] ?? {};
      if (r.in_recovery) return `This server is a standby; ${r.replay_delay_s === null ? 'it has replayed no transaction yet' : `its last replayed transaction is ${duration(r.replay_delay_s)} old`}.`;
      const replicas = Array.isArray(r.replicas) ? (r.replicas as Row[]) : [];
      if (!replicas.length) return 'This server is a primary with no standbys connected (no replication).';
      return list(
        `${plural(replicas.length, 'standby', 'standbys')} connected:`,
        replicas.map((x) => `${name(x.application_name) || name(x.client_addr) || '?'} (${text(x.state)}, ${text(x.sync_state)}): ${bytes(x.replay_lag_bytes)} behind${x.replay_lag_s === null ? '' : `, replay lag ${duration(x.replay_lag_s)}`}`),
        rows,
      );
    },
  },
  {
    name: 'connections',
    label: 'connection counts by state, database and user, against max_connections',
    words: ['connections', 'connection', 'max_connections', 'max connections', 'clients', 'connection count', 'connection limit'],
    byDefault: true,
    sql: `SELECT current_setting('max_connections')::int AS max_connections, current_setting('superuser_reserved_connections')::int AS reserved,
  (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS total,
  (SELECT coalesce(json_object_agg(s, n), '{}'::json) FROM (SELECT coalesce(state, 'unknown') AS s, count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1) x) AS by_state,
  (SELECT coalesce(json_agg(json_build_object('database', d, 'user', u, 'count', n) ORDER BY n DESC), '[]'::json) FROM
    (SELECT datname AS d, usename AS u, count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 20) y) AS by_database_user`,
    answer: (rows) => {
      const r = rows[0] ?? {};
      const total = num(r.total) ?? 0;
      const max = num(r.max_connections) ?? 0;
      const states = Object.entries((r.by_state as Record<string, number>) ?? {}).map(([s, n]) => `${n} ${name(s)}`);
      const per = (Array.isArray(r.by_database_user) ? (r.by_database_user as Row[]) : []).map((x) => `${name(x.database) || '?'} as ${name(x.user) || '?'}: ${text(x.count)}`);
      const pct = max ? Math.round((total / max) * 100) : 0;
      return [`${total} of max_connections ${max} in use (${pct}%; ${text(r.reserved)} reserved for superusers)${states.length ? `: ${states.join(', ')}` : ''}.`, ...per.map((l) => `- ${l}`)].join('\n');
    },
  },
  {
    name: 'unused-indexes',
    label: 'indexes never scanned since the statistics were reset (not unique, not primary keys)',
    words: ['unused indexes', 'unused index', 'indexes', 'index', 'index usage'],
    byDefault: false,
    limit: 50,
    sql: `SELECT s.schemaname AS schema, s.relname AS table, s.indexrelname AS index, pg_relation_size(s.indexrelid)::float8 AS size_bytes, s.idx_scan::float8 AS scans
  FROM pg_stat_user_indexes s JOIN pg_index i ON i.indexrelid = s.indexrelid
  WHERE s.idx_scan = 0 AND NOT i.indisunique AND NOT i.indisprimary
  ORDER BY 4 DESC, 1, 2, 3 LIMIT 50`,
    answer: (rows) =>
      rows.length
        ? list(`${plural(rows.length, 'unused index', 'unused indexes')} (never scanned since the statistics were reset):`, rows.map((r) => `${name(r.schema)}.${name(r.index)} on ${name(r.table)}: ${bytes(r.size_bytes)}`), rows, 50)
        : 'No unused indexes (every non-unique index has been scanned since the statistics were reset).',
  },
  {
    name: 'missing-indexes',
    label: 'tables read mostly by sequential scans (candidates for a missing index)',
    words: ['missing indexes', 'missing index', 'sequential scans', 'sequential scan', 'seq scans', 'seq scan', 'full table scans', 'need an index', 'needs an index'],
    byDefault: false,
    limit: 20,
    // A table of some size read more often by sequential scans than through an index.
    sql: `SELECT schemaname AS schema, relname AS table, seq_scan::float8 AS seq_scans, seq_tup_read::float8 AS rows_read_by_seq_scans,
  coalesce(idx_scan, 0)::float8 AS index_scans, n_live_tup::float8 AS live_rows
  FROM pg_stat_user_tables WHERE seq_scan > coalesce(idx_scan, 0) AND n_live_tup >= 1000
  ORDER BY seq_tup_read DESC, 1, 2 LIMIT 20`,
    answer: (rows) =>
      rows.length
        ? list(
            `${plural(rows.length, 'table')} read mostly by sequential scans (an index may be missing):`,
            rows.map((r) => `${name(r.schema)}.${name(r.table)}: ${text(r.seq_scans)} sequential scans read ${text(r.rows_read_by_seq_scans)} rows, ${text(r.index_scans)} index scans, ${text(r.live_rows)} live rows`),
            rows,
            20,
          )
        : 'No table of 1000 rows or more is read mostly by sequential scans.',
  },
];

export const readNamed = (readName: string) => POSTGRES_READS.find((r) => r.name === readName);

/** The reads a question asks for, or the default set. */
export const readsFor: (question: string) => PostgresRead[] = readsChooser(POSTGRES_READS);

/** The connections a question is about: those it names, else the default, else the only one, else all (at most 5). */
export const connectionsFor = targetsFor;
