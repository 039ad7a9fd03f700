/**
 * The real aws CLI started warm for the tests that run it against moto (issue 40 item 4): a server
 * (test/support/aws-warm.py) imports the CLI once and forks for each run, and a directory holding an
 * `aws` client for it goes first on PATH. The same CLI code runs on the same arguments, environment,
 * working directory and standard streams; only the ~0.75 s of imports per run are gone (on the test
 * machine a run took 1.1 s of CPU cold and 0.45 s warm). A run leads a process group of its own: the
 * signals its caller gets are forwarded to it, and when the caller dies the group is killed. Where a
 * warm run could differ (a PYTHON* variable of the caller, a user site directory in its HOME) or the
 * server is gone, the client execs the cold aws; the server is started without PYTHON* variables, the
 * way the product starts aws (an environment allowlist), PYTHONUNBUFFERED and PYTHONDONTWRITEBYTECODE
 * aside, which each run applies itself.
 *
 * The server imports with a HOME of its own (a fresh empty directory, no XDG_* or AWS_CONFIG_FILE /
 * AWS_SHARED_CREDENTIALS_FILE): nothing the CLI computes from ~ at import names the developer's real
 * home; each run moves those paths under its caller's HOME (aws-warm.py, "HOME").
 *
 * Two listings every run repeats are made once in the server (aws-warm.py: the services of the installed
 * data directories, and whether a handler's code takes **kwargs). TEST_AWS_WARM_PLAIN=1 leaves them out
 * (only the imports warm); TEST_AWS_WARM=0 turns it off (the cold CLI, for comparing); without a Python `aws` (a v2 binary) or
 * when the server does not start, the tests use the cold CLI as before.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/** How long the server may take to import the CLI before the tests go cold (generous: a loaded machine). */
const READY_WITHIN_MS = 60_000;

const SERVER = new URL('../../../test/support/aws-warm.py', import.meta.url).pathname;

export interface WarmAws {
  /** The directory holding the warm `aws`: put it first on PATH. */
  binDir: string;
  /** The server's own HOME (empty: what the CLI computes from ~ at import points there until a run moves it). */
  home: string;
  /**
   * Calls `listener` with the first arguments of each run as it starts (before its request goes out): an
   * event to wait on instead of polling moto. Returns the function that stops listening.
   */
  onRun(listener: (argv: string[]) => void): () => void;
  stop(): Promise<void>;
}

/** The Python interpreter of the `aws` script at `awsPath` (its `#!` line), or undefined for anything else. */
function pythonOf(awsPath: string): string | undefined {
  try {
    const first = readFileSync(awsPath, 'utf8').slice(0, 300).split('\n')[0]!;
    const m = /^#!\s*(\S*python[\d.]*)\s*$/.exec(first);
    return m?.[1];
  } catch {
    return undefined;
  }
}

/**
 * The environment the server imports the CLI in: `env` with a fresh empty HOME (and USERPROFILE), none
 * of the variables that point the CLI at configuration elsewhere (XDG_*, the aws config files), and no
 * PYTHON* variable (the product's aws children have none: see the client's cold rule in aws-warm.py).
 */
function importEnv(env: Record<string, string>, home: string): Record<string, string> {
  const out: Record<string, string> = { HOME: home, USERPROFILE: home };
  for (const [k, v] of Object.entries(env)) {
    if (k === 'HOME' || k === 'USERPROFILE' || k.startsWith('XDG_') || k === 'AWS_CONFIG_FILE' || k === 'AWS_SHARED_CREDENTIALS_FILE') continue;
    if (k.startsWith('PYTHON')) continue;
    out[k] = v;
  }
  return out;
}

/**
 * A warm aws server for the `aws` script at `awsPath`, started with `env` (the moto environment, so no
 * host configuration is read while it loads), or undefined when it cannot run here.
 */
export async function startWarmAws(awsPath: string | undefined, env: Record<string, string>, readyWithinMs = READY_WITHIN_MS): Promise<WarmAws | undefined> {
  if (process.env.TEST_AWS_WARM === '0' || !awsPath) return undefined;
  const python = pythonOf(awsPath);
  if (!python) return undefined;
  const binDir = tempDir('aws-warm-');
  // Short: a Unix socket's path has room for about 100 bytes, and TMPDIR is already deep in the test runner.
  const socket = join(binDir, 's');
  const home = tempDir('aws-warm-home-');
  // stdin is the server's lifeline: closed by stop(), or by the kernel when this process dies. The server
  // writes the client (`aws` in binDir) before it says ready; the client falls back to `awsPath`.
  const child = spawn(python, [SERVER, socket, join(binDir, 'aws'), awsPath], { env: importEnv(env, home), stdio: ['pipe', 'pipe', 'pipe'] });
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log = (log + d).slice(-4000)));
  // 'exit' never comes for a spawn that failed ('error' only): wait on either, and only while it runs.
  const ended = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  child.stdin!.on('error', () => {}); // EPIPE once the server is gone
  const stop = async () => {
    child.stdin!.end();
    await ended;
  };
  // stdout: "ready" once, then a line "run [argv…]" per run (aws-warm.py announce); always read, so a
  // handler never blocks on a full pipe.
  const runs = new EventEmitter();
  let out = '';
  let timer: NodeJS.Timeout | undefined;
  const ready = await new Promise<boolean>((resolve) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (line === 'ready') resolve(true);
        else if (line.startsWith('run ')) runs.emit('run', JSON.parse(line.slice(4)) as string[]);
      }
    });
    void ended.then(() => resolve(false));
    timer = setTimeout(() => resolve(false), readyWithinMs);
  });
  clearTimeout(timer);
  if (!ready) {
    process.stderr.write(`aws-warm: the server did not start, the tests run the cold aws CLI: ${log}\n`);
    child.kill('SIGKILL');
    await ended;
    return undefined;
  }
  // What the server prints later (a handler's traceback) shows with the test's output.
  child.stderr!.on('data', (d: string) => process.stderr.write(`aws-warm: ${d}`));
  const onRun = (listener: (argv: string[]) => void) => {
    runs.on('run', listener);
    return () => void runs.off('run', listener);
  };
  return { binDir, home, onRun, stop };
}
