/**
 * errtracker (a Sentry-style error tracker) through the CLI against its fake
 * (emulator/fakes/errtracker.ts): unresolved issues by frequency for a project, routed by words or by
 * --errtracker; `host` default and override, `base_url` over both; a combined view with repohost;
 * Sentry's cursor paging (results="true/false") followed and bounded; 401, 404 and 429 said clearly;
 * the token never printed; a hostile fake bounded by pages, bytes and --timeout; sandbox and MCP.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startErrtrackerFake } from '../../../emulator/fakes/errtracker.js';
import { startRepohostFake } from '../../../emulator/fakes/repohost.js';
import { errtrackerBaseUrl, sentryLinkPage } from '../../../engine/providers/errtracker/provider.js';
import { projectIn } from '../../../engine/providers/errtracker/reads.js';
import { cliInThisProcess, runCli } from '../../support/cli.js';
import { assertNoSecret, closeStarted, homeWithConfig, keptFakes, startKept } from '../../support/integration.js';
import { callTool, connectStdio, textOf } from '../../support/mcp.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const CONFIG = 'errtracker:\n  org_slug: acme\n  default_project: backend\n';
test.after(closeStarted);
const { fake, envFor, ask } = keptFakes(startErrtrackerFake, CONFIG, (f, token) => ({ ASSISTANT_ERRTRACKER_BASE_URL: f.url, ERRTRACKER_AUTH_TOKEN: token }));

const BACKEND_TOP = /acme\/backend: 3 unresolved issues, most frequent first \(events in the last 14d\):\n- BACKEND-7 KeyError: user_id in app\.api\.session \(3410 events, 412 users, error, last seen 2026-11-24\)\n- BACKEND-3 ZeroDivisionError: division by zero in app\.billing\.ratio \(1204 events, 87 users, error, last seen 2026-11-25\)\n- BACKEND-9 TimeoutError: upstream took 30s in app\.jobs\.sync \(95 events, 3 users, warning, last seen 2026-11-23\)/;

test('unresolved errors of a project by frequency: routed by its words, read with one GET, resolved ones left out', async () => {
  const f = await fake();
  const r = await ask(f, ['which unresolved exceptions happen most in project backend?'], { config: 'errtracker:\n  org_slug: acme\n' });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, BACKEND_TOP);
  assert.not.match(r.stdout, /BACKEND-2/, 'a resolved issue is not an unresolved one');
  assert.equal(f.requests().map((q) => q.path), ['/api/0/projects/acme/backend/issues/?query=is%3Aunresolved&sort=freq&statsPeriod=14d&limit=100']);
});

test('--errtracker uses default_project; without a project the whole organization; "which projects" lists them', async () => {
  const f = await fake();
  const r = await ask(f, ['--errtracker', 'what is broken?']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, BACKEND_TOP);
  const org = await ask(f, ['--errtracker', 'how many unresolved issues?'], { config: 'errtracker:\n  org_slug: acme\n' });
  assert.is(org.code, 0, org.stderr);
  assert.is(org.stdout, 'acme (all projects): 4 unresolved issues.\n');
  const projects = await ask(f, ['--errtracker', 'which projects are there?']);
  assert.is(projects.code, 0, projects.stderr);
  assert.is(projects.stdout, 'acme: 2 projects:\n- backend (python)\n- web (javascript)\n');
});

test('host: sentry.io by default, `host` overrides it, ASSISTANT_ERRTRACKER_BASE_URL and base_url override both', async () => {
  const cfg = (errtracker: Record<string, string>) => ({ errtracker }) as never;
  assert.is(errtrackerBaseUrl(cfg({}), {}), 'https://sentry.io');
  assert.is(errtrackerBaseUrl(cfg({ host: 'de.sentry.io' }), {}), 'https://de.sentry.io');
  assert.is(errtrackerBaseUrl(cfg({ host: 'https://sentry.example.com/' }), {}), 'https://sentry.example.com');
  assert.is(errtrackerBaseUrl(cfg({ host: 'de.sentry.io' }), { ASSISTANT_ERRTRACKER_BASE_URL: 'http://127.0.0.1:9' }), 'http://127.0.0.1:9');
  assert.is(errtrackerBaseUrl(cfg({ host: 'de.sentry.io', base_url: 'https://errors.example.com' }), { ASSISTANT_ERRTRACKER_BASE_URL: 'http://127.0.0.1:9' }), 'https://errors.example.com');
  // Through the CLI: `host` alone reaches the (local) host it names.
  const f = await fake();
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--errtracker', 'how many unresolved errors?'], { home: homeWithConfig(`${CONFIG}  host: ${f.url}\n`), env: { ERRTRACKER_AUTH_TOKEN: f.token } });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'acme/backend: 3 unresolved issues.\n');
  const plain = await runCli(['ask', '--ai-profile', 'builtin', '--errtracker', 'errors?'], { home: homeWithConfig(`${CONFIG}  host: http://sentry.example.com\n`), env: { ERRTRACKER_AUTH_TOKEN: f.token } });
  assert.is(plain.code, 2);
  assert.match(plain.stderr, /^error: usage: errtracker: base_url http:\/\/sentry\.example\.com is plain HTTP to another host, and a token is configured/m);
});

test('a combined view: errtracker and repohost in one answer', async () => {
  const f = await fake();
  const gh = await startKept(() => startRepohostFake());
  const r = await ask(f, ['how many unresolved errors are there and how many pull requests are open?'], {
    config: `${CONFIG}repohost:\n  owner: acme\n  repo: widgets\n`,
    env: { ASSISTANT_REPOHOST_BASE_URL: gh.url, REPOHOST_TOKEN: gh.token },
  });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /acme\/widgets: 2 open pull requests\./);
  assert.match(r.stdout, /acme\/backend: 3 unresolved issues\./);
});

test('cursor paging follows rel="next" while results="true" and stops at results="false"', async () => {
  const f = await fake({ maxPerPage: 2, extraIssues: 3 });
  const r = await ask(f, ['--errtracker', 'how many unresolved errors?']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'acme/backend: 6 unresolved issues.\n');
  const cursors = f.requests().map((q) => new URL(q.path, f.url).searchParams.get('cursor'));
  assert.equal(cursors, [null, '0:2:0', '0:4:0'], 'the last page says results="false": its next link is not followed');
  const page = sentryLinkPage([], new Headers({ link: '<http://x/?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <http://x/?cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"' }));
  assert.equal(page.next, { path: 'http://x/?cursor=0:100:0' });
});

test('401, 404 and no token are clear; a 429 is waited out; the token is never printed', async () => {
  const f = await fake();
  const wrong = 'sntrys_wrongWrongWrong0123456789abcdef';
  const bad = await ask(f, ['--errtracker', 'errors?'], { token: wrong });
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /^error: unauthorized: errtracker: 401 the token was not accepted \(\/api\/0\/projects\/acme\/backend\/issues\/\): Invalid token\nhint: check the error tracker token \(ERRTRACKER_AUTH_TOKEN\)/m);
  const missing = await ask(f, ['--errtracker', 'errors in acme/nope?']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^error: http_error: errtracker: GET \/api\/0\/projects\/acme\/nope\/issues\/ answered 404: The requested resource does not exist/m);
  const none = await runCli(['ask', '--ai-profile', 'builtin', '--errtracker', 'errors?'], { home: homeWithConfig(CONFIG), env: { ASSISTANT_ERRTRACKER_BASE_URL: f.url } });
  assert.is(none.code, 2);
  assert.match(none.stderr, /^error: usage: errtracker: no auth token\nhint: set errtracker.auth_token or ERRTRACKER_AUTH_TOKEN/m);
  f.rateLimitNext(1, 1);
  const before = f.requests().length;
  const limited = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '--errtracker', 'how many errors?'], { home: homeWithConfig(`${CONFIG}  auth_token: ${f.token}\n`), env: { ASSISTANT_ERRTRACKER_BASE_URL: f.url } });
  assert.is(limited.code, 0, limited.stderr);
  assert.is(limited.stdout, 'acme/backend: 3 unresolved issues.\n');
  assert.match(limited.stderr, /errtracker: rate limited; waiting 1 s/);
  assert.is(f.requests().length - before, 2);
  assertNoSecret([bad.stdout, bad.stderr, limited.stdout, limited.stderr], [f.token, wrong]);
  const test_ = await runCli(['credentials', 'test', 'errtracker'], { home: homeWithConfig(CONFIG), env: envFor(f) });
  assert.is(test_.code, 0, test_.stderr);
  assert.is(test_.stdout, 'errtracker credentials work (source: ERRTRACKER_AUTH_TOKEN); the token sees 1 organization: acme\n');
});

test('a hostile fake: endless results="true" stops at 10 pages, a huge page at 5 MB, a slow one at --timeout', async () => {
  const f = await fake({ maxPerPage: 2 });
  f.hostile('endless');
  const endless = await ask(f, ['--errtracker', 'how many unresolved errors?']);
  assert.is(endless.code, 0, endless.stderr);
  assert.match(endless.stdout, /acme\/backend: \d+ unresolved issues \(incomplete: only the first 10 pages \(20 items\) were read\)\./);
  f.hostile('huge');
  const huge = await ask(f, ['--errtracker', 'top errors']);
  assert.is(huge.code, 0, huge.stderr);
  assert.match(huge.stdout, /could not be read whole: the answer was larger than 5242880 bytes/);
  f.hostile('offorigin');
  const off = await ask(f, ['--errtracker', 'top errors']);
  assert.is(off.code, 1);
  assert.match(off.stderr, /^error: http_redirect_refused: errtracker: the server pointed to http:\/\/127\.0\.0\.2:9/m);
  f.hostile('slow');
  const slow = await runCli(['--timeout', '2', 'ask', '--ai-profile', 'builtin', '--errtracker', 'top errors'], { home: homeWithConfig(CONFIG), env: envFor(f) });
  assert.is(slow.code, 1, slow.stderr);
  assert.match(slow.stderr, /^error: timeout: /m);
});

test('the project a question names', () => {
  assert.is(projectIn('errors in project backend'), 'backend');
  assert.is(projectIn('what breaks the checkout project most?'), 'checkout');
  assert.is(projectIn('which project has the most errors'), undefined);
  assert.is(projectIn('top errors'), undefined);
});

test('--sandbox and the MCP ask tool read the same errtracker context', async () => {
  const r = await runCli(['--sandbox', 'ask', 'unresolved errors in acme/web'], { home: homeWithConfig('') });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /acme\/web: 1 unresolved issue, most frequent first .*\n- WEB-12 TypeError/);
  const { client } = await connectStdio({ home: homeWithConfig(''), globalArgs: ['--sandbox'] });
  try {
    const m = await callTool(client, 'assistant_gpucloud_ask', { question: 'which sentry errors are most frequent in acme/backend?' });
    assert.not.ok(m.isError, textOf(m));
    assert.equal(m.structuredContent.providers, ['errtracker']);
    assert.match(m.structuredContent.answer, /BACKEND-7 KeyError/);
  } finally {
    await client.close();
  }
});

test.run();
