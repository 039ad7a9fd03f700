/**
 * The on-disk token cache as a command's first request reads it (engine/providers/gpucloud/token-cache.ts):
 * one synchronous, non-blocking read. What is not a token file at its path reads as no token (the client
 * then fetches one and writes the file anew), and never holds the process: a FIFO there used to block the
 * read until a writer came.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TokenFileCache } from '../../../engine/providers/gpucloud/token-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'assistant-token-cache-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const cacheIn = (name: string) => TokenFileCache.for(join(dir, name), 'client-1', 'https://api.example.test').keyed('secret-1');

test('a written token reads back; a missing or malformed file reads as no token', async () => {
  const cache = cacheIn('roundtrip');
  assert.is(await cache.read(), undefined);
  await cache.write({ accessToken: 'tok-1', expiresAt: 1_900_000_000_000 });
  assert.equal(await cache.read(), { accessToken: 'tok-1', refreshToken: undefined, expiresAt: 1_900_000_000_000 });
  writeFileSync(cache.file, '{"access_token": 5}');
  assert.is(await cache.read(), undefined);
  writeFileSync(cache.file, 'not json');
  assert.is(await cache.read(), undefined);
});

test('a FIFO at the cache path reads as no token instead of waiting for a writer', async () => {
  const cache = cacheIn('fifo');
  await cache.write({ accessToken: 'tok-2', expiresAt: 1_900_000_000_000 });
  rmSync(cache.file);
  const made = spawnSync('mkfifo', [cache.file]);
  assert.is(made.status, 0, `mkfifo failed: ${made.stderr?.toString()}`);
  // Read in a child process: a blocking read (a synchronous open of the FIFO) holds that process's event
  // loop, not this file's, and is killed after 60 s instead of hanging the whole file.
  const module = new URL('../../../engine/providers/gpucloud/token-cache.js', import.meta.url).href;
  const script = `const { TokenFileCache } = await import(${JSON.stringify(module)});
    const read = await TokenFileCache.for(${JSON.stringify(join(dir, 'fifo'))}, 'client-1', 'https://api.example.test').keyed('secret-1').read();
    process.stdout.write(JSON.stringify({ read: read ?? null }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.is(child.signal, null, 'the read did not hang (killed after 60 s)');
  assert.is(child.status, 0, child.stderr);
  assert.equal(JSON.parse(child.stdout), { read: null });
  assert.is(await cache.read(), undefined, 'and in this process too');
  // The client then writes a fresh token over it, as a file.
  await cache.write({ accessToken: 'tok-3', expiresAt: 1_900_000_000_000 });
  assert.is((await cache.read())?.accessToken, 'tok-3');
});

test.run();
