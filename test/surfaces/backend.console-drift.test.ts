/**
 * The console's drift page (issue 41 item 2, /ui/drift) over real HTTP against a real backend process
 * and the emulator: plans the CLI applied with a backend key, then an instance shut down and another
 * deleted behind the plans' backs through the emulator's API → those plans show drifted with the
 * difference, an untouched one in sync; only reads reach the cloud, each list once per page; plans the
 * server cannot compare say why (no credentials, a provider without drift, a failed or slow read, a
 * stored plan it cannot validate); the cap cuts the oldest plans and says so; another tenant's plans
 * are not shown; a forged or expired session is refused.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { emulatorClient, type EmulatorTestClient } from '../../emulator/test-client.js';
import { cliInThisProcess, emulatorEnv, runCli, tempHome } from '../support/cli.js';
import { asClient, consoleKey, startBackendProcess, trainingBoxPlan, type BackendProcess } from '../support/backend.js';
import { until } from '../support/wait.js';

// `runCli` runs the CLI in this process (test/support/cli.ts); the server itself is a child (startBackendProcess).
cliInThisProcess();

let b: BackendProcess;
let cloud: Emulator;
let api: EmulatorTestClient;
const keys: Record<string, string> = {};
/** The run each plan was applied by (its summary → run id). */
const applied: Record<string, string> = {};

async function signIn(apiKey: string): Promise<string> {
  const res = await fetch(`${b.url}/ui/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key: apiKey }) });
  assert.is(res.status, 303);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

const get = (path: string, cookie: string) => fetch(b.url + path, { redirect: 'manual', headers: { cookie } });

/** The drift page of a fresh session (sessions last 3 s here: one per page). */
async function driftPage(apiKey: string): Promise<{ status: number; page: string; csp: string }> {
  const res = await get('/ui/drift', await signIn(apiKey));
  return { status: res.status, page: await res.text(), csp: res.headers.get('content-security-policy') ?? '' };
}

/** One plan's section of the page: its state and its text. */
function section(page: string, summary: string): { state: string; html: string } {
  const all = [...page.matchAll(/<section class="plan" data-plan="[^"]*" data-state="([^"]+)">([\s\S]*?)<\/section>/g)];
  const found = all.filter((m) => m[2]!.includes(`· ${summary}</h2>`));
  assert.is(found.length, 1, `one section for "${summary}" in:\n${page}`);
  return { state: found[0]![1]!, html: found[0]![2]! };
}

async function apply(apiKey: string, summary: string, hostname: string): Promise<void> {
  const r = await runCli(['ask', '--apply'], { env: { ...emulatorEnv(cloud), ...asClient(b, apiKey) }, input: trainingBoxPlan(summary, hostname), home: tempHome('console-drift-') });
  assert.is(r.code, 0, r.stderr);
}

type Listed = { id: string; hostname: string; status: string };
const listed = async (): Promise<Listed[]> => (await api.call('GET', '/v1/instances')).json as Listed[];
const byName = async (hostname: string) => (await listed()).find((i) => i.hostname === hostname);

/** A run record as a client of another provider would report it (through the same API the CLI uses). */
async function report(apiKey: string, summary: string, planDoc: unknown): Promise<void> {
  const now = new Date().toISOString();
  const record = { kind: 'apply', status: 'succeeded', exit_code: 0, started_at: now, finished_at: now, plan_hash: randomBytes(16).toString('hex'), summary, providers: [], steps: [], resources: [], plan: planDoc };
  const res = await fetch(`${b.url}/v1/runs/production/run_${randomBytes(8).toString('hex')}`, { method: 'PUT', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(record) });
  assert.is(res.status, 201, await res.text());
}

// uvu does not print a failing hook's error: it is printed here.
test.before(() => setUp().catch((err: unknown) => {
  console.error('set-up failed:', err);
  throw err;
}));
async function setUp() {
  cloud = await startEmulator({ seed: 'empty', rateLimit: false, lifecycleMs: 1, debit: false });
  api = emulatorClient(cloud);
  b = await startBackendProcess({ env: { ASSISTANT_BACKEND_UI_SESSION_SECONDS: '3', ASSISTANT_BACKEND_UI_LIVE_TIMEOUT_S: '4', ASSISTANT_BACKEND_UI_DRIFT_PLANS: '5', GPUCLOUD_BASE_URL: cloud.url } });
  keys.alice = await consoleKey(b, 'ml-team', 'alice');
  keys.mallory = await consoleKey(b, 'other-team', 'mallory');
  // Oldest first: the page shows the newest applied plans.
  for (const [summary, host] of [['old box', 'd-old'], ['gone box', 'd-gone'], ['stopped box', 'd-stop'], ['kept box', 'd-keep']] as const) await apply(keys.alice!, summary, host);
  // A dry run of an applied plan (refused: its name exists now) is not a newer "applied" run of it.
  const dry = await runCli(['ask', '--apply', '--dry-run'], { env: { ...emulatorEnv(cloud), ...asClient(b, keys.alice!) }, input: trainingBoxPlan('kept box', 'd-keep'), home: tempHome('console-drift-') });
  assert.match(dry.stderr, /"d-keep", which already exists/);
  const runs = (await (await fetch(`${b.url}/v1/runs?env=production&limit=50`, { headers: { authorization: `Bearer ${keys.alice}` } })).json()) as { runs: Array<{ id: string; summary: string; kind: string }> };
  for (const r of runs.runs) if (r.kind === 'apply') applied[r.summary] = r.id;
  const stored = await runCli(['credentials', 'store', 'gpucloud', '--client-id', cloud.clientId, '--client-secret', '-'], { env: asClient(b, keys.alice!), input: cloud.clientSecret, home: tempHome('console-drift-') });
  assert.is(stored.code, 0, stored.stderr);
  // Every box runs before anything is changed behind the plans' backs.
  await until(async () => (await listed()).filter((i) => i.status === 'running').length === 4, 'the four boxes run');
}

test.after(async () => {
  await b.kill();
  await cloud.close().catch(() => undefined);
  rmSync(b.home, { recursive: true, force: true });
});

test("an instance shut down and another deleted behind the plans' backs: those plans show drifted with the difference, the untouched one in sync; only GETs reached the cloud, each list once", async () => {
  const stop = await api.call('PUT', '/v1/instances', { action: 'shutdown', id: (await byName('d-stop'))!.id });
  assert.is(stop.status, 202, stop.text);
  const gone = await api.call('PUT', '/v1/instances', { action: 'delete', id: (await byName('d-gone'))!.id });
  assert.is(gone.status, 202, gone.text);
  await until(async () => (await byName('d-stop'))?.status === 'offline' && (await byName('d-gone')) === undefined, 'shut down and deleted');

  const before = cloud.requests().length;
  const { status, page, csp } = await driftPage(keys.alice!);
  assert.is(status, 200);
  assert.match(csp, /default-src 'none'/);
  assert.not.match(page, /<script/i);
  assert.not.ok(page.includes(cloud.clientSecret), 'the secret never reaches the page');

  const kept = section(page, 'kept box');
  assert.is(kept.state, 'in_sync', kept.html);
  assert.match(kept.html, /d-keep/);
  assert.ok(kept.html.includes(`href="/ui/runs/${applied['kept box']}"`), 'the plan links to the run that applied it, not the later dry run');

  const stopped = section(page, 'stopped box');
  assert.is(stopped.state, 'drifted', stopped.html);
  assert.match(stopped.html, /<td class="different">different<\/td>/);
  assert.match(stopped.html, /status: plan <span class="added">running<\/span>, live <span class="removed">offline<\/span>/);

  const deleted = section(page, 'gone box');
  assert.is(deleted.state, 'drifted', deleted.html);
  assert.match(deleted.html, /<td class="missing">missing<\/td><td>instance<\/td><td>d-gone<\/td>/);

  assert.is(section(page, 'old box').state, 'in_sync');
  assert.not.match(page, /class="note cut"/, 'four plans, under the cap of 5: nothing cut');
  for (const m of page.matchAll(/<form[^>]*action="([^"]+)"/g)) assert.is(m[1], '/ui/sign-out', 'the only form is sign-out');

  const sent = cloud.requests().slice(before);
  for (const q of sent) assert.ok(q.method === 'GET' || (q.method === 'POST' && q.path === '/v1/oauth2/token'), `only reads reached the cloud: ${q.method} ${q.path}`);
  assert.is(sent.filter((q) => q.method === 'GET' && q.path === '/v1/instances').length, 1, 'the instances were listed once for every plan of the page');
});

test("plans the server cannot compare say why: a provider without drift, a stored plan this server cannot validate; what the plans say is escaped", async () => {
  // Through the runs API, as a client with another provider's plans would report them: the two newest plans from here on.
  await report(keys.alice!, 'aws <script>alert(1)</script> listing', { version: 1, provider: 'cloud_a', commands: [{ args: ['aws', 'ec2', 'describe-instances'], reason: 'list' }] });
  await report(keys.alice!, 'from the future', { version: 1, provider: 'no-such-cloud', commands: [{ args: ['no-such-verb'], reason: 'x' }] });
  const { page } = await driftPage(keys.alice!);
  assert.not.match(page, /<script/i);
  assert.match(page, /aws &lt;script&gt;alert\(1\)&lt;\/script&gt; listing/);
  const aws = section(page, 'aws &lt;script&gt;alert(1)&lt;/script&gt; listing');
  assert.is(aws.state, 'unknown', aws.html);
  assert.match(aws.html, /Can't tell: cloud_a cannot compare its resources with the plan/);
  const future = section(page, 'from the future');
  assert.is(future.state, 'unknown', future.html);
  assert.match(future.html, /Can't tell: /);
  assert.match(future.html, /does not validate on this server/);
  // Six plans, a cap of 5: the oldest applied one is not compared, and the page says so.
  assert.match(page, /Checked the 5 most recently applied of 6 plans/);
  assert.match(page, /ASSISTANT_BACKEND_UI_DRIFT_PLANS/);
  assert.not.match(page, /old box/);
  assert.is(section(page, 'gone box').state, 'drifted');
});

test('a failed read and a slow cloud: each plan that needs the list says it could not tell, with the masked error; the list was asked once', async () => {
  cloud.addFault({ method: 'GET', path: '/v1/instances', status: 403, code: 'forbidden', message: 'not for you', times: -1 });
  try {
    const before = cloud.requests().length;
    const { status, page } = await driftPage(keys.alice!);
    assert.is(status, 200);
    for (const summary of ['kept box', 'stopped box']) {
      const s = section(page, summary);
      assert.is(s.state, 'unknown', s.html);
      assert.match(s.html, /Can't tell: .*not for you/);
    }
    assert.is(cloud.requests().slice(before).filter((q) => q.path === '/v1/instances').length, 1, 'a failed list is not asked again for the next plan');
  } finally {
    cloud.clearFaults();
  }
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  cloud.addFault({ path: '/v1/instances', times: -1, until: held });
  try {
    const { status, page } = await driftPage(keys.alice!);
    assert.is(status, 200);
    const s = section(page, 'kept box');
    assert.is(s.state, 'unknown', s.html);
    assert.match(s.html, /Can't tell: the cloud did not answer within 4 s <span class="muted">\(timeout\)/);
  } finally {
    release();
    cloud.clearFaults();
  }
});

test("another tenant sees only its own plans, and without stored credentials is told so, with nothing sent to the cloud", async () => {
  await apply(keys.mallory!, 'mallory box', 'm-1');
  const before = cloud.requests().length;
  const { status, page } = await driftPage(keys.mallory!);
  assert.is(status, 200);
  for (const theirs of ['kept box', 'stopped box', 'gone box', 'd-keep', 'listing']) assert.not.ok(page.includes(theirs), `${theirs} is ml-team's`);
  const own = section(page, 'mallory box');
  assert.is(own.state, 'unknown', own.html);
  assert.match(own.html, /Can't tell: no gpucloud credentials are stored for production/);
  assert.match(own.html, /ASSISTANT_BACKEND_ENV=production assistant credentials store gpucloud/);
  assert.is(cloud.requests().length, before, 'nothing was read for a tenant without credentials');
});

test('a forged cookie and an expired session are refused; an env the key may not read is refused before anything is read', async () => {
  assert.is((await get('/ui/drift', 'asb_console=' + 'A'.repeat(43))).status, 303);
  const cookie = await signIn(keys.alice!);
  const before = cloud.requests().length;
  assert.is((await get('/ui/drift?env=staging', cookie)).status, 403);
  assert.is(cloud.requests().length, before);
  // Sessions last 3 s here: polled past the end, not guessed.
  await until(async () => (await get('/ui/runs', cookie)).status === 303, 'the session expired');
  const expired = await get('/ui/drift', cookie);
  assert.is(expired.status, 303);
  assert.is(expired.headers.get('location'), '/ui');
});

test('one deadline for the page: after a hung cloud used it up on one list, the next list is not sent and its plans say they could not tell', async () => {
  // The newest plan lists volumes, the older ones instances: compared one after another, newest first.
  const volume = JSON.stringify({ type: 'NVMe', size: 10, name: 'drift-vol', location_code: 'FIN-01' });
  await report(keys.alice!, 'a volume', { version: 1, provider: 'gpucloud', commands: [{ args: ['gpucloud-api', 'POST', '/v1/volumes', volume], reason: 'a volume' }] });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  cloud.addFault({ path: '/v1/volumes', times: -1, until: held });
  cloud.addFault({ path: '/v1/instances', times: -1, until: held });
  try {
    const before = cloud.requests().length;
    const { status, page } = await driftPage(keys.alice!);
    assert.is(status, 200);
    assert.match(section(page, 'a volume').html, /Can't tell: the cloud did not answer within 4 s/);
    const instancePlans = ['kept box', 'stopped box', 'gone box', 'old box'].filter((x) => page.includes(x));
    assert.ok(instancePlans.length > 0, 'an instance plan is among the newest five');
    for (const x of instancePlans) assert.is(section(page, x).state, 'unknown', x);
    const sent = cloud.requests().slice(before).map((q) => q.path);
    assert.ok(sent.includes('/v1/volumes'), `the volumes were asked for: ${sent.join(', ')}`);
    assert.not.ok(sent.includes('/v1/instances'), `the instances were not asked for once the page's deadline had passed: ${sent.join(', ')}`);
  } finally {
    release();
    cloud.clearFaults();
  }
});

test.run();
