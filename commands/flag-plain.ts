/**
 * The flag kinds that need no schema library: a switch, a text value and a path. They are most of every command's
 * flags (`ask --apply --plan-file p.json` has no other kind), so coercing them loads nothing; the kinds
 * that do need zod (numbers, durations, enums) go to commands/flag-coerce.ts, loaded only when one is given.
 */
import { InvalidInputError } from '../engine/core/errors.js';
import type { FlagKind } from '../schemas/flag-kinds.js';

/** The kinds coerced here. */
export const PLAIN_KINDS: ReadonlySet<FlagKind['type']> = new Set(['bool', 'text', 'path']);

/** What a failed coercion says, in words ("expected true or false"); the caller names the flag. */
export class FlagValueError extends Error {}

/**
 * A switch: cac's `true`/`false`, or the text of `--dry-run=true` (commands/group.ts writes hyphenated
 * switches that way) and of `--on yes` when the flag was declared as taking a value.
 */
export function switchValue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  const s = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off'].includes(s)) return false;
  throw new FlagValueError('expected true or false');
}

/** A text value as typed (commands/flag-text.ts gave back `007` where cac made 7 of it). */
export function textValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new FlagValueError('expected a value');
}

export const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)}`;

/** The error of one bad value: `--flag: expected … (got "x")`, exit 2, with the kind's hint or the command's help. */
export function badValue(key: string, kind: FlagKind, hint: string, what: string, value: unknown, meant?: string): InvalidInputError {
  const shown = typeof value === 'string' || typeof value === 'number' ? ` (got "${String(value)}")` : '';
  return new InvalidInputError('invalid_input', `${kind.flag ?? flagName(key)}: ${what}${shown}${meant ? `; did you mean${meant}` : ''}`, { hint: kind.hint ?? hint });
}

/**
 * Each value of one declared flag checked and coerced by `one` (a list for a repeatable flag, else the
 * last one given, as cac keeps it); a bare value flag is "needs a value".
 */
export function coerceValues(key: string, kind: FlagKind, raw: unknown, hint: string, one: (value: unknown) => unknown): unknown {
  const values = Array.isArray(raw) ? raw : [raw];
  const coerced: unknown[] = [];
  for (const value of values) {
    if (value === true && kind.type !== 'bool' && !(kind.type === 'text' && kind.bare)) {
      throw new InvalidInputError('invalid_input', `${kind.flag ?? flagName(key)}: needs a value`, { hint: kind.hint ?? hint });
    }
    coerced.push(one(value));
  }
  return kind.repeatable ? coerced : coerced[coerced.length - 1];
}

/** A path: some text, without the NUL no file name can hold. */
export function pathValue(value: unknown): string {
  const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
  if (text === '' || text.includes('\0')) throw new FlagValueError('expected a path');
  return text;
}

/** A plain kind's value, or FlagValueError saying what was expected. */
export function plainValue(kind: FlagKind, value: unknown): unknown {
  if (kind.type === 'text' && kind.bare && value === true) return true;
  return kind.type === 'bool' ? switchValue(value) : kind.type === 'path' ? pathValue(value) : textValue(value);
}

/** The options with the given plain-kind flags coerced (the rest untouched); the first bad value throws. */
export function coercePlain(options: Record<string, unknown>, spec: Record<string, FlagKind>, hint: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...options };
  for (const [key, kind] of Object.entries(spec)) {
    if (!PLAIN_KINDS.has(kind.type) || options[key] === undefined) continue;
    out[key] = coerceValues(key, kind, options[key], hint, (value) => {
      try {
        return plainValue(kind, value);
      } catch (err) {
        if (err instanceof FlagValueError) throw badValue(key, kind, hint, err.message, value);
        throw err;
      }
    });
  }
  return out;
}
