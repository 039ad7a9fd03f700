/**
 * Where the token integrations (notes, appplatform, edge: engine/core/kits/http/token-integration.ts) find their
 * token: the config key first, then the environment, then the credential backend
 * (`credentials store notes`), read only when neither is set; a malformed token is refused before
 * anything is sent, and no token at all names every place to put one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startNotesFake } from '../../emulator/fakes/notes.js';
import { startEdgeFake } from '../../emulator/fakes/edge.js';
import type { JsonFake } from '../../emulator/fakes/json-fake.js';
import { asClient, backendForFile, type BackendProcess } from '../support/backend.js';
import { cliInThisProcess, configFile, runCli, tempHome } from '../support/cli.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

let backend: BackendProcess;
let key = '';
let notes: JsonFake;
let edge: JsonFake;

backendForFile(test, 'team-notes', (b, k) => ((backend = b), (key = k)));
test.before(async () => {
  notes = await startNotesFake();
  edge = await startEdgeFake();
});
test.after(async () => {
  await notes?.close();
  await edge?.close();
});

const home = () => tempHome('assistant-notes-cred-');

test('a token stored with `credentials store notes` is used when neither config nor environment has one', async () => {
  const env = asClient(backend, key, { ASSISTANT_NOTES_BASE_URL: notes.url, ASSISTANT_EDGE_BASE_URL: edge.url });
  const stored = await runCli(['credentials', 'store', 'notes', '--integration-token', '-'], { home: home(), env, input: `${notes.token}\n` });
  assert.is(stored.code, 0, stored.stderr);
  const ask = await runCli(['ask', '--ai-profile', 'builtin', '--notes', 'how many pages'], { home: home(), env });
  assert.is(ask.code, 0, ask.stderr);
  assert.is(ask.stdout.trim(), '6 pages.');
  const t = await runCli(['credentials', 'test', 'notes'], { home: home(), env });
  assert.is(t.code, 0, t.stderr);
  assert.match(t.stdout, /^notes credentials work \(source: the backend credential store \(notes\/default\)\); bot user "assistant"/);
  for (const r of [stored, ask, t]) assert.not.ok((r.stdout + r.stderr).includes(notes.token));
  // The environment comes before the backend: a wrong token there is used (and refused), not skipped.
  const envFirst = await runCli(['ask', '--ai-profile', 'builtin', '--notes', 'how many pages'], { home: home(), env: { ...env, NOTES_INTEGRATION_TOKEN: 'secret_wrong_in_env_123' } });
  assert.is(envFirst.code, 1);
  assert.match(envFirst.stderr, /401 the token was not accepted[\s\S]*hint: check the workspace notes token \(NOTES_INTEGRATION_TOKEN\)/);
});

test('the config key comes before the environment', async () => {
  const cfg = configFile(`edge:\n  api_token: ${edge.token}\n  base_url: ${edge.url}\n`);
  const r = await runCli(['--config', cfg, 'credentials', 'test', 'edge'], { home: home(), env: { EDGE_API_TOKEN: 'wrong-env-token-123456' } });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'edge credentials work (source: edge.api_token in the config file); token status active\n');
});

test('no token anywhere: one error naming the config key, the variable and the backend; nothing is sent', async () => {
  const before = edge.requests().length;
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--edge', 'list my zones'], { home: home(), env: { ASSISTANT_EDGE_BASE_URL: edge.url } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: usage: edge: no CDN\/DNS token: set edge\.api_token or EDGE_API_TOKEN \(backend: no backend API key configured\)$/m);
  assert.match(r.stderr, /^hint: or `assistant credentials store edge`/m);
  assert.is(edge.requests().length, before);
});

test('a token with a line break or a non-ASCII letter is refused before anything is sent, and not shown', async () => {
  const before = notes.requests().length;
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--notes', 'list pages'], { home: home(), env: { NOTES_INTEGRATION_TOKEN: 'secret_first_half\nsecond_half', ASSISTANT_NOTES_BASE_URL: notes.url } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: usage: notes: the token from NOTES_INTEGRATION_TOKEN has a character a token cannot have/m);
  assert.not.ok(r.stderr.includes('secret_first_half'));
  assert.is(notes.requests().length, before);
});

test.run();
