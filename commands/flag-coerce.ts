/**
 * Flag values coerced at the cac boundary (issue 23 item 4, issue 37 item 4). cac hands over strings (or
 * numbers, or `true` for a bare flag); a command declares what each of its flags is (commands/flag-spec.ts)
 * and this module turns the given ones into typed values, or into one `error: invalid_input: --timeout:
 * expected a duration like 30s` with a hint (exit 2).
 *
 * Every kind is a small check of the text, written out here: no schema library, so coercing a budget on
 * `ask --apply` or a default on `cost detail` loads nothing (zod is about 95 modules;
 * test/core/startup.modules.test.ts).
 */
import { closest } from '../engine/core/did-you-mean.js';
import { InvalidInputError } from '../engine/core/errors.js';
import type { FlagKind, FlagSpec } from '../schemas/flag-kinds.js';

/** What a failed coercion says, in words ("expected true or false"), and the value meant when there is one. */
class FlagValueError extends Error {
  constructor(
    message: string,
    readonly meant?: string,
  ) {
    super(message);
  }
}

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

/** What cac gives for a flag value, as trimmed text (`--n 5` arrives as the number 5). */
function trimmed(value: unknown, expected: string): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
  throw new FlagValueError(expected);
}

function wholeNumber(value: unknown, min: number, max: number, expected: string): number {
  const t = trimmed(value, expected);
  const n = Number(t);
  if (!/^-?\d+$/.test(t) || n < min || n > max) throw new FlagValueError(expected);
  return n;
}

/**
 * A switch: cac's `true`/`false`, or the text of `--dry-run=true` (commands/group.ts writes hyphenated
 * switches that way) and of `--on yes` when the flag was declared as taking a value.
 */
function switchValue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  const s = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off'].includes(s)) return false;
  throw new FlagValueError('expected true or false');
}

/** One value of one kind, or FlagValueError saying what was expected. */
function valueOf(kind: FlagKind, value: unknown): unknown {
  switch (kind.type) {
    case 'bool':
      return switchValue(value);
    case 'text':
      if (kind.bare && value === true) return true;
      // As typed (commands/flag-text.ts gave back `007` where cac made 7 of it).
      if (typeof value === 'string' || typeof value === 'number') return String(value);
      throw new FlagValueError('expected a value');
    case 'path': {
      // Some text, without the NUL no file name can hold.
      const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
      if (text === '' || text.includes('\0')) throw new FlagValueError('expected a path');
      return text;
    }
    case 'int': {
      const { min = 1, max = Number.MAX_SAFE_INTEGER } = kind;
      const range = max === Number.MAX_SAFE_INTEGER ? (min === 1 ? 'a positive whole number' : `a whole number of at least ${min}`) : `a whole number from ${min} to ${max}`;
      return wholeNumber(value, min, max, `expected ${range}`);
    }
    case 'port':
      return wholeNumber(value, 1, 65535, 'expected a port from 1 to 65535');
    case 'number': {
      const { min = 0, max = Number.MAX_VALUE, exclusiveMin = true } = kind;
      // Decimal only, as a person writes an amount: `0x10`, `1e3` and `Infinity` are numbers to JavaScript, not to a budget.
      const lower = exclusiveMin ? `a number greater than ${min}` : `a number of ${min} or more`;
      const expected = `expected ${lower}${max === Number.MAX_VALUE ? '' : ` up to ${max}`}, in decimal (like 5 or 2.5)`;
      const t = trimmed(value, expected);
      const n = Number(t);
      if (!/^-?(\d+(\.\d*)?|\.\d+)$/.test(t) || !((exclusiveMin ? n > min : n >= min) && n <= max)) throw new FlagValueError(expected);
      return n;
    }
    case 'duration': {
      const expected = `expected a duration like 30s${kind.max !== undefined ? ` (at most ${kind.max} s)` : ''}`;
      const seconds = durationSeconds(trimmed(value, expected));
      if (seconds === undefined || (kind.max !== undefined && seconds > kind.max)) throw new FlagValueError(expected);
      return seconds;
    }
    case 'enum': {
      const expected = `expected ${orList(kind.values)}`;
      const v = trimmed(value, expected);
      const hit = kind.values.find((x) => x === v || (!kind.caseSensitive && x.toLowerCase() === v.toLowerCase()));
      if (hit !== undefined) return hit;
      const meant = closest(v, [...kind.values]);
      throw new FlagValueError(expected, meant ? ` "${meant}"?` : undefined);
    }
  }
}

function orList(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}`;

/** The error of one bad value: `--flag: expected … (got "x")`, exit 2, with the kind's hint or the command's help. */
function badValue(key: string, kind: FlagKind, hint: string, what: string, value: unknown, meant?: string): InvalidInputError {
  const shown = typeof value === 'string' || typeof value === 'number' ? ` (got "${String(value)}")` : '';
  return new InvalidInputError('invalid_input', `${kind.flag ?? flagName(key)}: ${what}${shown}${meant ? `; did you mean${meant}` : ''}`, { hint: kind.hint ?? hint });
}

/**
 * The options with every declared flag that was given coerced (others untouched, absent ones left
 * absent): each value of a flag (a list for a repeatable one, else the last one given, as cac keeps it);
 * a bare value flag is "needs a value"; the first bad value throws InvalidInputError `invalid_input`
 * naming the flag as typed.
 */
export function coerceWith<T extends Record<string, unknown>>(options: T, spec: FlagSpec, hint: string): T {
  const out: Record<string, unknown> = { ...options };
  for (const [key, kind] of Object.entries(spec)) {
    const raw = options[key];
    if (raw === undefined) continue;
    const coerced = (Array.isArray(raw) ? raw : [raw]).map((value) => {
      if (value === true && kind.type !== 'bool' && !(kind.type === 'text' && kind.bare)) {
        throw new InvalidInputError('invalid_input', `${kind.flag ?? flagName(key)}: needs a value`, { hint: kind.hint ?? hint });
      }
      try {
        return valueOf(kind, value);
      } catch (err) {
        if (err instanceof FlagValueError) throw badValue(key, kind, hint, err.message, value, err.meant);
        throw err;
      }
    });
    out[key] = kind.repeatable ? coerced : coerced[coerced.length - 1];
  }
  return out as T;
}
