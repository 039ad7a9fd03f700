/**
 * `assistant ask "<question>"` end to end: the real CLI in a child process against the gpucloud
 * emulator, the real openai SDK against a local OpenAI-compatible server (scripted replies, recorded
 * requests).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { openAiServerFor } from '../support/openai-server.js';
import { tempDir } from '../support/temp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const KEY = 'sk-ask-test-key-7f3a9c';
const srv = openAiServerFor(test);

/** A config whose openai profile points at the local server; the key comes from TEST_AI_KEY. */
function aiConfig(extra = ''): string {
  const dir = tempDir('assistant-ask-');
  const path = join(dir, 'c.yaml');
  writeFileSync(
    path,
    `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${srv.baseURL}\n${extra}`,
    { mode: 0o600 },
  );
  return path;
}

const userMessage = (body: any): string => body.messages[body.messages.length - 1].content;

test('ask streams the answer to stdout and the chat request carries the instances and balance context', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'You have 2 instances; your balance is 1000.00 USD.', tokenDelayMs: 2 });
    const r = await runCli(['--config', aiConfig(), 'ask', 'how are things'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'You have 2 instances; your balance is 1000.00 USD.\n', 'only the answer, then a newline');
    const chats = srv.chatRequests();
    assert.is(chats.length, 1);
    const body = chats[0]!.body;
    assert.is(body.stream, true, 'the answer is streamed');
    assert.is(body.model, 'test-model');
    const user = userMessage(body);
    assert.match(user, /^instances: \{.*"hostname":"demo-a100"/m);
    assert.match(user, /^balance: \{.*"amount"/m);
    assert.match(user, /Question: how are things/);
    assert.not.match(r.stdout + r.stderr, new RegExp(KEY));
  });
});

test('an answer stream cut off midway keeps what was printed, ends the line and fails (exit 1) without repeating tokens', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'demo-a100 is running and', tokens: ['demo-a100', ' is', ' running', ' and'], tokenDelayMs: 30, cutAfterTokens: 2 });
    srv.setDefault({ text: 'SHOULD NOT BE PRINTED' });
    const r = await runCli(['--config', aiConfig(), 'ask', 'how are my instances'], { env: { ...env, TEST_AI_KEY: KEY }, timeoutMs: 30_000 });
    assert.is(r.code, 1, `stdout: ${JSON.stringify(r.stdout)}\nstderr: ${r.stderr}`);
    assert.is(r.stdout, 'demo-a100 is\n', 'the partial answer, then a newline');
    assert.match(r.stderr, /error: ai_/);
  });
});

test('a question about clusters and availability also reads those kinds', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'none' });
    const r = await runCli(['--config', aiConfig(), 'ask', 'is an instant cluster available in FIN-01?'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 0, r.stderr);
    const user = userMessage(srv.chatRequests()[0]!.body);
    for (const kind of ['instances', 'balance', 'clusters', 'availability']) assert.match(user, new RegExp(`^${kind}: `, 'm'), kind);
    assert.not.match(user, /^volumes: /m, 'volumes were not asked about');
  });
});

test('ask -o json prints the answer with its route, AI provider, model and sizes instead of streaming', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'Two instances.' });
    const r = await runCli(['--config', aiConfig(), 'ask', '-o', 'json', 'how many instances?'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.is(doc.answer, 'Two instances.');
    assert.equal(doc.providers, ['gpucloud']);
    assert.is(doc.ai_provider, 'openai');
    assert.is(doc.model, 'test-model');
    assert.is(doc.summarised, false);
    assert.ok(doc.prompt_chars > doc.context_chars && doc.context_chars > 0);
  });
});

test('--route-only -o json shows providers and matched terms; nothing is read and no AI is asked', async () => {
  // No gpucloud credentials and no AI config: anything beyond routing would fail.
  const a = await runCli(['ask', '--route-only', '-o', 'json', 'is 1H100.80S.22V available for an instant cluster?']);
  assert.is(a.code, 0, a.stderr);
  const da = JSON.parse(a.stdout);
  assert.equal(da.providers, ['gpucloud']);
  assert.equal(da.reasons[0].terms, ['1H100.80S.22V', 'available', 'instant cluster']);
  assert.equal(da.context_kinds, ['instances', 'balance', 'instance-types', 'availability', 'clusters']);
  assert.is(da.defaulted, false);

  const b = await runCli(['ask', '--route-only', '-o', 'json', 'list my ec2 instances and the datacrunch volumes']);
  assert.is(b.code, 0, b.stderr);
  const db = JSON.parse(b.stdout);
  assert.equal(db.providers, ['cloud_a', 'gpucloud']);
  assert.equal(db.reasons.find((x: any) => x.provider === 'cloud_a').terms, ['ec2']);
  assert.ok(db.reasons.find((x: any) => x.provider === 'gpucloud').terms.includes('datacrunch'));

  const c = await runCli(['ask', '--route-only', '--gpucloud', '-o', 'json', 'what is going on']);
  assert.equal(JSON.parse(c.stdout).reasons[0].note, 'selected by the --gpucloud flag');

  const table = await runCli(['ask', '--route-only', 'which instant clusters are running']);
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout, /^PROVIDER\s+MATCHED TERMS/m);
  assert.match(table.stdout, /^gpucloud\s+instant clusters, running/m);
  assert.is(srv.requests.length, 0);
});

test('--agent-trace shows the state sequence on stderr', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'fine' });
    const r = await runCli(['--config', aiConfig(), 'ask', '--agent-trace', 'list my instances'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'fine\n');
    const trace = r.stderr.split('\n').filter((l) => l.startsWith('trace: '));
    assert.equal(trace, ['trace: start -> routing', 'trace: routing -> gatheringContext', 'trace: gatheringContext -> answering', 'trace: answering -> done']);
  });
});

test('--debug prints the prompt sizes on stderr, never the key or the prompt', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'ok' });
    const r = await runCli(['--config', aiConfig(), '--debug', 'ask', 'list my instances'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /debug: ask: route gpucloud, context read: instances, balance; prompt sizes \(characters\): system \d+, context \d+ \(fetched \d+, summarised: no\), question 17, history 0 \(0 turn\(s\)\), total \d+/);
    assert.not.match(r.stderr, new RegExp(KEY));
    assert.not.match(r.stderr, /demo-a100/, 'no prompt contents');
  });
});

test('history: a follow-up question carries the previous turn; the file is 0600 in a 0700 directory and holds no secret', async () => {
  await withEmulator(async ({ env }) => {
    const home = tempHome();
    const config = aiConfig();
    // The model echoes the key: it must not reach the history file.
    srv.reply({ text: `demo-a100 is running (key ${KEY}).` }, { text: 'It costs 1.10 USD per hour.' });
    const first = await runCli(['--config', config, 'ask', 'which instance is running?'], { home, env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(first.code, 0, first.stderr);
    const second = await runCli(['--config', config, 'ask', 'what does it cost?'], { home, env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(second.code, 0, second.stderr);
    assert.is(second.stdout, 'It costs 1.10 USD per hour.\n');

    const [, followUp] = srv.chatRequests();
    const msgs = followUp!.body.messages.filter((m: any) => m.role !== 'system');
    assert.is(msgs.length, 3, 'previous question, previous answer, new question');
    assert.equal(msgs[0], { role: 'user', content: 'which instance is running?' });
    assert.is(msgs[1].role, 'assistant');
    assert.match(msgs[1].content, /^demo-a100 is running/);
    assert.match(msgs[2].content, /Question: what does it cost\?/);

    const dir = join(home, '.assistant', 'history');
    const files = readdirSync(dir);
    assert.is(files.length, 1);
    assert.match(files[0]!, /^openai-[0-9a-f]{16}\.json$/);
    assert.is(statSync(dir).mode & 0o777, 0o700);
    assert.is(statSync(join(dir, files[0]!)).mode & 0o777, 0o600);
    const text = readFileSync(join(dir, files[0]!), 'utf8');
    assert.not.match(text, new RegExp(KEY));
    assert.is(JSON.parse(text).turns.length, 2);
  });
});

test('history: --new-conversation forgets the earlier turns, --no-history neither uses nor records them', async () => {
  await withEmulator(async ({ env }) => {
    const home = tempHome();
    const config = aiConfig();
    const run = (args: string[]) => runCli(['--config', config, 'ask', ...args], { home, env: { ...env, TEST_AI_KEY: KEY } });
    srv.reply({ text: 'first' }, { text: 'second' }, { text: 'third' });
    assert.is((await run(['which instance is running?'])).code, 0);
    const historyFile = () => {
      const dir = join(home, '.assistant', 'history');
      return JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')) as { turns: { question: string }[] };
    };

    assert.is((await run(['--no-history', 'a one-off question'])).code, 0);
    const [, oneOff] = srv.chatRequests();
    assert.is(oneOff!.body.messages.filter((m: any) => m.role !== 'system').length, 1, 'no earlier turn was sent');
    assert.equal(historyFile().turns.map((t) => t.question), ['which instance is running?'], 'nothing was recorded');

    assert.is((await run(['--new-conversation', 'start again'])).code, 0);
    const [, , fresh] = srv.chatRequests();
    assert.is(fresh!.body.messages.filter((m: any) => m.role !== 'system').length, 1, 'the earlier turn was forgotten');
    assert.equal(historyFile().turns.map((t) => t.question), ['start again']);
  });
});

/**
 * The sandbox seeds 1000 USD and a running instance that the sandbox emulator bills in real time, so
 * the balance a run reports depends on how long the run took: check it against the most the run could
 * have been billed, measured around the run, instead of an exact figure (a busy machine shifts the
 * rounding). `demoBurnPerHour` is what the demo seed's running resources cost.
 */
async function sandboxBalance(args: string[]): Promise<{ stdout: string; stated: number; floor: number }> {
  const burn = await withEmulator(async ({ emu }) => {
    const { emulatorClient } = await import('../../emulator/test-client.js');
    const list = (await emulatorClient(emu).call('GET', '/v1/instances')).json as { status: string; price_per_hour: number }[];
    return list.filter((i) => i.status === 'running').reduce((n, i) => n + i.price_per_hour, 0);
  });
  const t0 = performance.now();
  const r = await runCli(['--sandbox', ...args]);
  const hours = (performance.now() - t0) / 3_600_000;
  assert.is(r.code, 0, r.stderr);
  const m = /Your balance is (\d+\.\d\d) USD\.\n$/.exec(r.stdout);
  assert.ok(m, r.stdout);
  return { stdout: r.stdout, stated: Number(m![1]), floor: 1000 - burn * hours - 0.005 };
}

test('sandbox without ai.default_provider: "what is my balance" is answered from the results with no model', async () => {
  const { stdout, stated, floor } = await sandboxBalance(['ask', 'what is my balance']);
  assert.match(stdout, /^Your balance is \d+\.\d\d USD\.\n$/, 'only the answer');
  assert.ok(stated <= 1000 && stated >= floor, `stated ${stated}, expected ${floor.toFixed(4)}–1000`);
  assert.is(srv.requests.length, 0);
});

test('sandbox without an AI provider: a question it cannot answer exactly is declined with the reason and how to configure an AI provider (exit 2), not answered with a list', async () => {
  const r = await runCli(['--sandbox', 'ask', 'what is the weather like tomorrow']);
  assert.is(r.code, 2, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^error: builtin_cannot_answer: .*do not know the words "weather" and "tomorrow"; nothing was guessed$/m);
  assert.match(r.stderr, /^hint: .*configure an AI provider/m);
  // Issue 38: the decline names the commands that answer and where the AI config is shown, in at most 3 lines (it was a 9-line config snippet).
  assert.match(r.stderr, /^hint: `assistant gpucloud list <kind>` lists resources and `assistant cost summary` says what you spend; .*docs\/ask\.md/m);
  assert.ok(r.stderr.split('\n').filter((l) => l && !l.startsWith('sandbox: ')).length <= 3, r.stderr);
  const listed = await runCli(['--sandbox', 'ask', 'which volumes are not attached?']);
  assert.is(listed.code, 0, listed.stderr);
  assert.is(listed.stdout, '1 volume is not attached: demo-data.\n', 'only the detached one, not the attached ones');
});

test("the AI provider's 429 is a clear error naming the AI provider's limit (exit 1)", async () => {
  await withEmulator(async ({ env }) => {
    srv.setDefault({ status: 429, headers: { 'retry-after': '3600' }, body: { error: { message: 'Rate limit reached for requests', type: 'requests' } } });
    const r = await runCli(['--config', aiConfig(), 'ask', 'list my instances'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 1);
    assert.is(r.stdout, '');
    assert.match(r.stderr, /^error: ai_rate_limited: the AI provider openai .*HTTP 429.*This is the AI provider's rate limit, not gpucloud's/m);
    assert.match(r.stderr, /^hint: /m);
  });
});

test('--openai-model reaches the request model field, for ask and for ask --maker', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'ok' });
    const r = await runCli(['--config', aiConfig(), 'ask', '--openai-model', 'x-large-1', 'list my instances'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.is(srv.chatRequests()[0]!.body.model, 'x-large-1');

    const plan = { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'GET', '/v1/instances'], reason: 'list instances' }] };
    srv.reply({ text: JSON.stringify(plan) });
    const m = await runCli(['--config', aiConfig(), 'ask', '--maker', '--openai-model', 'maker-model-2', 'list my instances'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(m.code, 0, m.stderr);
    assert.is(srv.chatRequests()[1]!.body.model, 'maker-model-2');
  });
});

test('--openai-api-key comes first in the key order and never shows in the output', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'ok' });
    const flagKey = 'sk-from-the-flag-91b2c3';
    const r = await runCli(['--config', aiConfig(), '--debug', 'ask', '--openai-api-key', flagKey, 'list my instances'], { env: { ...env, TEST_AI_KEY: KEY } });
    assert.is(r.code, 0, r.stderr);
    assert.is(srv.chatRequests()[0]!.headers.authorization, `Bearer ${flagKey}`);
    assert.match(r.stderr, /key from flag/);
    assert.not.match(r.stdout + r.stderr, new RegExp(flagKey));
  });
});

test.run();
