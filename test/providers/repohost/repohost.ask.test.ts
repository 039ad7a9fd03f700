/**
 * repohost (a GitHub-style code host) through the CLI against its fake (emulator/fakes/repohost.ts):
 * questions routed by their words or by --repohost, read with repohost-api GETs through the executor,
 * answered without a model; a combined view with gpucloud; 401 and 429 said clearly; paging followed;
 * the token never printed; a hostile fake (huge pages, endless next links, another origin, a slow
 * answer) bounded by pages, bytes and --timeout; the sandbox and the MCP ask tool read the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator } from '../../../emulator/index.js';
import { startRepohostFake } from '../../../emulator/fakes/repohost.js';
import { cliInThisProcess, emulatorEnv, runCli } from '../../support/cli.js';
import { assertNoSecret, closeStarted, homeWithConfig, keptFakes } from '../../support/integration.js';
import { callTool, connectStdio, textOf } from '../../support/mcp.js';
import { startOpenAiServer } from '../../support/openai-server.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const CONFIG = 'repohost:\n  owner: acme\n  repo: widgets\n';
test.after(closeStarted);
const { fake, envFor, ask } = keptFakes(startRepohostFake, CONFIG, (f, token) => ({ ASSISTANT_REPOHOST_BASE_URL: f.url, REPOHOST_TOKEN: token }));

test('a question about pull requests and CI is routed to repohost by its words and answered from its reads', async () => {
  const f = await fake();
  const r = await ask(f, ['which pull requests are open, and is CI failing?']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /acme\/widgets: 2 open pull requests:\n- #44 Add retry budget to uploads \(retry-budget → main; @ana\)\n- #43 WIP: new config loader \(config-loader → main; @mira, draft\)/);
  assert.match(r.stdout, /acme\/widgets: 1 workflow \(latest run\) \(failure\) — 1 failing, 1 running, 1 passing:\n- CI \(main, 1a2b3c4, run #212, failure\)/);
  const paths = f.requests().map((q) => `${q.method} ${q.path}`);
  assert.equal(paths, ['GET /repos/acme/widgets/pulls?state=open&per_page=100', 'GET /repos/acme/widgets/actions/runs?per_page=50']);
  assert.ok(f.requests().every((q) => q.authorized), 'the token went with every request');
});

test('--repohost selects it for a question without its words; the issues list leaves pull requests out', async () => {
  const f = await fake();
  const r = await ask(f, ['--repohost', 'what is open in issues?']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^acme\/widgets: 3 open issues:\n- #41 Crash when the config file is empty \(bug, p1; @mira\)\n- #38 Document the --timeout flag \(docs; @jon\)\n- #35 Retry uploads on 503 \(enhancement; @ana\)\n$/);
  const route = await runCli(['ask', '--route-only', '-o', 'json', 'any failing check runs on main in acme/gadgets?'], { home: homeWithConfig(CONFIG) });
  assert.is(route.code, 0, route.stderr);
  const doc = JSON.parse(route.stdout);
  assert.equal([doc.providers, doc.context_kinds], [['repohost'], ['repohost/ci', 'repohost/checks']]);
  const checks = await ask(f, ['any failing check runs on main in acme/gadgets?']);
  assert.is(checks.code, 0, checks.stderr);
  assert.match(checks.stdout, /acme\/gadgets: 1 check run \(failure\) — 1 failing, 0 running, 2 passing:\n- build \(ubuntu-latest\) \(1a2b3c4, failure\)/);
  assert.ok(f.requests().some((q) => q.path.startsWith('/repos/acme/gadgets/commits/main/check-runs')), 'the repository and ref named in the question were read');
});

test('a combined view: --gpucloud --repohost read both and answer both', async () => {
  const f = await fake();
  const emu = await startEmulator({ seed: 'demo', rateLimit: false });
  try {
    const r = await ask(f, ['--gpucloud', '--repohost', 'how many instances and how many open pull requests?'], { env: emulatorEnv(emu) });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /instance/i);
    assert.match(r.stdout, /acme\/widgets: 2 open pull requests\./);
    assert.ok(emu.requests().some((q) => q.path.startsWith('/v1/instances')), 'gpucloud was read');
  } finally {
    await emu.close();
  }
});

test('paging follows Link rel="next" to the last page', async () => {
  const f = await fake({ maxPerPage: 2, extraIssues: 3 });
  const r = await ask(f, ['--repohost', 'how many open issues?']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /acme\/widgets: 6 open issues\./, 'three seeded + three extra, pull requests left out');
  const pages = f.requests().map((q) => new URL(q.path, f.url).searchParams.get('page'));
  assert.equal(pages, [null, '2', '3', '4']);
});

test('a wrong token is a clear 401 error; no token reads a public repository; the token is never printed', async () => {
  const f = await fake();
  const wrong = 'ghp_wrongTokenWrongToken0123456789abcdef';
  const r = await ask(f, ['--repohost', 'open prs'], { token: wrong, env: {} });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^error: unauthorized: repohost: 401 the token was not accepted \(\/repos\/acme\/widgets\/pulls\): Bad credentials\nhint: check the code host token \(REPOHOST_TOKEN\); `assistant credentials test repohost` checks it/m);
  const debug = await runCli(['--debug', 'ask', '--ai-profile', 'builtin', '--repohost', 'open prs', '-o', 'json'], { home: homeWithConfig(`${CONFIG}  token: ${f.token}\n`), env: { ASSISTANT_REPOHOST_BASE_URL: f.url } });
  assert.is(debug.code, 0, debug.stderr);
  assert.match(debug.stderr, /settings from repohost\.token in the config/);
  assert.match(debug.stderr, /debug: run: step 0 started: repohost GET \/repos\/acme\/widgets\/pulls\?state=open&per_page=100/, '--debug shows the read plan');
  assert.match(debug.stdout, /#44/);
  assertNoSecret([r.stdout, r.stderr, debug.stdout, debug.stderr, ...histories(debug.home)], [wrong, f.token]);
  const anon = await runCli(['ask', '--ai-profile', 'builtin', '--repohost', 'open prs'], { home: homeWithConfig(CONFIG), env: { ASSISTANT_REPOHOST_BASE_URL: f.url } });
  assert.is(anon.code, 0, anon.stderr);
  assert.ok(f.requests().some((q) => !q.authorized), 'read without a token');
  const who = await runCli(['credentials', 'test', 'repohost'], { home: homeWithConfig(CONFIG), env: { ASSISTANT_REPOHOST_BASE_URL: f.url } });
  assert.is(who.code, 1);
  assert.match(who.stderr, /^error: unauthorized: repohost: 401 needs a token, and none is configured \(\/user\): Requires authentication\nhint: configure a code host token/m);
  const ok = await runCli(['credentials', 'test', 'repohost'], { home: homeWithConfig(CONFIG), env: envFor(f) });
  assert.is(ok.code, 0, ok.stderr);
  assert.is(ok.stdout, 'repohost credentials work (source: REPOHOST_TOKEN); token of @octo-dev\n');
});

function histories(home: string): string[] {
  const dir = join(home, '.assistant');
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : out.push(readFileSync(join(d, e.name), 'utf8'));
  };
  try {
    walk(dir);
  } catch {
    /* nothing written */
  }
  return out;
}

test('a 429 with Retry-After is waited out and the answer comes; one asking for too long a wait is a clear error', async () => {
  const f = await fake();
  f.rateLimitNext(1, 1);
  const r = await ask(f, ['--repohost', 'how many open prs?']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /2 open pull requests\./);
  assert.is(f.requests().length, 2, 'asked again once after the wait');
  f.rateLimitNext(1, 3600);
  const long = await ask(f, ['--repohost', 'how many open prs?']);
  assert.is(long.code, 1);
  assert.match(long.stderr, /^error: rate_limited: repohost: rate limited; the server asks to wait 3600 s, longer than 120 s\nhint: try again later/m);
});

test('a hostile fake cannot hold ask or fill memory: endless next links stop at 10 pages, a huge page at 5 MB, both said in the answer', async () => {
  const f = await fake({ maxPerPage: 2 });
  f.hostile('endless');
  const endless = await ask(f, ['--repohost', 'how many open prs?']);
  assert.is(endless.code, 0, endless.stderr);
  assert.match(endless.stdout, /acme\/widgets: 20 open pull requests \(incomplete: only the first 10 pages \(20 items\) were read\)\./);
  assert.is(f.requests().length, 10);
  f.hostile('huge');
  const huge = await ask(f, ['--repohost', 'list open issues']);
  assert.is(huge.code, 0, huge.stderr);
  assert.match(huge.stdout, /acme\/widgets: the open issues could not be read whole: the answer was larger than 5242880 bytes and was not read\./);
});

test('a next link to another origin is refused; a redirect is not followed; an HTML page is said to be no JSON; a slow answer ends at --timeout (exit 1)', async () => {
  const f = await fake({ maxPerPage: 1 });
  f.hostile('offorigin');
  const off = await ask(f, ['--repohost', 'open prs']);
  assert.is(off.code, 1);
  assert.match(off.stderr, /^error: http_redirect_refused: repohost: the server pointed to http:\/\/127\.0\.0\.2:9, another origin than http:\/\/127\.0\.0\.1:\d+; not followed/m);
  f.hostile('redirect');
  const moved = await ask(f, ['--repohost', 'open prs']);
  assert.is(moved.code, 1);
  assert.match(moved.stderr, /^error: http_redirect_refused: repohost: the server answered 302 \(a redirect\); redirects are not followed/m);
  f.hostile('html');
  const html = await ask(f, ['--repohost', 'open prs']);
  assert.is(html.code, 0, html.stderr);
  assert.match(html.stdout, /^acme\/widgets: the open pull requests could not be read whole: the answer was not JSON \("<html><title>\\u001b\[31mSign in/m);
  assert.not.ok(html.stdout.includes('\u001b'), 'no terminal escape reaches the terminal');
  f.hostile('slow');
  const slow = await runCli(['--timeout', '2', 'ask', '--ai-profile', 'builtin', '--repohost', 'open prs'], { home: homeWithConfig(CONFIG), env: envFor(f) });
  assert.is(slow.code, 1, slow.stderr);
  assert.match(slow.stderr, /^error: timeout: /m);
});

test('without a repository configured or named: ask says which settings to give; --route-only still routes', async () => {
  const r = await runCli(['ask', '--ai-profile', 'builtin', 'which pull requests are open?'], { home: homeWithConfig('') });
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: usage: repohost: which repository\? none is configured and the question names none\nhint: set repohost\.owner and repohost\.repo/m);
  const route = await runCli(['ask', '--route-only', 'which pull requests are open?'], { home: homeWithConfig('') });
  assert.is(route.code, 0, route.stderr);
  assert.match(route.stdout, /^repohost\s+pull requests/m);
  assert.match(route.stdout, /context read: none yet \(repohost: which repository\?/);
});

test('plain HTTP to another host is refused while a token is configured; a step that writes needs --destroyer', async () => {
  const r = await runCli(['ask', '--ai-profile', 'builtin', '--repohost', 'open prs'], { home: homeWithConfig(`${CONFIG}  base_url: http://github.example.com/api/v3\n  token: ghp_plainHttpToken0123456789abcdefghij\n`) });
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: usage: repohost: base_url http:\/\/github\.example\.com is plain HTTP to another host, and a token is configured: it would travel in clear; nothing was sent/m);
  const plan = { version: 1, provider: 'repohost', commands: [{ args: ['repohost-api', 'POST', '/repos/acme/widgets/issues', '{"title":"x"}'], reason: 'file an issue' }] };
  const refused = await runCli(['--yes', 'ask', '--apply'], { home: homeWithConfig(CONFIG), input: JSON.stringify(plan) });
  assert.is(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /POST \/repos\/acme\/widgets\/issues: not known to be safe/);
});

test('--sandbox answers from the local stand-in without any configuration', async () => {
  const r = await runCli(['--sandbox', 'ask', 'open pull requests in acme/widgets'], { home: homeWithConfig('') });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /acme\/widgets: 2 open pull requests:/);
});

test('the MCP ask tool reads the same repohost context (read-only), with a model and in the sandbox', async () => {
  const f = await fake();
  const ai = await startOpenAiServer();
  const config = `${CONFIG}ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${ai.baseURL}\n`;
  const { client } = await connectStdio({ home: homeWithConfig(config), env: { ...envFor(f), TEST_AI_KEY: 'sk-test-key-123456' } });
  try {
    ai.reply({ text: 'Two pull requests are open: #44 and #43.' });
    const r = await callTool(client, 'assistant_gpucloud_ask', { question: 'which pull requests are open on github?' });
    assert.not.ok(r.isError, textOf(r));
    assert.equal(r.structuredContent.providers, ['repohost']);
    const prompt = JSON.stringify(ai.chatRequests().at(-1));
    assert.match(prompt, /Add retry budget to uploads/, 'the pull requests read from repohost reached the model');
    assert.not.ok(prompt.includes(f.token), 'the token never reaches the model');
    assert.ok(f.requests().every((q) => q.method === 'GET'), 'only reads were sent');
  } finally {
    await client.close();
    await ai.close();
  }
  const sandbox = await connectStdio({ home: homeWithConfig(''), globalArgs: ['--sandbox'] });
  try {
    const r = await callTool(sandbox.client, 'assistant_gpucloud_ask', { question: 'which pull requests are open in acme/widgets?' });
    assert.not.ok(r.isError, textOf(r));
    assert.match(r.structuredContent.answer, /#44 Add retry budget to uploads/);
    assert.equal(r.structuredContent.providers, ['repohost']);
  } finally {
    await sandbox.client.close();
  }
});

test.run();
