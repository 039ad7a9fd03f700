/**
 * A real PostgreSQL server (Debian's `postgresql` package) for tests and benchmarks: its own cluster in
 * a temporary directory on a free loopback port, trust authentication for 127.0.0.1, stopped and
 * removed afterwards. As root (CI, this machine) the server runs as the `postgres` user, since
 * PostgreSQL refuses to run as root (test-servers.md).
 *
 * Tests that need it and do not find it report a skip with `postgresMissing()`'s reason; `.ci/run`
 * installs the package, so this is a safety net, not a way to skip.
 *
 * The server is started by a shell that holds it while its stdin is open: if the test process dies
 * (even kill -9 on a timeout), the pipe closes and the shell stops the cluster instead of leaving it
 * running.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'uvu';
import { onFreePort } from './net.js';

export interface RunningPostgres {
  host: string;
  port: number;
  /** The unix socket directory (always trust authentication, for the test's own psql). */
  socketDir: string;
  /** Server major version (e.g. 15). */
  version: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` (trust authentication, no password). */
  url(database?: string): string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL through psql; returns its unaligned, tuples-only output. */
  psql(sql: string, database?: string): string;
  /**
   * Runs SQL in a psql session of its own that stays open (a transaction holding a lock, a long query)
   * until `stop()` kills it; for the views that show other sessions.
   */
  background(sql: string, database?: string): { pid: number | undefined; stop(): void };
  /** pg_dump of a database (plain SQL text), as an operator would back it up. */
  dump(database: string): string;
  stop(): Promise<void>;
}

/** The newest installed server's bin directory, or undefined. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, 'bin') : undefined;
}

const isRoot = () => process.getuid?.() === 0;

/** Why a real PostgreSQL cannot run here, or undefined when it can. */
export function postgresMissing(): string | undefined {
  if (!postgresBinDir()) return 'PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql; .ci/run does)';
  if (isRoot()) {
    if (spawnSync('id', ['-u', 'postgres'], { stdio: 'ignore' }).status !== 0) return 'running as root and there is no "postgres" user to run the server as';
    if (spawnSync('sh', ['-c', 'command -v runuser'], { stdio: 'ignore' }).status !== 0) return 'running as root without runuser';
  }
  return undefined;
}

/** `cmd args…` as the server's user: through runuser when we are root. */
function asServerUser(bin: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface StartPostgresOptions {
  /** Extra server settings (`-c name=value`), e.g. { fsync: 'off' }. */
  settings?: Record<string, string>;
  /**
   * Authentication over TCP (127.0.0.1): `trust` (default) or `scram-sha-256` (passwords checked, as on
   * a real server). The unix socket stays trusted, and `psql` uses it.
   */
  hostAuth?: 'trust' | 'scram-sha-256';
}

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<RunningPostgres> {
  return onFreePort((port) => startPostgresOn(port, opts));
}

async function startPostgresOn(port: number, opts: StartPostgresOptions): Promise<RunningPostgres> {
  const missing = postgresMissing();
  if (missing) throw new Error(`cannot start PostgreSQL: ${missing}`);
  const bin = postgresBinDir()!;
  const version = Number(bin.split('/').at(-2));
  // As root the server runs as "postgres", which cannot enter a TMPDIR made private (0700) for root
  // (the test runner gives each file one): then the cluster lives directly under /tmp, removed on stop.
  const dir = mkdtempSync(join(isRoot() && existsSync('/tmp') ? '/tmp' : tmpdir(), 'assistant-pg-'));
  const data = join(dir, 'data');
  if (isRoot()) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const [initCmd, initArgs] = asServerUser(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8', cwd: dir });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}):\n${init.stdout}\n${init.stderr}`);
  }
  if (opts.hostAuth === 'scram-sha-256') {
    // Written as the server's user would: the file belongs to it already (initdb made it).
    writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n');
  }
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: dir, ...opts.settings };
  const serverOpts = [`-p ${port}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
  const [ctlCmd, ctlPre] = asServerUser(join(bin, 'pg_ctl'), []);
  const ctl = [ctlCmd, ...ctlPre].map(shellQuote).join(' ');
  const script =
    `${ctl} -D ${shellQuote(data)} -o ${shellQuote(serverOpts)} -l ${shellQuote(join(dir, 'log'))} -w -t 120 start >/dev/null || exit 1; ` +
    `echo READY; cat >/dev/null; ${ctl} -D ${shellQuote(data)} -m fast -w stop >/dev/null`;
  const child: ChildProcess = spawn('sh', ['-c', script], { stdio: ['pipe', 'pipe', 'pipe'], cwd: dir });
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      if (d.includes('READY')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`PostgreSQL did not start (exit ${code}):\n${output}\n${spawnSync('cat', [join(dir, 'log')], { encoding: 'utf8' }).stdout}`)));
  }).catch(async (err) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const psql = (sql: string, database = 'postgres'): string => {
    const target = opts.hostAuth === 'scram-sha-256' ? ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', database] : ['-d', url(database)];
    const r = spawnSync(join(bin, 'psql'), ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', ...target, '-c', sql], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`psql failed: ${r.stderr}`);
    return r.stdout;
  };
  let stopped: Promise<void> | undefined;
  let backgrounds = 0;
  return {
    host: '127.0.0.1',
    port,
    socketDir: dir,
    version,
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`createDatabase: use a plain lower-case name (got "${name}")`);
      psql(`CREATE DATABASE ${name}`);
      return url(name);
    },
    psql,
    background(sql, database = 'postgres') {
      const target = opts.hostAuth === 'scram-sha-256' ? ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', database] : ['-d', url(database)];
      const app = `bg-${++backgrounds}`;
      const child = spawn(join(bin, 'psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', ...target], { stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, PGAPPNAME: app } });
      child.on('error', () => undefined);
      // stdin stays open: psql runs the SQL and waits for more, keeping its session (and transaction).
      child.stdin!.on('error', () => undefined);
      child.stdin!.write(`${sql}\n`);
      return {
        pid: child.pid,
        stop: () => {
          // A backend in pg_sleep does not notice its client is gone: end it on the server too.
          psql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '${app}'`);
          child.kill('SIGKILL');
        },
      };
    },
    dump(database) {
      const r = spawnSync(join(bin, 'pg_dump'), ['-d', url(database), '--no-owner'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
      if (r.status !== 0) throw new Error(`pg_dump failed: ${r.stderr}`);
      return r.stdout;
    },
    stop: () =>
      (stopped ??= (async () => {
        child.stdin!.end();
        await exited;
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
}

/** Who runs the server, for messages. */
export function postgresUser(): string {
  return isRoot() ? 'postgres' : userInfo().username;
}

/** Where a backend under test keeps its data: `database()` is its URL, or undefined for the embedded PGlite. */
export interface BackendStorage {
  name: string;
  database(): Promise<string | undefined>;
}

/**
 * The storages a backend test runs on: PGlite always, and PostgreSQL where it is installed (one server for
 * the test file, started on first use and stopped after the suite; a fresh database `<prefix>_…` per call).
 */
export function backendStorages(suite: Test, prefix: string): BackendStorage[] {
  let pg: RunningPostgres | undefined;
  const storages: BackendStorage[] = [{ name: 'PGlite', database: async () => undefined }];
  if (!postgresMissing()) storages.push({ name: 'PostgreSQL', database: async () => (pg ??= await startPostgres()).createDatabase(`${prefix}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`) });
  suite.after(async () => {
    await pg?.stop();
  });
  return storages;
}
