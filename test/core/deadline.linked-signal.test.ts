/**
 * A read's signal under the server's life (engine/core/deadline.ts linkedSignal, issue 40): it ends
 * with whichever of the two ends first, carrying that one's reason, and once the read is done it no
 * longer hangs on the long-lived signal (AbortSignal.any stayed registered there until GC).
 */
import { getEventListeners } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { linkedSignal } from '../../engine/core/deadline.js';

test('the linked signal ends with the request, with its reason', () => {
  const server = new AbortController();
  const request = new AbortController();
  const { signal } = linkedSignal(server.signal, request.signal);
  assert.not.ok(signal.aborted);
  const why = new Error('client cancelled');
  request.abort(why);
  assert.ok(signal.aborted);
  assert.is(signal.reason, why);
  assert.not.ok(server.signal.aborted, 'the server goes on');
});

test('the linked signal ends with the server, with its reason', () => {
  const server = new AbortController();
  const request = new AbortController();
  const { signal } = linkedSignal(server.signal, request.signal);
  const why = new Error('server stopping');
  server.abort(why);
  assert.ok(signal.aborted);
  assert.is(signal.reason, why);
});

test('an already ended signal is the linked signal', () => {
  const server = new AbortController();
  const request = new AbortController();
  request.abort(new Error('gone'));
  assert.is(linkedSignal(server.signal, request.signal).signal, request.signal);
  assert.is(linkedSignal(server.signal, undefined).signal, server.signal);
});

test('after unlink nothing is left listening on either signal, over many reads', () => {
  const server = new AbortController();
  for (let i = 0; i < 1000; i++) {
    const request = new AbortController();
    const { unlink } = linkedSignal(server.signal, request.signal);
    assert.is(getEventListeners(request.signal, 'abort').length, 1);
    unlink();
    assert.is(getEventListeners(request.signal, 'abort').length, 0);
  }
  assert.is(getEventListeners(server.signal, 'abort').length, 0);
});

test.run();
