/** What a command's flags are, as plain types (no zod: declaring a flag loads nothing). Coerced by commands/flag-coerce.ts. */
export type FlagKind = (
  | { type: 'int'; min?: number; max?: number }
  /** Written in decimal (`5`, `0.25`): `0x10`, `1e3` and `Infinity` are refused, as a number a person types. */
  | { type: 'number'; min?: number; max?: number; exclusiveMin?: boolean }
  | { type: 'port' }
  /** Seconds, from `30s`, `5m`, `1h30m` or a plain number of seconds; `max` in seconds. */
  | { type: 'duration'; max?: number }
  | { type: 'enum'; values: readonly string[]; caseSensitive?: boolean }
  | { type: 'path' }
  /** The value as typed (commands/flag-text.ts keeps `007` the text it was), trimmed of nothing. */
  /** `bare`: the flag may also be given without a value (`--resume [id]`), which reads as `true`. */
  | { type: 'text'; bare?: boolean }
  | { type: 'bool' }
) & {
  /** The flag as users write it, when not the key's kebab-case (`--max-body-kb` for `maxBodyKb` is derived). */
  flag?: string;
  /** A hint of its own instead of the command's help. */
  hint?: string;
  /** Given once per value (`--secret a --secret b`): the coerced list is kept. */
  repeatable?: boolean;
  /** How cac takes and shows the flag (commands/flag-spec.ts `.option`): the one place these are written. */
  cli?: FlagCli;
};

/** A flag as cac registers it: its spelling (`-n, --namespace <ns>`, `--resume [id]`, `--no-history`), its help line, its default. */
export interface FlagCli {
  raw: string;
  help: string;
  default?: unknown;
}

/** The flags of one command by cac's (camel-cased) option key. */
export type FlagSpec = Record<string, FlagKind>;
