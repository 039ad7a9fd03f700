/** The sliding-window limiter on its own: the window guarantee, per-path independence, abort and overhead. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InterruptedError } from '../engine/errors.js';
import { SlidingWindowLimiter } from '../engine/gpucloud/rate-limiter.js';

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Max number of times inside any half-open window (t-W, t] — what a receipt-counting server sees. */
function maxInAnyWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

test('never more than perPath receipts in any sliding window, with random service times', async () => {
  const windowMs = 300;
  const limiter = new SlidingWindowLimiter({ perProject: 100, perPath: 4, windowMs });
  const receipts: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      const { slot } = await limiter.acquire('GET /v1/instances');
      await delay(Math.random() * 40); // network on the way in
      receipts.push(performance.now());
      await delay(Math.random() * 60); // server work and the way back
      slot.release();
    }),
  );
  const took = performance.now() - t0;
  assert.ok(maxInAnyWindow(receipts, windowMs) <= 4, `max ${maxInAnyWindow(receipts, windowMs)} receipts in a window`);
  // 20 requests at 4 per window need at least 4 further windows.
  assert.ok(took >= 4 * windowMs, `took ${took} ms`);
  assert.ok(took < 8 * windowMs, `took ${took} ms`);
});

test('the project window caps all paths together; a full path does not block other paths', async () => {
  const limiter = new SlidingWindowLimiter({ perProject: 5, perPath: 2, windowMs: 10_000 });
  const a1 = await limiter.acquire('GET /a');
  const a2 = await limiter.acquire('GET /a');
  const cleanup = new AbortController();
  let a3Admitted = false;
  const a3 = limiter.acquire('GET /a', cleanup.signal).then(
    () => (a3Admitted = true),
    () => undefined,
  );
  // /a is full, but /b still has room even though a request for /a waits ahead of it.
  const b1 = await limiter.acquire('GET /b');
  const c1 = await limiter.acquire('POST /b');
  const c2 = await limiter.acquire('PUT /b');
  assert.is(a3Admitted, false);
  // The project (5) is now full: nothing else gets in, even on a fresh path.
  let dAdmitted = false;
  const d = limiter.acquire('GET /d', cleanup.signal).then(
    () => (dAdmitted = true),
    () => undefined,
  );
  await delay(20);
  assert.is(dAdmitted, false);
  assert.is(limiter.pending, 2);
  for (const s of [a1, a2, b1, c1, c2]) s.slot.release();
  await delay(20);
  // Completed requests keep occupying their slots for the window: still nobody admitted.
  assert.is(a3Admitted, false);
  assert.is(dAdmitted, false);
  cleanup.abort(); // do not keep the process alive for the 10 s window
  await Promise.all([a3, d]);
  assert.is(limiter.pending, 0);
});

test('abort removes a queued request at once with InterruptedError', async () => {
  const limiter = new SlidingWindowLimiter({ perProject: 10, perPath: 1, windowMs: 60_000 });
  await limiter.acquire('GET /x');
  const ac = new AbortController();
  const waiting = limiter.acquire('GET /x', ac.signal);
  const t0 = performance.now();
  setTimeout(() => ac.abort(), 30);
  const err = await waiting.catch((e: unknown) => e);
  assert.instance(err, InterruptedError);
  assert.ok(performance.now() - t0 < 100);
  assert.is(limiter.pending, 0);
  // An already-aborted signal rejects without queueing.
  const err2 = await limiter.acquire('GET /y', ac.signal).catch((e: unknown) => e);
  assert.instance(err2, InterruptedError);
});

test('1,000 queued requests under high limits add negligible overhead', async () => {
  const limiter = new SlidingWindowLimiter({ perProject: 100_000, perPath: 100_000, windowMs: 60_000, maxConcurrent: 32 });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 1000 }, async (_, i) => {
      const { slot } = await limiter.acquire(`GET /v1/instances/${i % 50}`);
      await Promise.resolve();
      slot.release();
    }),
  );
  const took = performance.now() - t0;
  assert.ok(took < 100, `1,000 acquisitions took ${took.toFixed(1)} ms`);
});

test('queued requests learn an estimate and the wait is released by the window timer', async () => {
  const limiter = new SlidingWindowLimiter({ perProject: 10, perPath: 1, windowMs: 200 });
  const first = await limiter.acquire('GET /z');
  first.slot.release();
  let estimate = -1;
  const t0 = performance.now();
  const second = await limiter.acquire('GET /z', undefined, (ms) => (estimate = ms));
  const waited = performance.now() - t0;
  assert.ok(estimate > 150 && estimate <= 200, `estimate ${estimate}`);
  assert.ok(waited >= 195 && waited < 300, `waited ${waited}`);
  assert.ok(second.waitedMs >= 195);
  second.slot.release();
});

test.run();
