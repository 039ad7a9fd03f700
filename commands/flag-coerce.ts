/**
 * Flag values coerced by zod at the cac boundary (issue 23 item 4). cac hands over strings (or numbers,
 * or `true` for a bare flag); a command declares what each of its flags is (commands/flag-spec.ts: a
 * plain table, so declaring costs nothing) and this module turns the given ones into typed values, or
 * into one `error: invalid_input: --timeout: expected a duration like 30s` with a hint (exit 2).
 *
 * Loaded only when a command was given a flag to coerce: zod is about 95 modules, kept off the start-up
 * of `--version` and `gpucloud list` (test/core/startup.modules.test.ts).
 */
import { z } from 'zod';
import { closest } from '../engine/core/did-you-mean.js';
import type { FlagKind, FlagSpec } from '../schemas/flag-kinds.js';
import { badValue, coerceValues, FlagValueError, PLAIN_KINDS, plainValue } from './flag-plain.js';

/** `30s`, `5m`, `1h30m`, `2d`, or a plain number of seconds (`90`, `0.5`): seconds, above zero. */
export function durationSeconds(raw: string): number | undefined {
  const t = raw.trim();
  if (/^\d+(\.\d+)?$/.test(t)) {
    const n = Number(t);
    return n > 0 ? n : undefined;
  }
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(t)) return undefined;
  let total = 0;
  for (const [, n, u] of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 }[u as 'ms' | 's' | 'm' | 'h' | 'd'];
  return total > 0 ? total : undefined;
}

/** What cac gives for a flag value, as text (`--n 5` arrives as the number 5, a bare `--n` as true). */
const text = z.union([z.string(), z.number()]).transform((v) => String(v).trim());

function intSchema(min: number, max: number, expected: string) {
  return text.pipe(
    z
      .string()
      .regex(/^-?\d+$/, { error: expected })
      .transform(Number)
      .pipe(z.number().min(min, { error: expected }).max(max, { error: expected })),
  );
}

/** The zod schema for one kind of flag; each failure says what was expected, in words. */
export function schemaFor(kind: FlagKind): z.ZodType<unknown> {
  switch (kind.type) {
    case 'int': {
      const { min = 1, max = Number.MAX_SAFE_INTEGER } = kind;
      const range = max === Number.MAX_SAFE_INTEGER ? (min === 1 ? 'a positive whole number' : `a whole number of at least ${min}`) : `a whole number from ${min} to ${max}`;
      return intSchema(min, max, `expected ${range}`);
    }
    case 'port':
      return intSchema(1, 65535, 'expected a port from 1 to 65535');
    case 'number': {
      const { min = 0, max = Number.MAX_VALUE, exclusiveMin = true } = kind;
      // Decimal only, as a person writes an amount: `0x10`, `1e3` and `Infinity` are numbers to JavaScript, not to a budget.
      const lower = exclusiveMin ? `a number greater than ${min}` : `a number of ${min} or more`;
      const expected = `expected ${lower}${max === Number.MAX_VALUE ? '' : ` up to ${max}`}, in decimal (like 5 or 2.5)`;
      return text.pipe(
        z
          .string()
          .regex(/^-?(\d+(\.\d*)?|\.\d+)$/, { error: expected })
          .transform(Number)
          .refine((n) => (exclusiveMin ? n > min : n >= min) && n <= max, { error: expected }),
      );
    }
    case 'duration':
      return text.transform((v, c) => {
        const seconds = durationSeconds(v);
        if (seconds === undefined || (kind.max !== undefined && seconds > kind.max)) {
          c.addIssue({ code: 'custom', message: `expected a duration like 30s${kind.max !== undefined ? ` (at most ${kind.max} s)` : ''}` });
          return z.NEVER;
        }
        return seconds;
      });
    case 'enum':
      return text.transform((v, c) => {
        const hit = kind.values.find((x) => x === v || (!kind.caseSensitive && x.toLowerCase() === v.toLowerCase()));
        if (hit !== undefined) return hit;
        const meant = closest(v, [...kind.values]);
        c.addIssue({ code: 'custom', message: `expected ${orList(kind.values)}${meant ? `; did you mean "${meant}"?` : ''}` });
        return z.NEVER;
      });
    case 'path':
    case 'text':
    case 'bool':
      // One implementation of the plain kinds (commands/flag-plain.ts), here as a schema for callers that want one.
      return z.unknown().transform((v, c) => {
        try {
          return plainValue(kind, v);
        } catch (err) {
          if (!(err instanceof FlagValueError)) throw err;
          c.addIssue({ code: 'custom', message: err.message });
          return z.NEVER;
        }
      });
  }
}

function orList(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/**
 * The options with every declared flag that was given coerced (others untouched, absent ones left
 * absent); the first bad value throws InvalidInputError `invalid_input` naming the flag as typed.
 */
export function coerceWith<T extends Record<string, unknown>>(options: T, spec: FlagSpec, hint: string): T {
  const out: Record<string, unknown> = { ...options };
  for (const [key, kind] of Object.entries(spec)) {
    if (options[key] === undefined) continue;
    out[key] = coerceValues(key, kind, options[key], hint, (value) => {
      if (PLAIN_KINDS.has(kind.type)) {
        try {
          return plainValue(kind, value);
        } catch (err) {
          if (err instanceof FlagValueError) throw badValue(key, kind, hint, err.message, value);
          throw err;
        }
      }
      const r = schemaFor(kind).safeParse(value);
      if (r.success) return r.data;
      const [what, meant] = (r.error.issues[0]?.message ?? 'invalid value').split('; did you mean');
      throw badValue(key, kind, hint, what!, value, meant);
    });
  }
  return out as T;
}
