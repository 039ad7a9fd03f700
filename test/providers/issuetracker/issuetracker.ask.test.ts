/**
 * issuetracker (a Linear-style issue tracker, GraphQL) through the CLI against its fake
 * (emulator/fakes/issuetracker.ts): my team's open issues by priority, routed by words or by
 * --issuetracker; a combined view with errtracker; pages followed by pageInfo.endCursor; 401 and
 * 429 said clearly; the key never printed; a GraphQL `mutation` never sent without --destroyer; a
 * hostile fake bounded by pages, bytes and --timeout; sandbox and MCP.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startErrtrackerFake } from '../../../emulator/fakes/errtracker.js';
import { startIssuetrackerFake } from '../../../emulator/fakes/issuetracker.js';
import { teamIn } from '../../../engine/providers/issuetracker/reads.js';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { assertNoSecret, closeStarted, homeWithConfig, keptFakes, startKept } from '../../support/integration.js';
import { callTool, connectStdio, textOf } from '../../support/mcp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const CONFIG = 'issuetracker:\n  default_team: ENG\n';
test.after(closeStarted);
// The API key travels as the fake's token (`ask(f, args, { token })` to send another).
const { fake, envFor, ask } = keptFakes(startIssuetrackerFake, CONFIG, (f, key) => ({ ASSISTANT_ISSUETRACKER_BASE_URL: f.url, ISSUETRACKER_API_KEY: key }));

const ENG_BY_PRIORITY = [
  'issuetracker (team ENG): 5 open issues, by priority:',
  '- ENG-12 Checkout fails for EU cards (Urgent; In Progress; @dana; due 2026-11-27)',
  '- ENG-15 Rotate the signing keys (High; Todo; @ana)',
  '- ENG-9 Flaky upload test (Medium; Backlog)',
  '- ENG-3 Tidy the README (Low; Todo; @dana)',
  '- ENG-20 Customer asks for CSV export (No priority; Triage)',
].join('\n');

test("my team's open issues by priority: routed by its words, read with one GraphQL query (done and canceled left out)", async () => {
  const f = await fake();
  const r = await ask(f, ["what are my team's open issues by priority?"]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, `${ENG_BY_PRIORITY}\n`);
  const sent = f.requests();
  assert.is(sent.length, 1);
  const doc = JSON.parse(sent[0]!.body!);
  assert.match(doc.query, /^query OpenIssues/);
  assert.equal(doc.variables.filter, { state: { type: { nin: ['completed', 'canceled'] } }, team: { key: { eq: 'ENG' } } });
});

test('--issuetracker selects it; a team named in the question and "assigned to me" narrow the read', async () => {
  const f = await fake();
  const ops = await ask(f, ['--issuetracker', 'what is open for team OPS?']);
  assert.is(ops.code, 0, ops.stderr);
  assert.is(ops.stdout, 'issuetracker (team OPS): 1 open issue, by priority:\n- OPS-4 Renew the TLS certificate (High; Todo; @ana; due 2026-12-01)\n');
  const mine = await ask(f, ['--issuetracker', 'how many issues are assigned to me?']);
  assert.is(mine.code, 0, mine.stderr);
  assert.is(mine.stdout, 'issuetracker (team ENG, assigned to you): 2 open issues: 1 urgent, 1 low.\n');
  const urgent = await ask(f, ['--issuetracker', 'anything urgent?'], { config: '{}\n' });
  assert.is(urgent.code, 0, urgent.stderr);
  assert.match(urgent.stdout, /^issuetracker \(all teams\): 1 open issue \(urgent\), by priority:\n- ENG-12 /);
});

test('a combined view: issuetracker and errtracker in one answer', async () => {
  const f = await fake();
  const e = await startKept(() => startErrtrackerFake());
  const r = await ask(f, ['how many tickets are open and how many unresolved errors?'], {
    config: `${CONFIG}errtracker:\n  org_slug: acme\n  default_project: backend\n`,
    env: { ASSISTANT_ERRTRACKER_BASE_URL: e.url, ERRTRACKER_AUTH_TOKEN: e.token },
  });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /issuetracker \(team ENG\): 5 open issues: /);
  assert.match(r.stdout, /acme\/backend: 3 unresolved issues\./);
});

test('pages are followed by pageInfo.endCursor (the same query with `after`)', async () => {
  const f = await fake({ maxPerPage: 2, extraIssues: 3 });
  const r = await ask(f, ['--issuetracker', 'how many open issues?']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'issuetracker (team ENG): 8 open issues: 1 urgent, 1 high, 1 medium, 4 low, 1 no priority.\n');
  const afters = f.requests().map((q) => JSON.parse(q.body!).variables.after ?? null);
  assert.is(afters.length, 4);
  assert.is(afters[0], null);
  assert.ok(afters.slice(1).every((a: unknown) => typeof a === 'string'));
  assert.ok(f.requests().every((q) => JSON.parse(q.body!).query.startsWith('query OpenIssues')), 'every page is the same read');
});

test('a wrong key is a clear 401; a 429 is waited out; the key never printed', async () => {
  const f = await fake();
  const wrong = 'lin_api_wrongWrongWrong0123456789abcdef';
  const bad = await ask(f, ['--issuetracker', 'open issues'], { token: wrong });
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /^error: unauthorized: issuetracker: 401 the token was not accepted \(\/graphql\): Authentication required, not authenticated\nhint: check the issue tracker token \(ISSUETRACKER_API_KEY\)/m);
  f.rateLimitNext(1, 1);
  const before = f.requests().length;
  const limited = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '--issuetracker', 'how many open issues?'], { home: homeWithConfig(`${CONFIG}  api_key: ${f.token}\n`), env: { ASSISTANT_ISSUETRACKER_BASE_URL: f.url } });
  assert.is(limited.code, 0, limited.stderr);
  assert.match(limited.stdout, /5 open issues/);
  assert.match(limited.stderr, /issuetracker: rate limited; waiting 1 s/);
  assert.match(limited.stderr, /debug: run: step 0 started: issuetracker POST \/graphql \(query OpenIssues\)/, '--debug shows the read plan');
  assert.is(f.requests().length - before, 2);
  const none = await runCli(['ask', '--ai-profile', 'builtin', '--issuetracker', 'open issues'], { home: homeWithConfig(CONFIG), env: { ASSISTANT_ISSUETRACKER_BASE_URL: f.url } });
  assert.is(none.code, 2);
  assert.match(none.stderr, /^error: usage: issuetracker: no API key/m);
  const who = await runCli(['credentials', 'test', 'issuetracker'], { home: homeWithConfig(CONFIG), env: envFor(f) });
  assert.is(who.code, 0, who.stderr);
  assert.is(who.stdout, 'issuetracker credentials work (source: ISSUETRACKER_API_KEY); key of dana in Acme\n');
  assertNoSecret([bad.stdout, bad.stderr, limited.stdout, limited.stderr, who.stdout, who.stderr], [f.token, wrong]);
});

test('a GraphQL mutation is destructive: refused without --destroyer, nothing sent; a query step validates as a read', async () => {
  const f = await fake();
  const mutation = { version: 1, provider: 'issuetracker', commands: [{ args: ['issuetracker-api', 'POST', '/graphql', JSON.stringify({ query: 'mutation { issueArchive(id: "ENG-3-id") { success } }' })], reason: 'archive' }] };
  const r = await runCli(['--yes', 'ask', '--apply'], { home: homeWithConfig(CONFIG), env: envFor(f), input: JSON.stringify(mutation) });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /POST \/graphql: not known to be safe/);
  // Disguised: a query first, a mutation after it in the same document.
  const hidden = { ...mutation, commands: [{ ...mutation.commands[0]!, args: ['issuetracker-api', 'POST', '/graphql', JSON.stringify({ query: 'query A { viewer { id } } mutation B { issueArchive(id: "x") { success } }' })] }] };
  const r2 = await runCli(['plan', 'validate'], { home: homeWithConfig(CONFIG), input: JSON.stringify(hidden) });
  assert.is(r2.code, 3, r2.stderr + r2.stdout);
  assert.equal(f.mutations(), []);
  assert.is(f.requests().length, 0);
  const read = { ...mutation, commands: [{ args: ['issuetracker-api', 'POST', '/graphql', JSON.stringify({ query: '{ viewer { id } }' })], reason: 'who' }] };
  const ok = await runCli(['plan', 'validate'], { home: homeWithConfig(CONFIG), input: JSON.stringify(read) });
  assert.is(ok.code, 0, ok.stderr + ok.stdout);
});

test('a hostile fake: endless hasNextPage stops at 10 pages, a huge page at 5 MB, a slow one at --timeout', async () => {
  const f = await fake({ maxPerPage: 2 });
  f.hostile('endless');
  const endless = await ask(f, ['--issuetracker', 'how many open issues?']);
  assert.is(endless.code, 0, endless.stderr);
  assert.match(endless.stdout, /^issuetracker \(team ENG\): 20 open issues: .*\(incomplete: only the first 10 pages \(20 items\) were read\)\.$/m);
  f.hostile('huge');
  const huge = await ask(f, ['--issuetracker', 'open issues']);
  assert.is(huge.code, 0, huge.stderr);
  assert.match(huge.stdout, /the open issues could not be read whole: the answer was larger than 5242880 bytes/);
  f.hostile('slow');
  const slow = await runCli(['--timeout', '2', 'ask', '--ai-profile', 'builtin', '--issuetracker', 'open issues'], { home: homeWithConfig(CONFIG), env: envFor(f) });
  assert.is(slow.code, 1, slow.stderr);
  assert.match(slow.stderr, /^error: timeout: /m);
});

test('the team key a question names', () => {
  assert.is(teamIn('what is open for team OPS?'), 'OPS');
  assert.is(teamIn("show ENG's backlog"), 'ENG');
  assert.is(teamIn('my team issues'), undefined);
  assert.is(teamIn('open PR issues'), undefined);
});

test('--sandbox and the MCP ask tool read the same issuetracker context', async () => {
  const r = await runCli(['--sandbox', 'ask', 'what is in the backlog of team ENG by priority?'], { home: homeWithConfig('') });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, `${ENG_BY_PRIORITY}\n`);
  const { client } = await connectStdio({ home: homeWithConfig(''), globalArgs: ['--sandbox'] });
  try {
    const m = await callTool(client, 'assistant_gpucloud_ask', { question: 'which linear tickets of team OPS are open?' });
    assert.not.ok(m.isError, textOf(m));
    assert.equal(m.structuredContent.providers, ['issuetracker']);
    assert.match(m.structuredContent.answer, /OPS-4 Renew the TLS certificate/);
  } finally {
    await client.close();
  }
});

test.run();
