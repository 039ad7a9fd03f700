/**
 * One debug sink (issue 23 item 4): with --debug every `debug:` line goes through the same redaction
 * as the output, whoever writes it (session, gpucloud client, AI provider, apply observer, MCP server,
 * credentials backend). The real CLI against the emulator and a local OpenAI-compatible server: the
 * gpucloud client secret (registered when credentials resolve) and the AI key from the environment
 * never reach stderr (nor stdout) on the ask, credentials test, mcp, box and apply paths.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createDebug } from '../../commands/output.js';
import { registerSecret } from '../../engine/core/redact.js';
import { memoryStream as memory } from '../support/memory.js';
import { cliInThisProcess, runCli, withEmulator } from '../support/cli.js';
import { callTool, connectStdio } from '../support/mcp.js';
import { openAiServerFor } from '../support/openai-server.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const AI_KEY = 'sk-debug-redact-key-5e1d0c9b8a7f';
const srv = openAiServerFor(test);

function aiConfig(): string {
  const path = join(tempDir('assistant-debug-'), 'c.yaml');
  writeFileSync(path, `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`, { mode: 0o600 });
  return path;
}

function assertClean(what: string, text: string, secrets: string[]): void {
  for (const s of secrets) assert.not.ok(text.includes(s), `${what} shows a secret (${s.slice(0, 6)}…):\n${text}`);
}

test('ctx.debug prefixes every line with "debug: ", masks registered secrets and secret fields, escapes control characters', () => {
  const secret = 'registered-debug-secret-81f2';
  registerSecret(secret);
  const err = memory();
  const debug = createDebug(err.stream, true);
  debug(`token fetched: ${secret}\nsecond line client_secret=abc123def`);
  debug('remote said \u001b]0;pwned\u0007');
  const text = err.text();
  assert.not.ok(text.includes(secret));
  assert.not.ok(text.includes('abc123def'));
  assert.equal(text.split('\n').filter(Boolean).every((l) => l.startsWith('debug: ')), true, text);
  assert.not.ok(text.includes('\u001b'), 'no raw escape sequence reaches the terminal');
  assert.ok(debug.callback, 'on: a callback for engine code');
});

test('without --debug the sink writes nothing and offers no callback', () => {
  const err = memory();
  const debug = createDebug(err.stream, false);
  debug('anything');
  assert.is(err.text(), '');
  assert.is(debug.callback, undefined);
  assert.is(debug.on, false);
});

test('ask --debug: the AI key and the gpucloud secret stay out of stderr and stdout (even when the model echoes them)', async () => {
  await withEmulator(async ({ env, emu }) => {
    srv.reply({ text: `Your key is ${AI_KEY} and the secret ${emu.clientSecret}.`, tokenDelayMs: 1 });
    const r = await runCli(['--debug', '--config', aiConfig(), 'ask', 'what is my balance?'], { env: { ...env, TEST_AI_KEY: AI_KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /^debug: /m);
    assertClean('ask stderr', r.stderr, [AI_KEY, emu.clientSecret]);
    assertClean('ask stdout', r.stdout, [AI_KEY, emu.clientSecret]);
  });
});

test('credentials test --debug: the client secret and the token stay out of stderr', async () => {
  await withEmulator(async ({ env, emu }) => {
    const r = await runCli(['--debug', 'credentials', 'test', 'gpucloud'], { env: { ...env, TEST_AI_KEY: AI_KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /^debug: /m);
    assertClean('credentials test', r.stderr + r.stdout, [AI_KEY, emu.clientSecret]);
  });
});

test('ask --apply --debug (the apply observer and the client): no secret on stderr', async () => {
  await withEmulator(async ({ env, emu }) => {
    const plan = JSON.stringify({ version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/balance'], reason: 'balance' }] });
    const r = await runCli(['--debug', 'ask', '--apply'], { env: { ...env, TEST_AI_KEY: AI_KEY }, input: plan });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /^debug: run: step 0 started/m);
    assertClean('apply', r.stderr + r.stdout, [AI_KEY, emu.clientSecret]);
  });
});

test('box catalog --debug: no secret on stderr', async () => {
  await withEmulator(async ({ env, emu }) => {
    const r = await runCli(['--debug', 'box', 'catalog'], { env: { ...env, TEST_AI_KEY: AI_KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /^debug: /m);
    assertClean('box catalog', r.stderr + r.stdout, [AI_KEY, emu.clientSecret]);
  });
});

test('mcp --debug over stdio: a tool call logs debug lines without the secrets', async () => {
  await withEmulator(async ({ env, emu }) => {
    const { client, stderr } = await connectStdio({ env: { ...env, TEST_AI_KEY: AI_KEY }, globalArgs: ['--debug'] });
    try {
      const r = await callTool(client, 'assistant_cost_summary', {});
      assert.not.ok(r.isError, JSON.stringify(r.content));
    } finally {
      await client.close();
    }
    assert.match(stderr(), /^debug: /m);
    assertClean('mcp', stderr(), [AI_KEY, emu.clientSecret]);
  });
});

test.run();
