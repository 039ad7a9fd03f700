/** gpucloud client authentication against the emulator: token cache (memory, disk, other processes), refresh, 401 handling, redaction. */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import { createGpuCloudClient } from '../../../engine/providers/gpucloud/client.js';
import { UnauthorizedError } from '../../../engine/providers/gpucloud/errors.js';
import type { ClientEvent, GpuCloudClientOptions } from '../../../engine/providers/gpucloud/types.js';
import { tempDir } from '../../support/temp.js';
import { emulatorForFile } from '../../support/emulator.js';

const CLIENT_JS = new URL('../../../engine/providers/gpucloud/client.js', import.meta.url).href;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const freshDir = () => join(tempDir('gpucloud-auth-'), 'tokens');

let emu: Emulator;
emulatorForFile(test, { seed: 'empty' }, (e) => (emu = e));

function client(extra: Partial<GpuCloudClientOptions> = {}, on: Emulator = emu) {
  return createGpuCloudClient({
    baseUrl: `${on.url}/v1/`,
    credentials: { clientId: 'emu-client', clientSecret: 'emu-secret' },
    retry: { delaysMs: [20, 40, 80] },
    ...extra,
  });
}

/** grant_type of each token request the emulator saw (it records token bodies with secrets redacted). */
function grants(on: Emulator = emu): string[] {
  return on
    .requests()
    .filter((r) => r.path === '/v1/oauth2/token')
    .map((r) => (JSON.parse(r.body ?? '{}') as { grant_type?: string }).grant_type ?? '?');
}

/** Runs a request in a separate Node process with the given cache dir; resolves with the client's stats. */
function requestInChildProcess(dir: string): Promise<{ tokenRequests: number; requests: number }> {
  const script = `
    const { createGpuCloudClient } = await import(${JSON.stringify(CLIENT_JS)});
    const c = createGpuCloudClient({ baseUrl: ${JSON.stringify(emu.url)}, credentials: { clientId: 'emu-client', clientSecret: 'emu-secret' }, tokenCacheDir: ${JSON.stringify(dir)} });
    await c.request({ method: 'GET', path: '/v1/balance' });
    process.stdout.write(JSON.stringify(c.stats));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

test('a token is cached on disk (0600 file, 0700 dir) and reused by another client and another process', async () => {
  const dir = freshDir();
  const first = client({ tokenCacheDir: dir });
  await first.request({ method: 'GET', path: '/v1/balance' });
  await first.request({ method: 'GET', path: '/v1/instances' });
  assert.is(first.stats.tokenRequests, 1);

  const files = readdirSync(dir);
  assert.is(files.length, 1);
  assert.match(files[0]!, /^[0-9a-f]{64}\.json$/);
  assert.is(statSync(join(dir, files[0]!)).mode & 0o777, 0o600);
  assert.is(statSync(dir).mode & 0o777, 0o700);
  const cached = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as Record<string, unknown>;
  assert.type(cached.access_token, 'string');
  assert.type(cached.refresh_token, 'string');
  assert.ok((cached.expires_at as number) > Date.now() + 3_000_000);

  const events: ClientEvent[] = [];
  const second = client({ tokenCacheDir: dir, onEvent: (e) => events.push(e) });
  await second.request({ method: 'GET', path: '/v1/balance' });
  assert.is(second.stats.tokenRequests, 0);
  assert.ok(events.some((e) => e.type === 'token' && e.source === 'disk'));

  const child = await requestInChildProcess(dir);
  assert.equal(child, { ...child, tokenRequests: 0, requests: 1 });
  assert.is(emu.stats().tokenRequests, 1, 'the emulator saw exactly one token request');
});

test('concurrent first calls share one token request', async () => {
  const c = client();
  const results = await Promise.all(Array.from({ length: 12 }, () => c.request({ method: 'GET', path: '/v1/balance' })));
  assert.ok(results.every((r) => r.status === 200));
  assert.is(emu.stats().tokenRequests, 1);
  assert.is(c.stats.tokenRequests, 1);
});

test('an expired token is renewed with the refresh grant; a refused refresh falls back to client credentials', async () => {
  // The client judges expiry by an injected clock, moved past each token's lifetime (an hour) instead
  // of sleeping; the emulator's own tokens stay valid, so only the client's decision is under test.
  let clock = Date.now();
  const short = await startEmulator({ seed: 'empty', tokenTtlSec: 3600 });
  try {
    const events: ClientEvent[] = [];
    const c = client({ tokenCacheDir: freshDir(), onEvent: (e) => events.push(e), now: () => clock }, short);
    await c.request({ method: 'GET', path: '/v1/balance' });
    await c.request({ method: 'GET', path: '/v1/balance' });
    assert.equal(grants(short), ['client_credentials']);

    clock += 3600_000 - 29_000; // inside the 30 s renewal margin
    await c.request({ method: 'GET', path: '/v1/balance' });
    assert.equal(grants(short), ['client_credentials', 'refresh_token']);

    clock += 3600_000 - 29_000;
    short.addFault({ method: 'POST', path: '/v1/oauth2/token', status: 401, code: 'unauthorized_request', message: 'Invalid or expired refresh token' });
    const res = await c.request({ method: 'GET', path: '/v1/balance' });
    assert.is(res.status, 200);
    assert.equal(grants(short), ['client_credentials', 'refresh_token', 'refresh_token', 'client_credentials']);
    assert.equal(
      events.filter((e) => e.type === 'token').map((e) => (e as { source: string }).source),
      ['client_credentials', 'refresh', 'client_credentials'],
    );
    assert.is(short.requests().filter((r) => r.path === '/v1/balance' && r.status === 401).length, 0, 'no API call was sent with an expired token');
  } finally {
    await short.close();
  }
});

test('a 401 on an API call drops the token (memory and disk), re-authenticates once and succeeds', async () => {
  const dir = freshDir();
  const c = client({ tokenCacheDir: dir });
  await c.request({ method: 'GET', path: '/v1/balance' });
  const file = join(dir, readdirSync(dir)[0]!);
  const before = JSON.parse(readFileSync(file, 'utf8')) as { access_token: string };

  emu.addFault({ method: 'GET', path: '/v1/instances', status: 401, code: 'unauthorized_request', message: 'Invalid or expired access token' });
  const res = await c.request({ method: 'GET', path: '/v1/instances' });
  assert.is(res.status, 200);
  assert.is(res.attempts, 2);
  assert.is(emu.stats().tokenRequests, 2);
  assert.equal(grants(), ['client_credentials', 'client_credentials']);
  const after = JSON.parse(readFileSync(file, 'utf8')) as { access_token: string };
  assert.is.not(after.access_token, before.access_token, 'the disk cache holds the new token');
});

test('a persistent 401 surfaces UnauthorizedError after exactly one re-authentication', async () => {
  const c = client();
  emu.addFault({ method: 'GET', path: '/v1/balance', status: 401, code: 'unauthorized_request', message: 'scope mismatch', times: -1 });
  const err = await c.request({ method: 'GET', path: '/v1/balance' }).catch((e: unknown) => e);
  assert.instance(err, UnauthorizedError);
  assert.is((err as UnauthorizedError).message, 'scope mismatch');
  assert.is((err as UnauthorizedError).attempts, 2);
  assert.is(emu.stats().tokenRequests, 2);
  assert.is(emu.requests().filter((r) => r.path === '/v1/balance').length, 2);
});

test('a wrong client secret is an UnauthorizedError with the token endpoint message, not retried', async () => {
  const c = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: 'emu-client', clientSecret: 'wrong-secret' } });
  const err = await c.request({ method: 'GET', path: '/v1/balance' }).catch((e: unknown) => e);
  assert.instance(err, UnauthorizedError);
  assert.is((err as UnauthorizedError).message, 'Invalid client id or client secret');
  assert.is((err as UnauthorizedError).code, 'unauthorized_request');
  assert.is(emu.stats().tokenRequests, 1);
  assert.is(emu.requests().filter((r) => r.path === '/v1/balance').length, 0);
});

test('debug lines never contain the client secret or any token', async () => {
  const short = await startEmulator({ seed: 'empty', tokenTtlSec: 31, clientSecret: 'emu-very-secret-value' });
  try {
    const lines: string[] = [];
    const dir = freshDir();
    const c = createGpuCloudClient({
      baseUrl: short.url,
      credentials: { clientId: 'emu-client', clientSecret: 'emu-very-secret-value' },
      tokenCacheDir: dir,
      retry: { delaysMs: [10] },
      debug: (l) => lines.push(l),
    });
    const tokensSeen = new Set<string>();
    const remember = () => {
      const cached = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')) as { access_token: string; refresh_token: string };
      tokensSeen.add(cached.access_token);
      tokensSeen.add(cached.refresh_token);
    };
    await c.request({ method: 'GET', path: '/v1/balance' });
    remember();
    short.addFault({ method: 'GET', path: '/v1/balance', status: 401 });
    short.addFault({ method: 'GET', path: '/v1/balance', status: 503 });
    await c.request({ method: 'GET', path: '/v1/balance' });
    remember();
    await delay(1100);
    await c.request({ method: 'GET', path: '/v1/balance' }); // refresh grant
    remember();
    await createGpuCloudClient({ baseUrl: short.url, credentials: { clientId: 'emu-client', clientSecret: 'bad-secret-123' }, debug: (l) => lines.push(l) })
      .request({ method: 'GET', path: '/v1/balance' })
      .catch(() => undefined);

    assert.ok(lines.length >= 10, `got ${lines.length} debug lines`);
    assert.ok(lines.some((l) => l.startsWith('→ GET /v1/balance')));
    assert.ok(lines.some((l) => /^← 200 \(\d+ ms\)$/.test(l)));
    assert.ok(tokensSeen.size >= 4);
    const all = lines.join('\n');
    for (const secret of ['emu-very-secret-value', 'bad-secret-123', ...tokensSeen]) assert.not.ok(all.includes(secret), 'a secret leaked into debug output');
    assert.not.match(all, /Bearer|access_token|refresh_token"/);
  } finally {
    await short.close();
  }
});

test.run();
