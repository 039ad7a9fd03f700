/** The parts of `talk` that need no terminal: its saved conversations, token budget, read reuse, input and line history. */
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contextWindow, estimateTokens, historyBudget, trimToBudget } from '../../engine/producers/talk/budget.js';
import { MultiLine, parseInput, suggestCommand } from '../../engine/producers/talk/input.js';
import { historyEntry, loadLineHistory, saveLineHistory } from '../../engine/producers/talk/line-history.js';
import { ReadCache } from '../../engine/producers/talk/read-cache.js';
import { ConversationStore, listSessions } from '../../engine/producers/talk/store.js';
import { namesMatch } from '../../engine/producers/talk/destroy-targets.js';
import { agentEnvironment } from '../../engine/producers/acp/env.js';
import { withTranscript } from '../../engine/producers/acp/conversation.js';
import type { Plan } from '../../schemas/plan.js';
import { tempHome } from '../support/cli.js';

const home = () => tempHome('assistant-talk-');

test('a session is a private JSONL file in a private folder, written as it goes', () => {
  const h = home();
  const s = ConversationStore.create(h, { aiProfile: 'builtin' });
  assert.match(s.id, /^\d{8}-\d{6}-[0-9a-f]{6}$/);
  assert.is(statSync(s.path).mode & 0o777, 0o600);
  assert.is(statSync(dirname(s.path)).mode & 0o777, 0o700);
  s.addTurn('ask', 'q1', 'a1');
  s.addTurn('ask', 'q2', 'a2');
  const lines = readFileSync(s.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => l.t), ['start', 'turn', 'turn']);
  assert.equal(ConversationStore.open(h, s.id).turns().map((t) => t.user), ['q1', 'q2']);
});

test('resume finds the latest session, or one by a unique ID prefix; an unknown or ambiguous one is exit 2', () => {
  const h = home();
  const a = ConversationStore.create(h, {}, new Date('2026-01-01T10:00:00Z'));
  const b = ConversationStore.create(h, {}, new Date('2026-01-02T10:00:00Z'));
  b.addTurn('ask', 'in b', 'x');
  assert.is(ConversationStore.open(h).id, b.id);
  assert.is(ConversationStore.open(h, a.id.slice(0, 10)).id, a.id);
  assert.throws(() => ConversationStore.open(h, '2026'), (e: Error & { exitCode?: number }) => e.exitCode === 2 && /matches 2 sessions/.test(e.message));
  assert.throws(() => ConversationStore.open(h, 'nope'), (e: Error & { exitCode?: number }) => e.exitCode === 2);
  assert.throws(() => ConversationStore.open(home()), /no saved talk session/);
  assert.equal(listSessions(h).map((s) => [s.id, s.turns, s.first]), [
    [a.id, 0, undefined],
    [b.id, 1, 'in b'],
  ]);
});

test('reset forgets the turns before it; the plan in hand survives it; interrupted turns are kept but marked', () => {
  const s = ConversationStore.create(home());
  s.addTurn('ask', 'old', 'x');
  s.setPlan({ version: 1, provider: 'gpucloud', commands: [] });
  s.reset();
  s.addTurn('ask', 'new', 'y', { interrupted: true });
  const again = ConversationStore.open(s.path.split('/.assistant/')[0]!, s.id);
  assert.equal(again.turns().map((t) => [t.user, t.interrupted ?? false]), [['new', true]]);
  assert.equal(again.plan(), { version: 1, provider: 'gpucloud', commands: [] });
  assert.is(again.allTurns().length, 2);
});

test('secrets are masked before they are written; a plan holding one is not saved (and no stale plan is left)', () => {
  const s = ConversationStore.create(home());
  s.addTurn('ask', 'my key is sk-abcdefghijklmnopqrstuv12345 ok?', 'use OPENAI_API_KEY=sk-zyxwvutsrqponmlkjihg9876');
  s.setPlan({ version: 1, provider: 'gpucloud', commands: [], notes: 'clean' });
  const saved = s.setPlan({ version: 1, provider: 'gpucloud', commands: [], notes: 'export API_TOKEN=abcdef123456' });
  assert.is(saved, false);
  const text = readFileSync(s.path, 'utf8');
  assert.not.match(text, /abcdefghijklmnopqrstuv12345|zyxwvutsrqponmlkjihg9876|abcdef123456/);
  assert.match(text, /\*\*\*/);
  assert.is(ConversationStore.open(s.path.split('/.assistant/')[0]!, s.id).plan(), undefined);
});

test('a torn or foreign line is skipped and counted, the rest is read', () => {
  const h = home();
  const s = ConversationStore.create(h);
  s.addTurn('ask', 'kept', 'x');
  appendFileSync(s.path, '{"t":"turn","at":"x","kind":"ask","user":"half');
  appendFileSync(s.path, '\n{"t":"weird"}\n');
  writeFileSync(s.path, readFileSync(s.path, 'utf8') + JSON.stringify({ t: 'turn', at: 'y', kind: 'ask', user: 'after', assistant: 'z' }) + '\n');
  const again = ConversationStore.open(h, s.id);
  assert.is(again.skipped, 2);
  assert.equal(again.turns().map((t) => t.user), ['kept', 'after']);
});

test('the token budget keeps the newest question/answer pairs whole, dropping the oldest first', () => {
  const long = 'x'.repeat(350); // about 100 tokens
  const messages = [1, 2, 3, 4].flatMap((i) => [
    { role: 'user' as const, content: `q${i} ${long}` },
    { role: 'assistant' as const, content: `a${i} ${long}` },
  ]);
  const { messages: kept, dropped } = trimToBudget(messages, 450);
  assert.equal(kept.map((m) => m.content.slice(0, 2)), ['q3', 'a3', 'q4', 'a4']);
  assert.is(dropped, 4);
  assert.equal(trimToBudget(messages, 10).messages, []);
  assert.ok(estimateTokens(long) >= 100);
});

test('the context window comes from the model name; --context-tokens wins; unknown models get a small one', () => {
  assert.is(contextWindow('gpt-4o-mini'), 128_000);
  assert.is(contextWindow('openai/gpt-4.1-mini'), 1_000_000);
  assert.is(contextWindow('claude-3-5-haiku-latest'), 200_000);
  assert.is(contextWindow('some-local-model'), 8_192);
  assert.is(contextWindow('gpt-4o', 4_000), 4_000);
  assert.is(historyBudget('some-local-model'), 2_048);
});

test('reads are reused while fresh, per step: only missing or stale steps are run again', async () => {
  let now = 0;
  const cache = new ReadCache(60_000, () => now);
  const ran: string[][] = [];
  const run = async (plan: Plan) => {
    ran.push(plan.commands.map((c) => c.args[2]!));
    return plan.commands.map((c) => `data of ${c.args[2]}`);
  };
  const step = (path: string) => ({ args: ['gpucloud-api', 'GET', path], reason: 'read' });
  const plan = (...paths: string[]): Plan => ({ version: 1, provider: 'gpucloud', commands: paths.map(step) });
  assert.equal(await cache.read(plan('/v1/instances', '/v1/balance'), run), ['data of /v1/instances', 'data of /v1/balance']);
  assert.equal(await cache.read(plan('/v1/instances', '/v1/volumes', '/v1/balance'), run), ['data of /v1/instances', 'data of /v1/volumes', 'data of /v1/balance']);
  assert.equal(ran, [['/v1/instances', '/v1/balance'], ['/v1/volumes']]);
  assert.is(cache.hits, 2);
  now = 61_000;
  await cache.read(plan('/v1/instances'), run);
  assert.equal(ran[2], ['/v1/instances']);
  cache.clear();
  await cache.read(plan('/v1/volumes'), run);
  assert.equal(ran[3], ['/v1/volumes']);
  // A plan whose steps bind values for later steps is never split.
  const bound: Plan = { version: 1, provider: 'gpucloud', commands: [{ ...step('/v1/a'), produces: { X: '$.id' } }, step('/v1/b/<X>')] };
  await cache.read(bound, run);
  await cache.read(bound, run);
  assert.equal(ran.slice(4), [['/v1/a', '/v1/b/<X>'], ['/v1/a', '/v1/b/<X>']]);
  assert.equal(await new ReadCache(0).read(plan('/v1/x'), run), ['data of /v1/x']);
});

test('a line is a question unless it starts with a slash; commands take the rest as their argument', () => {
  assert.equal(parseInput('what is my balance?'), { kind: 'command', name: 'ask', arg: 'what is my balance?' });
  assert.equal(parseInput('  /maker create x  '), { kind: 'command', name: 'maker', arg: 'create x' });
  assert.equal(parseInput('/QUIT'), { kind: 'command', name: 'exit', arg: '' });
  assert.equal(parseInput('/aply'), { kind: 'unknown', name: 'aply' });
  assert.equal(parseInput('   '), { kind: 'empty' });
  assert.is(suggestCommand('aply'), 'apply');
  assert.is(suggestCommand('zzzzzzz'), undefined);
  const m = new MultiLine();
  assert.is(m.add('first \\'), undefined);
  assert.ok(m.pending);
  assert.is(m.add('second'), 'first \nsecond');
  assert.not.ok(m.pending);
});

test('the line history is masked, private, oldest first on disk and newest first in memory', () => {
  const path = `${home()}/.assistant/talk_history`;
  saveLineHistory(path, ['newest', 'my token=abcdef123456 here', 'oldest']);
  assert.is(statSync(path).mode & 0o777, 0o600);
  const text = readFileSync(path, 'utf8');
  assert.not.match(text, /abcdef123456/);
  assert.equal(text.trim().split('\n')[0], 'oldest');
  assert.equal(loadLineHistory(path), ['newest', 'my token=*** here', 'oldest']);
  assert.is(historyEntry('two\nlines'), 'two lines');
  assert.equal(loadLineHistory(`${path}.missing`), []);
});

test('typing the names of what a plan destroys: every name, any order, nothing else', () => {
  const targets = [
    { index: 0, name: 'a1', named: true, reasons: [] },
    { index: 2, name: 'b2', named: true, reasons: [] },
  ];
  assert.ok(namesMatch('b2 a1', targets));
  assert.ok(namesMatch(' a1,b2 ', targets));
  assert.not.ok(namesMatch('a1', targets));
  assert.not.ok(namesMatch('a1 b2 c3', targets));
  assert.not.ok(namesMatch('yes', targets));
});

test("an agent's environment is an allowlist: no cloud secret, no GitHub token, no other AI key", () => {
  const parent = {
    PATH: '/bin',
    HOME: '/h',
    LC_ALL: 'C',
    GPUCLOUD_CLIENT_SECRET: 's',
    GITHUB_TOKEN: 'g',
    GH_TOKEN: 'g',
    OPENAI_API_KEY: 'o',
    ANTHROPIC_API_KEY: 'a',
    AWS_SECRET_ACCESS_KEY: 'w',
    NODE_OPTIONS: '--require evil.js',
  };
  assert.equal(agentEnvironment(parent), { PATH: '/bin', HOME: '/h', LC_ALL: 'C' });
  assert.equal(agentEnvironment(parent, { ASSISTANT_AGENT_MODEL: 'm' }, ['ANTHROPIC_API_KEY']), { PATH: '/bin', HOME: '/h', LC_ALL: 'C', ANTHROPIC_API_KEY: 'a', ASSISTANT_AGENT_MODEL: 'm' });
});

test('a restarted agent is handed the conversation so far ahead of the new message', () => {
  const text = withTranscript([{ user: 'q1', assistant: 'a1' }], 'next');
  assert.match(text, /^\[Context: /);
  assert.match(text, /User: q1\nAssistant: a1\n\[End of context\]\n\nnext$/);
});

test.run();
