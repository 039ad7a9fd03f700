/**
 * The sliding-window limiter on its own: the window guarantee, per-path independence, abort, and that
 * admissions need no timer when there is room. Speed is measured in `npm run bench`, not asserted here.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InterruptedError } from '../../../engine/core/errors.js';
import { SlidingWindowLimiter } from '../../../engine/providers/gpucloud/rate-limiter.js';

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
  assert.is(receipts.length, 20, 'every request was admitted');
  // 20 requests at 4 per window need at least 4 further windows (a busy machine only adds to this).
  assert.ok(took >= 4 * windowMs, `took ${took} ms`);
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
  let settled: unknown;
  void waiting.catch((e: unknown) => (settled = e));
  await delay(1);
  assert.is(settled, undefined, 'still queued behind the 60 s window');
  ac.abort();
  await Promise.resolve(); // one microtask: the rejection happened in the abort event itself
  await Promise.resolve();
  assert.instance(settled, InterruptedError, 'rejected at once, not when the window ends');
  assert.is(limiter.pending, 0);
  // An already-aborted signal rejects without queueing.
  const err2 = await limiter.acquire('GET /y', ac.signal).catch((e: unknown) => e);
  assert.instance(err2, InterruptedError);
});

test('1,000 queued requests under high limits are admitted by releases alone, with no waiting', async () => {
  // A frozen clock: were any admission to wait for a window to pass, it would never happen. That all
  // 1,000 complete proves room is handed over synchronously on release (the overhead in ms is in bench).
  const limiter = new SlidingWindowLimiter({ perProject: 100_000, perPath: 100_000, windowMs: 60_000, maxConcurrent: 32 }, () => 0);
  const waited: number[] = [];
  await Promise.all(
    Array.from({ length: 1000 }, async (_, i) => {
      const { slot, waitedMs } = await limiter.acquire(`GET /v1/instances/${i % 50}`);
      waited.push(waitedMs);
      await Promise.resolve();
      slot.release();
    }),
  );
  assert.is(waited.length, 1000);
  assert.ok(waited.every((ms) => ms === 0));
  assert.is(limiter.pending, 0);
});

test('queued requests learn an estimate and the wait is released by the window timer', async () => {
  // An injected clock makes the estimate exact; the real timer still has to fire to admit the waiter.
  let now = 1_000;
  const limiter = new SlidingWindowLimiter({ perProject: 10, perPath: 1, windowMs: 200 }, () => now);
  const first = await limiter.acquire('GET /z');
  now += 30;
  first.slot.release(); // the slot is held until 1,030 + 200
  let estimate = -1;
  let admitted = false;
  const second = limiter.acquire('GET /z', undefined, (ms) => (estimate = ms)).then((a) => ((admitted = true), a));
  assert.is(estimate, 200, 'the estimate is the rest of the window');
  now += 200; // the window has passed, but nothing is admitted until the limiter's timer looks again
  await Promise.resolve();
  assert.is(admitted, false);
  assert.is(limiter.pending, 1);
  const { slot, waitedMs } = await second;
  assert.is(waitedMs, 200);
  slot.release();
});

test.run();
