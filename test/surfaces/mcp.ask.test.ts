/**
 * The ask tool answers through the same ask flow as `assistant ask`: a configured AI provider (the real
 * openai SDK against a local OpenAI-compatible server), the built-in provider in the sandbox, and a
 * clear error result when no provider is configured.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator } from '../../emulator/index.js';
import { emulatorEnv, runCli, tempHome } from '../support/cli.js';
import { callTool, connectHttp, connectStdio, errorOf, startMcpServer, textOf } from '../support/mcp.js';
import { startOpenAiServer } from '../support/openai-server.js';

test('assistant_gpucloud_ask answers with the configured AI provider from a read-only context', async () => {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false });
  const ai = await startOpenAiServer();
  const home = tempHome('assistant-mcp-');
  writeFileSync(
    join(home, '.assistant.yaml'),
    `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${ai.baseURL}\n`,
    { mode: 0o600 },
  );
  const server = await startMcpServer(['--listen', '127.0.0.1:0'], { env: { ...emulatorEnv(emu), TEST_AI_KEY: 'sk-test-key-123456' }, home });
  const client = await connectHttp(server.url);
  try {
    ai.reply({ text: 'demo-a100 is running; demo-cpu is offline.' });
    const r = await callTool(client, 'assistant_gpucloud_ask', { question: 'which of my gpucloud instances are running?' });
    assert.not.ok(r.isError, textOf(r));
    assert.is(r.structuredContent.answer, 'demo-a100 is running; demo-cpu is offline.');
    assert.equal(r.structuredContent.providers, ['gpucloud']);
    assert.is(r.structuredContent.ai_provider, 'openai');
    const prompt = JSON.stringify(ai.chatRequests().at(-1));
    assert.match(prompt, /demo-a100/, 'the context read from gpucloud reached the model');
    assert.ok(emu.requests().every((q) => q.method === 'GET' || q.path === '/v1/oauth2/token'), 'only reads were sent');
    assert.not.ok(JSON.stringify(r).includes('sk-test-key-123456'));
  } finally {
    await client.close();
    await server.stop();
    await ai.close();
    await emu.close();
  }
});

test('in the sandbox assistant_gpucloud_ask answers the balance without a model', async () => {
  const { client } = await connectStdio({ args: [], env: {}, home: tempHome('assistant-mcp-'), globalArgs: ['--sandbox'] });
  try {
    const r = await callTool(client, 'assistant_gpucloud_ask', { question: 'what is my balance' });
    assert.not.ok(r.isError, textOf(r));
    assert.match(r.structuredContent.answer, /\d/);
    assert.is(r.structuredContent.ai_provider, 'builtin');
  } finally {
    await client.close();
  }
});

test('assistant_gpucloud_ask reports the ask flow phases as increasing progress to a client that asks for it', async () => {
  const { client, heard } = await connectStdio({ args: [], env: {}, home: tempHome('assistant-mcp-'), globalArgs: ['--sandbox'] });
  try {
    // `onprogress` makes the client send a progress token; what the server sent is read from the wire
    // (heard), where the SDK client's own dispatch cannot drop the last notice (see connectStdio).
    const r = (await client.callTool({ name: 'assistant_gpucloud_ask', arguments: { question: 'what is my balance' } }, undefined, {
      onprogress: () => undefined,
      resetTimeoutOnProgress: true,
    })) as { isError?: boolean };
    assert.not.ok(r.isError);
    const wire = heard() as readonly { id?: unknown; method?: string; result?: unknown; params?: { progress: number; total?: number; message?: string } }[];
    const answeredAt = wire.findIndex((m) => m.result !== undefined && (m.result as { structuredContent?: unknown }).structuredContent !== undefined);
    assert.ok(answeredAt >= 0, 'the result was heard');
    const notices = wire.map((m, i) => ({ m, i })).filter(({ m }) => m.method === 'notifications/progress');
    for (const { i } of notices) assert.ok(i < answeredAt, 'every progress notice came before the result');
    const seen = notices.map(({ m }) => m.params!);
    assert.equal(
      seen.map((p) => p.message),
      ['routing the question', 'reading the cloud', 'writing the answer', 'answered'],
    );
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress > seen[i - 1]!.progress, 'progress only increases');
    assert.is(seen.at(-1)!.progress, seen.at(-1)!.total);
  } finally {
    await client.close();
  }
});

test('without an AI provider assistant_gpucloud_ask is an error result saying how to configure one', async () => {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false });
  const { client } = await connectStdio({ env: { ...emulatorEnv(emu), OPENAI_API_KEY: undefined } });
  try {
    const r = await callTool(client, 'assistant_gpucloud_ask', { question: 'which instances are running?' });
    assert.is(r.isError, true);
    assert.match(errorOf(r).code, /^ai_/);
    assert.match(`${errorOf(r).message} ${errorOf(r).hint ?? ''}`, /ai\.|api_key|OPENAI_API_KEY/);
    assert.match(errorOf(r).hint ?? '', /default_provider: builtin/, 'the offline way in applies to the server too');
  } finally {
    await client.close();
    await emu.close();
  }
});

test('assistant mcp --ai-profile builtin: the ask tool answers offline, as ask --ai-profile builtin does; an unknown profile stops the start (exit 2)', async () => {
  const emu = await startEmulator({ seed: 'demo', rateLimit: false });
  const { client } = await connectStdio({ args: ['--ai-profile', 'builtin'], env: { ...emulatorEnv(emu), OPENAI_API_KEY: undefined } });
  try {
    const r = await callTool(client, 'assistant_gpucloud_ask', { question: 'what is my balance' });
    assert.not.ok(r.isError, textOf(r));
    assert.is(r.structuredContent.ai_provider, 'builtin');
    assert.match(r.structuredContent.answer, /^Your balance is \d+\.\d\d USD\.$/);
  } finally {
    await client.close();
    await emu.close();
  }
  const bad = await runCli(['mcp', '--transport', 'stdio', '--ai-profile', 'no-such-profile'], { env: { OPENAI_API_KEY: undefined } });
  assert.is(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /^error: ai_\w+: .*no-such-profile/m);
});

test.run();
