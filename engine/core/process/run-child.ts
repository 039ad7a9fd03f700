/**
 * Runs one short child of a tool the user installed (onboarding's version probes and installs, a
 * provider's login check such as `aws sts get-caller-identity`): an argument vector
 * without a shell, an allowlisted environment (child-env.ts), bounded in time (its own limit and the
 * command's signal: the whole process group is stopped, helpers included) and in output (the last
 * `keepBytes` of stdout and stderr are kept, so a failure can show its last lines).
 */
import { spawn } from 'node:child_process';
import { killGroup, OWN_GROUP } from './group.js';
import { redactText, maskSecretsInText } from '../redact.js';

export interface ChildRun {
  /** Exit code; null when the child was killed or could not start. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The child did not finish within its time limit. */
  timedOut: boolean;
  /** The command's signal (Ctrl-C, --timeout) stopped it. */
  aborted: boolean;
  /** The executable was not found (ENOENT) or could not be started. */
  notFound: boolean;
  startError?: string;
  ms: number;
}

export interface RunChildOptions {
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of each stream kept (the end of it); default 64 kB. */
  keepBytes?: number;
  cwd?: string;
  /** Each chunk of output as it arrives (progress for long installs). */
  onOutput?: (text: string) => void;
  /**
   * Lead a process group of its own (default) so a timeout stops its helpers too. Not for `sudo`: a
   * new session has no terminal, and sudo asks for the password on the terminal.
   */
  ownGroup?: boolean;
}

/** After SIGTERM, how long a child may take before SIGKILL. */
const KILL_GRACE_MS = 2000;

export function runChild(command: string, args: readonly string[], opts: RunChildOptions): Promise<ChildRun> {
  const keep = opts.keepBytes ?? 64 * 1024;
  const started = Date.now();
  return new Promise((resolve) => {
    const done = (partial: Partial<ChildRun>) =>
      resolve({ code: null, stdout: '', stderr: '', timedOut: false, aborted: false, notFound: false, ms: Date.now() - started, ...partial });
    if (opts.signal?.aborted) return done({ aborted: true });
    let child: ReturnType<typeof spawn>;
    try {
      const group = opts.ownGroup === false ? {} : OWN_GROUP;
      child = spawn(command, [...args], { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true, ...group });
    } catch (err) {
      return done({ notFound: true, startError: (err as Error).message });
    }
    let stdout = '';
    let stderr = '';
    const tail = (buf: string, add: string) => {
      const next = buf + add;
      return next.length > keep ? next.slice(next.length - keep) : next;
    };
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout = tail(stdout, d);
      opts.onOutput?.(d);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr = tail(stderr, d);
      opts.onOutput?.(d);
    });
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (sig: NodeJS.Signals) => (opts.ownGroup === false ? child.kill(sig) : killGroup(child, sig));
    const stop = () => {
      kill('SIGTERM');
      killTimer = setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let startError: NodeJS.ErrnoException | undefined;
    child.on('error', (err: NodeJS.ErrnoException) => {
      startError = err;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      const notFound = startError?.code === 'ENOENT' || startError?.code === 'EACCES';
      resolve({
        code: startError ? null : code,
        stdout,
        stderr,
        timedOut,
        aborted,
        notFound,
        ...(startError ? { startError: startError.code ?? startError.message } : {}),
        ms: Date.now() - started,
      });
    });
  });
}

/**
 * Text from a child or a server made safe to print: secrets masked, and control characters (a colour
 * code, a cursor move, a bell) shown as `\u001b` escapes instead of acting on the user's terminal.
 */
export function clean(text: string): string {
  return maskSecretsInText(redactText(text)).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The last `n` non-empty lines of a child's output, cleaned: what a failure shows. */
export function lastLines(text: string, n: number): string[] {
  const lines = text.replace(/\r/g, '').split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  return lines.slice(-n).map(clean);
}

/** One short line explaining a failed child, for reports: its last stderr (or stdout) line, masked. */
export function failureLine(run: ChildRun, timeoutMs: number): string {
  if (run.notFound) return `could not start (${run.startError ?? 'not found'})`;
  if (run.timedOut) return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  if (run.aborted) return 'stopped (interrupted or --timeout)';
  const last = lastLines(run.stderr, 1)[0] ?? lastLines(run.stdout, 1)[0];
  const text = last ? (last.length > 240 ? `${last.slice(0, 240)}…` : last) : 'no output';
  return `exit ${run.code}: ${text}`;
}
