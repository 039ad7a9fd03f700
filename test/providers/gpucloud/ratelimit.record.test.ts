/**
 * The compact shared record's rules (engine/providers/gpucloud/limits/record.ts), on random sequences of leases:
 * a grant never takes the key over its limit, whoever asks when the key has room gets a slot (fair
 * shares never deadlock), the record stays bounded however many responses go through it; and the
 * Redis store's Lua script answers exactly as the file store does, lease for lease.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mulberry32 } from '../../support/random.js';
import { FileLimitStore } from '../../../engine/providers/gpucloud/limits/file.js';
import { emptyKeyRecord, leaseKey, mergeMsFor, occupied, prune, type KeyRecord } from '../../../engine/providers/gpucloud/limits/record.js';
import { RedisLimitStore } from '../../../engine/providers/gpucloud/limits/redis.js';
import type { LeaseRequest } from '../../../engine/providers/gpucloud/limits/store.js';
import { startRedis } from '../../support/redis.js';

const dirs: string[] = [];
test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const rng = mulberry32;

const seed = Number(process.env.RECORD_SEED ?? Math.floor(Math.random() * 2 ** 31));

test(`random leases never take a key over its limit, and whoever asks when there is room gets a slot (RECORD_SEED=${seed})`, () => {
  const r = rng(seed);
  for (let round = 0; round < 300; round++) {
    const limit = 1 + Math.floor(r() * 12);
    const windowMs = 1000;
    const holders = Array.from({ length: 1 + Math.floor(r() * 6) }, (_, i) => ({ name: `h${i}`, held: 0, inFlight: 0 }));
    const k: KeyRecord = emptyKeyRecord();
    let now = 1_000_000;
    for (let step = 0; step < 60; step++) {
      now += Math.floor(r() * 300);
      prune(k, now);
      const h = holders[Math.floor(r() * holders.length)]!;
      if (!k.h[h.name]) {
        // Its lease ran out: by then every request it sent has ended (a lease outlasts the request timeout).
        h.held = 0;
        h.inFlight = 0;
      }
      const olderWaiters = Object.entries(k.h).filter(([name, [, , , since]]) => name !== h.name && since > 0 && since < (k.h[h.name]?.[3] || Infinity)).length;
      // Some of its requests finish (reported now), some are sent from its free slots.
      const finished = Math.floor(r() * (h.inFlight + 1));
      h.inFlight -= finished;
      const before = occupied(k);
      const want = h.inFlight + Math.floor(r() * (limit + 2));
      const grant = leaseKey(
        k,
        { holder: h.name, limit, want, keep: h.inFlight, doneExpiries: Array.from({ length: finished }, () => now - Math.floor(r() * 50) + windowMs), until: now + 5000, demandUntil: now + 2000, windowMs },
        now,
      );
      assert.ok(grant.held >= h.inFlight, 'what is in flight stays held');
      const after = occupied(k);
      assert.ok(after <= Math.max(limit, before), `round ${round} step ${step}: ${after} slots counting after a grant, limit ${limit} (was ${before})`);
      if (before - h.held + finished === 0 && h.inFlight === 0 && want > 0 && olderWaiters === 0) {
        // Nothing counts but this holder's own slots, and nobody has waited longer: it gets one.
        assert.ok(grant.held >= 1, `round ${round} step ${step}: nothing counted, and a holder wanting ${want} got nothing`);
      }
      h.held = grant.held;
      h.inFlight += Math.floor(r() * (h.held - h.inFlight + 1));
    }
  }
});

test('many holders waiting on a small limit: every one of them is served within a few windows (no deadlock, no starvation)', () => {
  for (const [limit, n] of [[5, 4], [2, 7], [8, 3], [1, 5], [12, 12]] as const) {
    const k = emptyKeyRecord();
    const served = new Set<string>();
    let now = 0;
    const windowMs = 1000;
    for (let t = 0; t < 40 * n; t++) {
      now += 50;
      prune(k, now);
      const name = `h${t % n}`;
      const mine = k.h[name]?.[0] ?? 0;
      // Each holder sends what it holds at once and reports it at its next turn.
      const g = leaseKey(k, { holder: name, limit, want: 3, keep: 0, doneExpiries: Array.from({ length: mine }, () => now + windowMs), until: now + 60_000, demandUntil: now + 3000, windowMs }, now);
      if (g.held > 0) served.add(name);
      assert.ok(occupied(k) <= limit);
    }
    assert.is(served.size, n, `limit ${limit}, ${n} holders: served ${[...served].join(',')}`);
  }
});

test('the record of a busy key stays bounded: done responses merge into about 64 groups per window', () => {
  const k = emptyKeyRecord();
  const windowMs = 60_000;
  let now = 0;
  for (let i = 0; i < 100_000; i++) {
    now += 3;
    prune(k, now);
    leaseKey(k, { holder: 'h', limit: 1e9, want: 1, keep: 0, doneExpiries: [now + windowMs], until: now + 90_000, demandUntil: now, windowMs }, now);
  }
  assert.ok(k.d.length <= windowMs / mergeMsFor(windowMs) + 2, `${k.d.length} groups`);
  assert.ok(occupied(k) > 19_000, 'and they still all count');
});

function redisInstalled(): boolean {
  return spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).status === 0;
}

test('the Redis store and the file store grant alike, lease for lease (the Lua script is record.ts)', async () => {
  if (!redisInstalled()) {
    console.log('  SKIPPED: redis-server is not installed (apt-get install -y redis-server; .ci/run installs it)');
    return;
  }
  const redis = await startRedis();
  const dir = mkdtempSync(join(tmpdir(), 'assistant-record-'));
  dirs.push(dir);
  const file = new FileLimitStore(join(dir, 'r.json'));
  const red = new RedisLimitStore(redis.url, 'cmp');
  try {
    const r = rng(seed);
    const keys = ['project', 'GET /v1/a', 'GET /v1/b'];
    const limits: Record<string, number> = { project: 20, 'GET /v1/a': 6, 'GET /v1/b': 3 };
    // Times here are far inside every window and lease: both stores see the same record whatever their clocks.
    for (let i = 0; i < 250; i++) {
      const holder = `${process.pid}.cmp.${Math.floor(r() * 5)}`;
      const chosen = keys.filter(() => r() < 0.7);
      const req: LeaseRequest = {
        holder,
        windowMs: 600_000,
        leaseMs: 900_000,
        demandMs: 900_000,
        atomic: r() < 0.2,
        keys: chosen.map((key) => {
          const keep = Math.floor(r() * 3);
          return { key, limit: limits[key]!, want: keep + Math.floor(r() * 5), keep, doneAgoMs: Array.from({ length: Math.floor(r() * 2) }, () => Math.floor(r() * 100)) };
        }),
      };
      const [a, b] = [await file.lease(req), await red.lease(req)];
      assert.equal(
        b.map((g) => [g.held, g.used, g.blocked]),
        a.map((g) => [g.held, g.used, g.blocked]),
        `lease ${i} (RECORD_SEED=${seed}): ${JSON.stringify(req)}`,
      );
      if (r() < 0.03) {
        const key = keys[Math.floor(r() * keys.length)]!;
        await Promise.all([file.block(key, 800_000), red.block(key, 800_000)]);
      }
    }
  } finally {
    await red.close();
    await redis.stop();
  }
});

test.run();
