/**
 * postgres as a provider (SPEC 2.5 `postgres.connections.<name>`): questions about a PostgreSQL server
 * (version, database and table sizes, running and blocked queries, replication, connections, unused and
 * missing indexes) compile to read plans of named reads, run by the one executor.
 *
 * Default deny: `["postgres-read", CONNECTION, READ]` runs freely only for a READ in the catalogue
 * (engine/providers/postgres/reads.ts); there is no way to put SQL in it. `["postgres-sql", CONNECTION, SQL]` runs
 * any statement and is therefore destructive: it needs --destroyer, whatever the statement says.
 */
import type { ArgProblem, Provider, StepClass, StepVerb } from '../../core/provider.js';
import type { ContextResult, ProviderCapabilities } from '../../core/capabilities.js';
import { PLACEHOLDER_PATTERN } from '../../../schemas/plan.js';
import { hasPlaceholder } from '../../core/plan/bindings.js';
import { secretField, tidyPath } from '../../core/credential-sources.js';
import { postgresClient, type PostgresClient, type ReadResult } from './client.js';
import { postgresSources } from './credentials.js';
import { connectionsFor, POSTGRES_READS, readNamed, readsFor } from './reads.js';

const READ_VERB = 'postgres-read';
const SQL_VERB = 'postgres-sql';
const CONNECTION_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}$/;
const substituteConnection = (args: readonly string[], bindings: Record<string, string>) =>
  args.map((a, i) => (i === 1 ? a.replace(new RegExp(PLACEHOLDER_PATTERN.source, 'g'), (w, n: string) => bindings[n] ?? w) : a));

function checkConnection(args: readonly string[]): ArgProblem[] {
  const c = args[1] ?? '';
  return CONNECTION_NAME.test(c) || hasPlaceholder(c) ? [] : [{ field: 'args[1]', message: `"${c}" is not a connection name (postgres.connections.<name>)` }];
}

export const postgresReadVerb: StepVerb<PostgresClient> = {
  verb: READ_VERB,
  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length !== 3) problems.push({ field: 'args', message: `${READ_VERB} steps are ["${READ_VERB}", CONNECTION, READ] with READ one of ${POSTGRES_READS.map((r) => r.name).join(', ')}` });
    problems.push(...checkConnection(args));
    const read = args[2] ?? '';
    if (!readNamed(read) && !hasPlaceholder(read)) problems.push({ field: 'args[2]', message: `unknown postgres read "${read}" (known: ${POSTGRES_READS.map((r) => r.name).join(', ')}); other SQL needs a postgres-sql step and --destroyer` });
    return problems;
  },
  classify(args): StepClass {
    // A placeholder where the read's name goes could become anything: not known to be safe.
    if (!readNamed(args[2] ?? '')) return { effect: 'destroy', reasons: [`${READ_VERB} ${args[2] ?? ''}: not a known read`] };
    return { effect: 'read', kind: args[2], reasons: [] };
  },
  substitute: substituteConnection,
  async run(args, ctx) {
    const read = readNamed(args[2] ?? '');
    if (!read) throw new Error(`unknown postgres read ${args[2]}`); // checkArgs and the gate stop it first
    const client = await ctx.client();
    return { data: await client.read(args[1]!, read, ctx.signal) };
  },
  describe: (args) => `postgres ${args[1]}: ${readNamed(args[2] ?? '')?.label ?? args[2]}`,
};

export const postgresSqlVerb: StepVerb<PostgresClient> = {
  verb: SQL_VERB,
  checkArgs(args) {
    const problems: ArgProblem[] = [];
    if (args.length !== 3) problems.push({ field: 'args', message: `${SQL_VERB} steps are ["${SQL_VERB}", CONNECTION, SQL]` });
    problems.push(...checkConnection(args));
    if (!(args[2] ?? '').trim()) problems.push({ field: 'args[2]', message: 'the SQL is empty' });
    return problems;
  },
  classify: (args) => ({ effect: 'destroy', reasons: [`free SQL on postgres ${args[1] ?? ''}: not known to be safe (only the named postgres-read steps run without --destroyer)`] }),
  substitute: substituteConnection,
  async run(args, ctx) {
    const client = await ctx.client();
    return { data: await client.execute(args[1]!, args[2]!, ctx.signal) };
  },
  describe: (args) => `postgres ${args[1]}: run SQL ${JSON.stringify((args[2] ?? '').replace(/\s+/g, ' ').slice(0, 60))}`,
  detail: (args) => ({ sql: args[2] }),
};

/** The answer without a model: one paragraph per read, under a line per connection. */
export function answerPostgres(question: string, results: readonly ContextResult[]): string | undefined {
  const byConnection = new Map<string, string[]>();
  for (const r of results) {
    const data = r.data as ReadResult | undefined;
    const read = readNamed(r.args[2] ?? '');
    if (!read || !data || !Array.isArray(data.rows)) continue;
    const head = `postgres ${data.connection} (${data.server}):`;
    const parts = byConnection.get(head) ?? [];
    parts.push(read.answer(data.rows, question));
    byConnection.set(head, parts);
  }
  if (!byConnection.size) return undefined;
  return [...byConnection].map(([head, parts]) => [head, ...parts].join('\n')).join('\n\n');
}

export const postgresCapabilities: ProviderCapabilities = {
  routing: {
    names: ['postgres', 'postgresql', 'psql', 'pgsql'],
    specific: [
      'pg_stat_activity',
      'max_connections',
      'replication lag',
      'long running queries',
      'long-running queries',
      'blocked queries',
      'unused indexes',
      'missing indexes',
      'largest tables',
      'biggest tables',
      'table sizes',
      'database sizes',
      'autovacuum',
      'vacuum',
    ],
    generic: ['database', 'databases', 'tables', 'queries', 'indexes', 'connections', 'locks', 'replication', 'replicas'],
  },
  reads: {
    label: 'the PostgreSQL connections',
    prompt:
      'Rows of fixed read-only queries over the PostgreSQL catalogue and statistics views, per configured connection (sizes in bytes, durations in seconds). "truncated" says a list was cut at its limit.',
    contextReads(question, { config }) {
      const connections = connectionsFor(question, Object.keys(config.postgres?.connections ?? {}), config.postgres?.default_connection);
      const reads = readsFor(question);
      const commands = connections.flatMap((c) => reads.map((r) => ({ args: [READ_VERB, c, r.name], reason: `context: ${r.label} (${c})` })));
      return { commands, kinds: connections.flatMap((c) => reads.map((r) => `postgres/${c}/${r.name}`)) };
    },
  },
  answer: { answer: (question, results) => answerPostgres(question, results) },
  credentials: {
    sources: postgresSources,
    what: 'the password of a postgres connection (--name: the connection, postgres.connections.<name>)',
    fields: [secretField('password', '--password', 'database password')],
    scan: {
      title: 'postgres',
      setup: (input) => [{ why: `postgres: add a connection (postgres.connections.<name>: host, port, database, username) in ${tidyPath(input.configPath, input.home)}; passwords go in ~/.pgpass` }],
    },
    async test(read, ctx) {
      const config = ctx?.config;
      const connections = ctx?.name ? [ctx.name] : config ? connectionsFor('', Object.keys(config.postgres?.connections ?? {}), config.postgres?.default_connection) : ['default'];
      const data = (await read({ version: 1, provider: 'postgres', commands: connections.map((c) => ({ args: [READ_VERB, c, 'server-version'], reason: `credentials test: connect to ${c}` })) })) as ReadResult[];
      const detail = data.map((d) => `${d.connection}: PostgreSQL ${String(d.rows[0]?.server_version ?? '?')} at ${d.server}`).join('; ');
      return { detail, data: { connections: data.map((d) => ({ connection: d.connection, server: d.server, server_version: d.rows[0]?.server_version })) } };
    },
    namedBy: 'connection',
  },
  classify: {
    table: () => [
      ...POSTGRES_READS.map((r) => ({ operation: `${READ_VERB} <connection> ${r.name}`, verdict: 'read' as const, why: `${r.label}; READ ONLY transaction with a statement_timeout` })),
      { operation: `${SQL_VERB} <connection> <sql>`, verdict: 'destructive' as const, why: 'any SQL: not known to be safe, needs --destroyer' },
    ],
  },
};

export const postgresProvider: Provider<PostgresClient> = {
  name: 'postgres',
  verbs: [postgresReadVerb, postgresSqlVerb],
  capabilities: postgresCapabilities,
  async connect(opts) {
    const client = postgresClient(opts);
    const config = opts.config;
    const first = connectionsFor('', Object.keys(config.postgres?.connections ?? {}), config.postgres?.default_connection)[0]!;
    const source = Object.keys(config.postgres?.connections ?? {}).length ? await client.source(first).catch((err: Error) => `postgres.connections (${err.message})`) : 'no postgres.connections configured';
    return { client, source, close: () => client.close() };
  },
};
