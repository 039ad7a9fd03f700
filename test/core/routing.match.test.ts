/**
 * Whole-word term matching (engine/core/routing/match.ts): the matcher checks a term's words and then
 * the characters around each match (built once) instead of building a look-around regex per term
 * (about 2 ms each under `iu`, over a second per `ask`; issue 40). These tests hold the two ways to
 * the same answers: on random questions of words, separators, accents, digits, `_` and characters
 * outside the BMP, containsTerm, TermMatcher and termPattern find exactly what the rule's look-around
 * regex, written out here from the module's comment, finds (terms starting or ending with a separator
 * use termPattern inside the matcher: so the reference is not termPattern itself).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { containsTerm, termPattern, TermMatcher } from '../../engine/core/routing/match.js';
import { mulberry32 } from '../support/random.js';

const PIECES = ['s3', 'S3', 'bucket', 'buckets', 'Bücket', 'k8s', 'gpu', 'GPU', 'é', 'ß', 'ſ', 'K', '_', '-', ' ', '  ', '\t', '.', ',', '9', '𝐀', '😀', 'instance', 'types', 'instance types', 'ln', 'x'];
const TERMS = ['s3', 'bucket', 'k8s', 'gpu', 'instance types', 'instance-types', 'é', 'bücket', 's', 'x', 'ln', '-gpu', 'gpu_', ' x '];

function question(rand: () => number): string {
  const n = 1 + Math.floor(rand() * 12);
  return Array.from({ length: n }, () => PIECES[Math.floor(rand() * PIECES.length)]!).join('');
}

/** The rule: the term's words with any run of spaces, `-` or `_` between them, not touching a letter, digit or `_`. */
function ruleRegex(term: string): RegExp {
  const words = term.trim().split(/[\s_-]+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![\\p{L}\\p{N}_])${words.join('[\\s_-]+')}(?![\\p{L}\\p{N}_])`, 'giu');
}

/** What the rule's regex finds: [start, end) of each match. */
function byRegex(text: string, term: string): [number, number][] {
  return [...text.matchAll(ruleRegex(term))].filter((m) => m[0].length > 0).map((m) => [m.index, m.index + m[0].length]);
}

/** termPattern's own matches, for the same comparison. */
const byTermPattern = (text: string, term: string): [number, number][] =>
  [...text.matchAll(termPattern(term))].filter((m) => m[0].length > 0).map((m) => [m.index, m.index + m[0].length]);

test('containsTerm and termPattern agree with the rule on 5,000 random questions', () => {
  const seed = 40_4;
  const rand = mulberry32(seed);
  for (let i = 0; i < 5000; i++) {
    const q = question(rand);
    for (const term of TERMS) {
      const expected = byRegex(q, term);
      assert.is(containsTerm(q, term), expected.length > 0, `seed ${seed}, ${JSON.stringify(q)} / ${JSON.stringify(term)}`);
      assert.equal(byTermPattern(q, term), expected, `termPattern: seed ${seed}, ${JSON.stringify(q)} / ${JSON.stringify(term)}`);
    }
  }
});

test('TermMatcher finds each term where the rule does (one term per matcher, so no overlap rule applies)', () => {
  const seed = 40_5;
  const rand = mulberry32(seed);
  const matchers = TERMS.map((term) => [term, new TermMatcher([{ term, data: term }])] as const);
  for (let i = 0; i < 3000; i++) {
    const q = question(rand);
    for (const [term, m] of matchers) {
      // Non-overlapping regex matches are the matcher's too (one term cannot overlap itself in a regex scan).
      assert.equal(m.match(q).map((x) => [x.start, x.end]), byRegex(q, term), `seed ${seed}, ${JSON.stringify(q)} / ${JSON.stringify(term)}`);
    }
  }
});

test('whole words only, across separators and scripts', () => {
  assert.ok(containsTerm('how many S3 buckets', 's3'));
  assert.not.ok(containsTerm('unverdant', 'verda'));
  assert.not.ok(containsTerm('datacrunching', 'datacrunch'));
  assert.ok(containsTerm('instance_types please', 'instance types'));
  assert.not.ok(containsTerm('éx', 'x'), 'a letter with an accent is a word character');
  assert.not.ok(containsTerm('𝐀x', 'x'), 'a letter outside the BMP is a word character');
  assert.ok(containsTerm('😀x', 'x'), 'an emoji is not');
  const m = new TermMatcher([
    { term: 'instance', data: 'one' },
    { term: 'instance types', data: 'two' },
  ]);
  assert.equal(m.match('list instance types and an instance').map((x) => [x.text, x.data]), [['instance types', 'two'], ['instance', 'one']]);
});

test.run();
