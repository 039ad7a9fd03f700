/**
 * `assistant talk` without a terminal: stdin lines answered in order, against the gpucloud emulator
 * and a local OpenAI-compatible server (the real openai SDK). Memory across turns, --resume, /reset,
 * a secret typed into the session, reads reused, the token budget, --timeout per turn.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliInThisProcess, runCli, tempHome, withEmulator } from '../support/cli.js';
import { talkConfig } from '../support/talk.js';
import { openAiServerFor } from '../support/openai-server.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const KEY = 'sk-talk-test-key-5e1b7d';
const srv = openAiServerFor(test);

const config = () => talkConfig(srv.baseURL);
const home = () => tempHome('assistant-talk-');

/** The conversation messages of the i-th chat request (the system prompt left out). */
const messagesOf = (i: number): { role: string; content: string }[] => srv.chatRequests()[i]!.body.messages.filter((m: { role: string }) => m.role !== 'system');
const sessionFiles = (h: string) => readdirSync(join(h, '.assistant', 'talk')).map((f) => join(h, '.assistant', 'talk', f));

test('each turn carries the earlier turns: the second request to the AI holds the first question and answer', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'You have 2 instances.' }, { text: 'They are demo-a100 and demo-cpu.' });
    const h = home();
    const r = await runCli(['--config', config(), 'talk'], { home: h, env: { ...env, TEST_AI_KEY: KEY }, input: 'how many instances do I have?\nwhat are they called?\n' });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'You have 2 instances.\nThey are demo-a100 and demo-cpu.\n', 'the answers, in order, and nothing else');
    assert.not.match(r.stderr, /talk>|assistant talk —/, 'no prompt or banner without a terminal');
    const second = messagesOf(1);
    assert.equal(second.slice(0, 2), [
      { role: 'user', content: 'how many instances do I have?' },
      { role: 'assistant', content: 'You have 2 instances.' },
    ]);
    assert.match(second[second.length - 1]!.content, /what are they called\?/);
    assert.is(messagesOf(0).length, 1, 'the first turn has no history');
    assert.not.ok(existsSync(join(h, '.assistant', 'history')), "talk keeps its own conversation, not ask's history file");
  });
});

test("reads are reused within the session while fresh; --reuse-reads-for 0 reads afresh", async () => {
  await withEmulator(async ({ emu, env }) => {
    const gets = () => emu.requests().filter((q) => q.method === 'GET' && q.path === '/v1/instances').length;
    const input = 'how many instances?\nand now?\n';
    let r = await runCli(['--config', config(), 'talk'], { home: home(), env: { ...env, TEST_AI_KEY: KEY }, input });
    assert.is(r.code, 0, r.stderr);
    assert.is(gets(), 1, 'the second question used the first one’s read');
    r = await runCli(['--config', config(), 'talk', '--reuse-reads-for', '0'], { home: home(), env: { ...env, TEST_AI_KEY: KEY }, input });
    assert.is(r.code, 0, r.stderr);
    assert.is(gets(), 3);
  });
});

test('--resume continues the latest session (or one by ID prefix) with its memory; --list shows the sessions', async () => {
  await withEmulator(async ({ env }) => {
    const h = home();
    const cfg = config();
    const e = { ...env, TEST_AI_KEY: KEY };
    srv.reply({ text: 'Noted: pineapple.' });
    let r = await runCli(['--config', cfg, 'talk'], { home: h, env: e, input: 'remember the word pineapple\n' });
    assert.is(r.code, 0, r.stderr);
    const [file] = sessionFiles(h);
    const id = file!.split('/').pop()!.replace('.jsonl', '');
    srv.reply({ text: 'The word was pineapple.' });
    r = await runCli(['--config', cfg, 'talk', '--resume'], { home: h, env: e, input: 'which word did I ask you to remember?\n' });
    assert.is(r.code, 0, r.stderr);
    assert.equal(messagesOf(1).slice(0, 2), [
      { role: 'user', content: 'remember the word pineapple' },
      { role: 'assistant', content: 'Noted: pineapple.' },
    ]);
    assert.is(sessionFiles(h).length, 1, 'resuming appends to the same session');
    srv.reply({ text: 'still pineapple' });
    r = await runCli(['--config', cfg, 'talk', '--resume', id.slice(0, 12)], { home: h, env: e, input: 'and now?\n' });
    assert.is(r.code, 0, r.stderr);
    assert.is(messagesOf(2).length, 5, 'two earlier turns and the question');
    r = await runCli(['talk', '--list'], { home: h });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`${id}\\s.*\\s3\\s+remember the word pineapple`));
    r = await runCli(['talk', '--resume', 'no-such-id'], { home: h, input: '' });
    assert.is(r.code, 2);
    assert.match(r.stderr, /^error: no_talk_session: /m);
  });
});

test('/reset forgets the conversation: the next request carries no earlier turn', async () => {
  await withEmulator(async ({ env }) => {
    srv.reply({ text: 'a1' }, { text: 'a2' });
    const r = await runCli(['--config', config(), 'talk'], { home: home(), env: { ...env, TEST_AI_KEY: KEY }, input: 'first question\n/reset\nsecond question\n' });
    assert.is(r.code, 0, r.stderr);
    assert.is(messagesOf(1).length, 1);
    assert.match(r.stderr, /the conversation is forgotten/);
  });
});

test('a secret typed into the session is masked: not sent to the AI, not saved, a warning says so', async () => {
  await withEmulator(async ({ env }) => {
    const secret = 'sk-typedsecret0123456789abcdef';
    srv.reply({ text: 'I will not need it.' }, { text: 'ok' });
    const h = home();
    const r = await runCli(['--config', config(), 'talk'], { home: h, env: { ...env, TEST_AI_KEY: KEY }, input: `my openai key is ${secret}, is it safe?\nthanks\n` });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: a secret-looking value in what you typed was replaced by \*\*\*/);
    const sent = JSON.stringify(srv.chatRequests().map((q) => q.body));
    assert.not.ok(sent.includes(secret), 'neither the question nor the history sent carries it');
    assert.ok(sent.includes('my openai key is ***'));
    const saved = sessionFiles(h).map((f) => readFileSync(f, 'utf8')).join('');
    assert.not.ok(saved.includes(secret));
    assert.not.ok(r.stdout.includes(secret) || r.stderr.includes(secret));
  });
});

test('a short context window keeps only the newest turns that fit (oldest dropped first)', async () => {
  await withEmulator(async ({ env }) => {
    const long = (tag: string) => `${tag} ${'word '.repeat(100)}`;
    srv.reply({ text: long('a1') }, { text: long('a2') }, { text: long('a3') }, { text: 'a4' });
    const input = ['q1', 'q2', 'q3', 'q4'].map((q) => `${q} ${'x'.repeat(10)}`).join('\n') + '\n';
    const r = await runCli(['--config', config(), 'talk', '--context-tokens', '800'], { home: home(), env: { ...env, TEST_AI_KEY: KEY }, input });
    assert.is(r.code, 0, r.stderr);
    const last = messagesOf(3);
    // 800 tokens → 200 for history: one earlier turn of about 155 tokens fits, two do not.
    assert.equal(last.slice(0, -1).map((m) => m.content.slice(0, 2)), ['q3', 'a3']);
  });
});

test('--timeout bounds each turn, not the session: a turn that runs out fails (exit 1) and the next line is answered', async () => {
  await withEmulator(async ({ env }) => {
    let release!: () => void;
    srv.reply({ text: '', tokens: ['never ', 'finishes'], restAfter: new Promise<void>((r) => (release = r)) }, { text: 'The second answer.' });
    try {
      // Each turn gets 6 s: the held one runs out, and the quick one (a context read and a model call) must fit
      // in its own 6 s even on a loaded machine; 2 s did not on CI-like load.
      const r = await runCli(['--config', config(), '--timeout', '6', 'talk'], { home: home(), env: { ...env, TEST_AI_KEY: KEY }, input: 'slow one\nquick one\n' });
      assert.is(r.code, 1, r.stderr);
      assert.match(r.stderr, /^error: [a-z_]*timeout[a-z_]*: /m);
      assert.match(r.stdout, /^The second answer\.$/m);
    } finally {
      release();
    }
  });
});

test.run();
