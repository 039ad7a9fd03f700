/**
 * Whole-word term matching for questions. A term matches only between non-word characters
 * (letters, digits and `_` are word characters), so `verda` never matches inside `unverdant` and
 * `datacrunch` never inside `datacrunching`. Spaces in a term match any run of spaces, `-` or `_`
 * ("instant cluster" = "instant-cluster"). Overlapping matches are resolved longest first, so
 * "instance types" is one match and not also "instance".
 */

export interface TermSpec<T> {
  /** Lower-case term; or a custom regex (must have the `g` flag). */
  term: string;
  pattern?: RegExp;
  /** What the match stands for (a provider, a kind, both…). */
  data: T;
}

export interface TermMatch<T> {
  term: string;
  /** The text as written in the question. */
  text: string;
  start: number;
  end: number;
  data: T;
}

const WORD = '\\p{L}\\p{N}_';

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The term's words, any run of spaces, `-` or `_` between them (case-insensitive, Unicode). */
function termBody(term: string): string {
  return term
    .trim()
    .split(/[\s_-]+/)
    .map(escape)
    .join('[\\s_-]+');
}

/** Regex for a whole-word, case-insensitive term. */
export function termPattern(term: string): RegExp {
  return new RegExp(`(?<![${WORD}])${termBody(term)}(?![${WORD}])`, 'giu');
}

/*
 * The same test in two steps, for the many terms of a matcher: the term's words alone (cheap to build),
 * then the two characters around a match checked against the word class here, built once. A regex with
 * the class in its look-arounds costs about 2 ms to build under `iu` (the case closure of \p{L}), and
 * routing builds one per term of every provider: over a second of CPU per `ask` (issue 40). The class
 * and flags are those of termPattern, so the two agree on every input.
 */
const WORD_BEFORE = new RegExp(`(?<=[${WORD}])`, 'yiu');
const WORD_AT = new RegExp(`[${WORD}]`, 'yiu');

function isWholeWord(text: string, start: number, end: number): boolean {
  WORD_BEFORE.lastIndex = start;
  if (WORD_BEFORE.test(text)) return false;
  WORD_AT.lastIndex = end;
  return !WORD_AT.test(text);
}

/** The whole-word matches of `body` (a `giu` regex of termBody), as termPattern's would be. */
function* wholeWordMatches(text: string, body: RegExp): Generator<RegExpExecArray> {
  body.lastIndex = 0;
  for (let m = body.exec(text); m; m = body.exec(text)) {
    // Never empty: bodyPattern leaves the terms that could match nothing to termPattern.
    if (isWholeWord(text, m.index, m.index + m[0].length)) {
      yield m;
      continue;
    }
    // Not whole here: look again from the next character, as the regex engine does when a look-around fails.
    body.lastIndex = m.index + ((text.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1);
  }
}

/**
 * The words-only regex of a term, and whether the word check after it is needed: when the term starts
 * or ends with a separator a match's length can vary, and only the look-arounds of termPattern
 * choose it the same way, so such a term keeps that regex.
 */
function bodyPattern(term: string): { re: RegExp; whole: boolean } {
  const t = term.trim();
  return /^[\s_-]|[\s_-]$/.test(t) || t === '' ? { re: termPattern(term), whole: false } : { re: new RegExp(termBody(term), 'giu'), whole: true };
}

/** True when `term` occurs in `text` as a whole word (see module comment). */
export function containsTerm(text: string, term: string): boolean {
  const { re, whole } = bodyPattern(term);
  return !(whole ? wholeWordMatches(text, re) : allMatches(text, re)).next().done;
}

export class TermMatcher<T> {
  private readonly compiled: { spec: TermSpec<T>; re: RegExp; whole: boolean }[];

  constructor(specs: TermSpec<T>[]) {
    this.compiled = specs.map((spec) => (spec.pattern ? { spec, re: spec.pattern, whole: false } : { spec, ...bodyPattern(spec.term) }));
  }

  /** All non-overlapping matches, longest first on overlaps, returned in question order. */
  match(text: string): TermMatch<T>[] {
    const all: TermMatch<T>[] = [];
    for (const { spec, re, whole } of this.compiled) {
      const found = whole ? wholeWordMatches(text, re) : allMatches(text, re);
      for (const m of found) {
        if (m[0].length === 0) continue;
        all.push({ term: spec.term, text: m[0], start: m.index, end: m.index + m[0].length, data: spec.data });
      }
    }
    all.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
    const taken: TermMatch<T>[] = [];
    const spans: [number, number][] = [];
    for (const m of all) {
      const same = spans.some(([s, e]) => s === m.start && e === m.end);
      const overlaps = spans.some(([s, e]) => m.start < e && s < m.end);
      // The same span may carry several meanings (a term in two kinds); a shorter overlapping one may not.
      if (overlaps && !same) continue;
      taken.push(m);
      if (!same) spans.push([m.start, m.end]);
    }
    return taken.sort((a, b) => a.start - b.start);
  }
}

/** Every match of a custom `g` regex (empty ones stepped over). */
function* allMatches(text: string, re: RegExp): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    yield m;
  }
}
