/**
 * Go's encoding/json key matching (engine/core/kits/http/go-json-keys.ts): exact name first, else Unicode
 * simple case folding rune by rune, the way a Go API server fills its request structs. The expected
 * values are Go's own (unicode.SimpleFold's documented orbits and encoding/json's foldName); the
 * property tests hold the orbits to the engine's /iu case folding over every cased rune.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { foldRune, goFieldOf, goFoldName, orbitOf, sameSimpleFold } from '../../engine/core/kits/http/go-json-keys.js';

const cp = (s: string) => s.codePointAt(0)!;

test('ASCII letters fold to upper case; digits, _ and - stay', () => {
  assert.is(goFoldName('instance_type'), 'INSTANCE_TYPE');
  assert.is(goFoldName('Max_Replica-Count9'), 'MAX_REPLICA-COUNT9');
});

test('the long s (U+017F) folds to S and the Kelvin sign (U+212A) to K, as Go folds them', () => {
  assert.is(goFoldName('ho\u017Ftname'), 'HOSTNAME');
  assert.is(goFoldName('\u212Aey'), 'KEY');
  assert.is(goFieldOf('ho\u017Ftname', ['hostname', 'description']), 'hostname');
  assert.is(goFieldOf('\u212Aey', ['key', 'value']), 'key');
  assert.is(goFieldOf('in\u017Ftance_type', ['instance_type']), 'instance_type');
});

test('Turkic and full foldings are not simple foldings: İ, ı and the ﬀ ligature match no ASCII name', () => {
  assert.is(goFieldOf('\u0130mage', ['image']), undefined);
  assert.is(goFieldOf('\u0131mage', ['image']), undefined);
  assert.is(goFieldOf('coupon_\uFB00', ['coupon_ff']), undefined);
  assert.not.ok(sameSimpleFold(cp('\u0130'), cp('i')));
  assert.not.ok(sameSimpleFold(cp('\u0131'), cp('I')));
});

test('an exact name wins over a folded one; a key that folds to no field fills nothing', () => {
  assert.is(goFieldOf('size', ['SIZE', 'size']), 'size');
  assert.is(goFieldOf('SIZE', ['size', 'name']), 'size');
  assert.is(goFieldOf('sizes', ['size']), undefined);
  assert.is(goFieldOf('siz\u0435', ['size']), undefined, 'a Cyrillic е is another letter, not a case of e');
});

test("Go's multi-rune orbits: each member folds to the orbit's smallest rune", () => {
  const orbits: string[][] = [
    ['K', 'k', '\u212A'],
    ['S', 's', '\u017F'],
    ['\u00B5', '\u039C', '\u03BC'],
    ['\u00C5', '\u00E5', '\u212B'],
    ['\u00DF', '\u1E9E'],
    ['\u0345', '\u0399', '\u03B9', '\u1FBE'],
    ['\u0398', '\u03B8', '\u03D1', '\u03F4'],
    ['\u01C4', '\u01C5', '\u01C6'],
  ];
  for (const orbit of orbits) {
    const min = Math.min(...orbit.map(cp));
    for (const member of orbit) assert.is(foldRune(cp(member)), min, `${member} (U+${cp(member).toString(16)})`);
    assert.equal(orbitOf(cp(orbit[0]!)), orbit.map(cp).sort((a, b) => a - b));
  }
  assert.is(foldRune(cp('\u0130')), cp('\u0130'), 'İ is an orbit of its own');
  assert.is(foldRune(cp('\u0131')), cp('\u0131'), 'ı is an orbit of its own');
});

test('every cased rune: its fold is in its orbit, and the orbit is exactly what /iu case folding matches', () => {
  // Every rune with a case mapping, in one string: a /iu regexp of a rune matches exactly its orbit in it.
  const cased: number[] = [];
  for (let c = 0; c <= 0x1ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    if (s.toLowerCase() !== s || s.toUpperCase() !== s) cased.push(c);
  }
  const all = String.fromCodePoint(...cased);
  const checked = new Set<number>();
  for (const c of cased) {
    if (checked.has(c)) continue;
    const matched = [...all.matchAll(new RegExp(`\\u{${c.toString(16)}}`, 'giu'))].map((m) => m[0].codePointAt(0)!).sort((a, b) => a - b);
    const orbit = orbitOf(c).filter((m) => cased.includes(m));
    assert.equal(orbit, matched, `orbit of U+${c.toString(16)}`);
    const min = Math.min(...orbitOf(c));
    for (const m of matched) {
      assert.is(foldRune(m), min, `U+${m.toString(16)}`);
      checked.add(m);
    }
  }
  assert.ok(cased.length > 2000, `${cased.length} cased runes`);
});

test('a lone surrogate is U+FFFD to the decoder, and so to the fold', () => {
  assert.is(goFoldName('a\ud800'), 'A\ufffd');
  assert.is(goFoldName('\ud800'), goFoldName('\udbff'));
});

test.run();
