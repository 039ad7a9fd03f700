/**
 * `assistant <group> …` run in this test's own process, as cli.ts runs it (the group's module, then
 * report-error for a thrown error): for tests whose set-up lives in the process itself (a provider
 * registered at run time). The output is collected; nothing is a terminal.
 */
import { PassThrough } from 'node:stream';
import { commandContext, type CommandContext } from '../../commands/context.js';

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runInProcess(
  argv: string[],
  o: { home: string; env?: Record<string, string | undefined>; input?: string; output?: 'table' | 'json'; sandbox?: boolean },
): Promise<InProcessRun> {
  const out = new PassThrough();
  const err = new PassThrough();
  const stdin = new PassThrough();
  stdin.end(o.input ?? '');
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d));
  err.on('data', (d: Buffer) => (stderr += d));
  const output = o.output ?? 'table';
  const ctx: CommandContext = commandContext({
    io: { stdout: out, stderr: err, stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 120, color: false },
    env: o.env ?? { HOME: o.home },
    home: o.home,
    globals: { output, outputExplicit: output !== 'table', debug: false, yes: false, sandbox: Boolean(o.sandbox) },
  });
  const [group, ...rest] = argv;
  const mod = (await import(`../../commands/${group}.js`)) as { run(a: string[], c: CommandContext): Promise<number> };
  const { reportError } = await import('../../commands/report-error.js');
  const code = await mod.run(rest, ctx).catch((e: unknown) => reportError(e, ctx));
  return { code, stdout, stderr };
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
