/**
 * "Did you mean": the known word a typo most likely stands for (a flag, a config key, a subcommand).
 * Damerau–Levenshtein distance (an adjacent transposition is one edit, so `budgte` is one edit from
 * `budget` and `client_secert` from `client_secret`), with a limit that grows with the word's length so
 * short words do not "match" everything.
 */

/** Edits (insert, delete, substitute, swap two neighbours) between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word` (case-insensitive) when it is near enough: at most 1 edit for words
 * of up to 5 characters, 2 beyond; a word that is a prefix of exactly one candidate (`--dry` for
 * `--dry-run`) also counts. Undefined when nothing is close.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  if (!w) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(w, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best !== undefined && bestDistance <= (Math.max(w.length, best.length) <= 5 ? 1 : 2) && bestDistance < w.length) return best;
  const prefixed = w.length >= 3 ? candidates.filter((c) => c.toLowerCase().startsWith(w)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
