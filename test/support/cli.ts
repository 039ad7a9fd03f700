/**
 * End-to-end helpers: run the real `bin/assistant.js` in a child process, and an in-test emulator
 * whose credentials are handed to the CLI through the environment.
 *
 * Rules for tests (issue 10 §5: `npm test` must pass on a busy 2-core CI box):
 * - Never assert that something took less than N ms. Assert order and counts instead, or what the code
 *   planned (retry events carry `waitMs`), or inject a clock (`SlidingWindowLimiter(limits, now)`).
 *   Lower bounds ("waited at least the window") are fine: load only makes things slower. Speed claims
 *   belong in `npm run bench` (bench/).
 * - Do not sleep to let something happen; await it (an event, a request the emulator recorded, a
 *   line on stderr), polling with a generous bound if there is no event.
 * - Child processes: `runCli` allows 120 s each and runs at most CLI_CONCURRENCY of them at once per
 *   test process (more wait their turn; the timeout starts when a process starts). Start long-lived
 *   servers with the helpers in mcp.ts, which also allow 120 s to start.
 * - Make slow things small instead of waiting for them: the emulator's fault injection (`addFault`),
 *   `lifecycleMs: 1`, `debit: false` for a balance that must not move, small rate-limit windows.
 *
 * In-process runs (issue 40: a CLI child costs 0.3–1.4 s of CPU, most of it compiling modules, and the
 * suite starts thousands). A test file that calls `cliInThisProcess()` has its `runCli` calls run through
 * cli.ts's own `main` in the test's process (test/support/in-process.ts): the same code, the child's
 * scrubbed environment and HOME, in-memory pipes, real HTTP to the emulator and real servers. Opt-in
 * per file: a file is converted after checking that it is not about the process boundary. A call still
 * gets a child process when
 * - another in-process run is under way: two runs at once stay two processes (a race between them is
 *   what such a test is about, and module state is never shared by two live runs);
 * - its environment sets what the runtime reads from the process's own environment (NODE_OPTIONS, TZ,
 *   locale, …: PROCESS_ENV below), which a command's `ctx.env` cannot carry;
 * - and always for `spawnCli` callers: a wrapper (bwrap), signals, kill -9, EPIPE, stdin handling,
 *   start-up, concurrency between processes.
 * TEST_CLI_IN_PROCESS=0 runs every call as a child (to compare, or to rule the in-process path out);
 * TEST_CLI_IN_PROCESS=all runs every file's calls in-process (to find the files that could opt in).
 *
 * What would survive from one in-process run to the next (audited for issue 40; a fresh process has none):
 * - registered secrets (engine/core/redact.ts) and once-per-process config warnings
 *   (engine/core/config/load.ts), kubeconfig exec-plugin tokens (engine/core/kubeconfig/kubeconfig.ts,
 *   found by k8s.profile: the second run reused the first's token): forgotten before each run
 *   (in-process.ts startLikeANewProcess);
 * - `completing.words` (commands/group.ts): cli.ts's `main` clears it when a `__complete` run ends;
 * - providers registered at run time (engine/providers/index.ts PROVIDERS): refused, such files spawn;
 *   the registry's other caches (loaded modules, provider sets, frozen-plan sets) hold build data only;
 * - `~` in terraform workspace paths read process.env.HOME: now the command's own HOME (ctx.env);
 * - the working directory: a child's is its HOME, so the run changes to it and back (runs are one at a time);
 * - SIGINT handlers, the EPIPE handler and process.exitCode: only cli.ts's process entry sets them;
 * - file locks name the owner's pid: an in-process run's locks name the test process, alive, so a
 *   lock a run failed to release would make the next wait (loud, not a false pass); runs release them;
 * - child processes a command starts take the command's environment, not the process's: deploy's git
 *   (engine/producers/deploy/clone.ts) and `gh auth token` for github-models (engine/producers/ai/resolve.ts)
 *   are given ctx.env (they read process.env before issue 40 item 4, and their files spawned);
 * - the temp directory: installs, clones, contained children, a CLI step's scratch and the admin socket's
 *   fallback take it from ctx.env (engine/core/process/temp-root.ts), so a run's TMPDIR is its own.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../emulator/index.js';
import { tempDir } from './temp.js';

/** Generous on purpose: a CLI child on a loaded 2-core machine can take many times its idle time. */
export const CHILD_TIMEOUT_MS = 120_000;
/** CLI children one test process runs at once (tests that start 21 at once starved the machine). */
export const CLI_CONCURRENCY = Math.max(2, Number(process.env.TEST_CLI_CONCURRENCY) || Math.min(4, availableParallelism() * 2));

let running = 0;
const queued: (() => void)[] = [];
async function cliSlot(): Promise<() => void> {
  if (running >= CLI_CONCURRENCY) await new Promise<void>((resolve) => queued.push(resolve));
  else running++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const next = queued.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else running--;
  };
}

/** dist/test/support/cli.js → <repo>/bin/assistant.js */
export const BIN = fileURLToPath(new URL('../../../bin/assistant.js', import.meta.url));

export interface RunCliOptions {
  /** Extra environment (merged over a scrubbed copy of process.env). */
  env?: Record<string, string | undefined>;
  /** HOME for the child; a fresh temp dir by default. */
  home?: string;
  /** Written to stdin, then stdin is closed (stdin is a pipe, never a TTY). */
  input?: string;
  /** The working directory (relative paths in the arguments resolve against it); HOME by default. */
  cwd?: string;
  /** Kill the child after this long; never less than CHILD_TIMEOUT_MS (a shorter limit is a load-dependent failure). */
  timeoutMs?: number;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  home: string;
}

/** A config file (`--config <path>`) holding `text`, mode 0600, in a fresh temp dir. */
export function configFile(text: string): string {
  const path = join(tempDir('assistant-config-'), 'config.yaml');
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

export function tempHome(prefix = 'assistant-e2e-'): string {
  return tempDir(prefix);
}

/** process.env without anything that could point the CLI at real credentials or a real config. */
function scrubbedEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/^(GPUCLOUD_|ASSISTANT_)/.test(k)) continue;
    out[k] = v;
  }
  return out;
}

/** The environment of a CLI child: scrubbed, with its own HOME, no colour, then `overrides` (undefined removes). */
export function childEnv(home: string, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { ...scrubbedEnv(), HOME: home, USERPROFILE: home, NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Set by `cliInThisProcess()`; TEST_CLI_IN_PROCESS overrides it for the whole run. */
let inProcessFile = false;
let inProcessRunning = false;

/** This test file's `runCli` calls run in the test's own process where they can (see the top of this file). */
export function cliInThisProcess(): void {
  inProcessFile = true;
}

/**
 * Variables the runtime reads from the process's own environment: a command's ctx.env cannot change them for it.
 * Not TMPDIR/TMP/TEMP: the product takes its temp directory from the command's environment
 * (engine/core/process/temp-root.ts), and no dependency a command loads calls os.tmpdir().
 */
const PROCESS_ENV = /^(NODE_|UV_|TZ$|LANG$|LANGUAGE$|LC_|SSL_CERT_|OPENSSL_)/;

function inProcess(opts: RunCliOptions): boolean {
  const mode = process.env.TEST_CLI_IN_PROCESS;
  if (mode === '0' || (!inProcessFile && mode !== 'all')) return false;
  if (inProcessRunning) return false;
  return !Object.keys(opts.env ?? {}).some((k) => PROCESS_ENV.test(k));
}

export async function runCli(args: string[], opts: RunCliOptions = {}): Promise<CliResult> {
  const release = await cliSlot();
  try {
    if (!inProcess(opts)) return await spawnCli(args, opts);
    inProcessRunning = true;
    try {
      return await runCliHere(args, opts);
    } finally {
      inProcessRunning = false;
    }
  } finally {
    release();
  }
}

/** `assistant <args>` in this process, with what spawnCli gives a child (HOME, scrubbed env, stdin), bounded by the same timeout. */
async function runCliHere(args: string[], opts: RunCliOptions): Promise<CliResult> {
  const home = opts.home ?? tempHome();
  const timeoutMs = Math.max(opts.timeoutMs ?? 0, CHILD_TIMEOUT_MS);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    // A run cannot be killed in-process: the test fails here, and the runner's per-file limit ends the process.
    timer = setTimeout(() => reject(new Error(`assistant ${args.join(' ')} (in-process) timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const { runCliMain } = await import('./in-process.js');
    const r = await Promise.race([runCliMain(args, { env: childEnv(home, opts.env), input: opts.input, cwd: opts.cwd ?? home }), timedOut]);
    return { ...r, home };
  } finally {
    clearTimeout(timer);
  }
}

/** `assistant <args>` as a child process, under `wrapper` when given (`bwrap --unshare-net …`), without waiting for a slot. */
export function spawnCli(args: string[], opts: RunCliOptions, wrapper: readonly string[] = []): Promise<CliResult> {
  const home = opts.home ?? tempHome();
  const env = childEnv(home, opts.env);
  const timeoutMs = Math.max(opts.timeoutMs ?? 0, CHILD_TIMEOUT_MS);
  const [command, ...commandArgs] = [...wrapper, process.execPath, BIN, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command!, commandArgs, { env, stdio: ['pipe', 'pipe', 'pipe'], cwd: opts.cwd ?? home });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`assistant ${args.join(' ')} timed out after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, home });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

export interface EmulatorHandle {
  emu: Emulator;
  /** GPUCLOUD_BASE_URL / GPUCLOUD_CLIENT_ID / GPUCLOUD_CLIENT_SECRET pointing at the emulator. */
  env: Record<string, string>;
}

/**
 * Starts an emulator in the test process, runs `fn`, and always closes it. It does not debit the
 * balance: the running demo instance would otherwise change it between any two reads (pass
 * `debit: true` to test billing).
 */
export async function withEmulator<T>(fn: (h: EmulatorHandle) => Promise<T>, options: EmulatorOptions = {}): Promise<T> {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, debit: false, ...options });
  try {
    return await fn({ emu, env: emulatorEnv(emu) });
  } finally {
    await emu.close();
  }
}

export function emulatorEnv(emu: Pick<Emulator, 'url' | 'clientId' | 'clientSecret'>): Record<string, string> {
  return { GPUCLOUD_BASE_URL: emu.url, GPUCLOUD_CLIENT_ID: emu.clientId, GPUCLOUD_CLIENT_SECRET: emu.clientSecret };
}
