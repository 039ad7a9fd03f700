/**
 * The client side of the credential backend: `credentials store` input rules (fields per provider,
 * secrets from stdin, values kept as typed, cloud_a profiles and session keys), and the transport rules
 * (never plain HTTP off this machine, never a redirect to another origin).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asClient, backendForFile, type BackendProcess } from '../support/backend.js';
import { cliInThisProcess, runCli, tempHome } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

let backend: BackendProcess;
let key = '';

backendForFile(test, 'team-c', (b, k) => ((backend = b), (key = k)));

const call = (path: string) => fetch(`${backend.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

test('the client refuses plain HTTP to a host that is not this machine, before sending anything', async () => {
  const home = tempHome();
  const r = await runCli(['credentials', 'list'], { home, env: { ASSISTANT_BACKEND_URL: 'http://backend.invalid:8790', ASSISTANT_BACKEND_API_KEY: key } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: insecure_backend_url: refusing to send the backend API key over plain HTTP to backend\.invalid:8790/m);
  assert.not.ok(r.stderr.includes(key));
});

test('the client follows no redirect to another origin: the key never reaches it', async () => {
  const seen: string[] = [];
  const listen = (s: Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
  const other = createServer((req, res) => {
    seen.push(String(req.headers.authorization ?? 'none'));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"credentials":[]}');
  });
  const otherPort = await listen(other);
  const redirector = createServer((req, res) => res.writeHead(307, { location: `http://127.0.0.1:${otherPort}${req.url}` }).end());
  const port = await listen(redirector);
  try {
    const home = tempHome();
    const r = await runCli(['credentials', 'list'], { home, env: { ASSISTANT_BACKEND_URL: `http://127.0.0.1:${port}`, ASSISTANT_BACKEND_API_KEY: key } });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error: backend_redirect_refused: the credential backend at http:\/\/127\.0\.0\.1:\d+ redirected to another origin/m);
    assert.equal(seen, [], 'the other origin got no request');
  } finally {
    redirector.close();
    other.close();
  }
});

test('store: fields per provider, secrets from stdin or refused without a terminal, a command-line secret warned about', async () => {
  const home = tempHome();
  const env = asClient(backend, key);
  const stray = await runCli(['credentials', 'store', 'gpucloud', '--client-id', 'a', '--token', 'b'], { home, env });
  assert.is(stray.code, 2);
  assert.match(stray.stderr, /--token is not a field of gpucloud/);
  const noSecret = await runCli(['credentials', 'store', 'gpucloud', '--client-id', 'a'], { home, env });
  assert.is(noSecret.code, 2);
  assert.match(noSecret.stderr, /gpucloud needs --client-secret[\s\S]*hint: give "--client-secret -" and pipe the value in/);
  const onLine = await runCli(['credentials', 'store', 'cloud_d', '--secret-id', '000123', '--secret-key', '00099887766778'], { home, env });
  assert.is(onLine.code, 0, onLine.stderr);
  const cloudD = (await (await call('/v1/credentials/production/cloud_d/default')).json()) as { fields: Record<string, string> };
  assert.equal(cloudD.fields, { secret_id: '000123', secret_key: '00099887766778' }, 'number-looking values are kept as typed');
  assert.match(onLine.stderr, /warning: --secret-key on the command line lands in your shell history/);
  assert.not.ok(onLine.stderr.includes('00099887766778'));
  const k8s = await runCli(['credentials', 'store', 'k8s'], { home, env });
  assert.is(k8s.code, 2);
  assert.match(k8s.stderr, /k8s kubeconfigs come later/);
  const noKey = await runCli(['credentials', 'list'], { home });
  assert.is(noKey.code, 2);
  assert.match(noKey.stderr, /^error: usage: no backend API key configured/m);
});

test("cloud_a stores a profile's long-term keys; expiring session keys only with --allow-session", async () => {
  const home = tempHome();
  mkdirSync(join(home, '.aws'));
  writeFileSync(
    join(home, '.aws', 'credentials'),
    '[prod]\naws_access_key_id = AKIAEXAMPLEPROD00001\naws_secret_access_key = prod-secret-access-key-0001\n' +
      '[temp]\naws_access_key_id = ASIAEXAMPLETEMP00001\naws_secret_access_key = temp-secret-0001\naws_session_token = temp-session-token-0001\n',
  );
  writeFileSync(join(home, '.aws', 'config'), '[profile prod]\nregion = eu-west-1\n');
  const env = asClient(backend, key);
  const prod = await runCli(['credentials', 'store', 'cloud_a', '--profile', 'prod', '-o', 'json'], { home, env });
  assert.is(prod.code, 0, prod.stderr);
  assert.is(JSON.parse(prod.stdout).name, 'prod');
  const stored = (await (await call('/v1/credentials/production/cloud_a/prod')).json()) as { fields: unknown };
  assert.equal(stored.fields, { access_key_id: 'AKIAEXAMPLEPROD00001', secret_access_key: 'prod-secret-access-key-0001', region: 'eu-west-1' });
  const temp = await runCli(['credentials', 'store', 'cloud_a', '--profile', 'temp'], { home, env });
  assert.is(temp.code, 3, temp.stderr);
  assert.match(temp.stderr, /expiring session keys/);
  assert.is((await call('/v1/credentials/production/cloud_a/temp')).status, 404, 'nothing was stored');
  const allowed = await runCli(['credentials', 'store', 'cloud_a', '--profile', 'temp', '--allow-session'], { home, env });
  assert.is(allowed.code, 0, allowed.stderr);
});

test('a backend that never answers: --timeout ends the command with exit 1, not "no credentials"', async () => {
  const { createServer: createTcpServer } = await import('node:net');
  const silent = createTcpServer((socket) => socket.on('error', () => undefined));
  const port = await new Promise<number>((resolve) => silent.listen(0, '127.0.0.1', () => resolve((silent.address() as AddressInfo).port)));
  try {
    const home = tempHome();
    const r = await runCli(['--timeout', '3', 'gpucloud', 'list', 'instances'], {
      home,
      env: { ASSISTANT_BACKEND_URL: `http://127.0.0.1:${port}`, ASSISTANT_BACKEND_API_KEY: key, GPUCLOUD_BASE_URL: 'http://127.0.0.1:9' },
    });
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error: timeout: /m);
  } finally {
    silent.close();
  }
});

test.run();
