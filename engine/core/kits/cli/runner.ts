/**
 * Runs one cloud CLI command for a plan step: an argument vector spawned without a shell (nothing in
 * an argument is ever interpreted), the provider's additions to the environment, the run's signal
 * killing the child, output bounded, stdout parsed as JSON when it is JSON. Failures become the
 * project's errors: the tool missing (`cli_not_found`), not logged in or expired (`cli_not_authenticated`)
 * and any other non-zero exit (`cli_failed`), each with the command (redacted) and a hint.
 */
import { spawn } from 'node:child_process';
import { AssistantError, InterruptedError, OperationError } from '../../errors.js';
import { redactText } from '../../redact.js';
import type { Contained } from '../../process/contain.js';
import { killGroup, OWN_GROUP } from '../../process/group.js';

/** What a provider tells the runner about its CLI. */
export interface CliTool {
  /** The executable (`aws`). */
  command: string;
  /** How to install it (the hint of cli_not_found). */
  installHint: string;
  /** Messages on stderr meaning "not logged in / credentials expired or invalid". */
  authFailures: readonly RegExp[];
  /** How to log in (the hint of cli_not_authenticated). */
  authHint: string;
}

export interface CliRunOptions {
  tool: CliTool;
  /** The arguments after the executable's name. */
  args: readonly string[];
  /** The environment for the child: an allowlist (engine/core/process/env.ts), with what the provider sets. */
  env: Record<string, string | undefined>;
  /** The working directory (a CLI step's scratch directory: a relative path never reaches the user's files). */
  cwd?: string;
  signal: AbortSignal;
  /** Bytes of stdout kept before the child is killed (default 32 MiB). */
  maxStdoutBytes?: number;
  /** Bytes of stderr kept, the end of it (default 64 kB). */
  maxStderrBytes?: number;
  /** Exit codes besides 0 whose output the caller reads itself (`terraform plan -json` prints its errors on stdout). */
  okExitCodes?: readonly number[];
  /**
   * The command contained (engine/core/process/contain.ts: code we did not write, such as a workspace's
   * terraform providers): started through it instead of `tool.command`, its scratch folder removed at the end.
   */
  contained?: Contained;
}

export interface CliOutput {
  /** Parsed JSON stdout, `{ output: "<text>" }` for text, or null for no output. */
  data: unknown;
  stderr: string;
  /** The exit code (0, or one of `okExitCodes`). */
  code: number;
}

const DEFAULT_MAX_STDOUT = 32 * 1024 * 1024;
const DEFAULT_MAX_STDERR = 64 * 1024;
/** After SIGTERM, how long a child may take to exit before SIGKILL. */
const KILL_GRACE_MS = 3000;

/** An argument naming a secret (`--secret-string`, `aws_secret_access_key`, `--password=…`): its value is not shown. */
const NAMES_SECRET = /secret|passw(?:or)?d|token|credential|private[-_]?key|access[-_]?key|sas-?key|connection-string/i;

/** The command line as shown in messages and progress: quoted where needed, cut short, secrets masked. */
export function showCommand(command: string, args: readonly string[]): string {
  const quote = (a: string) => (/^[\w@%+=:,./*-]+$/.test(a) ? a : JSON.stringify(a));
  const shown = args.map((a, i) => {
    const eq = a.indexOf('=');
    if (a.startsWith('-') && eq > 0 && NAMES_SECRET.test(a.slice(0, eq))) return `${a.slice(0, eq)}=***`;
    // The value after an option (`--password x`) or a config key (`aws configure set aws_secret_access_key x`), not after a service name.
    const before = i > 0 ? args[i - 1]! : '';
    if ((before.startsWith('-') || before.includes('_')) && NAMES_SECRET.test(before) && !before.includes('=') && !a.startsWith('-')) return '***';
    return a.length > 200 ? `${a.slice(0, 200)}…` : a;
  });
  const text = [command, ...shown].map(quote).join(' ');
  return redactText(text.length > 600 ? `${text.slice(0, 600)}…` : text);
}

export function runCli(opts: CliRunOptions): Promise<CliOutput> {
  const { tool, args, signal } = opts;
  const maxOut = opts.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
  const maxErr = opts.maxStderrBytes ?? DEFAULT_MAX_STDERR;
  const shown = showCommand(tool.command, args);
  return new Promise<CliOutput>((resolve, reject) => {
    const contained = opts.contained;
    if (signal.aborted) {
      contained?.dispose();
      return reject(abortError(signal));
    }
    if (contained && !contained.program) {
      contained.dispose();
      return reject(new OperationError('cli_not_found', `the ${tool.command} CLI is not installed (not found on PATH)`, { hint: tool.installHint }));
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
    const child = contained
      ? contained.spawn(['ignore', 'pipe', 'pipe'])
      : spawn(tool.command, [...args], { env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true, ...OWN_GROUP });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = Buffer.alloc(0);
    let failure: AssistantError | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (why: AssistantError) => {
      failure ??= why;
      killGroup(child, 'SIGTERM');
      killTimer ??= setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const onAbort = () => kill(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });

    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOut) {
        kill(new OperationError('cli_output_too_large', `${shown} printed more than ${maxOut} bytes; it was stopped`, { hint: 'narrow the command (filters, --max-items, --query)' }));
        return;
      }
      out.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      // Keep the end: a CLI's error is its last lines.
      err = Buffer.concat([err, chunk]);
      if (err.length > maxErr) err = err.subarray(err.length - maxErr);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') {
        failure ??= new OperationError('cli_not_found', `the ${tool.command} CLI is not installed (not found on PATH)`, { hint: tool.installHint });
      } else failure ??= new OperationError('cli_failed', `${shown} could not be started: ${e.message}`);
    });
    child.on('close', (code, sig) => {
      signal.removeEventListener('abort', onAbort);
      contained?.dispose();
      if (killTimer) clearTimeout(killTimer);
      const stderr = err.toString('utf8');
      if (failure) return reject(failure);
      if (code !== 0 && !(code !== null && opts.okExitCodes?.includes(code))) return reject(exitError(tool, shown, code, sig, stderr));
      resolve({ data: parseOutput(Buffer.concat(out).toString('utf8')), stderr, code: code ?? 0 });
    });
  });
}

function abortError(signal: AbortSignal): AssistantError {
  return signal.reason instanceof AssistantError ? signal.reason : new InterruptedError();
}

/** stdout as JSON when it is JSON, else as text; empty output is null. */
export function parseOutput(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (/^[[{"]/.test(trimmed) || /^(?:-?\d|true$|false$|null$)/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // Text that happens to start like JSON (`[1/3] copying…`).
    }
  }
  return { output: text.replace(/\n$/, '') };
}

function exitError(tool: CliTool, shown: string, code: number | null, sig: NodeJS.Signals | null, stderr: string): AssistantError {
  const message = lastLines(redactText(stderr)) || (sig ? `killed by ${sig}` : `exit code ${code}`);
  if (tool.authFailures.some((re) => re.test(stderr))) {
    return new OperationError('cli_not_authenticated', `the ${tool.command} CLI is not logged in or its credentials expired or are invalid: ${message}`, {
      hint: tool.authHint,
    });
  }
  return new OperationError('cli_failed', `${shown} failed (exit ${code ?? sig}): ${message}`, {
    hint: `run the command yourself to see more, or check its arguments in the plan`,
  });
}

/** The last few non-empty lines of a CLI's stderr, one line each, control characters removed. */
function lastLines(text: string, count = 4): string {
  const lines = text
    .split(/\r?\n/)
    // Colour and cursor sequences (terraform colours its errors) go whole, not just their ESC.
    .map((l) => l.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\u0000-\u001f\u007f]/g, '').trim())
    .filter(Boolean);
  const tail = lines.slice(-count).join(' / ');
  return tail.length > 1000 ? `…${tail.slice(-1000)}` : tail;
}
