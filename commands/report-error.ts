import { AssistantError, ExitCode, isAbortError } from '../engine/core/errors.js';
import { redactText } from '../engine/core/redact.js';
import { stderrColors, type CommandContext } from './context.js';

/**
 * Prints an error as DESIGN.md §2 wants it: `error: <code>: <message>` plus a hint line; returns the
 * exit code. User mistakes never show a stack; unexpected errors show one only with --debug.
 */
export function reportError(err: unknown, ctx: CommandContext): number {
  const out = ctx.io.stderr;
  const c = stderrColors(ctx);
  if (err instanceof AssistantError) {
    out.write(`${c.red('error:')} ${err.code}: ${redactText(err.message)}\n`);
    if (err.hint) out.write(`hint: ${redactText(err.hint)}\n`);
    if (err.details !== undefined) ctx.debug(`details: ${JSON.stringify(err.details)}`);
    return err.exitCode;
  }
  if (isAbortError(err) || ctx.signal.aborted) {
    out.write('error: interrupted: stopped by the user\n');
    return ExitCode.interrupted;
  }
  const message = err instanceof Error ? err.message : String(err);
  out.write(`error: internal: ${redactText(message)}\n`);
  out.write('hint: this is a bug in assistant; rerun with --debug and report it\n');
  if (ctx.debug.on && err instanceof Error && err.stack) out.write(redactText(err.stack) + '\n');
  return ExitCode.failed;
}
