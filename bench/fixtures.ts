/**
 * The bench's own fixtures (it never imports test/support): temp homes that are removed at exit,
 * timed child processes, module counts, statistics, a redis-server on a free port, the credential
 * backend and a PostgreSQL cluster (bench/backend.ts), and the checkout
 * being measured, so that one run can put a baseline build (BENCH_BASELINE=<checkout>) beside this one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A build to measure: its root (with dist/ and bin/) and a label. */
export interface Build {
  label: string;
  root: string;
}

export const THIS_BUILD: Build = { label: 'now', root: fileURLToPath(new URL('../../', import.meta.url)) };

/** BENCH_BASELINE=<checkout with a built dist/> puts that build beside this one, measured in the same run. */
export function builds(): Build[] {
  const base = process.env.BENCH_BASELINE;
  return base ? [{ label: 'before', root: base }, THIS_BUILD] : [THIS_BUILD];
}

export const binOf = (b: Build) => join(b.root, 'bin', 'assistant.js');

/** Imports a module of a build's dist/ (the bench measures old and new code through the same harness). */
export function importFrom<T>(b: Build, distPath: string): Promise<T> {
  return import(pathToFileURL(join(b.root, 'dist', distPath)).href) as Promise<T>;
}

const dirs: string[] = [];
process.on('exit', () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A temp dir removed when the bench exits. */
export function tempDir(prefix = 'assistant-bench-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export function percentile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** The environment of a child: this one without anything that could point it at real credentials. */
export function childEnv(extra: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(GPUCLOUD_|ASSISTANT_|MODULE_TRACE_FILE|NODE_OPTIONS)/.test(k)) env[k] = v;
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete env[k];
  else env[k] = v;
  return { NO_COLOR: '1', ...env };
}

/** Runs `node <args>` to completion; its wall time in ms (it must exit 0). */
export function timeNode(args: string[], env: Record<string, string>, input?: string): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, input, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`bench command failed (exit ${r.status}): node ${args.join(' ')}\n${r.stderr?.toString() ?? ''}`);
  return ms;
}

/** The same, asynchronously (for runs that need this process to keep serving, e.g. an in-process emulator). */
export function timeNodeAsync(args: string[], env: Record<string, string>, input?: string): Promise<{ ms: number; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

/** The module-trace preload of scripts/ (shared with the start-up guard test; plain JS, not built). */
const TRACE = pathToFileURL(fileURLToPath(new URL('../../scripts/module-trace.mjs', import.meta.url))).href;

/** How many ES and CommonJS modules `node <args>` loads (built-in modules left out). */
export async function countModules(args: string[], env: Record<string, string>, input?: string): Promise<{ esm: number; cjs: number; files: string[] }> {
  const file = join(tempDir('assistant-trace-'), 'trace.txt');
  writeFileSync(file, '');
  const r = await timeNodeAsync(['--import', TRACE, ...args], { ...env, MODULE_TRACE_FILE: file }, input);
  if (r.code !== 0) throw new Error(`traced command failed (exit ${r.code}): ${args.join(' ')}\n${r.stderr}`);
  const { parseModuleTrace } = (await import(TRACE)) as { parseModuleTrace(text: string): { esm: string[]; cjs: string[] } };
  const t = parseModuleTrace(readFileSync(file, 'utf8'));
  return { esm: t.esm.length, cjs: t.cjs.length, files: [...t.esm, ...t.cjs] };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });

/** A redis-server (Debian package) on a free loopback port, without persistence. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  if (found.status !== 0 || !found.stdout.trim()) throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  const port = await freePort();
  const child: ChildProcess = spawn(found.stdout.trim(), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  for (let i = 0; i < 200 && !(await canConnect(port)); i++) {
    if (child.exitCode !== null) throw new Error('redis-server exited at start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One line of the closing table. */
export interface Row {
  measure: string;
  /** Per build label: what was measured, in words (`348 vs 162 ms, 2.14×`). */
  values: Record<string, string>;
  target: string;
  /** Whether this build meets the target. */
  met?: boolean;
}

export const rows: Row[] = [];

export function printRows(labels: string[]): void {
  const head = ['measure', ...labels, 'target', 'met'];
  const body = rows.map((r) => [r.measure, ...labels.map((l) => r.values[l] ?? '-'), r.target, r.met === undefined ? '-' : r.met ? 'yes' : 'NO']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => '  ' + cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log('\nsummary (every row of issues 25 and 40, this run)');
  console.log(line(head));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const b of body) console.log(line(b));
}

/** The credential backend of this build (`assistant backend serve`) as a child on a free loopback port, with a HOME of its own. */
export interface BenchBackend {
  url: string;
  home: string;
  /** --database when it stores in PostgreSQL (else the embedded PGlite). */
  database?: string;
  stop(): Promise<void>;
}

export async function startBackend(database?: string): Promise<BenchBackend> {
  const home = tempDir('assistant-bench-backend-');
  const storage = database ? ['--database', database] : [];
  const child = spawn(process.execPath, [binOf(THIS_BUILD), 'backend', 'serve', '--listen', '127.0.0.1:0', ...storage], { env: childEnv({ HOME: home }), cwd: home, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`backend serve did not listen within 120 s:\n${log}`)), 120_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      log += d;
      const found = /listening on (https?:\/\/\S+)/.exec(log);
      if (found) clearTimeout(timer), resolve(found[1]!);
    });
    void exited.then(() => (clearTimeout(timer), reject(new Error(`backend serve exited before listening:\n${log}`))));
  });
  child.stderr!.resume();
  return {
    url,
    home,
    database,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `assistant backend keys create` against the backend's storage: an API key for `tenant`. */
export function backendApiKey(b: Pick<BenchBackend, 'home' | 'database'>, tenant: string): string {
  const r = spawnSync(process.execPath, [binOf(THIS_BUILD), 'backend', 'keys', 'create', '--tenant', tenant, '--env', 'testing', '--env', 'staging', '--env', 'production', ...(b.database ? ['--database', b.database] : [])], { env: childEnv({ HOME: b.home }), cwd: b.home, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`backend keys create exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A PostgreSQL cluster of the Debian package for the bench: loopback, trust, stopped and removed when it ends or the bench exits. */
export interface BenchPostgres {
  version: number;
  /** Creates a database; its URL. */
  createDatabase(name: string): string;
  stop(): Promise<void>;
}

const PG_ROOT = '/usr/lib/postgresql';
const pgBin = (): string | undefined => {
  const majors = existsSync(PG_ROOT) ? readdirSync(PG_ROOT).filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'pg_ctl'))) : [];
  const newest = majors.sort((a, b) => Number(a) - Number(b)).pop();
  return newest && join(PG_ROOT, newest, 'bin');
};
// PostgreSQL refuses to run as root: then the cluster belongs to the package's `postgres` user.
const runsAsRoot = () => process.getuid?.() === 0;
const asPostgres = (cmd: string, args: string[]): [string, string[]] => (runsAsRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);

/** Why the bench cannot start a PostgreSQL here (its rows are then skipped), or undefined. */
export function whyNoPostgres(): string | undefined {
  if (!pgBin()) return `no PostgreSQL server under ${PG_ROOT} (apt-get install postgresql)`;
  if (runsAsRoot() && spawnSync('id', ['postgres'], { stdio: 'ignore' }).status !== 0) return 'running as root without a postgres user to run the server';
  return undefined;
}

export async function startBenchPostgres(): Promise<BenchPostgres> {
  const reason = whyNoPostgres();
  if (reason) throw new Error(reason);
  const bin = pgBin()!;
  // Under /tmp itself: a runner's private TMPDIR is closed to the postgres user.
  const dir = mkdtempSync(join(runsAsRoot() ? '/tmp' : tmpdir(), 'assistant-bench-pg-'));
  if (runsAsRoot()) spawnSync('chown', ['postgres:', dir]);
  const data = join(dir, 'data');
  const run = (cmd: string, args: string[]) => {
    const [c, a] = asPostgres(join(bin, cmd), args);
    const r = spawnSync(c, a, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const port = await freePort();
  let up = false;
  const halt = () => {
    if (up) spawnSync(...asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']), { stdio: 'ignore' });
    up = false;
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', halt);
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir}`, 'start']);
    up = true;
  } catch (err) {
    halt();
    throw err;
  }
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  return {
    version: Number(bin.split('/').at(-2)),
    createDatabase: (name) => (run('psql', ['-X', '-q', '-d', url('postgres'), '-c', `CREATE DATABASE ${name}`]), url(name)),
    stop: async () => halt(),
  };
}
