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
import { InvalidInputError } from '../engine/core/errors.js';
import type { FlagKind, FlagSpec } from '../schemas/flag-kinds.js';

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
      const lower = exclusiveMin ? (min === 0 ? 'a positive number' : `a number above ${min}`) : min === 0 ? 'a number of 0 or more' : `a number of at least ${min}`;
      const expected = `expected ${lower}${max === Number.MAX_VALUE ? '' : ` up to ${max}`}`;
      return text.pipe(
        z
          .string()
          .regex(/^-?\d+(\.\d+)?$/, { error: expected })
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
      return text.pipe(z.string().min(1, { error: 'expected a path' }).refine((v) => !v.includes('\0'), { error: 'expected a path' }));
    case 'bool':
      return z.union([z.boolean(), z.string(), z.number()]).transform((v, c) => {
        const s = String(v).trim().toLowerCase();
        if (['true', '1', 'yes', 'on'].includes(s)) return true;
        if (['false', '0', 'no', 'off'].includes(s)) return false;
        c.addIssue({ code: 'custom', message: 'expected true or false' });
        return z.NEVER;
      });
  }
}

function orList(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}`;

/**
 * The options with every declared flag that was given coerced (others untouched, absent ones left
 * absent); the first bad value throws InvalidInputError `invalid_input` naming the flag as typed.
 */
export function coerceWith<T extends Record<string, unknown>>(options: T, spec: FlagSpec, hint: string): T {
  const out: Record<string, unknown> = { ...options };
  for (const [key, kind] of Object.entries(spec)) {
    const raw = options[key];
    if (raw === undefined) continue;
    // A repeated flag arrives as a list: each value is checked; a flag given once per value keeps the list, another the last.
    const values = Array.isArray(raw) ? raw : [raw];
    const coerced: unknown[] = [];
    for (const value of values) {
      if (value === true && kind.type !== 'bool') {
        throw new InvalidInputError('invalid_input', `${kind.flag ?? flagName(key)}: needs a value`, { hint: kind.hint ?? hint });
      }
      const r = schemaFor(kind).safeParse(value);
      if (!r.success) {
        const shown = typeof value === 'string' || typeof value === 'number' ? ` (got "${String(value)}")` : '';
        const message = r.error.issues[0]?.message ?? 'invalid value';
        const [what, meant] = message.split('; did you mean');
        throw new InvalidInputError('invalid_input', `${kind.flag ?? flagName(key)}: ${what}${shown}${meant ? `; did you mean${meant}` : ''}`, { hint: kind.hint ?? hint });
      }
      coerced.push(r.data);
    }
    out[key] = kind.repeatable ? coerced : coerced[coerced.length - 1];
  }
  return out as T;
}
