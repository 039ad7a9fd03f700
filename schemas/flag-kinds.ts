/** What a command's flags are, as plain types (no zod: declaring a flag loads nothing). Coerced by commands/flag-coerce.ts. */
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
