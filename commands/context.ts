/**
 * What every command receives (gh-style injection): streams, environment, home and global flags.
 * Commands never touch process.* directly, so tests can drive them with in-memory streams.
 */
import { palette } from '../engine/render/color.js';
import type { OutputFormat } from '../engine/render/records.js';

export type { OutputFormat };

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Terminal width for tables (80 when unknown). */
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
  debug: boolean;
  yes: boolean;
  /** --timeout in seconds; overrides config `timeout`. */
  timeout?: number;
  sandbox: boolean;
}

export interface CommandContext {
  io: Io;
  env: NodeJS.ProcessEnv;
  home: string;
  globals: GlobalOptions;
  /** Aborted on SIGINT; every wait and request honours it. */
  signal: AbortSignal;
}

/** A command group module (`commands/<group>.ts`) exports `run`; it returns the exit code. */
export type CommandGroupRunner = (argv: string[], ctx: CommandContext) => Promise<number>;

/** `warning: <text>` on stderr, the prefix in yellow when stderr has colour. */
export function warn(ctx: { io: Io }, text: string): void {
  ctx.io.stderr.write(`${palette(ctx.io.color).yellow('warning:')} ${text}\n`);
}

export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(line + '\n');
}
