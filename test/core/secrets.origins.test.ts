/**
 * A secret goes only to its own host (issue 36 §3): local listeners that record every request's
 * headers stand in for "another host". The code-host token (deploy's clone), the gpucloud client
 * secret and an AI key are each configured for one origin; a request to any other — a deploy URL on
 * another host, a redirect, a plain-http look-alike of loopback — must reach the listener without the
 * secret, or not at all. Driven through the real CLI.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mayCarry, secretFetch, secretOrigins } from '../../engine/core/kits/http/secret-origins.js';
import { isLoopbackHost } from '../../engine/core/loopback.js';
import { emulatorEnv, runCli } from '../support/cli.js';
import { startEmulator } from '../../emulator/index.js';
import { tempDir } from '../support/temp.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

type Recorder = { url: string; seen: Seen[]; close(): Promise<void> };

/** A listener on 127.0.0.1 that records every request and answers with `answer` (404 by default). */
async function recorder(answer: (res: ServerResponse, url: string) => void = (res) => res.writeHead(404).end('no')): Promise<Recorder> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    answer(res, req.url ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const redirectTo = (target: string) => (res: ServerResponse, url: string) => res.writeHead(302, { location: `${target}${url}` }).end();

/** A host that redirects every request elsewhere, both recording: `fn` runs with the two, which are closed after it. */
async function withRedirecting(fn: (host: Recorder, elsewhere: Recorder) => Promise<void>): Promise<void> {
  const elsewhere = await recorder();
  const host = await recorder(redirectTo(elsewhere.url));
  try {
    await fn(host, elsewhere);
  } finally {
    await host.close();
    await elsewhere.close();
  }
}

/** Every header value the listener saw, in one string: a secret in any form (raw, Basic, Bearer) shows up here. */
const headerText = (seen: Seen[]) => JSON.stringify(seen.map((s) => s.headers));

function configFile(text: string): string {
  const dir = tempDir('secret-origins-');
  writeFileSync(join(dir, 'c.yaml'), text, { mode: 0o600 });
  return join(dir, 'c.yaml');
}

const CODE_HOST_TOKEN = 'ghp_originBoundToken0123456789abcdefABCD';
const basic = Buffer.from(`x-access-token:${CODE_HOST_TOKEN}`).toString('base64');

test('loopback and origins are decided on the canonical form', () => {
  for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '[0:0:0:0:0:0:0:1]', new URL('http://0x7f.1/').hostname, new URL('http://2130706433/').hostname, new URL('HTTP://LOCALHOST/').hostname]) {
    assert.ok(isLoopbackHost(h), h);
  }
  for (const h of ['localhost.', 'localhost.example.com', '127.0.0.1.nip.io', '[::2]', '0.0.0.0', '10.0.0.1', '[::ffff:7f00:1]', '[::ffff:808:808]', 'xn--lcalhost-v2a']) assert.not.ok(isLoopbackHost(h), h);
  const gh = secretOrigins('the token', ['https://api.github.com', 'https://github.com']);
  assert.ok(mayCarry(gh, 'https://GitHub.com:443/me/app.git'));
  assert.not.ok(mayCarry(gh, 'https://github.com@evil.example/me/app.git'), 'userinfo: the host is evil.example');
  assert.not.ok(mayCarry(gh, 'https://gіthub.com/me/app.git'), 'a Cyrillic look-alike is its own punycode host');
  assert.not.ok(mayCarry(gh, 'http://github.com/me/app.git'), 'plain http to the right host is refused');
  assert.not.ok(mayCarry(gh, 'https://github.com.evil.example/x'));
  assert.throws(() => secretOrigins('the key', ['http://LOCALHOST.:8080']), /travel in clear/);
  assert.throws(() => secretOrigins('the key', ['http://api.example.com']), /travel in clear/);
  assert.ok(secretOrigins('the key', ['http://[::1]:8080', 'http://127.0.0.1:1']).origins.length === 2);
});

test('secretFetch remembers only what it let through: after many requests to its own host, another host is still refused every time, and sent nothing', async () => {
  const own = await recorder((res) => res.writeHead(200).end('ok'));
  const other = await recorder();
  try {
    const send = secretFetch(secretOrigins('the key', [own.url]));
    const headers = { authorization: 'Bearer origin-bound-key' };
    for (let i = 0; i < 3; i++) assert.is((await send(`${own.url}/v1/instances`, { headers })).status, 200);
    // The same path on the other listener, and URLs that differ from an allowed one only in how they are written.
    const elsewhere = [`${other.url}/v1/instances`, `${own.url}@${new URL(other.url).host}/v1/instances`, `${other.url}/v1/instances#${own.url}`];
    for (let round = 0; round < 2; round++) {
      for (const url of elsewhere) {
        const outcome = await send(url, { headers }).then(() => 'sent', (err: Error) => err.message);
        assert.match(outcome, /may be sent only to/, url);
      }
    }
    assert.is(own.seen.length, 3);
    assert.is(other.seen.length, 0, 'nothing reached the other host');
  } finally {
    await own.close();
    await other.close();
  }
});

test('deploy from a host that is not the code host clones anonymously: the listener gets no token, and the failure says so', async () => {
  const other = await recorder();
  try {
    // The token belongs to the default code host (api.github.com / github.com), not to this listener.
    const cfg = configFile(`repohost:\n  token: ${CODE_HOST_TOKEN}\n`);
    const r = await runCli(['--config', cfg, 'deploy', `${other.url}/me/app.git`], { timeoutMs: 120_000 });
    assert.is(r.code, 1, r.stderr);
    assert.ok(other.seen.length > 0, 'git asked the listener');
    assert.ok(other.seen.every((s) => s.headers.authorization === undefined), headerText(other.seen));
    assert.not.ok(headerText(other.seen).includes(CODE_HOST_TOKEN) || headerText(other.seen).includes(basic));
    assert.match(r.stderr, /error: clone_failed: .*cloned without the code host token: http:\/\/127\.0\.0\.1:\d+ is not its host \(the code host the token belongs to is https:\/\/api\.github\.com, https:\/\/github\.com\)/);
    assert.match(r.stderr, /hint: a token goes only to its own code host/);
    assert.not.ok((r.stdout + r.stderr).includes(CODE_HOST_TOKEN));
    // A URL that names the code host in its user info goes to the listener, and is refused before git runs.
    const before = other.seen.length;
    const userinfo = await runCli(['--config', cfg, 'deploy', `http://api.github.com@${other.url.slice('http://'.length)}/me/app.git`]);
    assert.is(userinfo.code, 2, userinfo.stderr);
    assert.is(other.seen.length, before, 'nothing was sent');
  } finally {
    await other.close();
  }
});

test('the code host itself redirecting elsewhere: its own request carries the token, the redirect is not followed', () =>
  withRedirecting(async (codeHost, elsewhere) => {
    const cfg = configFile(`repohost:\n  token: ${CODE_HOST_TOKEN}\n  base_url: ${codeHost.url}\n`);
    const r = await runCli(['--config', cfg, 'deploy', `${codeHost.url}/me/app.git`], { timeoutMs: 120_000 });
    assert.is(r.code, 1, r.stderr);
    assert.ok(codeHost.seen.some((s) => s.headers.authorization === `Basic ${basic}`), 'the code host got the token');
    assert.equal(elsewhere.seen, [], 'the redirect target got nothing');
  }));

test('the gpucloud client secret goes to its API and token origins only: no redirect, no plain http off loopback', async () => {
  const secret = 'gpucloud-secret-must-stay-home-0123456789';
  await withRedirecting(async (api, elsewhere) => {
    const env = { GPUCLOUD_BASE_URL: api.url, GPUCLOUD_CLIENT_ID: 'client-id', GPUCLOUD_CLIENT_SECRET: secret };
    const r = await runCli(['gpucloud', 'list', 'instances'], { env });
    assert.is(r.code, 1, r.stderr);
    assert.ok(api.seen.some((s) => s.url === '/v1/oauth2/token'), 'the token endpoint was asked');
    assert.equal(elsewhere.seen, [], 'the redirect was not followed');
    assert.not.ok((r.stdout + r.stderr).includes(secret));
    // `localhost.` (with the dot) is a name a resolver may send anywhere: not loopback, so not in clear.
    const dotted = await runCli(['gpucloud', 'list', 'instances'], { env: { ...env, GPUCLOUD_BASE_URL: `http://localhost.:${new URL(elsewhere.url).port}` } });
    assert.is(dotted.code, 2, dotted.stderr);
    assert.match(dotted.stderr, /error: insecure_url: the gpucloud credentials would travel in clear to http:\/\/localhost\.:\d+/);
    const clear = await runCli(['gpucloud', 'list', 'instances'], { env: { ...env, GPUCLOUD_BASE_URL: 'http://gpucloud.example.com' } });
    assert.is(clear.code, 2, clear.stderr);
    assert.match(clear.stderr, /insecure_url/);
    assert.equal(elsewhere.seen, [], 'nothing was sent');
  });
});

test('an AI key goes to its endpoint only: a redirect is not followed, and plain http off loopback is refused', async () => {
  const key = 'sk-origin-bound-ai-key-0123456789abcdef';
  await withRedirecting(async (endpoint, elsewhere) => {
    const ai = (base: string) => configFile(`ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key: ${key}\n      base_url: ${base}\n`);
    const r = await runCli(['--sandbox', '--config', ai(`${endpoint.url}/v1`), 'ask', 'what is the capital of France?'], { timeoutMs: 120_000 });
    assert.not.equal(r.code, 0, r.stderr);
    assert.ok(endpoint.seen.some((s) => s.headers.authorization === `Bearer ${key}`), `the endpoint got the key:\n${r.stderr}`);
    assert.equal(elsewhere.seen, [], 'the redirect target got nothing');
    // Against the real cloud's path (the emulator stands in for gpucloud): --sandbox would refuse the
    // endpoint before this rule is reached (not_in_sandbox).
    const emu = await startEmulator({ seed: 'demo', rateLimit: false });
    const clear = await runCli(['--config', ai('http://models.example.com/v1'), 'ask', '--no-history', 'what is the capital of France?'], { timeoutMs: 120_000, env: emulatorEnv(emu) }).finally(() => emu.close());
    assert.is(clear.code, 2, clear.stderr);
    assert.match(clear.stderr, /error: insecure_url: the openai API key would travel in clear to http:\/\/models\.example\.com/);
    assert.not.ok((r.stdout + r.stderr + clear.stdout + clear.stderr).includes(key));
  });
});

test.run();
