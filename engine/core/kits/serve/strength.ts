/**
 * How strong a bearer token a person configured is, in estimated bits; a server refuses one below
 * 128 bits (`openssl rand -hex 32` gives 256). Tokens this tool generates are 256 random bits and are
 * not estimated.
 *
 * The estimate: zxcvbn-ts finds the patterns a guesser tries first (English words and common
 * passwords, repeats such as `aaaa…` or `abcabc…`, sequences, keyboard walks, dates) and prices each
 * in guesses; the stretches in which it finds no pattern count what a brute-force search of the
 * token's own alphabet costs (hex 4 bits a character, base64url 6, digits 3.3…), not zxcvbn's own
 * brute-force figure, which assumes 10 guesses a character and would call a random 32-byte hex token
 * weak. l33t substitutions are not tried: they cost seconds on a long token, and a token built of
 * disguised words still shows as words, repeats or a short alphabet. The dictionaries load (about
 * a second) only when a configured token is checked, once per server start.
 */
export const MIN_TOKEN_BITS = 128;
/** Below this no token reaches 128 bits in any alphabet worth typing; the hints ask for 64 hex digits. */
export const MIN_TOKEN_LENGTH = 32;

export type TokenProblem = { code: 'token_too_short' | 'weak_token'; message: string; hint: string };

const HINT = "generate one with 'openssl rand -hex 32'";

interface Matcher {
  check(token: string): { sequence: { pattern: string; token: string; guesses: number }[] };
}

let matcher: Promise<Matcher> | undefined;
function loadMatcher(): Promise<Matcher> {
  matcher ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common'), import('@zxcvbn-ts/language-en')]);
    return new ZxcvbnFactory({ dictionary: { ...common.dictionary, ...en.dictionary }, graphs: common.adjacencyGraphs, l33tMaxSubstitutions: 0 }) as unknown as Matcher;
  })();
  return matcher;
}

/** The size of the alphabet a token's characters come from: hex (one case) 16, else the classes it uses. */
export function alphabetSize(token: string): number {
  if (/^[0-9a-f]+$/.test(token) || /^[0-9A-F]+$/.test(token)) return 16;
  let size = 0;
  if (/[0-9]/.test(token)) size += 10;
  if (/[a-z]/.test(token)) size += 26;
  if (/[A-Z]/.test(token)) size += 26;
  // Symbols: as many as the token shows (base64url's `-` and `_` make 64 with the rest).
  size += new Set(token.replace(/[0-9A-Za-z]/g, '')).size;
  return Math.max(size, 2);
}

/** Estimated bits of a token (see the top of this file). */
export async function tokenBits(token: string): Promise<number> {
  const result = (await loadMatcher()).check(token);
  const perChar = Math.log2(alphabetSize(token));
  let bits = 0;
  for (const m of result.sequence) bits += m.pattern === 'bruteforce' ? m.token.length * perChar : Math.log2(Math.max(1, m.guesses));
  return bits;
}

/** Why a configured token is refused, or undefined when it is strong enough. `where` qualifies the message (` for a non-loopback listener`). */
export async function tokenProblem(token: string, where = ''): Promise<TokenProblem | undefined> {
  if (token.length < MIN_TOKEN_LENGTH) {
    return { code: 'token_too_short', message: `the bearer token is too short${where} (at least ${MIN_TOKEN_LENGTH} characters)`, hint: HINT };
  }
  const bits = await tokenBits(token);
  if (bits >= MIN_TOKEN_BITS) return undefined;
  return {
    code: 'weak_token',
    message: `the bearer token is too easy to guess${where}: about ${Math.floor(bits)} bits, at least ${MIN_TOKEN_BITS} are needed (repeats, sequences, words and short alphabets count little)`,
    hint: HINT,
  };
}
