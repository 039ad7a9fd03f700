/**
 * postgres questions through the CLI against a real PostgreSQL (Debian's server, started once for this
 * file with password authentication over TCP): routed by the question's words or by --postgres,
 * answered without a model from the named reads, combined with another provider, a refused password
 * and a full server said clearly, the password never printed, a silent server cut by --timeout, and
 * free SQL refused without --destroyer.
 */
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli as runCliIn, type RunCliOptions, tempHome } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';
import { postgresMissing, startPostgres, type RunningPostgres } from '../../support/postgres.js';
import { standIn } from '../../support/standin.js';
import { startHostilePostgres, type HostilePostgres } from '../../support/pg-wire.js';
import { openAiConfigYaml, startOpenAiServer, type OpenAiTestServer } from '../../support/openai-server.js';
import { askWithScriptedModel, textOf } from '../../support/mcp.js';
import { asClient, createApiKey, startBackendProcess } from '../../support/backend.js';
import { testWhen } from '../../support/skip.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const PASSWORD = 'pg-S3cret-0f-app';
const missing = postgresMissing();
let pg: RunningPostgres | undefined;
let silent: Server | undefined;
let silentPort = 0;
let hostile: HostilePostgres | undefined;
const sockets: Socket[] = [];
const dirs: string[] = [];

const dir = tempDir;
const home = () => tempHome('pg-ask-');

function config(extra = ''): string {
  const file = join(dir('pg-ask-config-'), 'config.yaml');
  writeFileSync(
    file,
    `postgres:
  default_connection: main
  connections:
    main: { host: 127.0.0.1, port: ${pg!.port}, database: shop, username: app }
    limited: { host: 127.0.0.1, port: ${pg!.port}, database: shop, username: limited }
    silent: { host: 127.0.0.1, port: ${silentPort}, database: shop, username: app }
    hostile: { host: 127.0.0.1, port: ${hostile!.port}, database: shop, username: app }
infra:
  cloud_b:
    project_id: my-proj
${extra}`,
    { mode: 0o600 },
  );
  return file;
}

/** The CLI with a HOME of its own that this file removes afterwards. */
const runCli = (args: string[], opts: RunCliOptions = {}) => runCliIn(args, { ...opts, home: opts.home ?? home() });

const env = (more: Record<string, string | undefined> = {}) => ({ PGPASSWORD: PASSWORD, PGPASSFILE: undefined, PGHOST: undefined, PGUSER: undefined, ...more });

/** Polls psql until `sql` returns something (a session reached the state a test waits for). */
async function until(sql: string, database = 'shop'): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const out = pg!.psql(sql, database).trim();
    if (out) return out;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never true: ${sql}`);
}

test.before(async () => {
  if (missing) return;
  pg = await startPostgres({ hostAuth: 'scram-sha-256' });
  pg.psql(`CREATE ROLE app LOGIN PASSWORD '${PASSWORD}' IN ROLE pg_monitor`);
  pg.psql(`CREATE ROLE limited LOGIN PASSWORD '${PASSWORD}' CONNECTION LIMIT 0`);
  pg.psql('CREATE DATABASE shop OWNER app');
  pg.psql(
    `SET ROLE app;
     CREATE TABLE orders (id int PRIMARY KEY, note text, amount numeric);
     INSERT INTO orders SELECT g, 'order ' || g, g * 1.5 FROM generate_series(1, 5000) g;
     CREATE INDEX orders_note_idx ON orders (note);
     CREATE TABLE customers (id int PRIMARY KEY, name text);
     INSERT INTO customers SELECT g, 'c' || g FROM generate_series(1, 10) g;
     ${Array.from({ length: 24 }, (_, i) => `CREATE TABLE t${i} (x int); INSERT INTO t${i} SELECT generate_series(1, ${i + 1});`).join(' ')}
     ANALYZE;`,
    'shop',
  );
  // Sequential scans over a 5000-row table that has no index for them: a missing-index candidate.
  for (let i = 0; i < 3; i++) pg.psql('SELECT count(*) FROM orders WHERE amount > 100', 'shop');
  // A server that accepts connections and never answers.
  silent = createServer((s) => sockets.push(s.on('error', () => undefined)));
  await new Promise<void>((r) => silent!.listen(0, '127.0.0.1', () => r()));
  silentPort = (silent.address() as { port: number }).port;
  hostile = await startHostilePostgres();
});

test.after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
  await hostile?.close();
  await pg?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A test that runs when the server is here, else reports its skip with the reason (the runner counts it). */
const skip = testWhen(test, () => missing);

/** `ask <question>` answered by the scripted model `ai` (it replies `reply`): the run, and the request the model got as JSON text. */
async function askModel(ai: OpenAiTestServer, reply: string, question: string) {
  ai.reply({ text: reply });
  const m = await runCli(['--config', config(openAiConfigYaml(ai.baseURL)), 'ask', question], { env: env({ TEST_AI_KEY: 'sk-test-key-123456' }) });
  assert.is(m.code, 0, m.stderr);
  return { m, prompt: JSON.stringify(ai.chatRequests().at(-1)) };
}

skip('a question about the largest tables is routed to postgres by its words and answered from a read-only named read', async () => {
  const cfg = config();
  const route = await runCli(['--config', cfg, 'ask', '--route-only', '-o', 'json', 'what are my largest tables?'], { env: env() });
  assert.is(route.code, 0, route.stderr);
  const doc = JSON.parse(route.stdout);
  assert.equal(doc.providers, ['postgres']);
  assert.equal(doc.context_kinds, ['postgres/main/largest-tables']);

  const r = await runCli(['--config', cfg, '--debug', 'ask', '--ai-profile', 'builtin', 'what are my largest tables?'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^postgres main \(127\.0\.0\.1:\d+\/shop as app\):\nThe 20 largest tables:\n- public\.orders: /m);
  assert.match(r.stdout, /\(only the first 20 are read\)/, 'the bounded list says it was cut');
  assert.match(r.stderr, /password from PGPASSWORD/, '--debug says where the password came from');
  assert.not.ok((r.stdout + r.stderr).includes(PASSWORD), 'the password is never printed');
});

skip('--postgres selects postgres for a question without its words; connections are counted against max_connections', async () => {
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--postgres', 'how full is it?'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /PostgreSQL \d+\.\d+/, 'the default reads: the version');
  assert.match(r.stdout, /\d+ of max_connections 100 in use/);
  assert.match(r.stdout, /databases?, .* in all:\n(- .*\n)*- shop: /);
  const more = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'postgres replication lag and long-running queries'], { env: env() });
  assert.is(more.code, 0, more.stderr);
  assert.match(more.stdout, /^No query has been running for more than 60 s\.$/m);
  assert.match(more.stdout, /^This server is a primary with no standbys connected \(no replication\)\.$/m);
});

skip('unused and missing indexes come from the statistics views', async () => {
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'which unused indexes and missing indexes does postgres have?'], { env: env() });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /unused index.*:\n- public\.orders_note_idx on orders: /);
  assert.match(r.stdout, /read mostly by sequential scans.*:\n- public\.orders: \d+ sequential scans read \d+ rows/);
  assert.not.match(r.stdout, /orders_pkey/, 'primary keys are never called unused');
});

skip('a blocked query is shown with the session that blocks it; the lock never holds ask past its own lock_timeout', async () => {
  const holder = pg!.background("BEGIN; LOCK TABLE customers IN ACCESS EXCLUSIVE MODE; SELECT 'holding', pg_sleep(300);", 'shop');
  await until("SELECT 1 FROM pg_stat_activity WHERE query LIKE '%holding%' AND state = 'active' AND pid <> pg_backend_pid()");
  const waiter = pg!.background('SELECT count(*) AS waiting_for_customers FROM customers;', 'shop');
  try {
    await until("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%waiting_for_customers%'");
    const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'which queries are blocked in postgres?'], { env: env() });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 query waiting for a lock:\n- pid \d+ \(postgres@shop\) active for .*waiting on Lock\/relation: SELECT count\(\*\) AS waiting_for_customers FROM customers;\n  blocked by pid \d+ \(postgres, active: SELECT 'holding', pg_sleep\(300\);\)/);
    // The size of a locked table cannot be read: the read gives up at its lock_timeout with a clear error.
    const sizes = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'postgres largest tables'], { env: env() });
    assert.is(sizes.code, 1, sizes.stdout);
    assert.match(sizes.stderr, /error: lock_timeout: postgres main .*waited 5 s for a lock another session holds/);
    assert.match(sizes.stderr, /hint: ask "which queries are blocked"/);
  } finally {
    waiter.stop();
    holder.stop();
  }
});

skip('password literals in query texts are masked and control characters in names replaced, in the answer and in what the model reads', async () => {
  pg!.psql('CREATE TABLE "evil\x1b[31mred" AS SELECT generate_series(1, 50000) AS x', 'shop');
  const open = pg!.background("BEGIN; ALTER ROLE limited PASSWORD 'literal-Pw-in-sql';", 'shop');
  try {
    await until("SELECT 1 FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE 'ALTER ROLE%'");
    const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'postgres active queries and largest tables'], { env: env() });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /idle in transaction for .*: ALTER ROLE limited PASSWORD '\*\*\*';/);
    assert.match(r.stdout, /public\.evil\?\[31mred: /);
    assert.not.ok(r.stdout.includes('literal-Pw-in-sql') || r.stdout.includes('\x1b'));

    const ai = await startOpenAiServer();
    try {
      const { prompt } = await askModel(ai, 'One session is idle in a transaction.', 'postgres active queries');
      assert.match(prompt, /ALTER ROLE limited PASSWORD/, 'the query reached the model');
      assert.not.ok(prompt.includes('literal-Pw-in-sql') || prompt.includes(PASSWORD));
    } finally {
      await ai.close();
    }
  } finally {
    open.stop();
    pg!.psql('DROP TABLE "evil\x1b[31mred"', 'shop');
  }
});

skip('every PostgreSQL quoting of a password, a set_config value and a literal cut by the server are masked, shown and sent to the model', async () => {
  // Each session stays idle in a transaction, so its last statement stays in pg_stat_activity.
  const secrets = ["e-Str\\'ing-Pw-1", 'dollar-Pw-2', 'tagged-Pw-3', 'set-config-Val-4', 'cut-Secret-0123456789abcdef'];
  const sessions = [
    "BEGIN; CREATE ROLE r_estring PASSWORD E'e-Str\\'ing-Pw-1';",
    'BEGIN; CREATE ROLE r_dollar PASSWORD $$dollar-Pw-2$$;',
    'BEGIN; CREATE ROLE r_tagged PASSWORD $pw$tagged-Pw-3$pw$;',
    "BEGIN; SELECT set_config('app.api_token', 'set-config-Val-4', false);",
    // pg_stat_activity keeps the first 1023 bytes of a query: the literal is cut after "cut-Secr".
    `BEGIN; /* ${'x'.repeat(980)} */ CREATE ROLE r_cut PASSWORD 'cut-Secret-0123456789abcdef';`,
  ].map((sql) => pg!.background(sql, 'shop'));
  const ai = await startOpenAiServer();
  try {
    await until("SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' HAVING count(*) >= 5");
    const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'postgres active queries'], { env: env() });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /CREATE ROLE r_estring PASSWORD '\*\*\*';/);
    assert.match(r.stdout, /CREATE ROLE r_tagged PASSWORD '\*\*\*';/);
    assert.match(r.stdout, /set_config\('app\.api_token', '\*\*\*', false\)/);
    const { m, prompt } = await askModel(ai, 'Five sessions are idle in a transaction.', 'postgres active queries');
    assert.match(prompt, /CREATE ROLE r_cut PASSWORD/, 'the cut query reached the model');
    for (const shown of [r.stdout + r.stderr, m.stdout + m.stderr, prompt]) {
      // The first characters of each secret are enough to tell (the cut one shows only 8 of them).
      for (const secret of secrets) assert.not.ok(shown.includes(secret.slice(0, 8)), `${secret.slice(0, 8)}… shows in:\n${shown.slice(0, 2000)}`);
    }
  } finally {
    for (const s of sessions) s.stop();
    await ai.close();
  }
});

skip('a wrong password from ~/.pgpass is refused with a clear error naming its source, never printing it', async () => {
  const h = home();
  writeFileSync(join(h, '.pgpass'), `# comment\n127.0.0.1:${pg!.port}:shop:app:wrong-Pa55word\n`, { mode: 0o600 });
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'postgres version'], { env: env({ PGPASSWORD: undefined }), home: h });
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /^error: unauthorized: postgres main \(127\.0\.0\.1:\d+\/shop as app\): the server refused the login: password authentication failed for user "app"/m);
  assert.match(r.stderr, /hint: check the password \(source: ~\/\.pgpass line 2\)/);
  assert.not.ok(r.stderr.includes('wrong-Pa55word'));

  // The right password in ~/.pgpass works; a copy others can read is ignored, as libpq does.
  writeFileSync(join(h, '.pgpass'), `*:*:shop:app:${PASSWORD}\n`, { mode: 0o600 });
  const ok = await runCli(['--config', config(), 'credentials', 'test', 'postgres'], { env: env({ PGPASSWORD: undefined }), home: h });
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /postgres credentials work \(source: postgres\.connections\.main \(127\.0\.0\.1:\d+\/shop as app; password from ~\/\.pgpass line 1\)\); main: PostgreSQL \d+/);
  chmodSync(join(h, '.pgpass'), 0o644);
  const loose = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'postgres version'], { env: env({ PGPASSWORD: undefined }), home: h });
  assert.is(loose.code, 1);
  assert.match(loose.stderr, /password file .*\.pgpass is readable by others \(mode 644\) and was ignored/);
  assert.not.ok((ok.stdout + ok.stderr + loose.stderr).includes(PASSWORD));
});

skip('the password stored in the credential backend is the last source, used when PGPASSWORD and ~/.pgpass have none', async () => {
  const backend = await startBackendProcess();
  dirs.push(backend.home);
  try {
    const key = await createApiKey(backend, 'team');
    const clientEnv = env({ ...asClient(backend, key), PGPASSWORD: undefined });
    const stored = await runCli(['credentials', 'store', 'postgres', '--name', 'main', '--password', '-'], { env: clientEnv, input: `${PASSWORD}\n` });
    assert.is(stored.code, 0, stored.stderr);
    assert.not.ok((stored.stdout + stored.stderr).includes(PASSWORD));
    const r = await runCli(['--config', config(), 'credentials', 'test', 'postgres'], { env: clientEnv });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /password from the backend credential store \(postgres\/main\)/);
    assert.not.ok((r.stdout + r.stderr).includes(PASSWORD));
    // Every stored credential: postgres/main is tested as the connection "main", from the backend alone.
    const all = await runCli(['--config', config(), '-o', 'json', 'credentials', 'test'], { env: { ...clientEnv, PGPASSWORD: 'not-this-one' } });
    assert.is(all.code, 0, all.stderr + all.stdout);
    const row = (JSON.parse(all.stdout) as { provider: string; name: string; ok: boolean; tested: boolean; detail?: string }[]).find((x) => x.provider === 'postgres');
    assert.ok(row?.ok && row.tested && row.name === 'main', all.stdout);
    assert.match(row!.detail ?? '', /^main: PostgreSQL \d+/);
  } finally {
    await backend.kill();
  }
});

skip('a server without a free connection slot (the 429 of postgres) is said clearly', async () => {
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'postgres limited connections'], { env: env() });
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /^error: too_many_connections: postgres limited \(.*\): the server has no free connection slot: too many connections for role "limited"/m);
});

// The budget is generous: on a loaded machine a child can spend seconds loading before it connects, and the
// point is that the silent server is reached and still cannot hold the command past its deadline.
skip('a server that never answers cannot hold ask past --timeout', async () => {
  const r = await runCli(['--config', config(), '--timeout', '8', 'ask', '--ai-profile', 'builtin', 'postgres silent version'], { env: env() });
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /error: timeout: /);
  assert.ok(sockets.length > 0, 'the client did reach the silent server');
});

skip('a server sending endless rows is cut off at the answer bound, not read into memory', async () => {
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', 'postgres hostile version'], { env: env() });
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /^error: postgres_answer_too_large: postgres hostile: the server sent more than 16 MB for one step; the connection was cut/m);
  assert.ok(hostile!.sent() > 16 * 1024 * 1024, 'the fake did send more than the bound');
});

skip('a server asking for the password in clear text over plain TCP to another machine does not get it', async () => {
  const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  if (!external) return console.log('SKIP cleartext password: this machine has no non-loopback IPv4 address');
  const fake = await startHostilePostgres({ cleartext: true, host: external });
  try {
    const cfg = config();
    const file = join(dir('pg-ask-config-'), 'config.yaml');
    writeFileSync(file, readFileSync(cfg, 'utf8').replace('    main: {', `    remote: { host: ${external}, port: ${fake.port}, database: shop, username: app }\n    main: {`), { mode: 0o600 });
    const r = await runCli(['--config', file, 'ask', '--ai-profile', 'builtin', 'postgres remote version'], { env: env() });
    assert.is(r.code, 1, r.stdout);
    assert.match(r.stderr, /^error: cleartext_password_refused: postgres remote .*: the server asked for the password in clear text over a connection without TLS; it was not sent/m);
    assert.equal(fake.passwords(), []);
  } finally {
    await fake.close();
  }
});

skip('postgres and cloud_b in one combined view', async () => {
  const g = standIn('gcloud', [{ match: 'sql instances list', stdout: [{ name: 'cloudsql-1', state: 'RUNNABLE', databaseVersion: 'POSTGRES_15', region: 'europe-west4' }] }]);
  dirs.push(g.dir);
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '--postgres', '--cloud-b', 'list my cloud sql databases'], { env: env({ PATH: g.path }) });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /1 Cloud SQL instance:\n- cloudsql-1/);
  assert.match(r.stdout, /postgres main .*:\n\d+ databases?, .* in all:/);
});

skip('free SQL is refused without --destroyer; with it, it runs through the apply path; an unknown read is not a plan', async () => {
  const plan = (args: string[]) => JSON.stringify({ version: 1, provider: 'postgres', commands: [{ args, reason: 'test' }] });
  const cfg = config();
  const refused = await runCli(['--config', cfg, 'ask', '--apply'], { env: env(), input: plan(['postgres-sql', 'main', 'CREATE TABLE made_by_plan (x int)']) });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /free SQL on postgres main: not known to be safe/);
  assert.is(pg!.psql("SELECT count(*) FROM pg_class WHERE relname = 'made_by_plan'", 'shop').trim(), '0');

  const unknown = await runCli(['--config', cfg, 'plan', 'validate'], { env: env(), input: plan(['postgres-read', 'main', 'drop-everything']) });
  assert.is(unknown.code, 2, unknown.stdout + unknown.stderr);
  assert.match(unknown.stdout + unknown.stderr, /unknown postgres read "drop-everything"/);

  const done = await runCli(['--config', cfg, 'ask', '--apply', '--destroyer', '--yes'], { env: env(), input: plan(['postgres-sql', 'main', 'CREATE TABLE made_by_plan (x int)']) });
  assert.is(done.code, 0, done.stderr);
  assert.is(pg!.psql("SELECT count(*) FROM pg_class WHERE relname = 'made_by_plan'", 'shop').trim(), '1');
});

skip('the MCP ask tool reads the same postgres context and hands it to the model; the password stays out', async () => {
  const { result: r, prompt } = await askWithScriptedModel({ config: config(), home: home(), env: env(), reply: 'orders is the largest table.', question: 'what are the largest tables in postgres?' });
  assert.not.ok(r.isError, textOf(r));
  assert.equal(r.structuredContent.providers, ['postgres']);
  assert.match(prompt, /orders/, 'the rows reached the model');
  assert.not.ok(prompt.includes(PASSWORD) || JSON.stringify(r).includes(PASSWORD));
});

skip('nothing the CLI wrote under HOME holds the password (history, journals)', async () => {
  const h = home();
  const r = await runCli(['--config', config(), 'ask', '--ai-profile', 'builtin', '-o', 'json', 'postgres databases'], { env: env(), home: h });
  assert.is(r.code, 0, r.stderr);
  assert.not.ok(r.stdout.includes(PASSWORD));
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  for (const f of walk(h)) assert.not.ok(readFileSync(f, 'utf8').includes(PASSWORD), f);
});

test.run();
