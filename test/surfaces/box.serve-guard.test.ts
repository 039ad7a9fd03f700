/**
 * `box serve`, who gets in: the real server in a child process, real HTTP (fetch and node:http) and
 * WebSocket (`ws`) clients. Bearer only (missing, wrong, digest form, query-string tokens refused),
 * Origin and Host checks, body and frame limits, refusing to start off loopback without a token.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli } from '../support/cli.js';
import { openWs, rawRequest, startBox, type BoxProcess } from '../support/box.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

// Random (a configured token is refused below 128 bits of estimated entropy).
const TOKEN = 'gWJNfQ0rFJUVMt6nBEyH9wjS2-MfKtNKtkyghkfBM3I';
const auth = { authorization: `Bearer ${TOKEN}` };
const homes: string[] = [];
let box: BoxProcess;

test.before(async () => {
  box = await startBox(['--agent', 'empty', '--allow-origin', 'https://app.example.com', '--max-body-kb', '1024'], { env: { ASSISTANT_BOX_TOKEN: TOKEN } });
  homes.push(box.home);
});
test.after(async () => {
  await box?.stop();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

test('healthz needs no token; every other route needs the bearer token', async () => {
  const health = await fetch(`${box.url}/healthz`);
  assert.is(health.status, 200);
  assert.equal(await health.json(), { status: 'ok', agent: 'empty' });
  const missing = await fetch(`${box.url}/v1/box/info`);
  assert.is(missing.status, 401);
  assert.is(missing.headers.get('www-authenticate'), 'Bearer');
  assert.is(((await missing.json()) as any).error.code, 'unauthorized');
  const wrong = await fetch(`${box.url}/v1/box/info`, { headers: { authorization: `Bearer ${TOKEN}x` } });
  assert.is(wrong.status, 401);
  const basic = await fetch(`${box.url}/v1/box/info`, { headers: { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` } });
  assert.is(basic.status, 401, 'only Bearer');
  const ok = await fetch(`${box.url}/v1/box/info`, { headers: auth });
  assert.is(ok.status, 200);
  const info = (await ok.json()) as any;
  assert.is(info.agent.name, 'empty');
  assert.is(info.auth, 'bearer');
  assert.is(info.limits.max_body_bytes, 1024 * 1024);
  const messages = await fetch(`${box.url}/v1/box/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"hi"}' });
  assert.is(messages.status, 401);
  assert.not.match(box.stderr(), new RegExp(TOKEN), 'the token is never logged');
});

test('a token in the query string is refused, even the right one and even with the right header', async () => {
  for (const q of [`?token=${TOKEN}`, `?access_token=${TOKEN}`, `?api_key=x`, `?x=1&Token=${TOKEN}`]) {
    const r = await fetch(`${box.url}/v1/box/info${q}`, { headers: auth });
    assert.is(r.status, 400, q);
    assert.is(((await r.json()) as any).error.code, 'token_in_query', q);
  }
  const ws = await openWs(box.url, auth, `/v1/box/ws?token=${TOKEN}`).then(
    () => undefined,
    (err) => err,
  );
  assert.is(ws?.status, 400, 'the WebSocket upgrade too');
  assert.is((await fetch(`${box.url}/v1/box/info?verbose=1`, { headers: auth })).status, 200, 'other query parameters are fine');
});

test('the digest form (ASSISTANT_BOX_TOKEN_SHA256, as a deployed box gets it) accepts the token and nothing else', async () => {
  const digest = createHash('sha256').update(TOKEN).digest('hex');
  const hashed = await startBox(['--agent', 'empty'], { env: { ASSISTANT_BOX_TOKEN_SHA256: digest } });
  homes.push(hashed.home);
  try {
    assert.is((await fetch(`${hashed.url}/v1/box/info`, { headers: auth })).status, 200);
    assert.is((await fetch(`${hashed.url}/v1/box/info`, { headers: { authorization: `Bearer ${digest}` } })).status, 401, 'the digest is not a token');
    assert.is((await fetch(`${hashed.url}/v1/box/info`)).status, 401);
  } finally {
    await hashed.stop();
  }
});

test('a browser page from another origin is refused over HTTP and WebSocket; an allowed origin gets in', async () => {
  const evil = await fetch(`${box.url}/v1/box/info`, { headers: { ...auth, origin: 'https://evil.example' } });
  assert.is(evil.status, 403);
  assert.is(((await evil.json()) as any).error.code, 'origin_refused');
  const refused = await openWs(box.url, { ...auth, origin: 'https://evil.example' }).then(
    () => undefined,
    (err) => err,
  );
  assert.is(refused?.status, 403, 'cross-site WebSocket refused');
  const nullOrigin = await openWs(box.url, { ...auth, origin: 'null' }).then(
    () => undefined,
    (err) => err,
  );
  assert.is(nullOrigin?.status, 403, 'an opaque origin is refused');
  assert.is((await fetch(`${box.url}/v1/box/info`, { headers: { ...auth, origin: 'https://app.example.com' } })).status, 200);
  const ws = await openWs(box.url, { ...auth, origin: 'https://app.example.com' });
  ws.close();
  const own = await fetch(`${box.url}/v1/box/info`, { headers: { ...auth, origin: box.url } });
  assert.is(own.status, 200, 'the box’s own origin');
});

test('the WebSocket needs the bearer token too', async () => {
  const refused = await openWs(box.url).then(
    () => undefined,
    (err) => err,
  );
  assert.is(refused?.status, 401);
  const ws = await openWs(box.url, auth);
  ws.close();
});

test('on loopback, a Host header that does not name the box is refused (DNS rebinding)', async () => {
  const r = await rawRequest(box.url, { path: '/v1/box/info', headers: { ...auth, host: 'attacker.example:80' } });
  assert.is(r.status, 403);
  assert.is(JSON.parse(r.body).error.code, 'bad_host');
  assert.is((await rawRequest(box.url, { path: '/v1/box/info', headers: { ...auth, host: `localhost:${new URL(box.url).port}` } })).status, 200);
});

test('a 2 MB body is refused with 413, declared or streamed; a 2 MB WebSocket frame closes the socket (1009)', async () => {
  const big = JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024) });
  const declared = await rawRequest(box.url, { method: 'POST', path: '/v1/box/messages', headers: { ...auth, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) }, body: big });
  assert.is(declared.status, 413);
  assert.is(JSON.parse(declared.body).error.code, 'body_too_large');
  const streamed = await rawRequest(box.url, { method: 'POST', path: '/v1/box/messages', headers: { ...auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: big });
  assert.is(streamed.status, 413);
  const ws = await openWs(box.url, auth);
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('error', () => undefined);
  ws.send(big);
  assert.is(await closed, 1009);
  // The box still serves.
  assert.is((await fetch(`${box.url}/healthz`)).status, 200);
});

test('no route runs commands: shell-like paths are 404, wrong methods 405', async () => {
  for (const path of ['/v1/box/shell', '/v1/box/exec', '/v1/box/run', '/v1/box/messages/run']) {
    const r = await fetch(`${box.url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"command":"id"}' });
    assert.is(r.status, 404, path);
  }
  const r = await fetch(`${box.url}/v1/box/messages`, { headers: auth });
  assert.is(r.status, 405);
  assert.is(r.headers.get('allow'), 'POST');
});

test('the empty agent takes no messages (501), and bad bodies are 400/415 before any agent runs', async () => {
  const post = (body: string, type = 'application/json') => fetch(`${box.url}/v1/box/messages`, { method: 'POST', headers: { ...auth, 'content-type': type }, body });
  const none = await post('{"message":"hello"}');
  assert.is(none.status, 501);
  assert.is(((await none.json()) as any).error.code, 'no_agent');
  assert.is((await post('{"message":')).status, 400);
  const unknown = await post('{"message":"hi","command":"id"}');
  assert.is(unknown.status, 400);
  assert.match(((await unknown.json()) as any).error.message, /unknown field/);
  assert.is((await post('{"message":""}')).status, 400);
  assert.is((await post('{"message":"hi","session_id":"not-a-uuid"}')).status, 400);
  assert.is((await post('{"message":"hi","mode":"shell"}')).status, 400);
  assert.is((await post('message=hi', 'application/x-www-form-urlencoded')).status, 415);
});

test('off loopback without a token the box refuses to start (exit 2); a short token is refused too; with one it starts', async () => {
  const none = await runCli(['box', 'serve', '--agent', 'empty', '--listen', '0.0.0.0:0']);
  assert.is(none.code, 2, none.stderr);
  assert.match(none.stderr, /^error: usage: listening on 0\.0\.0\.0 \(not loopback\) needs a token/m);
  assert.match(none.stderr, /^hint: set ASSISTANT_BOX_TOKEN/m);
  const short = await runCli(['box', 'serve', '--agent', 'empty', '--listen', '0.0.0.0:0'], { env: { ASSISTANT_BOX_TOKEN: 'short' } });
  assert.is(short.code, 2, short.stderr);
  assert.match(short.stderr, /token_too_short/);
  const open = await startBox(['--agent', 'empty', '--listen', '0.0.0.0:0'], { env: { ASSISTANT_BOX_TOKEN: TOKEN } });
  homes.push(open.home);
  try {
    const port = new URL(open.url).port;
    assert.is((await fetch(`http://127.0.0.1:${port}/v1/box/info`)).status, 401);
    assert.is((await fetch(`http://127.0.0.1:${port}/v1/box/info`, { headers: auth })).status, 200);
  } finally {
    assert.is(await open.stop(), 0);
  }
  for (const r of [none, short]) homes.push(r.home);
});

test.run();
