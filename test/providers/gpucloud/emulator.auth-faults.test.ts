/** Emulator: OAuth tokens, bearer auth, sliding-window rate limits, fault injection and HTTP controls. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runEmulatorForeground, startEmulator, type Emulator } from '../../../emulator/index.js';
import { emulatorClient } from '../../../emulator/test-client.js';
import { testClock } from '../../support/clock.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const post = (url: string, body: string, type = 'application/json') =>
  fetch(url, { method: 'POST', headers: { 'content-type': type }, body });

let emu: Emulator;
test.before.each(async () => {
  emu = await startEmulator({ seed: 'empty', lifecycleMs: 30 });
});
test.after.each(async () => {
  await emu.close();
});

test('client_credentials grant issues a Bearer token with scope cloud-api-v1 and a refresh token', async () => {
  const r = await post(`${emu.url}/v1/oauth2/token`, JSON.stringify({ grant_type: 'client_credentials', client_id: 'emu-client', client_secret: 'emu-secret' }));
  assert.is(r.status, 200);
  const body = (await r.json()) as Record<string, unknown>;
  assert.is(body.token_type, 'Bearer');
  assert.is(body.expires_in, 3600);
  assert.is(body.scope, 'cloud-api-v1');
  assert.type(body.access_token, 'string');
  assert.ok((body.access_token as string).length >= 32);
  assert.type(body.refresh_token, 'string');
  const ok = await fetch(`${emu.url}/v1/balance`, { headers: { authorization: `Bearer ${body.access_token as string}` } });
  assert.is(ok.status, 200);
  assert.equal(await ok.json(), { amount: 1000, currency: 'usd' });
});

test('token endpoint also accepts form-encoded bodies, and refresh_token grants rotate the refresh token', async () => {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: 'emu-client', client_secret: 'emu-secret' });
  const r = await post(`${emu.url}/v1/oauth2/token`, form.toString(), 'application/x-www-form-urlencoded');
  assert.is(r.status, 200);
  const first = (await r.json()) as { refresh_token: string; access_token: string };
  const refreshed = await post(`${emu.url}/v1/oauth2/token`, JSON.stringify({ grant_type: 'refresh_token', refresh_token: first.refresh_token }));
  assert.is(refreshed.status, 200);
  const second = (await refreshed.json()) as { access_token: string };
  assert.is.not(second.access_token, first.access_token);
  const reused = await post(`${emu.url}/v1/oauth2/token`, JSON.stringify({ grant_type: 'refresh_token', refresh_token: first.refresh_token }));
  assert.is(reused.status, 401);
  assert.is(((await reused.json()) as { code: string }).code, 'unauthorized_request');
});

test('token errors use the reference codes and messages', async () => {
  const url = `${emu.url}/v1/oauth2/token`;
  const cases: [unknown, number, string, string][] = [
    [{ grant_type: 'client_credentials', client_secret: 'x' }, 400, 'invalid_request', 'client_id was not specified'],
    [{ grant_type: 'client_credentials', client_id: 'emu-client' }, 400, 'invalid_request', 'client_secret was not specified'],
    [{ grant_type: 'password', client_id: 'a', client_secret: 'b' }, 400, 'invalid_request', 'unsupported grant type'],
    [{ grant_type: 'client_credentials', client_id: 'emu-client', client_secret: 'wrong' }, 401, 'unauthorized_request', 'Invalid client id or client secret'],
  ];
  for (const [body, status, code, message] of cases) {
    const r = await post(url, JSON.stringify(body));
    assert.is(r.status, status, JSON.stringify(body));
    assert.equal(await r.json(), { code, message });
  }
});

test('every other /v1 route requires a valid bearer token (401 unauthorized_request)', async () => {
  for (const headers of [{}, { authorization: 'Bearer not-a-token' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
    const r = await fetch(`${emu.url}/v1/instances`, { headers });
    assert.is(r.status, 401);
    assert.equal(await r.json(), { code: 'unauthorized_request', message: 'Invalid or expired access token' });
  }
  const unknown = await fetch(`${emu.url}/v1/no-such-thing`);
  assert.is(unknown.status, 401, 'auth is checked before routing');
});

test('access tokens expire after tokenTtlSec', async () => {
  const clock = testClock(); // frozen: the token cannot expire between the two first requests
  clock.freeze();
  const short = await startEmulator({ seed: 'empty', tokenTtlSec: 1, clock: clock.now });
  try {
    const c = emulatorClient(short);
    assert.is((await c.call('GET', '/v1/balance')).status, 200);
    clock.advance(1100);
    const r = await c.call('GET', '/v1/balance');
    assert.is(r.status, 401);
    assert.is((r.json as { code: string }).code, 'unauthorized_request');
  } finally {
    await short.close();
  }
});

test('unknown routes answer 404 not_found and malformed JSON answers 400 invalid_request', async () => {
  const c = emulatorClient(emu);
  const r = await c.call('GET', '/v1/does-not-exist');
  assert.is(r.status, 404);
  assert.is((r.json as { code: string }).code, 'not_found');
  const bad = await c.call('POST', '/v1/instances', '{"instance_type": ');
  assert.is(bad.status, 400);
  assert.is((bad.json as { code: string }).code, 'invalid_request');
});

test('per-path sliding window answers 429 rate_limit_exceeded with a whole-second Retry-After, then frees up', async () => {
  const clock = testClock(); // frozen: all requests fall in one window however slow the machine is
  clock.freeze();
  const limited = await startEmulator({ seed: 'empty', rateLimit: { perProject: 100, perPath: 3, windowMs: 1000 }, clock: clock.now });
  try {
    const c = emulatorClient(limited);
    for (let i = 0; i < 3; i++) assert.is((await c.call('GET', '/v1/balance')).status, 200);
    const r = await c.call('GET', '/v1/balance');
    assert.is(r.status, 429);
    assert.is((r.json as { code: string }).code, 'rate_limit_exceeded');
    assert.is(r.headers.get('retry-after'), '1');
    // another path and the token endpoint are not limited by this path's window
    assert.is((await c.call('GET', '/v1/locations')).status, 200);
    assert.is((await c.call('GET', '/v1/balance?currency=usd')).status, 429, 'query is not part of the path key');
    clock.advance(1000);
    assert.is((await c.call('GET', '/v1/balance')).status, 200);
    assert.is(limited.stats().status429, 2);
  } finally {
    await limited.close();
  }
});

test('per-project limit counts every authenticated request but never the token endpoint', async () => {
  const limited = await startEmulator({ seed: 'empty', rateLimit: { perProject: 4, perPath: 100, windowMs: 2000 } });
  try {
    const c = emulatorClient(limited);
    await c.token();
    for (const p of ['/v1/balance', '/v1/locations', '/v1/images', '/v1/sshkeys']) assert.is((await c.call('GET', p)).status, 200);
    const r = await c.call('GET', '/v1/volumes');
    assert.is(r.status, 429);
    const retry = Number(r.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 2, `Retry-After ${retry}`);
    const tok = await post(`${limited.url}/v1/oauth2/token`, JSON.stringify({ grant_type: 'client_credentials', client_id: 'emu-client', client_secret: 'emu-secret' }));
    assert.is(tok.status, 200);
  } finally {
    await limited.close();
  }
});

test('status fault answers {code,message} with Retry-After, is counted down and recorded', async () => {
  const c = emulatorClient(emu);
  await c.token();
  emu.addFault({ method: 'GET', path: '/v1/balance', status: 429, retryAfter: '2', times: 2 });
  const a = await c.call('GET', '/v1/balance');
  assert.is(a.status, 429);
  assert.is(a.headers.get('retry-after'), '2');
  assert.is((a.json as { code: string }).code, 'rate_limit_exceeded');
  assert.is((await c.call('GET', '/v1/balance')).status, 429);
  assert.is((await c.call('GET', '/v1/balance')).status, 200, 'times ran out');
  emu.addFault({ path: '/v1/*', status: 503, code: 'service_unavailable', message: 'capacity' });
  const b = await c.call('GET', '/v1/locations');
  assert.equal([b.status, b.json], [503, { code: 'service_unavailable', message: 'capacity' }]);
  const statuses = emu.requests().filter((r) => r.path !== '/v1/oauth2/token').map((r) => r.status);
  assert.equal(statuses, [429, 429, 200, 503]);
});

test('method-specific faults skip other methods, and faults match in insertion order', async () => {
  const c = emulatorClient(emu);
  emu.addFault({ method: 'POST', path: '/v1/sshkeys', status: 500 });
  emu.addFault({ path: '/v1/sshkeys', status: 502 });
  assert.is((await c.call('GET', '/v1/sshkeys')).status, 502);
  assert.is((await c.call('POST', '/v1/sshkeys', { name: 'k', key: 'bad' })).status, 500);
  assert.is((await c.call('GET', '/v1/sshkeys')).status, 200);
});

test('reset fault destroys the socket without an answer and is recorded with status 0', async () => {
  const c = emulatorClient(emu);
  await c.token();
  emu.addFault({ path: '/v1/balance', reset: true });
  let failed = false;
  try {
    await c.call('GET', '/v1/balance');
  } catch {
    failed = true;
  }
  assert.ok(failed, 'fetch rejects');
  const rec = emu.requests().find((r) => r.path === '/v1/balance');
  assert.is(rec?.status, 0);
  assert.is((await c.call('GET', '/v1/balance')).status, 200);
});

test('delay fault waits before handling normally', async () => {
  const c = emulatorClient(emu);
  await c.token();
  emu.addFault({ path: '/v1/locations', delayMs: 250 });
  const t0 = Date.now();
  const r = await c.call('GET', '/v1/locations');
  assert.is(r.status, 200);
  assert.ok(Date.now() - t0 >= 240, 'delayed');
});

test('afterHandler fault lets the create happen, then answers 500 (instance exists afterwards)', async () => {
  const c = emulatorClient(emu);
  emu.addFault({ method: 'POST', path: '/v1/instances', status: 500, afterHandler: true });
  const r = await c.call('POST', '/v1/instances', {
    instance_type: 'CPU.4V.16G',
    image: 'ubuntu-24.04',
    hostname: 'ambiguous-1',
    description: '',
    location_code: 'FIN-01',
  });
  assert.is(r.status, 500);
  assert.is((r.json as { code: string }).code, 'server_error');
  const list = (await c.call('GET', '/v1/instances')).json as { hostname: string }[];
  assert.equal(list.map((i) => i.hostname), ['ambiguous-1']);

  emu.addFault({ method: 'POST', path: '/v1/sshkeys', reset: true, afterHandler: true });
  await c.call('POST', '/v1/sshkeys', { name: 'after-reset', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBvR3Lfv9j5yYxkXhF2eJ0Rj8tqQ5qO8o5Hq3aY6n0Zp x@y' }).then(
    () => assert.unreachable('should reset'),
    () => undefined,
  );
  const keys = (await c.call('GET', '/v1/sshkeys')).json as { name: string }[];
  assert.ok(keys.some((k) => k.name === 'after-reset'));
});

test('requests() records every /v1 call in order with bodies, redacting the token secret; stats count them', async () => {
  const c = emulatorClient(emu);
  await c.call('GET', '/v1/instances?status=running');
  await c.call('POST', '/v1/scripts', { name: 's', script: '#!/bin/sh\n' });
  const recs = emu.requests();
  assert.equal(recs.map((r) => `${r.method} ${r.path}`), ['POST /v1/oauth2/token', 'GET /v1/instances', 'POST /v1/scripts']);
  assert.is(recs[1].query, 'status=running');
  assert.ok(!recs[0].body?.includes('emu-secret'), 'secret redacted');
  assert.ok(recs[0].body?.includes('emu-client'));
  assert.is(recs[2].body, JSON.stringify({ name: 's', script: '#!/bin/sh\n' }));
  const s = emu.stats();
  assert.is(s.requests, 3);
  assert.is(s.tokenRequests, 1);
  assert.is(s.byRoute['GET /v1/instances'], 1);
  assert.is(s.byRoute['POST /v1/scripts'], 1);
});

test('HTTP control endpoints: faults, requests, stats, balance, reset', async () => {
  const c = emulatorClient(emu);
  const ctl = (method: string, path: string, body?: unknown) =>
    fetch(`${emu.url}/__emulator${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  assert.is((await ctl('GET', '/health')).status, 200);
  assert.is((await ctl('POST', '/faults', [{ path: '/v1/balance', status: 503 }, { path: '/v1/locations', status: 500 }])).status, 200);
  assert.is((await c.call('GET', '/v1/balance')).status, 503);
  assert.is((await ctl('DELETE', '/faults')).status, 200);
  assert.is((await c.call('GET', '/v1/locations')).status, 200, 'cleared');
  assert.equal(await (await ctl('POST', '/balance', { amount: 12.5 })).json(), { amount: 12.5, currency: 'usd' });
  assert.equal((await c.call('GET', '/v1/balance')).json, { amount: 12.5, currency: 'usd' });
  const reqs = (await (await ctl('GET', '/requests')).json()) as { path: string; status: number }[];
  assert.equal(reqs.map((r) => r.status), [200, 503, 200, 200]);
  const stats = (await (await ctl('GET', '/stats')).json()) as { requests: number; tokenRequests: number };
  assert.is(stats.requests, 4);
  assert.is(stats.tokenRequests, 1);
  await c.call('POST', '/v1/sshkeys', { name: 'extra', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBvR3Lfv9j5yYxkXhF2eJ0Rj8tqQ5qO8o5Hq3aY6n0Zp x@y' });
  assert.is((await ctl('POST', '/reset')).status, 200);
  assert.is(emu.requests().length, 0);
  assert.is(((await c.call('GET', '/v1/sshkeys')).json as unknown[]).length, 1, 'back to the seed; the token survives a reset');
  assert.equal((await c.call('GET', '/v1/balance')).json, { amount: 1000, currency: 'usd' });
  assert.is((await ctl('POST', '/faults', { status: 500 })).status, 400, 'a fault needs a path');
});

test('foreground runner prints one listening line with the client id but never the secret', async () => {
  const lines: string[] = [];
  const fg = await runEmulatorForeground({ seed: 'empty', clientSecret: 'top-secret-value' }, (l) => lines.push(l));
  try {
    assert.is(lines.length, 1);
    assert.ok(lines[0].startsWith(`gpucloud emulator listening on ${fg.url} (client_id=emu-client)`), lines[0]);
    assert.ok(!lines[0].includes('top-secret-value'));
    assert.is(fg.clientSecret, 'top-secret-value');
  } finally {
    await fg.close();
  }
});

test.run();
