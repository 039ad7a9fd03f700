/**
 * Commands run in this test's own process.
 *
 * - `runCliMain`: the whole CLI, through cli.ts's own `main` (global flags, contexts, the group, report-error),
 *   with in-memory streams and the environment a child would get: what `runCli` (test/support/cli.ts)
 *   uses for the files that opt in. A CLI child costs 0.3–1.4 s of CPU, mostly compiling modules; here
 *   they are compiled once per test file.
 * - `runInProcess`: one group's module directly, for tests whose set-up lives in the process itself (a
 *   provider registered at run time).
 *
 * The output is collected; nothing is a terminal.
 */
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { commandContext, type CommandContext } from '../../commands/context.js';
import { forgetFormerNameWarnings } from '../../engine/core/config/load.js';
import { forgetExecTokens } from '../../engine/core/kubeconfig/kubeconfig.js';
import { forgetRegisteredSecrets } from '../../engine/core/redact.js';
import { PROVIDER_MANIFEST, PROVIDERS } from '../../engine/providers/index.js';

/** cli.ts's `main`, imported with the mark that keeps its process entry from running (cli.ts EMBEDDED). */
let cliMain: Promise<typeof import('../../cli.js').main> | undefined;
function loadMain(): Promise<typeof import('../../cli.js').main> {
  (globalThis as Record<symbol, unknown>)[Symbol.for('assistant.cli.embedded')] = true;
  cliMain ??= import('../../cli.js').then((m) => m.main);
  return cliMain;
}

/**
 * What a new process starts without and a run in this one would inherit from the last: the secrets
 * registered for masking, the config warnings given once per process, the tokens of kubeconfig
 * exec plugins (a new process runs the plugin again, with its own AWS_PROFILE). Everything else a run keeps in
 * memory is either derived from the build alone (parsed schemas, compiled patterns) or kept per run
 * (sessions, clients, token caches, limiters hang off the command's context); see the audit in
 * test/support/cli.ts.
 */
function startLikeANewProcess(): void {
  forgetRegisteredSecrets();
  forgetFormerNameWarnings();
  forgetExecTokens();
  // A provider this file registered at run time would be one the real CLI does not know.
  if (PROVIDERS.names().length !== PROVIDER_MANIFEST.length) {
    throw new Error('this test file registered a provider at run time: its CLI runs see it, a real process would not; run them as child processes (spawnCli)');
  }
}

/**
 * `assistant <argv>` through cli.ts's `main` in this process: `env` is the whole environment the command
 * sees (a child's: test/support/cli.ts childEnv), stdin is `input` then closed, and the user never
 * interrupts. Runs one at a time (test/support/cli.ts sends an overlapping run to a child process).
 */
export async function runCliMain(argv: string[], o: { env: Record<string, string>; input?: string; cwd: string }): Promise<InProcessRun> {
  const main = await loadMain();
  startLikeANewProcess();
  // A child's working directory is its HOME (spawnCli): a relative path (`cost export --output c.csv`,
  // `plan validate plan.json`) and the tools a step starts resolve against it here too, for this run only.
  const cwd = process.cwd();
  process.chdir(o.cwd);
  try {
    return await runMain(main, argv, o);
  } finally {
    process.chdir(cwd);
  }
}

async function runMain(main: Awaited<ReturnType<typeof loadMain>>, argv: string[], o: { env: Record<string, string>; input?: string }): Promise<InProcessRun> {
  const io = capturedStreams();
  let code: number;
  try {
    code = await main(argv, {
      stdout: io.stdout,
      stderr: io.stderr,
      stdin: stdinOf(o.input),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      env: o.env,
      interrupt: () => new AbortController().signal,
    });
  } catch (e) {
    // What cli.ts's process entry prints for an error `main` did not report itself.
    io.stderr.write(`error: internal: ${(e as Error)?.message ?? String(e)}\n`);
    code = 1;
  }
  // Data events are delivered on later ticks: end both streams and wait until they have handed over all they got.
  io.stdout.end();
  io.stderr.end();
  await Promise.all([finished(io.stdout), finished(io.stderr)]);
  return { code, stdout: io.out(), stderr: io.err() };
}

/** A command's stdin: `input`, then closed (never a terminal). */
function stdinOf(input: string | undefined): PassThrough {
  const stdin = new PassThrough();
  stdin.end(input ?? '');
  return stdin;
}

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runInProcess(
  argv: string[],
  o: { home: string; env?: Record<string, string | undefined>; input?: string; output?: 'table' | 'json'; sandbox?: boolean },
): Promise<InProcessRun> {
  const io = capturedStreams();
  const output = o.output ?? 'table';
  const ctx: CommandContext = commandContext({
    io: { stdout: io.stdout, stderr: io.stderr, stdin: stdinOf(o.input), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 120, color: false },
    env: o.env ?? { HOME: o.home },
    home: o.home,
    globals: { output, outputExplicit: output !== 'table', debug: false, yes: false, sandbox: Boolean(o.sandbox) },
  });
  const [group, ...rest] = argv;
  const mod = (await import(`../../commands/${group}.js`)) as { run(a: string[], c: CommandContext): Promise<number> };
  const { reportError } = await import('../../commands/report-error.js');
  const code = await mod.run(rest, ctx).catch((e: unknown) => reportError(e, ctx));
  // Data events are delivered on later ticks: end both streams and wait until they have handed over all they got.
  io.stdout.end();
  io.stderr.end();
  await Promise.all([finished(io.stdout), finished(io.stderr)]);
  return { code, stdout: io.out(), stderr: io.err() };
}

/** Two streams for a command's stdout and stderr that keep what is written to them; `out()` and `err()` read it so far. */
export function capturedStreams(): { stdout: PassThrough; stderr: PassThrough; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (o += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (e += d));
  return { stdout, stderr, out: () => o, err: () => e };
}
