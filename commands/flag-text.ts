/**
 * A flag's value as the user typed it. cac's parser (mri) turns any value that reads as a number into
 * one: `--name 007` arrives as 7, `--ref 1e3` as 1000, `--plan 0x1f` as 31, so a name, a git ref or a
 * hash prefix could silently become another one. After cac has parsed, the value flags get back the
 * text they were given; commands/flag-spec.ts then makes numbers of the flags declared as numbers, from
 * that one canonical form.
 *
 * The scan mirrors mri's own rules (a value follows `=` or is the next word unless that starts with
 * `-`; `-abc` gives its value to `c`; everything after `--` is positional), so each value is matched to
 * the flag mri gave it to.
 */
import type { CAC } from 'cac';

/** The words each flag was given, by every name it has (camel-cased as cac keys its options). */
export function typedValues(argv: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (name: string, value: string) => out.set(name, [...(out.get(name) ?? []), value]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    let dashes = 0;
    while (dashes < arg.length && arg[dashes] === '-') dashes++;
    if (dashes === 0 || arg.startsWith('no-', dashes)) continue;
    const eq = arg.indexOf('=', dashes + 1);
    const name = arg.slice(dashes, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? '' : arg.slice(eq + 1);
    let value: string | undefined = inline;
    if (inline === '') value = i + 1 < argv.length && !argv[i + 1]!.startsWith('-') ? argv[++i] : undefined;
    if (value === undefined) continue;
    add(camel(dashes === 2 ? name : name.slice(-1)), value);
  }
  return out;
}

/**
 * Puts back the typed text of every value flag of the matched command (and the global ones) where cac
 * made a number of it, in `cli.options` itself (the object cac handed the action).
 */
export function keepTypedText(cli: CAC, argv: readonly string[]): void {
  const typed = typedValues(argv);
  const options = cli.options as Record<string, unknown>;
  const commands = [cli.globalCommand, ...(cli.matchedCommand ? [cli.matchedCommand] : [])];
  for (const option of commands.flatMap((c) => c.options)) {
    if (option.isBoolean) continue;
    const keys = option.names.map(camel);
    const words = keys.map((k) => typed.get(k) ?? []).find((w) => w.length > 0);
    if (!words) continue;
    for (const key of keys) {
      const parsed = options[key];
      if (typeof parsed === 'number' && words.length === 1) options[key] = words[0];
      else if (Array.isArray(parsed) && parsed.length === words.length && parsed.some((v) => typeof v === 'number')) options[key] = parsed.map((v, i) => (typeof v === 'number' ? words[i] : v));
    }
  }
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
