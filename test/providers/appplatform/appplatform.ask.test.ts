/**
 * appplatform (Vercel-style API) as an ask context, through the CLI against its local fake
 * (emulator/fakes/appplatform.ts): deployments and their status routed by words and by --appplatform,
 * the team from `workspace_id`, a combined view with notes, `until` paging followed, a refused token
 * and rate limits made clear, the token never shown, a hostile fake bounded, `credentials test`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { APPPLATFORM_FAKE_TEAM_ID, startAppPlatformFake } from '../../../emulator/fakes/appplatform.js';
import type { JsonFake } from '../../../emulator/fakes/json-fake.js';
import { startNotesFake } from '../../../emulator/fakes/notes.js';
import { appPlatformProvider } from '../../../engine/providers/appplatform/provider.js';
import { runUntilHeld } from '../../support/held-request.js';
import { cliInThisProcess, runCli, tempHome } from '../../support/cli.js';
import { builtinConfig, runWithConfig } from '../../support/integration.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); what is about the process itself spawns.
cliInThisProcess();

const home = () => tempHome('assistant-appplatform-');
const config = builtinConfig;
const section = (fake: JsonFake, extra = '') => `appplatform:\n  api_token: ${fake.token}\n  workspace_id: ${APPPLATFORM_FAKE_TEAM_ID}\n  base_url: ${fake.url}\n${extra}`;

const ask = (fake: JsonFake, args: string[], opts: { env?: Record<string, string>; config?: string } = {}) => runWithConfig(opts.config ?? config(section(fake)), args, fake.token, opts.env);

test('"which deployments failed" is routed to appplatform without a flag and answered from the team\'s deployments', async () => {
  const fake = await startAppPlatformFake();
  try {
    const r = await ask(fake, ['ask', 'which deployments failed?']);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^2 deployments ERROR:\n- storefront-[a-z0-9-]+\.vercel\.app \(storefront, preview, feat\/checkout, 2026-11-24 11:00, ERROR\)\n- admin-panel-[a-z0-9-]+\.vercel\.app \(admin-panel, production, main, 2026-11-24 04:00, ERROR\)\n?$/);
    assert.equal(fake.requests().map((q) => `${q.method} ${q.path}`), [`GET /v6/deployments?limit=100&teamId=${APPPLATFORM_FAKE_TEAM_ID}`]);
  } finally {
    await fake.close();
  }
});

test('--appplatform selects it for a question without its words; "production" narrows the answer', async () => {
  const fake = await startAppPlatformFake();
  try {
    const r = await ask(fake, ['ask', '--appplatform', 'what is live in production?']);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^3 production deployments READY:\n- storefront-.*\n- docs-site-.*\n- admin-panel-.*\n?$/);
    const projects = await ask(fake, ['ask', '--appplatform', 'which projects do I have?']);
    assert.is(projects.stdout, '3 projects:\n- storefront (nextjs, updated 2026-11-24 12:00)\n- docs-site (astro, updated 2026-11-24 10:00)\n- admin-panel (vite, updated 2026-11-24 04:00)\n');
  } finally {
    await fake.close();
  }
});

test('--appplatform with --notes answers both in one view', async () => {
  const fake = await startAppPlatformFake();
  const notes = await startNotesFake();
  try {
    const cfg = config(`${section(fake)}notes:\n  integration_token: ${notes.token}\n  base_url: ${notes.url}\n`);
    const r = await ask(fake, ['ask', '--appplatform', '--notes', 'list the failed deployments and the pages in progress'], { config: cfg });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /2 deployments ERROR:/);
    assert.match(r.stdout, /2 pages In progress:\n- GPU cluster migration plan/);
    assert.not.ok(r.stdout.includes(notes.token));
  } finally {
    await fake.close();
    await notes.close();
  }
});

test('every page of deployments is read: until=<pagination.next> is followed to the end', async () => {
  const fake = await startAppPlatformFake({ deployments: 230 });
  try {
    const r = await ask(fake, ['ask', 'how many vercel deployments are ready?']);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout.trim(), '225 deployments READY.');
    const paths = fake.requests().map((q) => q.path);
    assert.is(paths.length, 3);
    assert.ok(paths.slice(1).every((p) => /[?&]until=\d+/.test(p) && p.includes(`teamId=${APPPLATFORM_FAKE_TEAM_ID}`)), paths.join('\n'));
  } finally {
    await fake.close();
  }
});

test('a refused token is a clear error; a team the token may not see is one too', async () => {
  const fake = await startAppPlatformFake();
  try {
    const wrong = config(`appplatform:\n  api_token: wrongtoken0123456789\n  base_url: ${fake.url}\n`);
    const r = await ask(fake, ['ask', 'list the latest deployments'], { config: wrong });
    assert.is(r.code, 1);
    assert.match(r.stderr, /^error: unauthorized: appplatform: 401 the token was not accepted \(\/v6\/deployments\)$/m);
    assert.match(r.stderr, /^hint: check the app platform token \(appplatform\.api_token in the config file\)/m);
    assert.not.ok((r.stdout + r.stderr).includes('wrongtoken0123456789'));
    const team = config(`appplatform:\n  api_token: ${fake.token}\n  workspace_id: team_other\n  base_url: ${fake.url}\n`);
    const t = await ask(fake, ['ask', 'list the latest deployments'], { config: team });
    assert.is(t.code, 1);
    assert.match(t.stderr, /^error: unauthorized: appplatform: 403 the token may not read this/m);
  } finally {
    await fake.close();
  }
});

test('429 with Retry-After is waited out; a limit that never lifts is a clear error', async () => {
  const fake = await startAppPlatformFake();
  try {
    fake.rateLimit(2, 1);
    const ok = await ask(fake, ['--debug', 'ask', '--appplatform', 'how many deployments']);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(ok.stdout.trim(), '8 deployments.');
    assert.is(ok.stderr.match(/appplatform: rate limited; waiting 1 s/g)?.length, 2);
    fake.rateLimit(10, 0);
    const no = await ask(fake, ['ask', '--appplatform', 'how many deployments']);
    assert.is(no.code, 1);
    assert.match(no.stderr, /^error: rate_limited: appplatform: still rate limited after waiting three times$/m);
  } finally {
    await fake.close();
  }
});

test('a hostile fake cannot hold ask: slow answers end at --timeout, endless pages and huge answers are cut and said so', async () => {
  const fake = await startAppPlatformFake();
  try {
    fake.hostile('slow');
    const slow = await runUntilHeld(fake, (timeout) => ask(fake, [...timeout, 'ask', '--appplatform', 'how many deployments']));
    assert.is(slow.code, 1, slow.stderr);
    assert.match(slow.stderr, /^error: .*tim(ed out|eout)/im);
    fake.hostile('endless');
    const endless = await ask(fake, ['ask', '--appplatform', 'how many deployments']);
    assert.is(endless.stdout.trim(), '10 deployments (appplatform: only the first 10 pages (10 items) were read; the answer covers those).');
    fake.hostile('huge');
    const huge = await ask(fake, ['ask', '--appplatform', 'how many deployments']);
    assert.match(huge.stdout, /^appplatform: no deployments could be read \(the answer was larger than 5242880 bytes and was not read\)\./);
  } finally {
    await fake.close();
  }
});

test('credentials test appplatform reads the token\'s user; the token may come from the environment', async () => {
  const fake = await startAppPlatformFake();
  try {
    const r = await runCli(['credentials', 'test', 'appplatform'], { env: { APPPLATFORM_API_TOKEN: fake.token, ASSISTANT_APPPLATFORM_BASE_URL: fake.url }, home: home() });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'appplatform credentials work (source: APPPLATFORM_API_TOKEN); user ada\n');
    assert.not.ok(r.stdout.includes(fake.token));
  } finally {
    await fake.close();
  }
});

test('only GETs read: creating, promoting or deleting a deployment needs --destroyer', () => {
  const verb = appPlatformProvider.verbs[0]!;
  assert.is(verb.classify(['appplatform-api', 'GET', '/v6/deployments']).effect, 'read');
  assert.is(verb.classify(['appplatform-api', 'POST', '/v13/deployments', '{}']).effect, 'destroy');
  assert.is(verb.classify(['appplatform-api', 'DELETE', '/v13/deployments/dpl_1']).effect, 'destroy');
  assert.is(verb.classify(['appplatform-api', 'POST', '/v10/projects/p/promote/dpl_1', '{}']).effect, 'destroy');
});

test.run();
