/**
 * What a command's flags are, declared as a plain table (no zod here: declaring a flag loads nothing).
 * `coerceFlags` hands the given ones to commands/flag-coerce.ts, which coerces them with zod, loaded only
 * when there is something to coerce, so `gpucloud list` and `--version` never load it.
 */
import type { FlagKind, FlagSpec } from '../schemas/flag-kinds.js';

export type { FlagKind, FlagSpec };

export const flag = {
  int: (min = 1, max?: number): FlagKind => ({ type: 'int', min, max }),
  positiveInt: (max?: number): FlagKind => ({ type: 'int', min: 1, max }),
  number: (min = 0, opts: { max?: number; exclusiveMin?: boolean } = {}): FlagKind => ({ type: 'number', min, ...opts }),
  port: (): FlagKind => ({ type: 'port' }),
  duration: (max?: number): FlagKind => ({ type: 'duration', max }),
  oneOf: (values: readonly string[]): FlagKind => ({ type: 'enum', values }),
  path: (): FlagKind => ({ type: 'path' }),
  bool: (): FlagKind => ({ type: 'bool' }),
};

/**
 * The options with the declared flags coerced (a number for an int, seconds for a duration, the
 * canonical value of an enum); a bad one is `error: invalid_input: --flag: expected …` (exit 2) with
 * `hint` (the command's help). Nothing to coerce, nothing loaded.
 */
export async function coerceFlags<T extends object>(options: T, spec: FlagSpec, hint: string): Promise<T> {
  const given = Object.keys(spec).some((key) => (options as Record<string, unknown>)[key] !== undefined);
  if (!given) return options;
  const { coerceWith } = await import('./flag-coerce.js');
  return coerceWith(options as Record<string, unknown>, spec, hint) as T;
}
