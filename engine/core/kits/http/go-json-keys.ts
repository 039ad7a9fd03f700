/**
 * How Go's `encoding/json` matches the keys of a JSON object to the fields of the struct it decodes into
 * (an API written in Go, like gpucloud's, reads every request body this way): a key equal to a field's
 * name first, else one equal to it under Unicode **simple case folding**, rune by rune. So `HOSTNAME`,
 * `hostName` and `hoſtname` (U+017F LATIN SMALL LETTER LONG S folds to `s`) all fill `hostname`, and
 * `\u212Aey` (U+212A KELVIN SIGN folds to `k`) fills `key`; `İ` (U+0130) does not fold to `i` (that is a
 * full or Turkic folding, which Go does not use). Two keys that fill one field: Go keeps the last.
 *
 * Go folds a name with `foldName` (encoding/json/fold.go): ASCII letters to upper case, any other rune
 * to the smallest rune of its `unicode.SimpleFold` orbit. The orbits are the classes of Unicode's simple
 * case folding (CaseFolding.txt, statuses C and S), which is also what a JavaScript `/…/iu` regular
 * expression compares with (ECMA-262 Canonicalize, unicode mode): `sameSimpleFold` asks the engine,
 * and the orbits are built once (on the first non-ASCII key) from the simple lower and upper mappings
 * the engine agrees with. The engine's Unicode tables stand in for Go's: they differ only in runes
 * added by recent Unicode versions, none of which is in an API's field names.
 */

/**
 * Two runes are one under simple case folding exactly when a case-insensitive backreference matches
 * one against the other: in unicode mode both are compared by their Canonicalize (simple) folding.
 */
const SAME_FOLD = /^(.)\1$/isu;

/** Whether two code points are one under Unicode simple case folding (Go's unicode.SimpleFold orbit). */
export function sameSimpleFold(a: number, b: number): boolean {
  return a === b || SAME_FOLD.test(String.fromCodePoint(a) + String.fromCodePoint(b));
}

/** The single code point a string is, or undefined (`ß`.toUpperCase() is `SS`: not a simple mapping). */
function single(s: string): number | undefined {
  const cp = s.codePointAt(0);
  return cp !== undefined && String.fromCodePoint(cp).length === s.length ? cp : undefined;
}

/** The last code point with a case mapping (Adlam, U+1E943): past it every rune is its own orbit. */
const LAST_CASED = 0x1ffff;
let smallest: Map<number, number> | undefined;

/**
 * Every orbit, once: the code points joined by their simple lower and upper mappings, in both
 * directions (U+0345 upper-cases to Ι, which no mapping of Ι reaches back), each link kept only when
 * the engine's case folding agrees (ı upper-cases to I, but they are not one under simple folding).
 */
function orbits(): Map<number, number> {
  if (smallest) return smallest;
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let root = x;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    let at = x;
    while (at !== root) {
      const next = parent.get(at)!;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  const join = (x: number, y: number) => {
    if (!parent.has(x)) parent.set(x, x);
    if (!parent.has(y)) parent.set(y, y);
    const [a, b] = [find(x), find(y)];
    if (a !== b) parent.set(Math.max(a, b), Math.min(a, b));
  };
  // Runes whose case mapping is several runes (ΐ upper-cases to three): their simple-fold partners
  // (U+0390 and U+1FD3) are reached by no single mapping, so they are compared with each other.
  const fullyMapped: number[] = [];
  for (let cp = 0; cp <= LAST_CASED; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    const lower = c.toLowerCase();
    const upper = c.toUpperCase();
    if ((lower !== c && single(lower) === undefined) || (upper !== c && single(upper) === undefined)) fullyMapped.push(cp);
    for (const other of [single(lower), single(upper)]) {
      if (other === undefined || other === cp || !sameSimpleFold(cp, other)) continue;
      join(cp, other);
    }
  }
  for (const [i, a] of fullyMapped.entries()) for (const b of fullyMapped.slice(i + 1)) if (sameSimpleFold(a, b)) join(a, b);
  const min = new Map<number, number>();
  for (const cp of parent.keys()) {
    const root = find(cp);
    min.set(root, Math.min(min.get(root) ?? root, cp));
  }
  smallest = new Map([...parent.keys()].map((cp) => [cp, min.get(find(cp))!]));
  return smallest;
}

/** The smallest rune of `cp`'s simple-fold orbit (Go's foldRune); a rune without case is its own orbit. */
export function foldRune(cp: number): number {
  return orbits().get(cp) ?? cp;
}

/** Every rune of `cp`'s orbit (for tests and messages). */
export function orbitOf(cp: number): number[] {
  const key = foldRune(cp);
  const members = [...orbits()].filter(([, m]) => m === key).map(([c]) => c);
  return members.length ? members.sort((a, b) => a - b) : [cp];
}

/**
 * Go's `foldName`: ASCII letters upper-cased, any other rune replaced by the smallest rune of its
 * orbit. Two names fold equal exactly when Go's `bytes.EqualFold` says they are equal. A lone UTF-16
 * surrogate (which JSON text can spell as `\ud800`) is U+FFFD to Go's decoder, and so it is here.
 */
export function goFoldName(name: string): string {
  let out = '';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out += cp >= 0x61 && cp <= 0x7a ? String.fromCharCode(cp - 0x20) : ch;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else out += String.fromCodePoint(foldRune(cp));
  }
  return out;
}

/**
 * The field a JSON key fills, as Go's decoder picks it: the field named exactly so, else the first
 * field whose name folds equal to the key; undefined when it fills none (Go ignores the key).
 */
export function goFieldOf(key: string, fields: readonly string[]): string | undefined {
  if (fields.includes(key)) return key;
  const folded = goFoldName(key);
  return fields.find((f) => foldedField(f) === folded);
}

/** Field names are few and asked for often: their folds are kept. */
const fieldFolds = new Map<string, string>();
function foldedField(field: string): string {
  let f = fieldFolds.get(field);
  if (f === undefined) fieldFolds.set(field, (f = goFoldName(field)));
  return f;
}
