/**
 * No secret in output (issue 9 §3), through the real CLI: `config show` shows none of a secret's
 * characters and masks URL credentials; tables mask secret-looking values in startup scripts and env
 * values while `-o json` of the resource asked for stays raw; the streamed `ask` answer is redacted
 * like its history copy, also when the secret is split across streamed tokens.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, tempHome, withEmulator } from '../support/cli.js';
import { openAiServerFor } from '../support/openai-server.js';
import { tempDir } from '../support/temp.js';

const srv = openAiServerFor(test);
const T = { timeoutMs: 60_000 };

function writeTemp(name: string, text: string): string {
  const path = join(tempDir('assistant-secrets-'), name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

test('config show prints no character of any secret and masks passwords in URLs', async () => {
  const secret = 'Zq9-client-secret-77aa';
  const urlPassword = 'url-pw-5c1e';
  const aiKey = 'sk-live-abcdefghijklmnop';
  const config = writeTemp(
    'c.yaml',
    `gpucloud:\n  client_id: cid\n  client_secret: ${secret}\n  base_url: https://me:${urlPassword}@api.example.test\n` +
      `ai:\n  providers:\n    local:\n      provider: openai\n      api_key: ${aiKey}\n      local_model_inference_url: http://bob:${urlPassword}@127.0.0.1:11434/v1\n`,
  );
  for (const format of ['yaml', 'json']) {
    const r = await runCli(['--config', config, 'config', 'show', '-o', format], T);
    assert.is(r.code, 0, r.stderr);
    const all = r.stdout + r.stderr;
    for (const s of [secret, aiKey]) assert.not.ok(all.includes(s.slice(0, 4)), `${format}: the first characters of ${s} are shown`);
    assert.not.ok(all.includes(urlPassword), `${format}: a URL password is shown`);
    assert.match(r.stdout, /https:\/\/me:\*\*\*@api\.example\.test/);
    assert.match(r.stdout, /http:\/\/bob:\*\*\*@127\.0\.0\.1:11434/);
  }
});

const SCRIPT_SECRET = 'hf_abcdefghijklmnopqrstuvwx';
const DB_PASSWORD = 'Tr0ub4dor-and-3';
const SCRIPT = `#!/bin/bash\nexport HF_TOKEN=${SCRIPT_SECRET}\ndocker login -u me --password-stdin <<< "x"\nDB_PASSWORD='${DB_PASSWORD}'\necho ready\n`;
const ENV_SECRET = 'plain-env-value-9d8c7b6a';
const containerPlan = () => ({
  version: 1,
  provider: 'gpucloud',
  commands: [
    { args: ['gpucloud-api', 'POST', '/v1/scripts', JSON.stringify({ name: 'with-secrets', script: SCRIPT })], reason: 'a script with secrets' },
    {
      args: [
        'gpucloud-api',
        'POST',
        '/v1/container-deployments',
        JSON.stringify({
          name: 'env-demo',
          is_spot: false,
          compute: { name: 'H100', size: 1 },
          container_registry_settings: { is_private: false },
          scaling: { min_replica_count: 0, max_replica_count: 1, scale_down_policy: { delay_seconds: 300 }, scale_up_policy: { delay_seconds: 0 }, queue_message_ttl_seconds: 300, concurrent_requests_per_replica: 1, scaling_triggers: { queue_load: { threshold: 1 } } },
          containers: [
            {
              image: 'ghcr.io/example/app:v1',
              exposed_port: 8080,
              env: [
                { type: 'plain', name: 'API_TOKEN', value_or_reference_to_secret: ENV_SECRET },
                { type: 'plain', name: 'LOG_LEVEL', value_or_reference_to_secret: 'debug' },
              ],
              volume_mounts: [],
            },
          ],
        }),
      ],
      reason: 'a container with a plain secret env value',
    },
  ],
});

test('tables mask secret-looking values in startup scripts and env values; -o json of the resource asked for stays raw', async () => {
  await withEmulator(async ({ env }) => {
    const applied = await runCli(['ask', '--apply'], { env, input: JSON.stringify(containerPlan()), ...T });
    assert.is(applied.code, 0, applied.stderr);

    const script = await runCli(['gpucloud', 'get', 'script', 'with-secrets'], { env, ...T });
    assert.is(script.code, 0, script.stderr);
    assert.not.ok(script.stdout.includes(SCRIPT_SECRET), script.stdout);
    assert.not.ok(script.stdout.includes(DB_PASSWORD), script.stdout);
    assert.match(script.stdout, /HF_TOKEN=\*\*\*/);
    assert.match(script.stdout, /echo ready/, 'the rest of the script is shown');

    const container = await runCli(['gpucloud', 'get', 'container', 'env-demo'], { env, ...T });
    assert.is(container.code, 0, container.stderr);
    assert.not.ok(container.stdout.includes(ENV_SECRET), container.stdout);
    assert.match(container.stdout, /LOG_LEVEL[\s\S]*debug/, 'harmless env values are shown');

    const rawScript = await runCli(['gpucloud', 'get', 'script', 'with-secrets', '-o', 'json'], { env, ...T });
    assert.is(JSON.parse(rawScript.stdout).script, SCRIPT, 'the user asked for this script as JSON: raw');
    const rawList = await runCli(['gpucloud', 'list', 'containers', '-o', 'json'], { env, ...T });
    assert.ok(rawList.stdout.includes(ENV_SECRET), 'list -o json is the API array unmodified');
  });
});

test('the streamed ask answer is redacted like its history copy, even with the secret split across tokens', async () => {
  await withEmulator(async ({ env }) => {
    const home = tempHome();
    const config = writeTemp(
      'c.yaml',
      `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`,
    );
    const leaked = 'ghp_0123456789abcdefghijABCDEFGHIJ';
    const answer = `Your startup script sets GITHUB_TOKEN=${leaked} and the password: hunter2-x9 for the database.`;
    // Token boundaries cut through the key and the password.
    const tokens = ['Your startup script sets GITHUB_', 'TOKEN=ghp_0123456', '789abcdefghijABCD', 'EFGHIJ and the pass', 'word: hun', 'ter2-x9 for the database.'];
    assert.is(tokens.join(''), answer);
    srv.reply({ text: answer, tokens, tokenDelayMs: 5 });
    const r = await runCli(['--config', config, 'ask', 'what does my startup script do?'], { home, env: { ...env, TEST_AI_KEY: 'sk-test-key-for-ask-1' }, ...T });
    assert.is(r.code, 0, r.stderr);
    for (const s of [leaked, 'ghp_0123', 'hunter2', 'ter2-x9']) assert.not.ok(r.stdout.includes(s), `stdout shows ${s}: ${r.stdout}`);
    assert.is(r.stdout, 'Your startup script sets GITHUB_TOKEN=*** and the password: *** for the database.\n');
    const dir = join(home, '.assistant', 'history');
    const turns = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')).turns;
    assert.is(`${turns[0].answer}\n`, r.stdout, 'the printed answer is the history copy');

    srv.reply({ text: answer, tokens });
    const structured = await runCli(['--config', config, '-o', 'json', 'ask', '--no-history', 'again?'], { home, env: { ...env, TEST_AI_KEY: 'sk-test-key-for-ask-1' }, ...T });
    assert.is(structured.code, 0, structured.stderr);
    assert.is(JSON.parse(structured.stdout).answer, turns[0].answer);
  });
});

test.run();
