/**
 * What a command's flags are, declared as a plain table (no zod here: declaring a flag loads nothing), and
 * the command's options type derived from that table (`OptionsOf<typeof FLAGS>`), so what is parsed and
 * what the command reads cannot drift apart: a flag the table does not declare is not in the type.
 *
 * Each entry also says how cac takes and shows it (`.option(spelling, help, { default })`, as cac's own
 * call), and `withFlags` registers the table with cac: a flag's name, help and default are written once.
 *
 * `coerceFlags` parses the given ones once, at the cac boundary (commands/group.ts), with
 * commands/flag-coerce.ts (no schema library: `gpucloud list`, `ask --apply` and `--version` load no zod).
 */
import type { Command } from 'cac';
import type { FlagKind, FlagSpec } from '../schemas/flag-kinds.js';
import { coerceWith } from './flag-coerce.js';

export type { FlagKind, FlagSpec };

/** A declared flag, carrying (in the type only) what its value is once parsed. */
export type Flag<T> = FlagKind & { readonly __value?: T };

/** A flag cac always fills (its `.option(…, { default })`): present in the options type (a brand of the type only). */
export type Defaulted<T> = Flag<T> & { readonly __defaulted: true };

/** A flag's kind, still to be told how cac shows it. */
export type FlagBuilder<T> = Flag<T> & {
  /**
   * How cac takes and shows the flag, as cac's own `.option(spelling, help, { default })`; with a default
   * the flag is always present in the options type. The spelling's long name is the table key, kebab-cased.
   */
  option(raw: string, help: string): Flag<T>;
  option(raw: string, help: string, config: { default: T }): Defaulted<T>;
};

/** The value type of one declared flag. */
export type ValueOf<K> = K extends { readonly __value?: infer T } ? T : unknown;

type DefaultedKeys<S> = { [K in keyof S]: S[K] extends { readonly __defaulted: true } ? K : never }[keyof S];

/**
 * A command's options, parsed: one typed field per declared flag and nothing else; optional (the flag
 * may be left out) unless the table marks it `flag.defaulted` (cac fills the default given to `.option`).
 */
export type OptionsOf<S> = { -readonly [K in Exclude<keyof S, DefaultedKeys<S>>]?: ValueOf<S[K]> } & { -readonly [K in DefaultedKeys<S>]: ValueOf<S[K]> };

// `option` is not enumerable: the described entry is plain data (coercion and spreads see only the kind).
const kind = <T>(k: FlagKind): FlagBuilder<T> =>
  Object.defineProperty({ ...k }, 'option', {
    value(this: FlagKind, raw: string, help: string, config?: { default: unknown }) {
      return { ...this, cli: { raw, help, ...config } };
    },
  }) as FlagBuilder<T>;

export const flag = {
  int: (min = 1, max?: number) => kind<number>({ type: 'int', min, max }),
  positiveInt: (max?: number) => kind<number>({ type: 'int', min: 1, max }),
  /** A decimal number (`5`, `0.25`): above `min` unless `exclusiveMin: false`. */
  number: (min = 0, opts: { max?: number; exclusiveMin?: boolean } = {}) => kind<number>({ type: 'number', min, ...opts }),
  port: () => kind<number>({ type: 'port' }),
  /** Seconds. */
  duration: (max?: number) => kind<number>({ type: 'duration', max }),
  oneOf: <const V extends readonly string[]>(values: V) => kind<V[number]>({ type: 'enum', values }),
  path: () => kind<string>({ type: 'path' }),
  /** Any value, as typed. */
  text: () => kind<string>({ type: 'text' }),
  /** A value that may be left out (`--resume [id]`): `true` when the flag is given bare. */
  textOrBare: () => kind<string | true>({ type: 'text', bare: true }),
  /** A switch (`--dry-run`, `--no-history`). */
  bool: () => kind<boolean>({ type: 'bool' }),
  /** Given once per value (`--secret a --secret b`): the list of values, each coerced as `of`. */
  list: <T>(of: Flag<T>) => kind<T[]>({ ...of, repeatable: true }),
};

/**
 * Registers a table's flags with a cac command, in table order (the order `--help` lists them). Every
 * entry must say how cac shows it: a flag without `.option(…)` would be typed and never registered.
 */
export function withFlags<C extends Command>(command: C, spec: FlagSpec): C {
  for (const [key, { cli }] of Object.entries(spec)) {
    if (!cli) throw new Error(`internal: flag ${key} of "${command.name}" has no .option(…) in its table`);
    command.option(cli.raw, cli.help, 'default' in cli ? { default: cli.default } : undefined);
  }
  return command;
}

/**
 * The options with the declared flags coerced (a number for an int, seconds for a duration, the
 * canonical value of an enum, a boolean for a switch); a bad one is `error: invalid_input: --flag:
 * expected …` (exit 2) with `hint` (the command's help).
 */
export function coerceFlags<S extends FlagSpec>(options: object, spec: S, hint: string): OptionsOf<S> {
  // The one place cac's untyped values become the command's options type: each was just checked as its kind.
  if (!Object.keys(spec).some((key) => (options as Record<string, unknown>)[key] !== undefined)) return options as OptionsOf<S>;
  return coerceWith(options as Record<string, unknown>, spec, hint) as OptionsOf<S>;
}

/**
 * A flag declared at run time (one per routable provider, one per AI vendor: from the manifest, so not in
 * the options type), read as the kind it was declared with; `coerceFlags` already made it that kind.
 */
export function declared<T>(options: object, key: string, _as: Flag<T>): T | undefined {
  return (options as Record<string, T | undefined>)[key];
}
