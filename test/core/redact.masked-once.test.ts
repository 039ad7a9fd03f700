/**
 * engine/core/redact.ts: maskSecretLooking remembers what it returned, so a result shown twice (an MCP
 * list's table, then its structured result) is walked once (issue 40). What must still hold: a secret
 * registered after the first mask is masked in the second, and a result placed in a new container is
 * still masked there.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { maskSecretLooking, registerSecret } from '../../engine/core/redact.js';

test('masking a masked result again returns it as it is, inside a new container too', () => {
  const records = [{ id: 'a', startup_script: 'export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123' }, { id: 'b', hostname: 'web' }];
  const once = maskSecretLooking(records);
  assert.not.ok(JSON.stringify(once).includes('hf_abcdefghijklmnopqrstuvwxyz0123'), 'the first mask hides the key');
  assert.ok(maskSecretLooking(once) === once, 'the same result, not a copy');
  const wrapped = maskSecretLooking({ resource: 'instances', count: 2, items: once });
  assert.ok(wrapped.items === once, 'a known result inside a new object is kept as it is');
});

test('a secret registered after a mask is masked when the same result is masked again', () => {
  const value = 'late-registered-secret-9f8e7d';
  const records = [{ id: 'a', description: `uses ${value}` }];
  const once = maskSecretLooking(records);
  assert.ok(once === records, 'nothing looked secret yet');
  registerSecret(value);
  const again = maskSecretLooking({ items: once });
  assert.not.ok(JSON.stringify(again).includes(value), 'the newly registered secret is masked');
});

test('a raw record that holds a secret is masked however often it is masked', () => {
  const raw = { id: 'x', env: [{ type: 'plain', name: 'API_KEY', value_or_reference_to_secret: 'sk-live-0123456789abcdef' }] };
  for (let i = 0; i < 3; i++) {
    const out = maskSecretLooking({ items: [raw] });
    assert.not.ok(JSON.stringify(out).includes('sk-live-0123456789abcdef'), `pass ${i}`);
  }
  assert.ok(raw.env[0]!.value_or_reference_to_secret === 'sk-live-0123456789abcdef', 'the raw record is not changed');
});

test.run();
