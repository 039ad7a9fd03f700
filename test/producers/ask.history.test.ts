/** Conversation history of `ask` (engine/producers/ai/history.ts): one private file per AI profile and project. */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConversationHistory, HISTORY_TURNS, historyProject } from '../../engine/producers/ai/history.js';
import { registerSecret } from '../../engine/core/redact.js';
import { tempHome } from '../support/cli.js';

test('only the last N turns are kept, oldest first, as user/assistant messages', () => {
  const h = new ConversationHistory(tempHome(), 'openai', 'proj-1');
  for (let i = 0; i < HISTORY_TURNS + 3; i++) h.append(`q${i}`, `a${i}`);
  const turns = h.turns();
  assert.is(turns.length, HISTORY_TURNS);
  assert.is(turns[0]!.question, 'q3');
  assert.equal(h.messages().slice(-2), [
    { role: 'user', content: `q${HISTORY_TURNS + 2}` },
    { role: 'assistant', content: `a${HISTORY_TURNS + 2}` },
  ]);
});

test('one file per AI profile and project, 0600 in a 0700 directory', () => {
  const home = tempHome();
  const a = new ConversationHistory(home, 'openai', 'proj-1');
  const b = new ConversationHistory(home, 'openai', 'proj-2');
  const c = new ConversationHistory(home, 'work-anthropic', 'proj-1');
  assert.is(new Set([a.path, b.path, c.path]).size, 3);
  a.append('q', 'a');
  assert.equal(b.turns(), []);
  assert.is(statSync(a.path).mode & 0o777, 0o600);
  assert.is(statSync(dirname(a.path)).mode & 0o777, 0o700);
});

test('secrets are redacted before they are written', () => {
  const secret = 'sk-history-secret-55aa11';
  registerSecret(secret);
  const h = new ConversationHistory(tempHome(), 'openai', 'p');
  h.append(`is ${secret} my key?`, `yes, ${secret}; also api_key=abcdef123456`);
  const text = readFileSync(h.path, 'utf8');
  assert.not.match(text, new RegExp(secret));
  assert.not.match(text, /abcdef123456/);
});

test('a corrupt file is a new conversation; malformed turns are skipped', () => {
  const h = new ConversationHistory(tempHome(), 'openai', 'p');
  mkdirSync(dirname(h.path), { recursive: true });
  writeFileSync(h.path, '{not json');
  assert.equal(h.turns(), []);
  writeFileSync(h.path, JSON.stringify({ version: 1, turns: [{ question: 'q', answer: 'a', at: 'x' }, { question: 5 }, null] }));
  assert.equal(h.turns().map((t) => t.question), ['q']);
  h.append('q2', 'a2');
  assert.equal(h.turns().map((t) => t.question), ['q', 'q2']);
});

test('the project is the gpucloud project id, else the API origin, else default; the sandbox has its own', () => {
  assert.is(historyProject({ projectId: 'p-1', baseUrl: 'https://x' }), 'p-1');
  assert.is(historyProject({ baseUrl: 'https://api.example.com/' }), 'https://api.example.com');
  assert.is(historyProject({}), 'default');
  assert.is(historyProject({ projectId: 'p-1', sandbox: true }), 'sandbox');
});

test.run();
