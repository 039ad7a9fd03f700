/**
 * Colour for terminal output, through picocolors. One decision (`colorEnabled`) for every stream:
 * colour only on a terminal, never with `--no-color`, a non-empty NO_COLOR (no-color.org) or TERM=dumb.
 * Pipes and files always get plain text, so `| grep` and `> file` never see escape codes.
 */
import picocolors from 'picocolors';

export type Colors = ReturnType<typeof picocolors.createColors>;

export function colorEnabled(isTTY: boolean, noColorFlag: boolean, env: NodeJS.ProcessEnv): boolean {
  if (noColorFlag || !isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}

/** picocolors' formatters; all of them return the text unchanged when `enabled` is false. */
export function palette(enabled: boolean): Colors {
  return picocolors.createColors(enabled);
}

export const PLAIN: Colors = palette(false);

const GOOD = /^(running|active|ok|succeeded|available|healthy|attached|yes)$/i;
const BAD = /^(error|failed|fail|no_capacity|discontinued|deleted|unavailable|not_found)$/i;
const PENDING = /^(ordered|provisioning|pending|validating|starting|offline|hibernating|hibernated|stopping|new|creating|deleting|--)$/i;

/** A status value coloured by meaning: running green, error red, in-between states yellow. */
export function colorStatus(c: Colors, value: string): string {
  const v = value.trim();
  if (GOOD.test(v)) return value.replace(v, c.green(v));
  if (BAD.test(v)) return value.replace(v, c.red(v));
  if (PENDING.test(v)) return value.replace(v, c.yellow(v));
  return value;
}
