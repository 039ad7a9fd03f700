/** Client-side rate limits against the emulator's own sliding-window limits: the client waits, the server never says 429. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import { createGpuCloudClient } from '../../../engine/providers/gpucloud/client.js';
import type { ClientEvent, RateLimitSettings } from '../../../engine/providers/gpucloud/types.js';

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WINDOW = 1000;

/** Most requests (other than token requests) the emulator received in any window of `windowMs`, per key. */
function maxPerWindow(emu: Emulator, key: (r: { method: string; path: string }) => string, windowMs: number): number {
  const byKey = new Map<string, number[]>();
  for (const r of emu.requests()) {
    if (r.path === '/v1/oauth2/token') continue;
    const k = key(r);
    byKey.set(k, [...(byKey.get(k) ?? []), r.at]);
  }
  let best = 0;
  for (const times of byKey.values()) {
    times.sort((a, b) => a - b);
    let lo = 0;
    for (let hi = 0; hi < times.length; hi++) {
      while (times[hi]! - times[lo]! >= windowMs) lo++;
      best = Math.max(best, hi - lo + 1);
    }
  }
  return best;
}

async function setup(limits: RateLimitSettings) {
  const emu = await startEmulator({ seed: 'empty', rateLimit: limits });
  const events: ClientEvent[] = [];
  const c = createGpuCloudClient({
    baseUrl: emu.url,
    credentials: { clientId: 'emu-client', clientSecret: 'emu-secret' },
    rateLimit: limits,
    onEvent: (e) => events.push(e),
  });
  return { emu, c, events };
}

test('perPath 5 per 1 s: 15 sequential and 15 concurrent requests on one path, zero 429, ≈ 2 windows each', async () => {
  const { emu, c, events } = await setup({ perProject: 100, perPath: 5, windowMs: WINDOW });
  try {
    let t0 = performance.now();
    for (let i = 0; i < 15; i++) await c.request({ method: 'GET', path: '/v1/balance' });
    const sequential = performance.now() - t0;

    await delay(WINDOW + 50); // let the window drain so the second phase starts fresh

    t0 = performance.now();
    const results = await Promise.all(Array.from({ length: 15 }, () => c.request({ method: 'GET', path: '/v1/balance' })));
    const concurrent = performance.now() - t0;

    assert.is(emu.stats().status429, 0);
    assert.ok(results.every((r) => r.status === 200 && r.attempts === 1));
    // 5 at once, 5 after one window, 5 after two windows: at least two windows (how much longer is
    // the machine's business; `npm run bench` measures it).
    assert.ok(sequential >= 2 * WINDOW, `sequential took ${sequential.toFixed(0)} ms`);
    assert.ok(concurrent >= 2 * WINDOW, `concurrent took ${concurrent.toFixed(0)} ms`);
    assert.ok(maxPerWindow(emu, (r) => `${r.method} ${r.path}`, WINDOW) <= 5);
    assert.is(c.stats.status429, 0);
    // concurrent: the 10 beyond the first 5 always wait; sequential: the 6th and 11th wait unless the
    // machine was so slow that their slot had already expired.
    assert.ok(c.stats.rateLimitWaits >= 10, `rateLimitWaits ${c.stats.rateLimitWaits}`);
    assert.ok(events.some((e) => e.type === 'rate-limit-wait' && e.path === '/v1/balance' && e.waitMs > 0));
  } finally {
    await emu.close();
  }
});

test('perProject 4 per 1 s across several paths: zero 429; the query string does not make a new path', async () => {
  const { emu, c } = await setup({ perProject: 4, perPath: 100, windowMs: WINDOW });
  try {
    const paths = ['/v1/balance', '/v1/instances', '/v1/locations?x=1', '/v1/locations?x=2'];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 12 }, (_, i) => c.request({ method: 'GET', path: paths[i % paths.length]! })));
    const took = performance.now() - t0;
    assert.is(emu.stats().status429, 0);
    assert.ok(took >= 2 * WINDOW, `took ${took.toFixed(0)} ms`);
    assert.ok(maxPerWindow(emu, () => 'project', WINDOW) <= 4);
  } finally {
    await emu.close();
  }
});

test('with the emulator stricter than the client, 429s are waited out per Retry-After and the calls succeed', async () => {
  const emu = await startEmulator({ seed: 'empty', rateLimit: { perProject: 100, perPath: 3, windowMs: WINDOW } });
  try {
    const c = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: 'emu-client', clientSecret: 'emu-secret' } });
    const results = await Promise.all(Array.from({ length: 5 }, () => c.request({ method: 'GET', path: '/v1/balance' })));
    assert.ok(results.every((r) => r.status === 200));
    assert.is(c.stats.status429, 2);
    assert.is(emu.stats().status429, 2);
  } finally {
    await emu.close();
  }
});

test.run();
