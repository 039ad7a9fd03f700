import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyConfig, type Config } from '../../schemas/config.js';
import {
  NoCredentialsError,
  normaliseBaseUrl,
  predefinedBindings,
  resolveGpuCloudCredentials,
  resolveRateLimit,
} from '../../engine/providers/gpucloud/credentials.js';
import { parseConfigText } from '../../engine/providers/config.js';
import { redactText } from '../../engine/core/redact.js';
import { rejectionOf } from '../support/errors.js';
import { tempDir } from '../support/temp.js';

function tempHome(): string {
  return tempDir('assistant-creds-');
}

async function config(yaml: string): Promise<Config> {
  return (await parseConfigText(yaml, 'test.yaml')).config;
}

function writeCredentialsFile(home: string, text: string): string {
  mkdirSync(join(home, '.gpucloud'), { recursive: true });
  const file = join(home, '.gpucloud', 'credentials');
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

const noCredentials = (fn: () => Promise<unknown>) => rejectionOf(fn, NoCredentialsError);

const CONFIG_CREDS = 'gpucloud:\n  client_id: cfg-id\n  client_secret: cfg-secret-123\n  default_project_id: cfg-proj\n';
const ENV_CREDS = { GPUCLOUD_CLIENT_ID: 'env-id', GPUCLOUD_CLIENT_SECRET: 'env-secret-123', GPUCLOUD_PROJECT_ID: 'env-proj' };
const FILE_CREDS = '[default]\nclient_id = file-id\nclient_secret = file-secret-123\n\n[staging]\nclient_id = stg-id\nclient_secret = stg-secret-123\nbase_url = https://staging.example.com/v1/\n';

test('config beats env beats credentials file', async () => {
  const home = tempHome();
  writeCredentialsFile(home, FILE_CREDS);
  const c = await resolveGpuCloudCredentials({ config: await config(CONFIG_CREDS), env: ENV_CREDS, home });
  assert.is(c.source, 'config');
  assert.is(c.clientId, 'cfg-id');
  assert.is(c.clientSecret, 'cfg-secret-123');
  assert.is(c.projectId, 'cfg-proj');
  assert.match(c.sourceDetail, join(home, '.assistant.yaml'));

  const e = await resolveGpuCloudCredentials({ config: emptyConfig(), env: ENV_CREDS, home });
  assert.is(e.source, 'env');
  assert.is(e.clientId, 'env-id');
  assert.is(e.projectId, 'env-proj');
  assert.match(e.sourceDetail, 'GPUCLOUD_CLIENT_ID');
});

test('config alone', async () => {
  const c = await resolveGpuCloudCredentials({ config: await config(CONFIG_CREDS), env: {}, home: tempHome() });
  assert.is(c.source, 'config');
  assert.is(c.baseUrl, 'https://api.verda.com');
  assert.is(c.authUrl, 'https://api.verda.com/v1/oauth2/token');
  assert.equal(c.warnings, []);
});

test('env alone; project id optional', async () => {
  const c = await resolveGpuCloudCredentials({
    config: emptyConfig(),
    env: { GPUCLOUD_CLIENT_ID: 'env-id', GPUCLOUD_CLIENT_SECRET: 'env-secret-123' },
    home: tempHome(),
  });
  assert.is(c.source, 'env');
  assert.is(c.projectId, undefined);
  assert.not.ok('projectId' in c);
});

test('credentials file alone, default profile', async () => {
  const home = tempHome();
  const file = writeCredentialsFile(home, FILE_CREDS);
  const c = await resolveGpuCloudCredentials({ config: emptyConfig(), env: {}, home });
  assert.is(c.source, 'credentials-file');
  assert.is(c.clientId, 'file-id');
  assert.is(c.clientSecret, 'file-secret-123');
  assert.is(c.sourceDetail, `credentials file ${file} [default]`);
  assert.is(c.baseUrl, 'https://api.verda.com');
});

test('GPUCLOUD_PROFILE selects a section, whose base_url is used', async () => {
  const home = tempHome();
  writeCredentialsFile(home, FILE_CREDS);
  const c = await resolveGpuCloudCredentials({ config: emptyConfig(), env: { GPUCLOUD_PROFILE: 'staging' }, home });
  assert.is(c.clientId, 'stg-id');
  assert.match(c.sourceDetail, '[staging]');
  assert.is(c.baseUrl, 'https://staging.example.com');
  assert.is(c.authUrl, 'https://staging.example.com/v1/oauth2/token');
});

test('gpucloud.profile in config selects a section; GPUCLOUD_PROFILE overrides it', async () => {
  const home = tempHome();
  writeCredentialsFile(home, FILE_CREDS);
  const cfg = await config('gpucloud:\n  profile: staging\n');
  assert.is((await resolveGpuCloudCredentials({ config: cfg, env: {}, home })).clientId, 'stg-id');
  assert.is((await resolveGpuCloudCredentials({ config: cfg, env: { GPUCLOUD_PROFILE: 'default' }, home })).clientId, 'file-id');
});

test('gpucloud_ prefixed keys in the credentials file', async () => {
  const home = tempHome();
  writeCredentialsFile(
    home,
    '[default]\ngpucloud_client_id = pre-id\ngpucloud_client_secret = pre-secret-123\ngpucloud_base_url = http://127.0.0.1:9999\n',
  );
  const c = await resolveGpuCloudCredentials({ config: emptyConfig(), env: {}, home });
  assert.is(c.clientId, 'pre-id');
  assert.is(c.clientSecret, 'pre-secret-123');
  assert.is(c.baseUrl, 'http://127.0.0.1:9999');
});

test('[profile name] sections are accepted too', async () => {
  const home = tempHome();
  writeCredentialsFile(home, '[profile work]\nclient_id = w-id\nclient_secret = w-secret-123\n');
  const c = await resolveGpuCloudCredentials({ config: emptyConfig(), env: { GPUCLOUD_PROFILE: 'work' }, home });
  assert.is(c.clientId, 'w-id');
});

test('half-set config is skipped for env, with a warning', async () => {
  const c = await resolveGpuCloudCredentials({ config: await config('gpucloud:\n  client_id: only-id\n'), env: ENV_CREDS, home: tempHome() });
  assert.is(c.source, 'env');
  assert.is(c.warnings.length, 1);
  assert.match(c.warnings[0]!, 'gpucloud.client_id is set but gpucloud.client_secret is missing');
});

test('nothing found lists every place looked at, and half-set sources', async () => {
  const home = tempHome();
  const file = writeCredentialsFile(home, '[other]\nclient_id = x\nclient_secret = y-secret-123\n');
  const err = await noCredentials(async () =>
    resolveGpuCloudCredentials({
      config: await config('gpucloud:\n  client_secret: half-secret-1\n'),
      env: { GPUCLOUD_CLIENT_ID: 'env-only-id' },
      home,
      configPath: '/etc/team.yaml',
    }),
  );
  assert.is(err.code, 'no_credentials');
  assert.is(err.exitCode, 2);
  const m = err.message;
  assert.match(m, 'config file /etc/team.yaml (gpucloud.client_id, gpucloud.client_secret)');
  assert.match(m, 'gpucloud.client_secret is set but gpucloud.client_id is missing');
  assert.match(m, 'environment (GPUCLOUD_CLIENT_ID, GPUCLOUD_CLIENT_SECRET)');
  assert.match(m, 'GPUCLOUD_CLIENT_ID is set but GPUCLOUD_CLIENT_SECRET is missing');
  assert.match(m, `credentials file ${file} (profile [default]`);
  assert.match(m, 'no [default] profile (profiles: other)');
  assert.not.match(m, '\n');
  assert.is(err.searched.length, 3);
  assert.match(err.hint!, 'client_id <CLIENT_ID> and client_secret <CLIENT_SECRET> under "gpucloud:"');
  assert.is(redactText(err.hint!), err.hint!);
  assert.match(err.hint!, 'GPUCLOUD_CLIENT_SECRET');
  assert.match(err.hint!, '--sandbox');
  assert.not.match(redactText(m), 'half-secret-1');
});

test('nothing at all: every place reported as not set / not found', async () => {
  const home = tempHome();
  const err = await noCredentials(() => resolveGpuCloudCredentials({ config: emptyConfig(), env: {}, home }));
  assert.match(err.message, `config file ${join(home, '.assistant.yaml')} (gpucloud.client_id, gpucloud.client_secret): not set`);
  assert.match(err.message, 'environment (GPUCLOUD_CLIENT_ID, GPUCLOUD_CLIENT_SECRET): not set');
  assert.match(err.message, `credentials file ${join(home, '.gpucloud', 'credentials')} (profile [default]: client_id, client_secret): file not found`);
});

test('credentials file profile with only an id is reported half-set', async () => {
  const home = tempHome();
  writeCredentialsFile(home, '[default]\nclient_id = lonely\n');
  const err = await noCredentials(() => resolveGpuCloudCredentials({ config: emptyConfig(), env: {}, home }));
  assert.match(err.message, 'client_id is set but client_secret is missing');
});

test('base URL: env > config > default; trailing / and /v1 stripped', async () => {
  const home = tempHome();
  const cfg = await config(CONFIG_CREDS + '  base_url: https://cfg.example.com/v1/\n');
  assert.is((await resolveGpuCloudCredentials({ config: cfg, env: {}, home })).baseUrl, 'https://cfg.example.com');
  const viaEnv = await resolveGpuCloudCredentials({ config: cfg, env: { GPUCLOUD_BASE_URL: 'http://127.0.0.1:4000/v1' }, home });
  assert.is(viaEnv.baseUrl, 'http://127.0.0.1:4000');
  assert.is(viaEnv.authUrl, 'http://127.0.0.1:4000/v1/oauth2/token');
  assert.is(normaliseBaseUrl('https://x.example/'), 'https://x.example');
  assert.is(normaliseBaseUrl('https://x.example/v1'), 'https://x.example');
  assert.is(normaliseBaseUrl('https://x.example/api/v1//'), 'https://x.example/api');
  assert.is(normaliseBaseUrl('https://x.example/v10'), 'https://x.example/v10');
});

test('base URL from config beats the credentials file base_url', async () => {
  const home = tempHome();
  writeCredentialsFile(home, FILE_CREDS);
  const c = await resolveGpuCloudCredentials({
    config: await config('gpucloud:\n  base_url: https://cfg.example.com\n'),
    env: { GPUCLOUD_PROFILE: 'staging' },
    home,
  });
  assert.is(c.source, 'credentials-file');
  assert.is(c.baseUrl, 'https://cfg.example.com');
});

test('auth URL: env > config > <baseUrl>/v1/oauth2/token', async () => {
  const home = tempHome();
  const cfg = await config(CONFIG_CREDS + '  auth_url: https://auth.example.com/token\n');
  assert.is((await resolveGpuCloudCredentials({ config: cfg, env: {}, home })).authUrl, 'https://auth.example.com/token');
  assert.is(
    (await resolveGpuCloudCredentials({ config: cfg, env: { GPUCLOUD_AUTH_URL: 'http://127.0.0.1:1/t' }, home })).authUrl,
    'http://127.0.0.1:1/t',
  );
});

test('a malformed GPUCLOUD_BASE_URL is invalid input', async () => {
  try {
    await resolveGpuCloudCredentials({ config: await config(CONFIG_CREDS), env: { GPUCLOUD_BASE_URL: 'not a url' }, home: tempHome() });
    assert.unreachable('should throw');
  } catch (err) {
    assert.is((err as { code?: string }).code, 'invalid_config');
    assert.match((err as Error).message, 'GPUCLOUD_BASE_URL');
  }
});

test('resolved secrets are registered for redaction', async () => {
  const home = tempHome();
  writeCredentialsFile(home, '[default]\nclient_id = r-id\nclient_secret = registered-file-secret\n');
  await resolveGpuCloudCredentials({ config: emptyConfig(), env: {}, home });
  assert.is(redactText('x registered-file-secret y'), 'x *** y');
  await resolveGpuCloudCredentials({ config: emptyConfig(), env: { GPUCLOUD_CLIENT_ID: 'a', GPUCLOUD_CLIENT_SECRET: 'registered-env-secret' }, home });
  assert.is(redactText('registered-env-secret'), '***');
});

test('resolveRateLimit defaults and overrides', async () => {
  assert.equal(resolveRateLimit(emptyConfig()), { perProject: 500, perPath: 60, windowMs: 60000 });
  assert.equal(resolveRateLimit(await config('gpucloud:\n  rate_limit:\n    per_path: 5\n')), { perProject: 500, perPath: 5, windowMs: 60000 });
});

test('predefinedBindings: only the ones set; PROJECT_ID from config, else env', async () => {
  assert.equal(predefinedBindings(emptyConfig(), {}), {});
  assert.equal(predefinedBindings(emptyConfig(), { GPUCLOUD_PROJECT_ID: 'ep' }), { PROJECT_ID: 'ep' });
  const cfg = await config('gpucloud:\n  default_ssh_key_id: k1\n  default_location: FIN-01\n  default_project_id: cp\n');
  assert.equal(predefinedBindings(cfg, { GPUCLOUD_PROJECT_ID: 'ep' }), {
    DEFAULT_SSH_KEY_ID: 'k1',
    DEFAULT_LOCATION: 'FIN-01',
    PROJECT_ID: 'cp',
  });
});

test.run();
