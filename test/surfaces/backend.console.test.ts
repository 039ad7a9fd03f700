/**
 * The backend's read-only console at /ui (issue 41 item 2) over real HTTP against a real backend
 * process: sign in with an API key, see a run the CLI made against the emulator, open it and its diff
 * against the previous run of the same plan, sign out; a forged cookie, an expired session, a revoked
 * key, another tenant's run and cross-site requests are refused; every page carries a CSP without
 * script and no page has a script or a form that changes anything.
 */
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { cliInThisProcess, emulatorEnv, runCli, tempHome, withEmulator } from '../support/cli.js';
import { asClient, consoleKey, startBackendProcess, storageArgs, trainingBoxPlan, type BackendProcess } from '../support/backend.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); the server itself is a child (startBackendProcess).
cliInThisProcess();

let b: BackendProcess;
/** The cloud the live page reads: the backend serves with its URL (and no credentials of its own). */
let cloud: Emulator;
const keys: Record<string, string> = {};

const get = (path: string, cookie?: string, headers: Record<string, string> = {}) => fetch(b.url + path, { redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...headers } });

async function signIn(apiKey: string): Promise<{ res: Response; cookie?: string }> {
  const res = await fetch(`${b.url}/ui/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key: apiKey }) });
  const set = res.headers.get('set-cookie') ?? '';
  return { res, cookie: set.split(';')[0] || undefined };
}

test.before(async () => {
  cloud = await startEmulator({ seed: 'demo', rateLimit: false, lifecycleMs: 1, debit: false });
  // The live reads' deadline is met by a quiet machine in well under a second; 10 s holds at load 24 too (4 s did not).
  b = await startBackendProcess({ env: { ASSISTANT_BACKEND_UI_SESSION_SECONDS: '3', ASSISTANT_BACKEND_UI_LIVE_TIMEOUT_S: '10', GPUCLOUD_BASE_URL: cloud.url } });
  keys.alice = await consoleKey(b, 'ml-team', 'alice');
  keys.other = await consoleKey(b, 'other-team', 'mallory');
});

test.after(async () => {
  await b.kill();
  await cloud.close().catch(() => undefined);
  rmSync(b.home, { recursive: true, force: true });
});

test('sign in with an API key, see the runs the CLI made against the emulator, open one and its diff against the previous run of the plan, sign out', async () => {
  await withEmulator(async ({ env }) => {
    const client = { ...env, ...asClient(b, keys.alice!) };
    const dry = await runCli(['ask', '--apply', '--dry-run'], { env: client, input: trainingBoxPlan('console box', 'ui-1'), home: tempHome('console-') });
    assert.is(dry.code, 0, dry.stderr);
    const applied = await runCli(['ask', '--apply'], { env: client, input: trainingBoxPlan('console box', 'ui-1'), home: tempHome('console-') });
    assert.is(applied.code, 0, applied.stderr);
  });
  const { res, cookie } = await signIn(keys.alice!);
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), '/ui/runs');
  const set = res.headers.get('set-cookie')!;
  assert.match(set, /HttpOnly/);
  assert.match(set, /SameSite=Strict/);
  assert.match(set, /Path=\/ui/);
  assert.not.match(set, /Secure/, 'plain HTTP on loopback: not Secure (it would not be sent back)');
  assert.not.ok(set.includes(keys.alice!), 'the key is not in the cookie');
  const list = await get('/ui/runs', cookie);
  assert.is(list.status, 200);
  const csp = list.headers.get('content-security-policy')!;
  assert.match(csp, /default-src 'none'/);
  assert.not.match(csp, /script-src/);
  // Under no-referrer a browser posts the sign-in form with `Origin: null`, which the guard refuses (test/surfaces/console.browser.test.ts).
  assert.is(list.headers.get('referrer-policy'), 'same-origin');
  const page = await list.text();
  assert.not.match(page, /<script/i);
  assert.match(page, /console box/);
  assert.match(page, /alice/);
  assert.match(page, /<svg class="chart"/);
  assert.match(page, />dry run</);
  const ids = [...page.matchAll(/href="\/ui\/runs\/(run_[0-9a-f]+)"/g)].map((m) => m[1]!);
  assert.is(ids.length, 2);
  const apply = await (await get(`/ui/runs/${ids[0]}`, cookie)).text();
  assert.match(apply, /Apply: <span class="succeeded">succeeded/);
  assert.match(apply, /the previous run of this plan/);
  assert.match(apply, /<td>status<\/td><td class="removed">previewed<\/td><td class="added">succeeded<\/td>/);
  assert.match(apply, /ui-1/);
  // Only sign-in and sign-out are forms; no page has a form that acts on anything else.
  for (const html of [page, apply]) for (const m of html.matchAll(/<form[^>]*action="([^"]+)"/g)) assert.ok(['/ui/sign-out', '/ui/sign-in'].includes(m[1]!), m[1]);
  const out = await fetch(`${b.url}/ui/sign-out`, { method: 'POST', redirect: 'manual', headers: { cookie: cookie! } });
  assert.is(out.status, 303);
  assert.match(out.headers.get('set-cookie')!, /Max-Age=0/);
  const after = await get('/ui/runs', cookie);
  assert.is(after.status, 303, 'signed out: the old cookie no longer works');
  assert.is(after.headers.get('location'), '/ui');
});

test('a forged cookie, an unknown key and an expired session are refused; another tenant sees none of these runs', async () => {
  assert.is((await get('/ui/runs', 'asb_console=' + 'A'.repeat(43))).status, 303);
  assert.is((await get('/ui/runs', 'asb_console=../../etc')).status, 303);
  const bad = await signIn('asb_nope_' + 'x'.repeat(40));
  assert.is(bad.res.status, 401);
  assert.is(bad.cookie, undefined);
  const { cookie } = await signIn(keys.alice!);
  assert.is((await get('/ui/runs', cookie)).status, 200);
  // The session lasts ASSISTANT_BACKEND_UI_SESSION_SECONDS (3 s here); wait past it by polling, not by guessing.
  for (let i = 0; i < 100 && (await get('/ui/runs', cookie)).status === 200; i++) await new Promise((r) => setTimeout(r, 200));
  assert.is((await get('/ui/runs', cookie)).status, 303, 'expired');
  const other = await signIn(keys.other!);
  const theirs = await (await get('/ui/runs', other.cookie)).text();
  assert.not.match(theirs, /console box/);
  const id = /run_[0-9a-f]+/.exec(await (await get('/ui/runs', (await signIn(keys.alice!)).cookie)).text())![0];
  assert.is((await get(`/ui/runs/${id}`, other.cookie)).status, 404);
});

test('cross-site requests are refused: a foreign Origin, Sec-Fetch-Site cross-site, a revoked key ends its sessions; methods other than GET are refused', async () => {
  const { cookie } = await signIn(keys.alice!);
  assert.is((await get('/ui/runs', cookie, { origin: 'https://evil.example' })).status, 403);
  assert.is((await get('/ui/runs', cookie, { 'sec-fetch-site': 'cross-site' })).status, 403);
  const post = await fetch(`${b.url}/ui/sign-in`, { method: 'POST', redirect: 'manual', headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' }, body: `key=${keys.alice}` });
  assert.is(post.status, 403);
  assert.is((await fetch(`${b.url}/ui/runs`, { method: 'DELETE', headers: { cookie: cookie! } })).status, 405);
  const revokable = await consoleKey(b, 'ml-team', 'temp');
  const s = await signIn(revokable);
  assert.is((await get('/ui/runs', s.cookie)).status, 200);
  const prefix = revokable.split('_')[1]!;
  const r = await runCli(['backend', 'keys', 'revoke', prefix, ...storageArgs(b)], { home: b.home });
  assert.is(r.code, 0, r.stderr);
  assert.is((await get('/ui/runs', s.cookie)).status, 303, 'a revoked key ends its sessions');
});

/** The live page of a fresh session (sessions last 3 s here: one per page). */
async function livePage(apiKey: string, query = ''): Promise<Response> {
  const { cookie } = await signIn(apiKey);
  return get(`/ui/live${query}`, cookie);
}

const cloudRequests = () => cloud.requests();

test('the live page: a tenant without stored credentials is told how to store them, and nothing reaches the cloud', async () => {
  const before = cloudRequests().length;
  const res = await livePage(keys.other!);
  assert.is(res.status, 200);
  const page = await res.text();
  assert.match(page, /No gpucloud credentials are stored for production/);
  assert.match(page, /assistant credentials store gpucloud/);
  assert.not.match(page, /<script/i);
  assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
  assert.is(cloudRequests().length, before, 'no request reached the cloud for a tenant without credentials');
});

test("the live page reads the tenant's account with its stored credentials: instances listed, the burn equals the CLI's cost summary, the availability matrix drawn; only GETs and the token POST reached the cloud; another tenant never gets them", async () => {
  const env = emulatorEnv(cloud);
  // Something billable: an instance made by the CLI (not through the backend).
  const made = await runCli(['ask', '--apply'], { env, input: trainingBoxPlan('live box', 'live-1'), home: tempHome('console-') });
  assert.is(made.code, 0, made.stderr);
  const stored = await runCli(['credentials', 'store', 'gpucloud', '--client-id', cloud.clientId, '--client-secret', '-'], { env: asClient(b, keys.alice!), input: cloud.clientSecret, home: tempHome('console-') });
  assert.is(stored.code, 0, stored.stderr);
  const summary = await runCli(['cost', 'summary', '-o', 'json'], { env, home: tempHome('console-') });
  assert.is(summary.code, 0, summary.stderr);
  const cli = JSON.parse(summary.stdout) as { hourly_cost: number; resources: Array<{ id: string; name: string }> };
  assert.ok(cli.hourly_cost > 0, 'something bills');

  const before = cloudRequests().length;
  const res = await livePage(keys.alice!);
  assert.is(res.status, 200);
  const page = await res.text();
  assert.not.match(page, /<script/i);
  assert.not.ok(page.includes(cloud.clientSecret), 'the secret never reaches the page');
  const hourly = /class="burn-hourly" data-hourly="([^"]+)"/.exec(page);
  assert.ok(hourly, page);
  assert.is(Number(hourly![1]), cli.hourly_cost, "the page's burn is the CLI's cost summary burn");
  assert.match(page, /live-1/);
  for (const r of cli.resources) assert.ok(page.includes(r.id), `resource ${r.name} (${r.id}) is listed`);
  assert.match(page, /<svg class="matrix"/);
  assert.match(page, /Availability now/);
  for (const m of page.matchAll(/<form[^>]*action="([^"]+)"/g)) assert.is(m[1], '/ui/sign-out', 'the only form is sign-out');
  const sent = cloudRequests().slice(before);
  assert.ok(sent.some((q) => q.method === 'GET' && q.path === '/v1/instances'), 'the instances were read');
  for (const q of sent) assert.ok(q.method === 'GET' || (q.method === 'POST' && q.path === '/v1/oauth2/token'), `only reads reached the cloud: ${q.method} ${q.path}`);

  // Another tenant still has nothing stored: it never gets ml-team's credentials, and nothing is read for it.
  const count = cloudRequests().length;
  const theirs = await (await livePage(keys.other!)).text();
  assert.match(theirs, /No gpucloud credentials are stored/);
  assert.not.match(theirs, /live-1/);
  assert.is(cloudRequests().length, count);
  // An env the key may not read is refused before anything is read.
  assert.is((await livePage(keys.alice!, '?env=staging')).status, 403);
  assert.is(cloudRequests().length, count);
});

test('a slow cloud and a down cloud give an error box, not a hung page', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  cloud.addFault({ path: '/v1/instances', times: -1, until: held });
  try {
    const slow = await livePage(keys.alice!);
    assert.is(slow.status, 200);
    const page = await slow.text();
    assert.match(page, /class="error-box error"/);
    assert.match(page, /timeout: the cloud did not answer within 10 s/);
  } finally {
    release();
    cloud.clearFaults();
  }
  await cloud.close();
  const down = await livePage(keys.alice!);
  assert.is(down.status, 200);
  const page = await down.text();
  assert.match(page, /class="error-box error"/);
  assert.match(page, /Could not read gpucloud/);
  assert.not.ok(page.includes(cloud.clientSecret));
});

test.run();
