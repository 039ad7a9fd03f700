/** Pure pieces of the client: body decoding, multi-status results, Retry-After, base URL, dedupe planning. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizeBaseUrl } from '../../../engine/providers/gpucloud/client.js';
import { createDedupeFor } from '../../../engine/providers/gpucloud/dedupe.js';
import { PartialFailureError } from '../../../engine/providers/gpucloud/errors.js';
import { assertAllSucceeded, decodeBody } from '../../../engine/providers/gpucloud/response.js';
import { parseRetryAfter } from '../../../engine/providers/gpucloud/retry.js';
import { tokenCachePath } from '../../../engine/providers/gpucloud/token-cache.js';
import { createHash } from 'node:crypto';

test('bodies: JSON, bare-text ids, quoted ids, empty', () => {
  assert.is(decodeBody('deadc0de-a5d2-4972-ae4e-d429115d055b\n'), 'deadc0de-a5d2-4972-ae4e-d429115d055b');
  assert.is(decodeBody('"deadc0de-a5d2-4972-ae4e-d429115d055b"'), 'deadc0de-a5d2-4972-ae4e-d429115d055b');
  assert.equal(decodeBody('{"id":"abc"}'), { id: 'abc' });
  assert.is(decodeBody('true'), true);
  assert.is(decodeBody(''), undefined);
  assert.is(decodeBody('  \n'), undefined);
});

test('multi-status: all success passes, any failure names each failed instance', async () => {
  const ctx = { method: 'PUT', path: '/v1/instances', attempts: 1 };
  await assertAllSucceeded(207, [{ action: 'start', instanceId: 'a', status: 'success' }], ctx);
  await assertAllSucceeded(202, undefined, ctx);
  await assertAllSucceeded(202, 'some-id', ctx);
  const results = [
    { action: 'delete', instanceId: 'i-1', status: 'success' },
    { action: 'delete', instanceId: 'i-2', status: 'error', error: 'Invalid instance id', statusCode: 404 },
    { action: 'delete', instanceId: 'i-3', status: 'error', error: "Can't discontinue a provisioning instance", statusCode: 400 },
  ];
  for (const status of [207, 202]) {
    try {
      await assertAllSucceeded(status, results, ctx);
      assert.unreachable('should throw');
    } catch (err) {
      assert.instance(err, PartialFailureError);
      const e = err as PartialFailureError;
      assert.match(e.message, /i-2.*Invalid instance id/);
      assert.match(e.message, /i-3.*provisioning/);
      assert.not.match(e.message, /i-1/);
      assert.equal(e.details, results);
      assert.is(e.code, 'partial_failure');
    }
  }
});

test('Retry-After: seconds, HTTP date, missing, capped', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.is(parseRetryAfter('2', 60_000, now), 2000);
  assert.is(parseRetryAfter('0', 60_000, now), 0);
  assert.is(parseRetryAfter(new Date(now + 3000).toUTCString(), 60_000, now), 3000);
  assert.is(parseRetryAfter(undefined, 60_000, now), 1000);
  assert.is(parseRetryAfter('soon', 60_000, now), 1000);
  assert.is(parseRetryAfter('600', 5000, now), 5000);
  assert.is(parseRetryAfter(new Date(now - 3000).toUTCString(), 60_000, now), 0);
});

test('base URL: trailing slash and /v1 are stripped', () => {
  assert.is(normalizeBaseUrl('https://api.verda.com/v1/'), 'https://api.verda.com');
  assert.is(normalizeBaseUrl('https://api.verda.com/'), 'https://api.verda.com');
  assert.is(normalizeBaseUrl('http://127.0.0.1:8080/v1'), 'http://127.0.0.1:8080');
  assert.throws(() => normalizeBaseUrl('not a url'));
});

test('dedupe applies to named creates of catalogue kinds only', () => {
  const inst = createDedupeFor('POST', '/v1/instances', '{"hostname":"train-1","instance_type":"1V100.6V"}');
  assert.ok(inst);
  assert.is(inst!.name, 'train-1');
  assert.is(inst!.needsSnapshot, true);
  const secret = createDedupeFor('post', '/v1/secrets/', { name: 'db', value: 'x' });
  assert.ok(secret);
  assert.is(secret!.needsSnapshot, false);
  assert.is(createDedupeFor('PUT', '/v1/instances', '{"hostname":"x"}'), undefined);
  assert.is(createDedupeFor('POST', '/v1/instances', 'not json'), undefined);
  assert.is(createDedupeFor('POST', '/v1/instances', '{"instance_type":"x"}'), undefined);
  assert.is(createDedupeFor('POST', '/v1/balance', '{"name":"x"}'), undefined);
  assert.is(createDedupeFor('POST', '/v1/scripts', { name: 's' })!.listPath, '/v1/scripts?page=1&pageSize=100');
});

test('token cache file is named by a sha256 over client id, sha256(secret), origin and scope; any of them changes it', () => {
  const key = { clientId: 'cid', clientSecret: 's3cret', origin: 'http://127.0.0.1:1', scope: '' };
  const secretDigest = createHash('sha256').update('s3cret').digest('hex');
  const expected = createHash('sha256').update(`v2\ncid\n${secretDigest}\nhttp://127.0.0.1:1\n`).digest('hex');
  assert.is(tokenCachePath('/d', key), `/d/${expected}.json`);
  const names = new Set([key, { ...key, clientSecret: 'wrong' }, { ...key, clientId: 'c2' }, { ...key, origin: 'http://x' }, { ...key, scope: 'cloud-api-v1' }].map((k) => tokenCachePath('/d', k)));
  assert.is(names.size, 5);
  assert.not.ok([...names].some((n) => n.includes('s3cret') || n.includes('cid')));
});

test.run();
