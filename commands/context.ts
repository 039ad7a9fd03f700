/**
 * What every command receives (gh-style injection): streams, environment, home and global flags.
 * Commands never touch process.* directly, so tests can drive them with in-memory streams. The streams
 * a command gets are guards (commands/terminal.ts): whatever it writes is sanitised and masked.
 */
import type { Colors } from '../engine/core/render/color.js';
import type { OutputFormat } from '../engine/core/render/records.js';
import { createDeadline, type Deadline } from '../engine/core/deadline.js';
import { createDebug, createOutput, type DebugSink, type Output } from './output.js';
import { colorsFor, guardStream } from './terminal.js';

export type { OutputFormat };

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Terminal width for tables (80 when unknown); Infinity when stdout is not a terminal, so a pipe or a file gets every column. */
  columns: number;
  /** Colour on stderr (errors, warnings, progress): a TTY without --no-color, NO_COLOR or TERM=dumb. */
  color: boolean;
  /** Colour on stdout (tables): decided the same way for stdout, so a pipe gets plain text. */
  stdoutColor?: boolean;
}

export interface GlobalOptions {
  /** --config <path>; undefined means ~/.assistant.yaml. */
  config?: string;
  output: OutputFormat;
  /** Whether -o was given explicitly (commands may pick a different default). */
  outputExplicit: boolean;
  /** `-o wide`: a table (output 'table') with every column, however narrow the terminal. */
  wide?: boolean;
  debug: boolean;
  yes: boolean;
  /** --timeout in seconds; overrides config `timeout`. */
  timeout?: number;
  sandbox: boolean;
  /** --context NAME as given; after start-up, the context in use and why (engine/core/config/contexts.ts). */
  context?: string;
  contextFrom?: string;
}

export interface CommandContext {
  io: Io;
  env: NodeJS.ProcessEnv;
  home: string;
  globals: GlobalOptions;
  /**
   * The command's one deadline signal: aborted on SIGINT (reason InterruptedError, exit 130) or when the
   * timeout armed on `deadline` expires (reason OperationError \`timeout\`, exit 1). Every wait, request,
   * AI call and child process of the command honours it (engine/core/deadline.ts).
   */
  signal: AbortSignal;
  /** Arms the timeout of `signal` (--timeout at start; config `timeout` when the config is read). */
  deadline: Pick<Deadline, 'arm' | 'seconds'>;
  /** Aborted on SIGINT only: how long-lived servers (mcp, emulate) know to stop; their requests get deadlines of their own. */
  interrupt: AbortSignal;
  /** The one way results reach stdout: -o table|json|yaml decided inside, everything redacted (commands/output.ts). */
  out: Output;
  /** The one debug writer: `debug: <line>` on stderr with --debug, redacted; a no-op without it. */
  debug: DebugSink;
}

/** What the sinks are made of: a context without them (tests and cli.ts build one). */
export type CommandContextBase = Omit<CommandContext, 'signal' | 'deadline' | 'interrupt' | 'out' | 'debug'>;

/** The streams guarded (a guard is kept as it is), so nothing a command writes reaches them unsanitised. */
function guarded(io: Io): Io {
  return { ...io, stdout: guardStream(io.stdout), stderr: guardStream(io.stderr) };
}

function sinks(io: Io, globals: GlobalOptions): Pick<CommandContext, 'io' | 'out' | 'debug'> {
  const safe = guarded(io);
  return { io: safe, out: createOutput(safe, globals.output, globals.outputExplicit, globals.wide), debug: createDebug(safe.stderr, globals.debug) };
}

/** The context with other streams or flags, its sinks remade so they write where the new context does. */
export function withChanges(ctx: CommandContext, changes: Partial<Pick<CommandContext, 'io' | 'globals' | 'signal'>>): CommandContext {
  const next = { ...ctx, ...changes };
  return { ...next, ...sinks(next.io, next.globals) };
}

/** A context for a command run in-process (tests, talk's slash commands): the deadline made from `interrupt`. */
export function commandContext(base: CommandContextBase, interrupt: AbortSignal = new AbortController().signal): CommandContext {
  const deadline = createDeadline(interrupt);
  if (base.globals.timeout !== undefined) deadline.arm(base.globals.timeout, '--timeout');
  return { ...base, signal: deadline.signal, deadline, interrupt, ...sinks(base.io, base.globals) };
}

/** Colours for stderr: ones that survive its guard, and none without colour. */
export function stderrColors(ctx: { io: Io }): Colors {
  return colorsFor(ctx.io.stderr, ctx.io.color);
}

/** A command group module (`commands/<group>.ts`) exports `run`; it returns the exit code. */
export type CommandGroupRunner = (argv: string[], ctx: CommandContext) => Promise<number>;

/** `warning: <text>` on stderr, the prefix in yellow when stderr has colour. */
export function warn(ctx: { io: Io }, text: string): void {
  ctx.io.stderr.write(`${stderrColors(ctx).yellow('warning:')} ${text}\n`);
}

export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(line + '\n');
}
