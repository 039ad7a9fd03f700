import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../engine/providers/config.js';
import { InvalidInputError } from '../../engine/core/errors.js';
import { redactText } from '../../engine/core/redact.js';
import { rejectionOf } from '../support/errors.js';
import { tempDir } from '../support/temp.js';

const EXAMPLE = new URL('../../../examples/assistant.example.yaml', import.meta.url);

function tempHome(): string {
  return tempDir('assistant-config-');
}

function writeConfig(home: string, text: string, mode = 0o600): string {
  const path = join(home, '.assistant.yaml');
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return path;
}

const loadError = (fn: () => Promise<unknown>) => rejectionOf(fn, InvalidInputError);

/** The config file `text` in a fresh home: where it was written and the error loading it fails with. */
async function failedLoad(text: string): Promise<{ err: InvalidInputError; path: string }> {
  const home = tempHome();
  const path = writeConfig(home, text);
  return { err: await loadError(() => loadConfig({ home, env: {} })), path };
}

test('missing default file is an empty config with defaults', async () => {
  const home = tempHome();
  const loaded = await loadConfig({ home, env: {} });
  assert.is(loaded.exists, false);
  assert.is(loaded.path, join(home, '.assistant.yaml'));
  assert.equal(loaded.warnings, []);
  assert.is(loaded.config.gpucloud, undefined);
  assert.equal(loaded.config.ai, { max_prompt_chars: 120000, chunk_chars: 120000, max_chunks: 6 });
});

test('missing --config path is invalid input (exit 2)', async () => {
  const home = tempHome();
  const err = await loadError(() => loadConfig({ path: join(home, 'nope.yaml'), home, env: {} }));
  assert.is(err.exitCode, 2);
  assert.match(err.message, 'nope.yaml');
});

test('--config with ~/ resolves against home', async () => {
  const home = tempHome();
  mkdirSync(join(home, 'cfg'));
  writeFileSync(join(home, 'cfg', 'team.yaml'), 'timeout: 12\n');
  const loaded = await loadConfig({ path: '~/cfg/team.yaml', home, env: {} });
  assert.is(loaded.exists, true);
  assert.is(loaded.config.timeout, 12);
});

test('empty and comment-only files are empty configs', async () => {
  const home = tempHome();
  writeConfig(home, '');
  assert.is((await loadConfig({ home, env: {} })).config.gpucloud, undefined);
  writeConfig(home, '# nothing yet\n');
  assert.is((await loadConfig({ home, env: {} })).exists, true);
});

test('the checked-in example parses with every section and no warnings', async () => {
  const home = tempHome();
  const path = join(home, 'example.yaml');
  writeFileSync(path, readFileSync(EXAMPLE, 'utf8'), { mode: 0o600 });
  const { config, warnings } = await loadConfig({ path, home, env: {} });
  assert.equal(warnings, []);
  const sections = [
    'gpucloud', 'ai', 'infra', 'repohost', 'errtracker', 'issuetracker', 'notes', 'appplatform', 'edge',
    'vps_a', 'vps_b', 'cloud_d', 'agent', 'backend', 'postgres', 'terraform', 'kubernetes', 'cloud_a', 'timeout',
  ];
  for (const s of sections) assert.ok((config as Record<string, unknown>)[s] !== undefined, `section ${s} is present`);
  assert.is(config.gpucloud?.client_id, '<CLIENT_ID>');
  assert.equal(config.gpucloud?.rate_limit, { per_project: 500, per_path: 60, window_ms: 60000 });
  assert.is(config.ai.default_provider, 'openai');
  assert.is(Object.keys(config.ai.providers ?? {}).length, 11);
  assert.is(config.ai.providers?.offline?.provider, 'builtin');
  assert.is(config.infra?.cloud_a?.environments?.prod?.region, 'eu-west-1');
  assert.is(config.postgres?.connections?.analytics?.port, 5432);
  assert.is(config.kubernetes?.clusters?.prod?.type, 'eks');
  assert.equal(config.cloud_a?.service_keywords?.compute, ['instance', 'vm', 'server']);
  assert.is(config.cloud_d?.region, 'ap-singapore');
  assert.is(config.backend?.env, 'production');
  assert.is(config.timeout, 30);
});

test('a full config with real-looking values parses every section', async () => {
  const home = tempHome();
  writeConfig(
    home,
    `gpucloud:
  client_id: id-full
  client_secret: full-secret-value
  default_project_id: proj-1
  default_location: FIN-01
  default_ssh_key_id: key-1
  ssh_key_path: /home/me/.ssh/id
  base_url: http://127.0.0.1:8080/v1
  auth_url: http://127.0.0.1:8080/v1/oauth2/token
  rate_limit: { per_project: 10, per_path: 2, window_ms: 1000 }
  profile: staging
ai:
  default_provider: builtin
  max_chunks: 3
  providers:
    fast: { provider: deepseek, model: m, api_key: ds-key-123456 }
infra: { default_provider: cloud_b, cloud_b: { project_id: p }, cloud_c: { subscription_id: s } }
repohost: { token: rh-token-1234, owner: o, repo: r }
errtracker: { auth_token: et-token-1234, org_slug: o, default_project: p, host: https://et.example }
issuetracker: { api_key: it-key-123456, workspace_id: w, default_team: T }
notes: { integration_token: nt-token-1234, default_database_id: d }
appplatform: { api_token: ap-token-1234, workspace_id: w }
edge: { api_token: ed-token-1234, account_id: a, default_zone: z }
vps_a: { api_token: va-token-1234 }
vps_b: { api_token: vb-token-1234 }
cloud_d: { secret_id: sid, secret_key: cd-secret-1234 }
agent: { path: /bin/agent, model: m, base_url: http://localhost:1, router_api_key: ag-key-123456 }
backend: { api_key: be-key-123456, env: testing, url: http://localhost:2 }
postgres: { default_connection: a, connections: { a: { host: h, port: 1, database: d, username: u } } }
terraform: { default_workspace: w, workspaces: { w: { path: /tf } } }
kubernetes: { kubeconfig: /k, default_context: c, default_namespace: '', clusters: { x: { type: existing, context: c } } }
cloud_a: { service_keywords: { s3: [bucket] } }
timeout: 5
`,
  );
  const { config, warnings } = await loadConfig({ home, env: {} });
  assert.equal(warnings, []);
  assert.is(config.ai.max_chunks, 3);
  assert.is(config.ai.max_prompt_chars, 120000);
  assert.is(config.ai.default_provider, 'builtin');
  assert.is(config.cloud_d?.region, 'ap-singapore');
  assert.is(config.gpucloud?.rate_limit?.window_ms, 1000);
  assert.is(config.kubernetes?.default_namespace, '');
  // every secret value was registered for redaction
  for (const secret of ['full-secret-value', 'ds-key-123456', 'rh-token-1234', 'cd-secret-1234', 'be-key-123456', 'ag-key-123456']) {
    assert.not.match(redactText(`value ${secret} here`), secret);
  }
});

test('wrong type fails with file:line:col and key path', async () => {
  const { err, path } = await failedLoad('gpucloud:\n  client_id: abc\n  rate_limit:\n    per_path: many\n');
  assert.is(err.code, 'invalid_config');
  assert.is(err.exitCode, 2);
  assert.match(err.message, `${path}:4:15: gpucloud.rate_limit.per_path: expected number, got "many"`);
});

test('bad enum and several problems are all listed, in file order', async () => {
  const home = tempHome();
  const path = writeConfig(
    home,
    'timeout: -3\nai:\n  default_provider: gpt-9\nbackend:\n  env: prod\nkubernetes:\n  clusters:\n    c1:\n      type: eks\n',
  );
  const err = await loadError(() => loadConfig({ home, env: {} }));
  const lines = err.message.split('\n');
  assert.is(lines.length, 4);
  assert.match(lines[0]!, `${path}:1:10: timeout:`);
  assert.match(lines[1]!, `${path}:3:21: ai.default_provider: expected one of "openai"`);
  assert.match(lines[1]!, 'got "gpt-9"');
  assert.match(lines[2]!, `${path}:5:8: backend.env: expected one of "testing", "staging", "production"`);
  assert.match(lines[3]!, `${path}:8:5: kubernetes.clusters.c1.name: required when type is eks`);
});

test('a number where a string is expected suggests quoting', async () => {
  const { err } = await failedLoad('gpucloud:\n  client_id: 12345\n');
  assert.match(err.message, ':2:14: gpucloud.client_id: expected string, got number 12345 (put the value in quotes');
});

test('a wrong-typed secret is not echoed in the error', async () => {
  const { err } = await failedLoad('gpucloud:\n  client_secret: 98765432101\n');
  assert.match(err.message, 'gpucloud.client_secret: expected string, got a number (value not shown: secret)');
  assert.not.match(err.message, '98765432101');
  assert.not.match(redactText('98765432101'), '98765432101');
});

test('malformed YAML fails with the line', async () => {
  const { err, path } = await failedLoad('gpucloud:\n  client_id: "abc\n  client_secret: x\n');
  assert.is(err.code, 'invalid_config');
  assert.match(err.message, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: `));
  assert.not.match(err.message, 'at line');
});

test('duplicate keys are malformed YAML', async () => {
  const { err, path } = await failedLoad('timeout: 1\ntimeout: 2\n');
  assert.match(err.message, `${path}:2:`);
  assert.match(err.message, 'unique');
});

test('a top level that is not a mapping is an error', async () => {
  const { err, path } = await failedLoad('- gpucloud\n');
  assert.match(err.message, `${path}:1:1: (top level): expected a mapping`);
});

test('an unknown key that resembles no known key warns with its line and does not fail; the rest still loads', async () => {
  const home = tempHome();
  const path = writeConfig(home, 'gpucloud:\n  client_id: abc\nfrobnicate: true\ntimeout: 9\n');
  const { config, warnings } = await loadConfig({ home, env: {} });
  assert.is(config.timeout, 9);
  assert.is(config.gpucloud?.client_id, 'abc');
  assert.equal(warnings, [`${path}:3: unknown key "frobnicate" (ignored)`]);
});

test('a misspelt key is an error (exit 2) naming the key it probably meant, with every other problem; a secret under it stays redacted', async () => {
  const { err, path } = await failedLoad('gpucloud:\n  client_id: abc\n  client_secert: s3cr3t-value\nbudgte:\n  max_hourly: 5\nfrobnicate: true\ntimeout: 9\n');
  assert.is(err.code, 'invalid_config');
  assert.is(err.exitCode, 2);
  assert.match(err.message, `${path}:3: unknown key "gpucloud.client_secert"; did you mean "gpucloud.client_secret"?`);
  assert.match(err.message, `${path}:4: unknown key "budgte"; did you mean "budget"?`);
  assert.match(err.message, `${path}:6: unknown key "frobnicate" (ignored)`);
  assert.not.match(err.message, 's3cr3t-value');
  assert.not.match(redactText('s3cr3t-value'), 's3cr3t-value');
});

test('unknown keys are listed along with errors (a misspelt key explains a missing one)', async () => {
  const { err, path } = await failedLoad('terraform:\n  workspaces:\n    main:\n      pth: /infra\n');
  assert.match(err.message, `${path}:3:5: terraform.workspaces.main.path: required`);
  assert.match(err.message, `${path}:4: unknown key "terraform.workspaces.main.pth"; did you mean "terraform.workspaces.main.path"?`);
});

test('empty values count as not set', async () => {
  const home = tempHome();
  writeConfig(home, 'gpucloud:\n  client_id:\n  client_secret:\nai:\n');
  const { config, warnings } = await loadConfig({ home, env: {} });
  assert.equal(warnings, []);
  assert.is(config.gpucloud?.client_id, undefined);
  assert.is(config.ai.max_chunks, 6);
});

test('world-readable file with secrets warns like ssh; chmod 600 silences it', async () => {
  const home = tempHome();
  const path = writeConfig(home, 'gpucloud:\n  client_id: abc\n  client_secret: very-secret-1\n', 0o644);
  const loaded = await loadConfig({ home, env: {} });
  assert.equal(loaded.warnings, [`${path} is readable by other users and holds secrets; run chmod 600 ${path}`]);
  chmodSync(path, 0o600);
  assert.equal((await loadConfig({ home, env: {} })).warnings, []);
});

test('world-readable file without secrets does not warn', async () => {
  const home = tempHome();
  writeConfig(home, 'gpucloud:\n  client_id: abc\n  default_location: FIN-01\n', 0o644);
  assert.equal((await loadConfig({ home, env: {} })).warnings, []);
});

test.run();
