/**
 * The credential backend for tests: `assistant backend serve` as a real child process (so a test can
 * kill -9 it), on a free loopback port, with a temp HOME; and admin commands through the CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BIN, childEnv, runCli, tempHome, type CliResult } from './cli.js';
import { rmSync } from 'node:fs';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { createInstanceStep } from './plans.js';
import { seedEmptyCluster } from './backend-cluster.js';

export interface BackendProcess {
  url: string;
  home: string;
  /** --database when the server uses PostgreSQL. */
  database?: string;
  dataDir: string;
  keyFile: string;
  pid: number;
  stderr(): string;
  /** Sends a signal and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartBackendOptions {
  home?: string;
  database?: string;
  env?: Record<string, string | undefined>;
  args?: string[];
  /**
   * Start on PGlite from an empty data directory, as a user's very first start does (initdb: ~9 s of
   * CPU). By default a new data directory gets a copy of an empty cluster first (backend-cluster.ts),
   * and the server runs its schema set-up on it as after any restart.
   */
  freshCluster?: boolean;
}

/** Flags naming the storage, for `backend …` admin commands of the same server. */
export function storageArgs(b: Pick<BackendProcess, 'database'>): string[] {
  return b.database ? ['--database', b.database] : [];
}

const START_BOUND_MS = 240_000;

/** `backend serve`'s default --data-dir under `home`. */
const backendDataDir = (home: string) => join(home, '.assistant', 'backend');

/** dist/test/support/lifeline.js: the server stops when this process's end of its stdin closes. */
const LIFELINE = new URL('./lifeline.js', import.meta.url).href;

export async function startBackendProcess(opts: StartBackendOptions = {}): Promise<BackendProcess> {
  const home = opts.home ?? tempHome('assistant-backend-');
  if (!opts.database && !opts.freshCluster && !opts.args?.includes('--data-dir')) await seedEmptyCluster(backendDataDir(home));
  const listen = opts.args?.includes('--listen') ? [] : ['--listen', '127.0.0.1:0'];
  const args = ['backend', 'serve', ...listen, ...(opts.database ? ['--database', opts.database] : []), ...(opts.args ?? [])];
  // stdin is the lifeline (lifeline.ts): if this test process dies, even by kill -9, the server stops too.
  const child: ChildProcess = spawn(process.execPath, ['--import', LIFELINE, BIN, ...args], { env: childEnv(home, opts.env), stdio: ['pipe', 'pipe', 'pipe'], cwd: home });
  child.stdin!.on('error', () => undefined);
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    // A bound against a hang, not a speed limit (the first pglite start lays out a cluster; a loaded
    // machine is slow at it). A server that did not start is killed: left running, it kept the test
    // process alive after uvu had given up on the file (a 900 s timeout instead of this error).
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`backend did not start within ${START_BOUND_MS / 1000} s:\n${err}`));
    }, START_BOUND_MS);
    const onData = () => {
      const m = /listening on (https?:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        resolve(m[1]!);
      }
    };
    child.stderr!.on('data', onData);
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`backend exited (${e.code ?? e.signal}) before listening:\n${err}`));
    });
  });
  return {
    url,
    home,
    database: opts.database,
    dataDir: backendDataDir(home),
    keyFile: join(home, '.assistant', 'backend-master.key'),
    pid: child.pid!,
    stderr: () => err,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * `assistant backend keys create --tenant <tenant> --env …` against the server's storage; returns the
 * key. Keys are scoped to envs: by default this one may use all three (what the tests of one key use).
 */
export async function createApiKey(b: Pick<BackendProcess, 'home' | 'database'>, tenant: string, env: Record<string, string | undefined> = {}, envs = ['testing', 'staging', 'production']): Promise<string> {
  const r = await runCli(['backend', 'keys', 'create', '--tenant', tenant, ...envs.flatMap((e) => ['--env', e]), ...storageArgs(b)], { home: b.home, env });
  if (r.code !== 0) throw new Error(`keys create failed (${r.code}): ${r.stderr}`);
  return r.stdout.trim();
}

/** A production key of `tenant` with a label, as a person signs in to the console with (`backend keys create`). */
export async function consoleKey(b: Pick<BackendProcess, 'home' | 'database'>, tenant: string, label: string): Promise<string> {
  const r = await runCli(['backend', 'keys', 'create', '--tenant', tenant, '--label', label, '--env', 'production', ...storageArgs(b)], { home: b.home });
  assert.is(r.code, 0, r.stderr);
  return r.stdout.trim();
}

/** A plan (JSON text) whose one step creates `hostname` with the emulator's SSH key: what the console tests apply. */
export function trainingBoxPlan(summary: string, hostname: string): string {
  return JSON.stringify({ version: 1, provider: 'gpucloud', summary, commands: [createInstanceStep(hostname, { sshKey: EMULATOR_DEFAULT_SSH_KEY_ID, reason: 'the training box' })] });
}

/** A CLI run as a client of the backend: its URL and key in the environment, a HOME of its own. */
export function asClient(b: Pick<BackendProcess, 'url'>, apiKey: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { ASSISTANT_BACKEND_URL: b.url, ASSISTANT_BACKEND_API_KEY: apiKey, ...extra };
}

export type { CliResult };

/**
 * A backend process for the whole test file with one API key for `tenant`: started before its tests,
 * killed after, its home removed; `use` receives both.
 */
export function backendForFile(suite: Test, tenant: string, use: (backend: BackendProcess, key: string) => void, opts: StartBackendOptions = {}): void {
  let backend: BackendProcess | undefined;
  suite.before(async () => {
    backend = await startBackendProcess(opts);
    use(backend, await createApiKey(backend, tenant));
  });
  suite.after(async () => {
    await backend?.kill('SIGTERM');
    if (backend) rmSync(backend.home, { recursive: true, force: true });
  });
}
