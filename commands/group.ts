import { cac, type CAC } from 'cac';
import { closest } from '../engine/core/did-you-mean.js';
import { UsageError } from '../engine/core/errors.js';
import type { CommandContext } from './context.js';
import { coerceFlags, type FlagSpec } from './flag-spec.js';
import { keepTypedText } from './flag-text.js';
import { rawStream } from './terminal.js';

class HelpShown extends Error {}

/**
 * A flag kept for scripts but left out of `--help` (the original tool's names, superseded per-vendor
 * flags): its description starts with this marker, and the help renderer drops its line.
 */
export const HIDDEN_FLAG = '[hidden] ';

/** Help text as people read it: hidden flags left out, and no "(default: true)" on a `--no-x` switch (it reads as "off by default"). */
function readableHelp(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.includes(HIDDEN_FLAG))
    .map((line) => (/^\s+--no-/.test(line) ? line.replace(/\s*\(default: true\)\s*$/, '') : line))
    .join('\n');
}

/**
 * Set by `assistant __complete <group> …` (the shell completion scripts call it): runGroup then prints
 * the words that may come next — the group's subcommands, or the flags of the one typed — and runs nothing.
 */
export const completing: { words?: string[] } = {};

function printCompletions(cli: CAC, ctx: CommandContext): number {
  const words = completing.words ?? [];
  const names = cli.commands.map((c) => c.name.split(' ')[0]!).filter(Boolean);
  const sub = cli.commands.length > 1 ? cli.commands.find((c) => c.name.split(' ')[0] === words[0]) : cli.commands[0];
  const flags = sub ? [cli.globalCommand, sub].flatMap((c) => c.options.filter((o) => !o.description.startsWith(HIDDEN_FLAG)).flatMap((o) => o.rawName.split(/[\s,]+/).filter((n) => n.startsWith('-')))) : [];
  const candidates = sub || cli.commands.length === 1 ? flags : names;
  ctx.io.stdout.write([...new Set([...candidates, ...(sub ? GLOBAL_FLAGS : [])])].join('\n') + '\n');
  return 0;
}

/**
 * The table types a subcommand's options and cac parses them: a flag in the table that cac does not take
 * for that subcommand would be in its options type and never given. A wiring mistake, not the user's, so
 * an internal error, found by any run of the group (`--help` too) before anything is parsed.
 */
function checkFlagTables(group: string, cli: CAC, flags: Record<string, FlagSpec>): void {
  const global = cli.globalCommand.options.flatMap((o) => o.names);
  for (const [sub, spec] of Object.entries(flags)) {
    const commands = sub === '*' ? cli.commands : cli.commands.filter((c) => c.name === sub);
    for (const c of commands.length ? commands : [undefined]) {
      const registered = new Set([...global, ...(c?.options.flatMap((o) => o.names) ?? [])]);
      const stray = Object.keys(spec).filter((key) => !registered.has(key));
      if (stray.length) throw new Error(`internal: assistant ${group}${sub && sub !== '*' ? ` ${sub}` : ''} declares flags it does not register: ${stray.join(', ')}`);
    }
  }
}

/** What a group's help says after its commands, and its flag tables by subcommand (`*`: every one). */
export interface GroupOptions {
  footer?: string;
  flags?: Record<string, FlagSpec>;
}

/**
 * Shared cac plumbing for a command group (`assistant <group> <sub> …`): help goes to the injected
 * stdout, cac's errors become usage errors (exit 2), and an unknown subcommand names the known ones.
 * `define` registers subcommands; an action calls `start` with the work to await. `flags` declares what
 * the subcommands' flags are (by subcommand name, `*` for all): the given ones are coerced in the options
 * the action received before its work starts, and a bad value is `error: invalid_input: --flag: …` (exit 2).
 */
export async function runGroup(
  group: string,
  argv: string[],
  ctx: CommandContext,
  { footer = '', flags = {} }: GroupOptions,
  define: (cli: CAC, start: (work: () => Promise<number>) => void) => void,
): Promise<number> {
  const cli = cac(`assistant ${group}`);
  let pending: (() => Promise<number>) | undefined;
  define(cli, (work) => {
    pending = work;
  });
  checkFlagTables(group, cli, flags);
  cli.help((sections) => {
    const text = readableHelp(sections.map((s) => (s.title ? `${s.title}:\n${s.body}` : s.body)).join('\n\n'));
    // Our own text, examples included (`--secret OPENAI_API_KEY=my-key` is not a secret to mask): past the guard.
    rawStream(ctx.io.stdout).write(text + '\n' + (footer ? `\n${footer}\n` : ''));
    throw new HelpShown();
  });
  if (completing.words) return printCompletions(cli, ctx);
  try {
    if (argv.length === 0) {
      cli.outputHelp();
      return 0;
    }
    const pinned = pinBooleanFlags(cli, argv);
    cli.parse(['node', `assistant ${group}`, ...pinned]);
    keepTypedText(cli, pinned);
  } catch (err) {
    if (err instanceof HelpShown) return 0;
    if (err instanceof Error && err.name === 'CACError') {
      const message = asTyped(err.message, argv);
      // A group of one command (ask, mcp) has no subcommand for the user to type.
      const sub = cli.commands.length > 1 ? cli.matchedCommand?.name : undefined;
      const hint = `run 'assistant ${group}${sub ? ` ${sub}` : ''} --help'`;
      const typed = /Unknown option `(-{1,2}[^`=]+)/.exec(message)?.[1];
      const meant = typed ? closest(typed, knownFlags(cli)) : undefined;
      throw new UsageError(message.replace(/`/g, '"') + (meant ? `; did you mean "${meant}"?` : ''), { hint });
    }
    throw err;
  }
  if (!pending) {
    const names = cli.commands.map((c) => c.name).filter(Boolean);
    const known = names.join(', ');
    const meant = argv[0] && !argv[0].startsWith('-') ? closest(argv[0], names) : undefined;
    throw new UsageError(`unknown subcommand "${argv[0]}" for "assistant ${group}"${meant ? `; did you mean "${meant}"?` : ''}`, {
      hint: `run 'assistant ${group} --help' (subcommands: ${known})`,
    });
  }
  const sub = cli.matchedCommand?.name ?? '';
  const spec = { ...flags['*'], ...flags[sub] };
  if (Object.keys(spec).length) {
    // cac hands the action this very object: coercing it in place gives the work typed values.
    const hint = `run 'assistant ${group}${sub && cli.commands.length > 1 ? ` ${sub}` : ''} --help'`;
    Object.assign(cli.options, coerceFlags(cli.options, spec, hint));
  }
  return pending();
}

/**
 * cac 7 tells mri its boolean options by their camel-cased names (`dryRun`) while mri sees the
 * written ones (`dry-run`), so a hyphenated switch swallows the next word: `ask --route-only "q"`
 * would take the question as the flag's value. Writing such switches as `--flag=true` keeps the
 * next word a positional argument.
 */
function pinBooleanFlags(cli: CAC, argv: string[]): string[] {
  const switches = new Set<string>();
  for (const command of [cli.globalCommand, ...cli.commands]) {
    for (const option of command.options) {
      if (!option.isBoolean || option.negated) continue;
      for (const raw of option.rawName.split(',')) {
        const name = raw.trim();
        if (name.startsWith('--') && name.slice(2).includes('-')) switches.add(name);
      }
    }
  }
  const end = argv.indexOf('--');
  return argv.map((arg, i) => (switches.has(arg) && (end === -1 || i < end) ? `${arg}=true` : arg));
}

/** The global flags (cli.ts parseGlobals takes them out of argv before a group sees it). */
const GLOBAL_FLAGS = ['--config', '--output', '--sandbox', '--yes', '--debug', '--no-color', '--timeout', '--help'];

/** Every flag the matched command (or, before one matched, any command) accepts, as written: `--dry-run`. */
function knownFlags(cli: CAC): string[] {
  const commands = cli.matchedCommand ? [cli.matchedCommand] : cli.commands;
  const flags = [cli.globalCommand, ...commands].flatMap((c) => c.options.flatMap((o) => o.rawName.split(/[\s,]+/).filter((n) => n.startsWith('--'))));
  return [...new Set([...flags, ...GLOBAL_FLAGS])];
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());

/**
 * cac names an unknown option by its camel-cased key (`Unknown option \`--roleArn\``, and
 * `--suchThing` for `--no-such-thing`); users typed `--role-arn`. Puts back the flag as it was typed.
 */
function asTyped(message: string, argv: string[]): string {
  const m = /Unknown option `(-{1,2})([^`=]+)(=[^`]*)?`/.exec(message);
  if (!m) return message;
  const reported = m[2]!;
  const end = argv.indexOf('--');
  for (const arg of end === -1 ? argv : argv.slice(0, end)) {
    if (!arg.startsWith('-')) continue;
    const flag = arg.split('=', 1)[0]!;
    const name = flag.replace(/^-+/, '');
    if ([name, camel(name), camel(name.replace(/^no-/, ''))].includes(reported)) {
      return message.replace(m[0], `Unknown option \`${flag}\``);
    }
  }
  return message;
}
