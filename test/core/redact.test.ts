/** engine/core/redact.ts: copy-on-write redaction keeps the no-secret guarantee (issue 10 §4). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { maskSecretLooking, redactText, redactValue, registerSecret } from '../../engine/core/redact.js';

test('redactValue returns the very same objects when nothing under them changed (no deep copy)', () => {
  const records = Array.from({ length: 100 }, (_, i) => ({ id: `i-${i}`, hostname: `h${i}`, gpu: { number_of_gpus: 1, description: '1x A100' }, ips: ['203.0.113.1'] }));
  const out = redactValue(records);
  assert.ok(out === records, 'an untouched array is returned as is');
});

test('redactValue copies only the path to what it masks, and masks it', () => {
  registerSecret('registered-secret-abc123');
  const records = [
    { id: 'a', nested: { deep: { note: 'token registered-secret-abc123 here' } }, other: { x: 1 } },
    { id: 'b', access_token: 'eyJhbGciOi.xxxxxxxx.yyyyyyyy' },
    { id: 'c', fine: { x: 1 } },
  ];
  const before = JSON.stringify(records);
  const out = redactValue(records);
  assert.is(JSON.stringify(records), before, 'the input is never mutated');
  assert.ok(out !== records);
  assert.is(out[0]!.nested!.deep.note, 'token *** here');
  assert.ok(out[0]!.other === records[0]!.other, 'an unchanged sibling is shared');
  assert.ok(out[2] === records[2], 'an unchanged record is shared');
  assert.is((out[1] as { access_token: string }).access_token, '***');
  assert.not.ok(JSON.stringify(out).includes('registered-secret-abc123'));
});

test('an own "__proto__" key stays an own property of the copy', () => {
  registerSecret('proto-secret-xyz789');
  const value = JSON.parse('{"__proto__": {"password": "p"}, "note": "proto-secret-xyz789"}');
  const out = redactValue(value) as Record<string, unknown>;
  assert.ok(Object.prototype.hasOwnProperty.call(out, '__proto__'));
  assert.is(JSON.stringify(out), '{"__proto__":{"password":"***"},"note":"***"}');
  assert.is(Object.getPrototypeOf(out), Object.prototype);
});

test('redactText masks credentials embedded in URLs; maskSecretLooking masks scripts and plain secret env values', () => {
  assert.is(redactText('redis://:s3cr3t@cache:6379/0 and https://user:pw@host/x'), 'redis://:***@cache:6379/0 and https://user:***@host/x');
  const rec = { script: 'export API_KEY=abc123\necho hi', env: [{ type: 'plain', name: 'DB_PASSWORD', value_or_reference_to_secret: 'x1' }, { type: 'secret', name: 'HF_TOKEN', value_or_reference_to_secret: 'hf-secret-name' }] };
  const out = maskSecretLooking(rec);
  assert.is(out.script, 'export API_KEY=***\necho hi');
  assert.is(out.env[0]!.value_or_reference_to_secret, '***');
  assert.is(out.env[1]!.value_or_reference_to_secret, 'hf-secret-name', 'a secret-type env value is the name of a secret, not the secret');
});

test.run();
