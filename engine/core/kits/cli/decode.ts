/**
 * Parameters read the way the child CLI reads them (DESIGN §7): a destroyer rule that looks at a
 * parameter must see what the CLI will send, not the text as written. `{"Action": "\u0044ELETE"}` is
 * `DELETE`; `desiredSize=+0` is 0 (aws-cli converts shorthand scalars with Python's `int()`). What
 * these decoders cannot read with certainty is a problem (the step is refused as invalid), never
 * passed through on a guess.
 *
 * - `decodeJson`: strict JSON (a repeated key, or `NaN`/`Infinity` that Python accepts and JavaScript
 *   does not, is undecodable: two readers could disagree).
 * - `parseShorthand`: a port of aws-cli's ShorthandParser (awscli/shorthand.py), restricted to ASCII:
 *   Python and JavaScript disagree on which non-ASCII characters are whitespace.
 * - `pythonInt`: what Python's `int()` makes of a string (`' +0 '`, `'0_0'` are 0; other digit scripts are refused).
 */
import { parseStrictJson } from '../../plan/strict-json.js';

export type Decoded = { value: unknown } | { problem: string };

/** A value the CLI would read as JSON: it starts with `{` or `[` after whitespace (aws-cli's own test). */
export function looksLikeJson(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

export function decodeJson(text: string): Decoded {
  const parsed = parseStrictJson(text);
  if ('problem' in parsed) return { problem: `not JSON the gate can read with certainty (${parsed.problem})` };
  return parsed;
}

class ShorthandError extends Error {}

const WS = ' \t\n\r\x0b\x0c';
const KEY_CHARS = /[A-Za-z0-9\-_.#/:]/;
// awscli/shorthand.py's character classes, limited to ASCII (the decoder refuses anything else).
const START_WORD = String.raw`!#-&(-+\--<>-Z\\-z|-~`;
const FIRST_FOLLOW = String.raw`\s!#-&(-+\--\\^-|~`;
const SECOND_FOLLOW = String.raw`\s!#-&(-+\--<>-\x7f`;
const ESCAPED_COMMA = String.raw`(\\,)`;
const FIRST_VALUE = new RegExp(`(${ESCAPED_COMMA}|[${START_WORD}])(${ESCAPED_COMMA}|[${FIRST_FOLLOW}])*`, 'y');
const SECOND_VALUE = new RegExp(`(${ESCAPED_COMMA}|[${START_WORD}])(${ESCAPED_COMMA}|[${SECOND_FOLLOW}])*`, 'y');
const SINGLE_QUOTED = /'(?:\\'|[^'])*'/y;
const DOUBLE_QUOTED = /"(?:\\"|[^"])*"/y;

/**
 * aws-cli's shorthand syntax (`Key=Name,Value=web`, `desiredSize=2,maxSize=3`, `Tags=[{Key=a,Value=b}]`).
 * A key written `key@=` makes the CLI read a local file (paramfile): that is reported, not decoded.
 */
export function parseShorthand(input: string): Decoded {
  if (/[^\x20-\x7e\t\n\r]/.test(input)) return { problem: 'shorthand with characters outside printable ASCII (aws-cli and the gate could read them differently)' };
  let i = 0;
  const eof = () => i >= input.length;
  const current = () => (i < input.length ? input[i]! : '');
  const ws = () => {
    while (!eof() && WS.includes(current())) i++;
  };
  const expect = (c: string, consumeWs = false) => {
    if (consumeWs) ws();
    if (eof() || current() !== c) throw new ShorthandError(`expected "${c}" at ${i}`);
    i++;
    if (consumeWs) ws();
  };
  const must = (re: RegExp): string => {
    re.lastIndex = i;
    const m = re.exec(input);
    if (!m || m[0] === '') throw new ShorthandError(`unexpected "${current()}" at ${i}`);
    i += m[0].length;
    return m[0];
  };
  const rstrip = (s: string) => s.replace(/[\s]+$/, '');
  const key = () => {
    const start = i;
    while (!eof() && KEY_CHARS.test(current())) i++;
    return input.slice(start, i);
  };
  const paramfileMarker = () => {
    ws();
    if (current() === '@') throw new ShorthandError('a key written "key@=" makes aws-cli read a local file');
  };
  const quoted = (re: RegExp, q: string) => must(re).slice(1, -1).split(`\\${q}`).join(q).split('\\\\').join('\\');
  const value = () => {
    FIRST_VALUE.lastIndex = i;
    const m = FIRST_VALUE.exec(input);
    if (!m) return '';
    i += m[0].length;
    return rstrip(m[0].split('\\,').join(','));
  };
  const firstValue = () => (current() === "'" ? quoted(SINGLE_QUOTED, "'") : current() === '"' ? quoted(DOUBLE_QUOTED, '"') : value());
  const secondValue = () =>
    current() === "'" ? quoted(SINGLE_QUOTED, "'") : current() === '"' ? quoted(DOUBLE_QUOTED, '"') : rstrip(must(SECOND_VALUE).split('\\,').join(','));
  const backtrackTo = (c: string) => {
    while (i >= 0 && input[i] !== c) i--;
  };
  const csvValue = (): unknown => {
    const first = firstValue();
    ws();
    if (eof() || current() !== ',') return first;
    expect(',', true);
    const list: unknown[] = [first];
    for (;;) {
      try {
        const v = secondValue();
        ws();
        if (eof()) {
          list.push(v);
          break;
        }
        expect(',', true);
        list.push(v);
      } catch (err) {
        if (!(err instanceof ShorthandError) || eof()) throw err;
        backtrackTo(',');
        break;
      }
    }
    return list.length === 1 ? first : list;
  };
  const explicitValues = (): unknown => (current() === '[' ? explicitList() : current() === '{' ? hashLiteral() : firstValue());
  const explicitList = (): unknown[] => {
    expect('[', true);
    const out: unknown[] = [];
    while (current() !== ']') {
      if (eof()) throw new ShorthandError('unterminated list');
      out.push(explicitValues());
      ws();
      if (current() !== ']') {
        expect(',');
        ws();
      }
    }
    expect(']');
    return out;
  };
  const hashLiteral = (): Record<string, unknown> => {
    expect('{', true);
    const out: Record<string, unknown> = {};
    while (current() !== '}') {
      if (eof()) throw new ShorthandError('unterminated {…}');
      const k = key();
      paramfileMarker();
      expect('=', true);
      const v = explicitValues();
      ws();
      if (current() !== '}') {
        expect(',');
        ws();
      }
      define(out, k, v);
    }
    expect('}');
    return out;
  };
  const values = (): unknown => (eof() ? '' : current() === '[' ? explicitList() : current() === '{' ? hashLiteral() : csvValue());
  const keyval = (): [string, unknown] => {
    const k = key();
    paramfileMarker();
    expect('=', true);
    return [k, values()];
  };
  try {
    const params: Record<string, unknown> = {};
    const [k, v] = keyval();
    define(params, k, v);
    while (i < input.length) {
      expect(',', true);
      const [k2, v2] = keyval();
      if (Object.hasOwn(params, k2)) throw new ShorthandError(`key "${k2}" given twice`);
      define(params, k2, v2);
    }
    return { value: params };
  } catch (err) {
    if (err instanceof ShorthandError) return { problem: `not shorthand the gate can read with certainty (${err.message})` };
    throw err;
  }
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Python's `int(text)` for ASCII text: surrounding whitespace, a sign, digits with single underscores
 * between them. Undefined when Python would refuse it (the CLI fails the step) or when it holds
 * characters outside ASCII (other digit scripts Python accepts: not decided here).
 */
export function pythonInt(text: string): number | undefined | 'non-ascii' {
  if (/[^\x00-\x7f]/.test(text)) return 'non-ascii';
  const m = /^[ \t\n\r\x0b\x0c]*([+-]?)(\d(?:_?\d)*)[ \t\n\r\x0b\x0c]*$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[2]!.replace(/_/g, ''));
  return m[1] === '-' ? -n : n;
}

/** A CLI parameter decoded the way aws-cli does for a structure, list or map parameter: JSON, else shorthand, else the text. */
export function decodeAwsParam(text: string): Decoded {
  if (looksLikeJson(text)) return decodeJson(text);
  if (/[=@]/.test(text)) return parseShorthand(text);
  return { value: text };
}

/** Every string and number inside a decoded value, with the key it sits under (for rules that look for a word or a zero). */
export function* leaves(value: unknown, key = ''): Generator<{ key: string; value: string | number | boolean }> {
  if (Array.isArray(value)) for (const v of value) yield* leaves(v, key);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* leaves(v, k);
  else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') yield { key, value };
}

/** The values under `key` (any case) anywhere in a decoded value. */
export function valuesAt(value: unknown, key: string): unknown[] {
  const out: unknown[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.toLowerCase() === key.toLowerCase()) out.push(x);
        walk(x);
      }
    }
  };
  walk(value);
  return out;
}

/** Whether a decoded scalar is zero as the CLI would convert it for an integer parameter (`0`, `'+0'`, `'0_0'`, `-0`, `0.0`). */
export function isZero(value: unknown): boolean {
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'string') {
    const n = pythonInt(value);
    if (n === 'non-ascii') return true;
    if (n !== undefined) return n === 0;
    // Not an int: a float the CLI would refuse for an integer parameter, but 0.0 must never slip through.
    const f = Number(value.trim());
    return value.trim() !== '' && Number.isFinite(f) && f === 0;
  }
  return false;
}
