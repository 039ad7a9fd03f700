/**
 * The OAuth scope over real HTTP (issue 39 item 7): the client names `cloud-api-v1` in every
 * client-credentials token request, and the emulator refuses a token request for any other scope the
 * way the API's token endpoint answers a bad request (400 `{code: "invalid_scope", message}`), while a
 * request without a scope still gets the server's default.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Emulator } from '../../../emulator/index.js';
import { TokenManager } from '../../../engine/providers/gpucloud/auth.js';
import { createGpuCloudClient } from '../../../engine/providers/gpucloud/client.js';
import { GpuCloudError } from '../../../engine/providers/gpucloud/errors.js';
import { emulatorForFile } from '../../support/emulator.js';

let emu: Emulator;
emulatorForFile(test, { seed: 'empty' }, (e) => (emu = e));

const tokenUrl = () => `${emu.url}/v1/oauth2/token`;
const post = (body: unknown, type = 'application/json') =>
  fetch(tokenUrl(), { method: 'POST', headers: { 'content-type': type }, body: type === 'application/json' ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>).toString() });
const credentials = () => ({ grant_type: 'client_credentials', client_id: emu.clientId, client_secret: emu.clientSecret });
/** The token requests the emulator saw (recorded with the secret redacted). */
const tokenBodies = () => emu.requests().filter((r) => r.path === '/v1/oauth2/token').map((r) => JSON.parse(r.body ?? '{}') as Record<string, unknown>);

test('the client asks for scope cloud-api-v1 by name, and the token it gets works', async () => {
  const c = createGpuCloudClient({ baseUrl: emu.url, credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret } });
  const r = await c.request({ method: 'GET', path: '/v1/balance' });
  assert.is(r.status, 200);
  const bodies = tokenBodies();
  assert.is(bodies.length, 1);
  assert.is(bodies[0]!.grant_type, 'client_credentials');
  assert.is(bodies[0]!.scope, 'cloud-api-v1');
});

test('another scope is refused with 400 invalid_scope (the old fullAccess, a second scope, an empty one), JSON and form-encoded alike', async () => {
  for (const scope of ['fullAccess', 'cloud-api-v1 admin', 'CLOUD-API-V1', '']) {
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      const r = await post({ ...credentials(), scope }, type);
      assert.is(r.status, 400, `${JSON.stringify(scope)} ${type}`);
      assert.equal(await r.json(), { code: 'invalid_scope', message: 'The requested scope is invalid: this API issues only cloud-api-v1' });
    }
  }
  // No scope is the server's default; naming cloud-api-v1 (once, or repeated) is granted.
  for (const extra of [{}, { scope: 'cloud-api-v1' }, { scope: 'cloud-api-v1 cloud-api-v1' }]) {
    const r = await post({ ...credentials(), ...extra });
    assert.is(r.status, 200, JSON.stringify(extra));
    assert.is(((await r.json()) as { scope: string }).scope, 'cloud-api-v1');
  }
});

test('wrong credentials are still 401 whatever the scope: the client is authenticated before its scope is judged', async () => {
  const r = await post({ ...credentials(), client_secret: 'wrong', scope: 'fullAccess' });
  assert.is(r.status, 401);
  assert.is(((await r.json()) as { code: string }).code, 'unauthorized_request');
});

test('a refresh that names another scope is refused and does not use up the refresh token', async () => {
  const first = (await (await post(credentials())).json()) as { refresh_token: string };
  const bad = await post({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'fullAccess' });
  assert.is(bad.status, 400);
  assert.is(((await bad.json()) as { code: string }).code, 'invalid_scope');
  const good = await post({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
  assert.is(good.status, 200, 'the refused request left the refresh token valid');
});

test('a token manager asking for another scope gets the endpoint\'s error: invalid_scope with a hint to make new credentials, no token', async () => {
  const manager = new TokenManager({
    credentials: { clientId: emu.clientId, clientSecret: emu.clientSecret },
    tokenPath: '/v1/oauth2/token',
    scope: 'fullAccess',
    post: async (body) => {
      const r = await post(body);
      return { status: r.status, text: await r.text(), attempts: 1 };
    },
  });
  const err = await manager.getToken().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, GpuCloudError);
  const e = err as GpuCloudError;
  assert.is(e.code, 'invalid_scope');
  assert.is(e.status, 400);
  assert.match(e.hint ?? '', /cloud-api-v1 token.*create new Cloud API credentials/);
  assert.is(tokenBodies().at(-1)!.scope, 'fullAccess');
});

test.run();
