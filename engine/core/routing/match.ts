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

/** Regex for a whole-word, case-insensitive term. */
export function termPattern(term: string): RegExp {
  const body = term
    .trim()
    .split(/[\s_-]+/)
    .map(escape)
    .join('[\\s_-]+');
  return new RegExp(`(?<![${WORD}])${body}(?![${WORD}])`, 'giu');
}

/** True when `term` occurs in `text` as a whole word (see module comment). */
export function containsTerm(text: string, term: string): boolean {
  return termPattern(term).test(text);
}

export class TermMatcher<T> {
  private readonly compiled: { spec: TermSpec<T>; re: RegExp }[];

  constructor(specs: TermSpec<T>[]) {
    this.compiled = specs.map((spec) => ({ spec, re: spec.pattern ?? termPattern(spec.term) }));
  }

  /** All non-overlapping matches, longest first on overlaps, returned in question order. */
  match(text: string): TermMatch<T>[] {
    const all: TermMatch<T>[] = [];
    for (const { spec, re } of this.compiled) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
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
