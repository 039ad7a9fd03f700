/**
 * Retention of the run history (backend/runs.ts `retain`, migration 4) under the load it is built for:
 * clients reporting at once, the same run sent twice, runs past the age limit; on PGlite and, when
 * installed, PostgreSQL (where inserts of one tenant really run concurrently). The tenant keeps exactly
 * its newest `ASSISTANT_BACKEND_RUN_RETENTION` runs: a count that drifted (a duplicate counted, two
 * inserts racing on it) would show here as too many or too few.
 */
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApiKey, startBackendProcess, type BackendProcess } from '../support/backend.js';
import { backendStorages } from '../support/postgres.js';

const KEEP = 5;
const DAY = 86_400_000;

/** A dry run as a client reports it, started `ageMs` ago. */
function record(n: number, ageMs: number): Record<string, unknown> {
  const started = new Date(Date.now() - ageMs).toISOString();
  return { kind: 'dry_run', status: 'previewed', exit_code: 0, started_at: started, finished_at: started, plan_hash: 'f'.repeat(64), summary: `run ${n}`, providers: ['gpucloud'], steps: [], resources: [] };
}

const put = async (b: BackendProcess, key: string, id: string, body: Record<string, unknown>) => {
  const r = await fetch(`${b.url}/v1/runs/production/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await r.arrayBuffer();
  return r.status;
};

const summaries = async (b: BackendProcess, key: string) => {
  const r = await fetch(`${b.url}/v1/runs?limit=500`, { headers: { authorization: `Bearer ${key}` } });
  assert.is(r.status, 200);
  return ((await r.json()) as { runs: Array<{ summary: string }> }).runs.map((x) => x.summary);
};

/** `tasks` run `width` at a time. */
async function inParallel<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    for (let i = next++; i < tasks.length; i = next++) out[i] = await tasks[i]!();
  }));
  return out;
}

const storages = backendStorages(test, 'retention');

for (const storage of storages) {
  test(`${storage.name}: clients reporting at once, each run sent twice, leave exactly the newest ${KEEP} runs; a run past the age limit is gone; another tenant keeps its own`, async () => {
    const b = await startBackendProcess({ database: await storage.database(), env: { ASSISTANT_BACKEND_RUN_RETENTION: String(KEEP), ASSISTANT_BACKEND_RUN_RETENTION_DAYS: '30' } });
    try {
      const key = await createApiKey(b, 'ml-team');
      const other = await createApiKey(b, 'other-team');
      assert.is(await put(b, other, 'run_theirs_01', record(0, DAY)), 201);
      // 24 runs, each an hour newer than the one before, every one sent twice, 8 requests at once.
      const runs = Array.from({ length: 24 }, (_, n) => ({ id: `run_race_${String(n).padStart(4, '0')}`, body: record(n, (24 - n) * 3_600_000) }));
      const statuses = await inParallel(
        runs.flatMap((r) => [() => put(b, key, r.id, r.body), () => put(b, key, r.id, r.body)]),
        8,
      );
      assert.ok(statuses.every((s) => s === 201 || s === 200), statuses.join(' '));
      assert.equal(await summaries(b, key), ['run 23', 'run 22', 'run 21', 'run 20', 'run 19']);
      // Each later insert deletes exactly one: the count neither counted the duplicates nor lost a race.
      assert.is(await put(b, key, 'run_race_0024', record(24, 0)), 201);
      assert.equal(await summaries(b, key), ['run 24', 'run 23', 'run 22', 'run 21', 'run 20']);
      // A run that arrives already past the age limit (queued on a laptop for weeks) is not kept, and costs the count nothing.
      assert.is(await put(b, key, 'run_stale_0001', record(99, 31 * DAY)), 201);
      assert.equal(await summaries(b, key), ['run 24', 'run 23', 'run 22', 'run 21', 'run 20']);
      assert.is(await put(b, key, 'run_race_0025', record(25, 0)), 201);
      assert.equal(await summaries(b, key), ['run 25', 'run 24', 'run 23', 'run 22', 'run 21']);
      assert.equal(await summaries(b, other), ['run 0']);
    } finally {
      await b.kill();
      rmSync(b.home, { recursive: true, force: true });
    }
  });
}

test.run();
