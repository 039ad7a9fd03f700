/**
 * The lock file (engine/core/process/lock-file.ts, issue 40) that replaced proper-lockfile on the run
 * journal, name reservations and the shared rate-limit record: mutual exclusion across processes, the
 * holder always named, a dead holder taken over at once, an old-style lock directory taken over once
 * stale, and a holder that lost its lock told so.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lockFileWaiting, readLockOwner, tryLockFile } from '../../engine/core/process/lock-file.js';
import { tempDir } from '../support/temp.js';

const MODULE = new URL('../../engine/core/process/lock-file.js', import.meta.url).href;

test('processes that increment a counter under the lock lose no increment (read, wait a turn, write)', async () => {
  const dir = tempDir();
  const counter = join(dir, 'counter');
  writeFileSync(counter, '0');
  const PROCS = 4;
  const EACH = 40;
  const script = `
    const { lockFileWaiting } = await import(${JSON.stringify(MODULE)});
    const { readFileSync, writeFileSync } = await import('node:fs');
    for (let i = 0; i < ${EACH}; i++) {
      const t = await lockFileWaiting(${JSON.stringify(join(dir, 'c.lock'))}, { staleMs: 60000 }, 100000, () => 1);
      if (!('held' in t)) throw new Error('never got the lock');
      const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8'));
      await new Promise((r) => setImmediate(r)); // another process gets a turn while this one holds it
      writeFileSync(${JSON.stringify(counter)}, String(n + 1));
      t.held.release();
    }`;
  const codes = await Promise.all(
    Array.from({ length: PROCS }, () => {
      const c = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'inherit'] });
      return new Promise<number | null>((resolve) => c.on('close', resolve));
    }),
  );
  assert.equal(codes, Array(PROCS).fill(0));
  assert.is(Number(readFileSync(counter, 'utf8')), PROCS * EACH);
  assert.not.ok(existsSync(join(dir, 'c.lock')), 'released');
});

test('a busy lock names its holder; a holder whose process is gone is taken over at once and named', async () => {
  const dir = tempDir();
  const path = join(dir, 'x.lock');
  const first = tryLockFile(path, { staleMs: 60_000, label: 'the first run' });
  assert.ok('held' in first);
  const second = tryLockFile(path, { staleMs: 60_000 });
  assert.ok('busy' in second && second.busy?.pid === process.pid && second.busy.label === 'the first run', JSON.stringify(second));
  first.held.release();
  // A lock left by a process killed with -9: its pid no longer exists on this host.
  const victim = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => victim.on('close', r));
  writeFileSync(path, JSON.stringify({ pid: victim.pid, host: hostname(), started_at: new Date().toISOString() }));
  const taken = tryLockFile(path, { staleMs: 60_000 });
  assert.ok('held' in taken, JSON.stringify(taken));
  assert.is(taken.tookOverFrom?.pid, victim.pid);
  assert.is(readLockOwner(path)?.pid, process.pid);
  taken.held.release();
});

test('a lock of another host is not judged by pid: it stays until it is stale', () => {
  const dir = tempDir();
  const path = join(dir, 'x.lock');
  writeFileSync(path, JSON.stringify({ pid: 999_999_999, host: 'another-host', started_at: new Date().toISOString() }));
  assert.ok('busy' in tryLockFile(path, { staleMs: 60_000 }), 'a fresh lock of another host holds');
  const old = new Date(Date.now() - 120_000);
  utimesSync(path, old, old);
  const t = tryLockFile(path, { staleMs: 60_000 });
  assert.ok('held' in t, 'a stale one is taken over');
  t.held.release();
});

test("proper-lockfile's lock directory (an older version's) is taken over once stale", async () => {
  const dir = tempDir();
  const path = join(dir, 'x.lock');
  mkdirSync(path);
  assert.ok('busy' in tryLockFile(path, { staleMs: 5_000 }), 'a fresh one holds');
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  const t = await lockFileWaiting(path, { staleMs: 5_000 }, 3, () => 1);
  assert.ok('held' in t);
  assert.ok(statSync(path).isFile());
  t.held.release();
});

test('a holder whose lock was taken over is told so at its next refresh and does not remove the new holder\'s lock', async () => {
  const dir = tempDir();
  const path = join(dir, 'x.lock');
  const mine = tryLockFile(path, { staleMs: 60_000, refreshMs: 20 });
  assert.ok('held' in mine);
  // Another process took it over (as after a stall longer than staleMs): a new file under the name.
  const other = JSON.stringify({ pid: 1, host: 'another-host', started_at: new Date().toISOString() });
  writeFileSync(join(dir, 'other'), other);
  const { renameSync } = await import('node:fs');
  renameSync(join(dir, 'other'), path);
  for (let i = 0; i < 500 && !mine.held.lost(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.match(mine.held.lost() ?? '', /another process took it over/);
  mine.held.release();
  assert.is(readFileSync(path, 'utf8'), other, "the new holder's lock stays");
});

test.run();
