/**
 * notes (workspace notes, Notion-style API) as an ask context, through the CLI against its local fake
 * (emulator/fakes/notes.ts): routed by its words and by --notes, combined with another provider, paging
 * followed by cursor, a refused token and rate limits made clear, the token never shown, a hostile
 * fake bounded (slow answers end at --timeout, endless cursors and huge pages are cut and said so),
 * `credentials test notes`, and the MCP ask tool reading the same context.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startNotesFake, NOTES_FAKE_DATABASE_ID } from '../../../emulator/fakes/notes.js';
import type { JsonFake } from '../../../emulator/fakes/json-fake.js';
import { notesProvider } from '../../../engine/providers/notes/provider.js';
import { runUntilHeld } from '../../support/held-request.js';
import { cliInThisProcess, configFile, runCli, tempHome, withEmulator } from '../../support/cli.js';
import { builtinConfig, closeStarted, runWithConfig, startKept } from '../../support/integration.js';
import { callTool, connectStdio, textOf } from '../../support/mcp.js';
import { startOpenAiServer } from '../../support/openai-server.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const home = () => tempHome('assistant-notes-');
// What a test starts with startKept lives until the file ends.
test.after(closeStarted);

/** A config for the fake: its token, its address, the default database, answers without a model. */
const config = (fake: JsonFake, extra = ''): string => builtinConfig(`notes:\n  integration_token: ${fake.token}\n  default_database_id: ${NOTES_FAKE_DATABASE_ID}\n  base_url: ${fake.url}\n${extra}`);

const ask = (fake: JsonFake, args: string[], opts: { env?: Record<string, string>; config?: string } = {}) => runWithConfig(opts.config ?? config(fake), args, fake.token, opts.env);

test('a question about pages is routed to notes without a flag, read with a database query and answered', async () => {
  const fake = await startNotesFake();
  try {
    const r = await ask(fake, ['ask', 'which pages are in progress?']);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout.trim(), '2 pages In progress:\n- GPU cluster migration plan (edited 2026-11-23, In progress)\n- Q1 infrastructure budget (edited 2026-11-20, In progress)');
    const reqs = fake.requests();
    assert.equal(reqs.map((q) => `${q.method} ${q.path}`), [`POST /v1/databases/${NOTES_FAKE_DATABASE_ID}/query`]);
    assert.ok(reqs.every((q) => q.authorized));
  } finally {
    await fake.close();
  }
});

test('--notes selects notes for a question without its words; without a database it searches the shared pages', async () => {
  const fake = await startNotesFake();
  try {
    const noDb = configFile(`ai:\n  default_provider: builtin\nnotes:\n  base_url: ${fake.url}\n`);
    const r = await ask(fake, ['ask', '--notes', 'what was finished?'], { config: noDb, env: { NOTES_INTEGRATION_TOKEN: fake.token } });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^3 pages Done:\n- On-call runbook \(edited 2026-11-24, Done\)\n- Postmortem: DNS outage/);
    assert.not.match(r.stdout, /Old onboarding guide/, 'archived pages are not shown');
    const [q] = fake.requests();
    assert.is(`${q!.method} ${q!.path}`, 'POST /v1/search');
    assert.equal((q!.body as { filter: unknown }).filter, { property: 'object', value: 'page' });
  } finally {
    await fake.close();
  }
});

test('--notes with --gpucloud answers both in one view', () =>
  withEmulator(async ({ env }) => {
    const fake = await startKept(() => startNotesFake());
    const r = await ask(fake, ['ask', '--notes', '--gpucloud', 'list my pages and instances'], { env });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /6 pages:\n- On-call runbook/);
    assert.match(r.stdout, /demo-a100/);
  }));

test('built-in answers narrow by the kind of page named; a qualifier they cannot evaluate is declined, not answered with the whole list', async () => {
  const fake = await startNotesFake();
  try {
    const runbooks = await ask(fake, ['ask', 'which runbooks are done?']);
    assert.is(runbooks.code, 0, runbooks.stderr);
    assert.is(runbooks.stdout, '1 page with "runbook" in the name Done:\n- On-call runbook (edited 2026-11-24, Done)\n');
    const week = await ask(fake, ['ask', 'which pages were edited this week?']);
    assert.is(week.code, 0, week.stderr);
    assert.match(week.stdout, /^notes: the built-in answerer cannot answer this exactly .*configure an AI provider/);
    assert.not.match(week.stdout, /runbook/);
  } finally {
    await fake.close();
  }
});

test('every page is read: the cursor is followed until has_more is false', async () => {
  const fake = await startNotesFake({ pages: 250 });
  try {
    const r = await ask(fake, ['ask', 'how many notes pages are done?']);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout.trim(), '246 pages Done.');
    const bodies = fake.requests().map((q) => q.body as { start_cursor?: string; page_size: number });
    assert.is(bodies.length, 3);
    assert.is(bodies[0]!.start_cursor, undefined);
    assert.ok(bodies[1]!.start_cursor && bodies[2]!.start_cursor && bodies[1]!.start_cursor !== bodies[2]!.start_cursor);
    assert.ok(bodies.every((b) => b.page_size === 100), 'the sorts and page size travel with every page');
  } finally {
    await fake.close();
  }
});

test('a refused token is one clear error naming where the token came from; nothing else is tried', async () => {
  const fake = await startNotesFake();
  try {
    const wrong = configFile(`ai:\n  default_provider: builtin\nnotes:\n  integration_token: secret_wrongtoken123456\n  base_url: ${fake.url}\n`);
    const r = await ask(fake, ['--debug', 'ask', 'list my notes pages'], { config: wrong });
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: unauthorized: notes: 401 the token was not accepted \(\/v1\/search\)(: .+)?$/m);
    assert.match(r.stderr, /^hint: check the workspace notes token \(notes\.integration_token in the config file\)/m);
    assert.not.ok((r.stdout + r.stderr).includes('secret_wrongtoken123456'), 'the wrong token is not shown either');
    assert.is(fake.requests().length, 1);
  } finally {
    await fake.close();
  }
});

test('429 with Retry-After is waited out and the answer comes; a limit that never lifts is a clear error', async () => {
  const fake = await startNotesFake();
  try {
    fake.rateLimit(1, 1);
    const ok = await ask(fake, ['--debug', 'ask', 'how many pages']);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(ok.stdout.trim(), '6 pages.');
    assert.match(ok.stderr, /notes: rate limited; waiting 1 s \(Retry-After\)/);
    fake.rateLimit(10, 0);
    const no = await ask(fake, ['ask', 'how many pages']);
    assert.is(no.code, 1);
    assert.match(no.stderr, /^error: rate_limited: notes: still rate limited after waiting three times$/m);
  } finally {
    await fake.close();
  }
});

test('a hostile fake cannot hold ask: a slow answer ends at --timeout, endless cursors and huge pages are cut and said so', async () => {
  const fake = await startNotesFake();
  try {
    fake.hostile('slow');
    const slow = await runUntilHeld(fake, (timeout) => ask(fake, [...timeout, 'ask', 'how many pages']));
    assert.is(slow.code, 1, slow.stderr);
    assert.match(slow.stderr, /^error: .*tim(ed out|eout)/im);

    fake.hostile('endless');
    const endless = await ask(fake, ['ask', 'how many pages']);
    assert.is(endless.code, 0, endless.stderr);
    assert.is(endless.stdout.trim(), '10 pages (notes: only the first 10 pages (10 items) were read; the answer covers those).');

    fake.hostile('huge');
    const huge = await ask(fake, ['ask', 'how many pages']);
    assert.is(huge.code, 0, huge.stderr);
    assert.match(huge.stdout, /^notes: no pages could be read \(the answer was larger than 5242880 bytes and was not read\)\./);
  } finally {
    await fake.close();
  }
});

test('credentials test notes reads the bot user with the token from the environment', async () => {
  const fake = await startNotesFake();
  try {
    const r = await runCli(['credentials', 'test', 'notes'], { env: { NOTES_INTEGRATION_TOKEN: fake.token, ASSISTANT_NOTES_BASE_URL: fake.url }, home: home() });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'notes credentials work (source: NOTES_INTEGRATION_TOKEN); bot user "assistant" of workspace Example Co\n');
    assert.equal(fake.requests().map((q) => q.path), ['/v1/users/me']);
  } finally {
    await fake.close();
  }
});

test('a token over plain HTTP to another host is refused before anything is sent', async () => {
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--notes', 'list pages'], { env: { NOTES_INTEGRATION_TOKEN: 'secret_abcdefghijkl', ASSISTANT_NOTES_BASE_URL: 'http://notes.example.com' }, home: home() });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: .*notes: base_url http:\/\/notes\.example\.com is plain HTTP to another host/m);
});

test('searching and querying read; creating or changing a page needs --destroyer', () => {
  const verb = notesProvider.verbs[0]!;
  assert.is(verb.classify(['notes-api', 'POST', `/v1/databases/${NOTES_FAKE_DATABASE_ID}/query`, '{}']).effect, 'read');
  assert.is(verb.classify(['notes-api', 'POST', '/v1/search', '{"query":"x"}']).effect, 'read');
  assert.is(verb.classify(['notes-api', 'POST', '/v1/pages', '{}']).effect, 'destroy');
  assert.is(verb.classify(['notes-api', 'PATCH', '/v1/pages/abc', '{"archived":true}']).effect, 'destroy');
  assert.is(verb.classify(['notes-api', 'POST', '/v1/databases/x/query/../../pages', '{}']).effect, 'destroy');
});

test('the MCP ask tool reads the same notes context', async () => {
  const fake = await startNotesFake();
  const { client } = await connectStdio({ env: { NOTES_INTEGRATION_TOKEN: fake.token, ASSISTANT_NOTES_BASE_URL: fake.url }, home: home(), globalArgs: ['--config', config(fake)] });
  try {
    const r = await callTool(client, 'assistant_gpucloud_ask', { question: 'which notes pages are in progress?' });
    assert.not.ok(r.isError, textOf(r));
    assert.match(r.structuredContent.answer, /^2 pages In progress:\n- GPU cluster migration plan/);
    assert.equal(r.structuredContent.providers, ['notes']);
    assert.not.ok(JSON.stringify(r).includes(fake.token));
    assert.ok(fake.requests().every((q) => q.method === 'POST' && q.path.endsWith('/query')));
  } finally {
    await client.close();
    await fake.close();
  }
});

test('with a model: --debug shows the read plan, the pages reach the prompt, the token reaches neither the prompt nor the history', async () => {
  const fake = await startNotesFake();
  const ai = await startOpenAiServer();
  const h = home();
  try {
    writeFileSync(
      join(h, '.assistant.yaml'),
      `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${ai.baseURL}\n` +
        `notes:\n  integration_token: ${fake.token}\n  default_database_id: ${NOTES_FAKE_DATABASE_ID}\n  base_url: ${fake.url}\n`,
      { mode: 0o600 },
    );
    ai.reply({ text: 'The migration plan and the budget are in progress.' });
    const r = await runCli(['--debug', 'ask', 'what is the team working on in our pages?'], { env: { TEST_AI_KEY: 'sk-test-key-123456' }, home: h });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /The migration plan and the budget are in progress\./);
    assert.match(r.stderr, new RegExp(`step 0 started: notes POST /v1/databases/${NOTES_FAKE_DATABASE_ID}/query`));
    const prompt = JSON.stringify(ai.chatRequests().at(-1));
    assert.match(prompt, /GPU cluster migration plan/);
    assert.match(prompt, /notes\/pages/, 'the context is labelled with what it read');
    assert.match(prompt, /Data lines whose kind starts with \\"notes\/\\" are from the workspace notes \(notes\): Pages are from the notes workspace/, 'the model is told what the notes data is');
    const history = readdirSync(join(h, '.assistant', 'history')).map((f) => readFileSync(join(h, '.assistant', 'history', f), 'utf8')).join('');
    assert.match(history, /migration plan/);
    for (const text of [prompt, history, r.stdout, r.stderr]) assert.not.ok(text.includes(fake.token));
  } finally {
    await fake.close();
    await ai.close();
  }
});

test('--sandbox answers from the local notes fake (its sandbox capability)', async () => {
  const r = await runCli(['--sandbox', 'ask', '--notes', 'how many pages are done?'], { home: home() });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), '3 pages Done.');
});

test.run();
