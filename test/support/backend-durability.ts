/**
 * Durability and key rotation of the credential backend, run on each storage (the test files
 * backend.durability-*.test.ts): kill -9 during 100 concurrent stores loses nothing acknowledged, and
 * rotate-master-key, run while the server serves reads, keeps every record readable.
 */
import { readFileSync, rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApiKey, startBackendProcess, storageArgs, type BackendProcess } from './backend.js';
import { runCli } from './cli.js';
import { postgresMissing, startPostgres, type RunningPostgres } from './postgres.js';

const STORES = 100;
/**
 * No request of these tests waits forever: fetch (undici) can be left with a request on a connection the
 * server reset and never settle it, which hung a whole CI run. Far longer than any answer takes; a
 * request cut by it is simply not acknowledged.
 */
const REQUEST_BOUND_MS = 60_000;
const valueOf = (i: number) => `durable-secret-${i}-${'x'.repeat(i % 37)}-end`;

export function backendDurabilitySuite(label: 'pglite' | 'postgres') {
  const s = suite(`backend durability on ${label}`);
  const skip = label === 'postgres' ? postgresMissing() : undefined;
  let pg: RunningPostgres | undefined;
  let database: string | undefined;
  let backend: BackendProcess | undefined;
  let key = '';
  let home: string | undefined;

  const put = (b: BackendProcess, name: string, value: string) =>
    fetch(`${b.url}/v1/credentials/production/repohost/${name}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fields: { token: value } }),
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
  const get = (b: BackendProcess, name: string) =>
    fetch(`${b.url}/v1/credentials/production/repohost/${name}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(REQUEST_BOUND_MS) });

  s.before(async () => {
    if (skip) return;
    if (label === 'postgres') {
      pg = await startPostgres();
      database = await pg.createDatabase('backend_durability');
    }
    backend = await startBackendProcess({ database });
    home = backend.home;
    key = await createApiKey(backend, 'team-d');
  });
  s.after(async () => {
    await backend?.kill('SIGTERM');
    await pg?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  s('kill -9 of the server during 100 concurrent stores loses nothing that was acknowledged, and leaves no partial record', async () => {
    if (skip) return void console.log(`SKIP ${label} kill -9: ${skip}`);
    const b = backend!;
    const acked = new Set<number>();
    let killed = false;
    const killedAfter = new Promise<void>((resolve) => {
      const requests = Array.from({ length: STORES }, async (_, i) => {
        try {
          const r = await put(b, `k${i}`, valueOf(i));
          if (r.status === 200 || r.status === 201) {
            // Acknowledged only when the answer arrived before the kill.
            if (!killed) acked.add(i);
          }
          await r.body?.cancel();
        } catch {
          // The server died under this request: not acknowledged.
        }
        if (acked.size >= STORES / 3) resolve();
      });
      void Promise.all(requests).then(() => resolve());
    });
    await killedAfter;
    killed = true;
    const exit = await b.kill('SIGKILL');
    assert.is(exit.signal, 'SIGKILL');
    assert.ok(acked.size >= STORES / 3, `acknowledged before the kill: ${acked.size}`);

    backend = await startBackendProcess({ home: b.home, database });
    let present = 0;
    for (let i = 0; i < STORES; i++) {
      const r = await get(backend, `k${i}`);
      if (acked.has(i)) assert.is(r.status, 200, `acknowledged store k${i} is lost (status ${r.status})`);
      else assert.ok(r.status === 200 || r.status === 404, `unacknowledged store k${i}: status ${r.status} (neither the old state nor the new)`);
      if (r.status === 200) {
        present++;
        assert.is(((await r.json()) as { fields: { token: string } }).fields.token, valueOf(i), `k${i} reads back whole`);
      } else await r.body?.cancel();
    }
    console.log(`  ${label}: ${acked.size} acknowledged before kill -9, ${present} present after restart, none lost`);
  });

  s('rotate-master-key while the server serves reads re-wraps every record, and every record stays readable', async () => {
    if (skip) return void console.log(`SKIP ${label} rotation: ${skip}`);
    const b = backend!;
    for (let i = 0; i < STORES; i++) await (await put(b, `k${i}`, valueOf(i))).body?.cancel();
    const keyFileBefore = readFileSync(b.keyFile, 'utf8');

    let reading = true;
    let reads = 0;
    const failures: string[] = [];
    const reader = (async () => {
      while (reading) {
        const i = reads++ % STORES;
        const r = await get(b, `k${i}`);
        if (r.status !== 200) failures.push(`k${i}: ${r.status} ${await r.text()}`);
        else if (((await r.json()) as { fields: { token: string } }).fields.token !== valueOf(i)) failures.push(`k${i}: wrong value`);
      }
    })();
    const rotated = await runCli(['backend', 'rotate-master-key', '-o', 'json', ...storageArgs(b)], { home: b.home });
    reading = false;
    await reader;
    assert.is(rotated.code, 0, rotated.stderr);
    const r = JSON.parse(rotated.stdout) as { from: string[]; to: string; rewrapped: number };
    assert.is(r.rewrapped, STORES);
    assert.is(r.from.length, 1);
    assert.is.not(r.to, r.from[0]);
    assert.equal(failures, [], 'no read failed during the rotation');
    assert.ok(reads > 0);
    const keyFileAfter = readFileSync(b.keyFile, 'utf8');
    assert.is.not(keyFileAfter, keyFileBefore);
    assert.is(keyFileAfter.split('\n').filter((l) => l && !l.startsWith('#')).length, 1, 'the old key is gone from the key file');

    // A fresh server with only the new key reads everything; so does a store after the rotation.
    await b.kill('SIGTERM');
    backend = await startBackendProcess({ home: b.home, database });
    await (await put(backend, 'after-rotation', 'after')).body?.cancel();
    for (let i = 0; i < STORES; i++) {
      const g = await get(backend, `k${i}`);
      assert.is(g.status, 200);
      assert.is(((await g.json()) as { fields: { token: string } }).fields.token, valueOf(i));
    }
  });

  s('a wrong or missing master key is a clear error at start, never a silent new key', async () => {
    if (skip) return void console.log(`SKIP ${label} master key: ${skip}`);
    const b = backend!;
    await b.kill('SIGTERM');
    const wrong = await runCli(['backend', 'serve', '--listen', '127.0.0.1:0', ...storageArgs(b)], {
      home: b.home,
      env: { ASSISTANT_BACKEND_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') },
    });
    assert.is(wrong.code, 2, wrong.stderr);
    assert.match(wrong.stderr, /^error: wrong_master_key: wrong master key: the database's records are wrapped with master key [0-9a-f]{16}/m);
    rmSync(b.keyFile);
    const missing = await runCli(['backend', 'serve', '--listen', '127.0.0.1:0', ...storageArgs(b)], { home: b.home });
    assert.is(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /^error: master_key_missing: the master key is missing: .*backend-master\.key does not exist/m);
    backend = undefined;
  });

  return s;
}
