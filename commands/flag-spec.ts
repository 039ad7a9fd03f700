/**
 * What a command's flags are, declared as a plain table (no zod here: declaring a flag loads nothing).
 * `coerceFlags` hands the given ones to schemas/flags.ts, which coerces them with zod, loaded only
 * when there is something to coerce, so `gpucloud list` and `--version` never load it.
 */
export type FlagKind = (
  | { type: 'int'; min?: number; max?: number }
  | { type: 'number'; min?: number; max?: number; exclusiveMin?: boolean }
  | { type: 'port' }
  /** Seconds, from `30s`, `5m`, `1h30m` or a plain number of seconds; `max` in seconds. */
  | { type: 'duration'; max?: number }
  | { type: 'enum'; values: readonly string[]; caseSensitive?: boolean }
  | { type: 'path' }
  | { type: 'bool' }
) & {
  /** The flag as users write it, when not the key's kebab-case (`--max-body-kb` for `maxBodyKb` is derived). */
  flag?: string;
  /** A hint of its own instead of the command's help. */
  hint?: string;
  /** Given once per value (`--secret a --secret b`): the coerced list is kept. */
  repeatable?: boolean;
};

/** The flags of one command by cac's (camel-cased) option key. */
export type FlagSpec = Record<string, FlagKind>;

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
  const { coerceWith } = await import('../schemas/flags.js');
  return coerceWith(options as Record<string, unknown>, spec, hint) as T;
}
