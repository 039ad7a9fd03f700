/**
 * Which backend, env and key the client uses (SPEC 2.5 `backend.*`), and the transport rule it applies
 * before sending anything.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertSafeTransport, resolveBackendSettings } from '../../engine/core/config/backend-store.js';
import { parseConfigText } from '../../engine/providers/config.js';

const config = async (text: string) => (await parseConfigText(text, 'test.yaml')).config;

/** What an async call throws, as a function that throws it again (uvu's assert.throws is synchronous). */
async function rethrower(fn: () => Promise<unknown>): Promise<() => void> {
  try {
    await fn();
  } catch (err) {
    return () => {
      throw err;
    };
  }
  return () => undefined;
}

test('without anything configured: no key, env production, the local default URL', async () => {
  const s = resolveBackendSettings(await config(''), {});
  assert.is(s.apiKey, undefined);
  assert.is(s.env, 'production');
  assert.is(s.url, 'http://127.0.0.1:8790');
});

test('env selects backend.urls.<env>; backend.url overrides it; ASSISTANT_BACKEND_URL overrides both', async () => {
  const c = await config('backend:\n  api_key: asb_from_config\n  env: staging\n  urls:\n    staging: https://staging.example.com/\n    production: https://prod.example.com\n');
  const s = resolveBackendSettings(c, {});
  assert.equal([s.env, s.url, s.urlFrom, s.apiKey], ['staging', 'https://staging.example.com', 'backend.urls.staging', 'asb_from_config']);
  const prod = resolveBackendSettings(c, { ASSISTANT_BACKEND_ENV: 'production', ASSISTANT_BACKEND_API_KEY: 'asb_from_env' });
  assert.equal([prod.env, prod.url, prod.apiKey, prod.apiKeyFrom], ['production', 'https://prod.example.com', 'asb_from_env', 'ASSISTANT_BACKEND_API_KEY']);
  const testing = resolveBackendSettings(c, { ASSISTANT_BACKEND_ENV: 'testing' });
  assert.is(testing.url, 'http://127.0.0.1:8790', 'an env without a URL falls back to the local default');
  const withUrl = resolveBackendSettings(await config('backend:\n  url: https://one.example.com\n  urls:\n    production: https://prod.example.com\n'), {});
  assert.is(withUrl.url, 'https://one.example.com');
  assert.is(resolveBackendSettings(c, { ASSISTANT_BACKEND_URL: 'http://127.0.0.1:9999' }).url, 'http://127.0.0.1:9999');
});

test('a wrong env or URL is invalid input; the config schema knows backend.urls', async () => {
  const empty = await config('');
  assert.throws(() => resolveBackendSettings(empty, { ASSISTANT_BACKEND_ENV: 'prod' }), /must be one of testing, staging, production/);
  assert.throws(() => resolveBackendSettings(empty, { ASSISTANT_BACKEND_URL: 'ftp://x' }), /expected an http\(s\) URL/);
  const { warnings } = await parseConfigText('backend:\n  urls:\n    qa: https://x.example.com\n', 'test.yaml');
  assert.match(warnings.join('\n'), /unknown key "backend\.urls\.qa"/);
  assert.throws(await rethrower(() => config('backend:\n  urls:\n    production: not-a-url\n')), /backend\.urls\.production/);
});

test('plain HTTP is allowed to loopback only', async () => {
  for (const ok of ['http://127.0.0.1:8790', 'http://localhost:1', 'http://[::1]:8790', 'https://backend.example.com', 'https://10.1.2.3']) assertSafeTransport(new URL(ok));
  for (const bad of ['http://backend.example.com', 'http://10.1.2.3:8790', 'http://127.0.0.1.example.com', 'http://[::ffff:7f00:1]']) {
    assert.throws(() => assertSafeTransport(new URL(bad)), /refusing to send the backend API key over plain HTTP/, bad);
  }
});

test.run();
