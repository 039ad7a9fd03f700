import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../emulator/index.js';
import { runCli, tempHome, withEmulator } from './support/cli.js';
import { startOpenAiServer } from './support/openai-server.js';

test('sandbox: ask --maker writes a plan with the built-in planner, and ask --apply runs it', async () => {
  const home = tempHome();
  const made = await runCli(['--sandbox', 'ask', '--maker', 'create a 1V100.6V instance called maker-1 in FIN-01'], { home });
  assert.is(made.code, 0, made.stderr);
  const plan = JSON.parse(made.stdout);
  assert.is(plan.version, 1);
  assert.is(plan.question, 'create a 1V100.6V instance called maker-1 in FIN-01');
  const applied = await runCli(['--sandbox', 'ask', '--apply', '-o', 'json'], { home, input: made.stdout });
  assert.is(applied.code, 0, applied.stderr);
  assert.is(JSON.parse(applied.stdout).status, 'succeeded');
  const list = await runCli(['--sandbox', 'gpucloud', 'list', 'instances', '-o', 'json'], { home });
  assert.ok((JSON.parse(list.stdout) as { hostname: string }[]).some((i) => i.hostname === 'maker-1'));
});

test('ask --maker refuses a destructive request without --destroyer (exit 3) and allows it with it', async () => {
  const home = tempHome();
  const refused = await runCli(['--sandbox', 'ask', '--maker', 'delete the instance demo-cpu'], { home });
  assert.is(refused.code, 3);
  assert.is(refused.stdout, '', 'nothing on stdout');
  const allowed = await runCli(['--sandbox', 'ask', '--maker', '--destroyer', 'delete the instance demo-cpu'], { home });
  assert.is(allowed.code, 0, allowed.stderr);
  assert.match(JSON.parse(allowed.stdout).commands[0].args[3], /"action":"delete"/);
});

test('a request outside the built-in grammar is exit 2 with how to configure an AI provider', async () => {
  const r = await runCli(['--sandbox', 'ask', '--maker', 'make me a sandwich']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /default_provider/);
});

test('ask --maker with a configured OpenAI-compatible provider: the model gets the schema, the plan is validated and printed', async () => {
  const srv = await startOpenAiServer();
  try {
    await withEmulator(async ({ env }) => {
      const plan = {
        version: 1,
        provider: 'gpucloud',
        commands: [
          {
            args: ['gpucloud-api', 'POST', '/v1/instances', JSON.stringify({ instance_type: '1V100.6V', image: 'ubuntu-24.04-cuda-12.8-open-docker', hostname: 'ai-1', description: '', location_code: 'FIN-01', ssh_key_ids: ['<DEFAULT_SSH_KEY_ID>'] })],
            reason: 'create it',
            produces: { INSTANCE_ID: '$.id' },
          },
        ],
      };
      srv.reply({ text: JSON.stringify({ ...plan, produce: {} }) }, { text: JSON.stringify(plan) }); // a typo first: repaired on attempt 2
      const dir = mkdtempSync(join(tmpdir(), 'assistant-ai-'));
      const config = `gpucloud:\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\nai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n`;
      writeFileSync(join(dir, 'c.yaml'), config, { mode: 0o600 });
      const r = await runCli(['--config', join(dir, 'c.yaml'), 'ask', '--maker', 'a V100 box called ai-1 in FIN-01'], { env: { ...env, TEST_AI_KEY: 'sk-test-key-123456' } });
      assert.is(r.code, 0, r.stderr);
      assert.is(JSON.parse(r.stdout).commands[0].produces.INSTANCE_ID, '$.id');
      const chats = srv.chatRequests();
      assert.is(chats.length, 2, 'the invalid first answer was sent back once');
      assert.match(JSON.stringify(chats[1]!.body), /produce/);
      assert.not.match(r.stdout + r.stderr, /sk-test-key-123456/);
    });
  } finally {
    await srv.close();
  }
});

test.run();
