/**
 * The console in a real browser (issue 41 item 3): Debian's chromium, driven by puppeteer-core, against
 * a real backend process, with runs the CLI made against the emulator. The main walk runs with
 * JavaScript off (the pages have none; every page must work without it): sign in with an API key, see
 * the run, see its plan on the drift page, open its diff, see the burn match `cost summary`, sign out. Refused in the browser: a forged
 * cookie, an unknown key, a key of another tenant, an expired session, and a page on another site
 * framing the console, posting its forms or linking into it. Screenshots of each page are written for
 * review (the folder is printed), never compared.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Cookie, Page } from 'puppeteer-core';
import { runCli, tempHome, withEmulator } from '../support/cli.js';
import { asClient, consoleKey, startBackendProcess, trainingBoxPlan, type BackendProcess } from '../support/backend.js';
import { chromiumMissing, launchChromium, newPage, screenshotFolder } from '../support/browser.js';
import { testWhen } from '../support/skip.js';
import { removeTempDir } from '../support/temp.js';
import { until } from '../support/wait.js';

const it = testWhen(test, chromiumMissing);

let b: BackendProcess;
let browser: Browser;
let shot: (page: Page, what: string) => Promise<void>;
const keys: Record<string, string> = {};
/** The run the CLI applied (newest in alice's history), for the refusals. */
let appliedRun = '';

/** Sign-in through the form: type the key, press the button, wait for the page it leads to. */
async function signIn(page: Page, url: string, apiKey: string): Promise<void> {
  await page.goto(`${url}/ui`);
  await page.type('#key', apiKey);
  await Promise.all([page.waitForNavigation(), page.click('form.sign-in button[type=submit]')]);
}

const sessionCookie = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === 'asb_console');
/** A cookie as the browser held it, put back by hand (as a browser that ignored Max-Age or a stolen copy would send it); a session cookie. */
const putBack = (context: BrowserContext, c: Cookie) => context.setCookie({ name: c.name, value: c.value, domain: c.domain, path: c.path, httpOnly: c.httpOnly, sameSite: c.sameSite });
const text = (page: Page) => page.$eval('body', (el) => el.textContent ?? '');
const onSignInPage = async (page: Page) => new URL(page.url()).pathname === '/ui' && (await page.$('form.sign-in #key')) !== null;

test.before(async () => {
  if (chromiumMissing()) return;
  b = await startBackendProcess();
  keys.alice = await consoleKey(b, 'ml-team', 'alice');
  keys.mallory = await consoleKey(b, 'other-team', 'mallory');
  browser = await launchChromium();
  shot = screenshotFolder('console-browser');
});

test.after(async () => {
  await browser?.close();
  await b?.kill();
  if (b) removeTempDir(b.home);
});

it('without JavaScript: sign in with an API key, see the run the CLI applied against the emulator, open its diff, see the burn match cost summary, sign out (cookie gone, back to sign-in)', async () => {
  let burn = 0;
  let created = '';
  await withEmulator(
    async ({ env }) => {
      const client = { ...env, ...asClient(b, keys.alice!) };
      const dry = await runCli(['ask', '--apply', '--dry-run'], { env: client, input: trainingBoxPlan('browser box', 'br-1'), home: tempHome('console-browser-') });
      assert.is(dry.code, 0, dry.stderr);
      const applied = await runCli(['ask', '--apply'], { env: client, input: trainingBoxPlan('browser box', 'br-1'), home: tempHome('console-browser-') });
      assert.is(applied.code, 0, applied.stderr);
      const cost = await runCli(['cost', 'summary', '-o', 'json'], { env, home: tempHome('console-browser-') });
      assert.is(cost.code, 0, cost.stderr);
      burn = JSON.parse(cost.stdout).hourly_cost;
      assert.ok(burn > 0, cost.stdout);
      const listed = await runCli(['gpucloud', 'list', 'instances', '-o', 'json'], { env, home: tempHome('console-browser-') });
      created = (JSON.parse(listed.stdout) as Array<{ id: string; hostname: string }>).find((i) => i.hostname === 'br-1')?.id ?? '';
      assert.ok(created, listed.stdout);
    },
    { seed: 'empty' },
  );
  const context = await browser.createBrowserContext();
  const page = await newPage(context);
  await page.setJavaScriptEnabled(false);
  await page.goto(`${b.url}/ui`);
  assert.ok(await onSignInPage(page));
  await shot(page, 'sign-in');

  await signIn(page, b.url, keys.alice!);
  assert.is(new URL(page.url()).pathname, '/ui/runs');
  const cookie = await sessionCookie(context);
  assert.ok(cookie, 'a session cookie');
  assert.is(cookie!.httpOnly, true);
  assert.is(cookie!.sameSite, 'Strict');
  assert.is(cookie!.path, '/ui');
  assert.not.ok(cookie!.value.includes(keys.alice!), 'the key is not the cookie');
  assert.not.ok((await page.content()).includes(keys.alice!), 'the key is not on the page');
  const history = await page.$$eval('section:nth-of-type(2) tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')));
  assert.equal(history.map((r) => [r[1], r[2], r[3], r[4]]), [
    ['alice', 'apply', 'succeeded', 'browser box'],
    ['alice', 'dry run', 'previewed', 'browser box'],
  ]);
  // The burn the applied run added, per provider, is what `cost summary` reads from the account (it held nothing before).
  const burnRows = await page.$$eval('section:nth-of-type(1) tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')));
  assert.equal(burnRows, [['gpucloud', `+${burn.toFixed(4)} /h`, '1']]);
  assert.ok(await page.$('svg.chart'), 'the cost trend chart');
  await shot(page, 'runs');

  // The drift page, from the env's navigation: the plan applied is listed; no gpucloud credentials are stored here, so it can't tell, and says how.
  await Promise.all([page.waitForNavigation(), page.click('nav.envs a[href="/ui/drift?env=production"]')]);
  assert.is(new URL(page.url()).pathname, '/ui/drift');
  assert.equal(await page.$$eval('section.plan', (ss) => ss.map((s) => [s.getAttribute('data-state'), s.querySelector('h2')?.textContent?.trim()])), [['unknown', "can't tell · browser box"]]);
  assert.match(await text(page), /no gpucloud credentials are stored for production/);
  await shot(page, 'drift');
  await Promise.all([page.waitForNavigation(), page.click('nav.envs a[href="/ui/runs?env=production"]')]);

  appliedRun = (await page.$eval('section:nth-of-type(2) tbody tr a', (a) => a.getAttribute('href')))!.split('/').pop()!;
  await Promise.all([page.waitForNavigation(), page.click('section:nth-of-type(2) tbody tr a')]);
  assert.is(new URL(page.url()).pathname, `/ui/runs/${appliedRun}`);
  assert.match(await page.$eval('h1', (h) => h.textContent ?? ''), /^Apply: succeeded/);
  const diff = await page.$$eval('table.diff tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')));
  assert.equal(diff[0], ['status', 'previewed', 'succeeded']);
  assert.ok(diff.some(([what, , now]) => what === 'resources' && now === `create instance br-1 ${created}`), JSON.stringify(diff));
  assert.match(await text(page), /br-1/);
  await shot(page, 'run-diff');

  await Promise.all([page.waitForNavigation(), page.click('header form button[type=submit]')]);
  assert.ok(await onSignInPage(page), page.url());
  assert.is(await sessionCookie(context), undefined, 'the cookie is gone');
  await shot(page, 'signed-out');
  // The old cookie, put back by hand, no longer opens anything: sign-out ended the session on the server.
  await putBack(context, cookie!);
  await page.goto(`${b.url}/ui/runs`);
  assert.ok(await onSignInPage(page), page.url());
  await context.close();
});

it('refused in the browser: a forged cookie, an unknown key, a key of another tenant (its run list is empty and the run is not found)', async () => {
  assert.ok(appliedRun, 'the first test made a run');
  const host = new URL(b.url).hostname;
  const forged = await browser.createBrowserContext();
  await forged.setCookie({ name: 'asb_console', value: randomBytes(32).toString('base64url'), domain: host, path: '/ui', httpOnly: true, sameSite: 'Strict' });
  const page = await newPage(forged);
  await page.goto(`${b.url}/ui/runs`);
  assert.ok(await onSignInPage(page), 'a forged cookie lands on sign-in');
  await page.goto(`${b.url}/ui/runs/${appliedRun}`);
  assert.ok(await onSignInPage(page), 'and opens no run');
  assert.is(await sessionCookie(forged), undefined, 'the forged cookie is cleared');

  await page.type('#key', `asb_nope_${'x'.repeat(40)}`);
  const [refused] = await Promise.all([page.waitForNavigation(), page.click('form.sign-in button[type=submit]')]);
  assert.is(refused?.status(), 401);
  assert.match(await page.$eval('[role=alert]', (p) => p.textContent ?? ''), /Unknown API key/);
  assert.is(await sessionCookie(forged), undefined);
  await shot(page, 'unknown-key');
  await forged.close();

  const other = await browser.createBrowserContext();
  const theirs = await newPage(other);
  await signIn(theirs, b.url, keys.mallory!);
  assert.is(new URL(theirs.url()).pathname, '/ui/runs');
  assert.not.match(await text(theirs), /browser box/);
  assert.match(await text(theirs), /no runs yet/);
  await shot(theirs, 'other-tenant-runs');
  const res = await theirs.goto(`${b.url}/ui/runs/${appliedRun}`);
  assert.is(res?.status(), 404);
  assert.match(await text(theirs), /No such run in your history/);
  assert.not.match(await text(theirs), /br-1/);
  await shot(theirs, 'other-tenant-run-not-found');
  await other.close();
});

it('refused in the browser: an expired session, even when the browser sends its cookie again', async () => {
  const short = await startBackendProcess({ env: { ASSISTANT_BACKEND_UI_SESSION_SECONDS: '4' } });
  const context = await browser.createBrowserContext();
  try {
    const apiKey = await consoleKey(short, 'ml-team', 'alice');
    const page = await newPage(context);
    await signIn(page, short.url, apiKey);
    assert.is(new URL(page.url()).pathname, '/ui/runs');
    const cookie = (await sessionCookie(context))!;
    assert.ok(cookie.expires > 0, 'the cookie ends with the session (Max-Age)');
    // Past the session's end (polled, not guessed): the browser's copy is put back each time, so it is the server that refuses.
    await until(async () => {
      await putBack(context, cookie);
      await page.goto(`${short.url}/ui/runs`);
      return onSignInPage(page);
    }, 'the session expired');
    await putBack(context, cookie);
    const res = await page.goto(`${short.url}/ui/runs`);
    assert.is(new URL(page.url()).pathname, '/ui');
    assert.is(res?.status(), 200, 'the sign-in page, not the runs');
    await shot(page, 'expired-session');
  } finally {
    await context.close();
    await short.kill();
    removeTempDir(short.home);
  }
});

/** A page on another site (localhost against the console's 127.0.0.1: another site to the browser) that frames the console, posts its forms and links to it. */
async function foreignSite(consoleUrl: string, attackerKey: string): Promise<{ url: string; close(): Promise<void> }> {
  const page = `<!doctype html><html><body><h1>Another site</h1>
<iframe id="framed" src="${consoleUrl}/ui/runs" width="600" height="200"></iframe>
<form method="post" action="${consoleUrl}/ui/sign-out"><button id="sign-out">sign the visitor out</button></form>
<form method="post" action="${consoleUrl}/ui/sign-in"><input type="hidden" name="key" value="${attackerKey}"><button id="sign-in">sign the visitor in as me</button></form>
<a id="link" href="${consoleUrl}/ui/runs">the console</a></body></html>`;
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://localhost:${(server.address() as AddressInfo).port}/`, close: () => new Promise((r) => server.close(() => r())) };
}

it('a page on another site cannot use the console: it is not framed, its posts to sign-out and sign-in are refused and change nothing, and a link from it arrives without the session', async () => {
  const context = await browser.createBrowserContext();
  const site = await foreignSite(b.url, keys.mallory!);
  try {
    const own = await newPage(context);
    await signIn(own, b.url, keys.alice!);
    const session = (await sessionCookie(context))!.value;

    const page = await newPage(context);
    await page.goto(site.url);
    const framed = page.frames().find((f) => f !== page.mainFrame());
    assert.ok(framed, 'the frame exists');
    const inFrame = await framed!.$eval('body', (el) => el.textContent ?? '').catch(() => '');
    // Any console page (even its refusal) has the read-only footer; the browser shows its own error page instead.
    assert.not.match(inFrame, /Read-only: nothing on these pages|Runs in|Sign in|alice/, 'the console does not render inside another site');
    await shot(page, 'foreign-site');

    const [out] = await Promise.all([page.waitForNavigation(), page.click('#sign-out')]);
    assert.is(out?.status(), 403, 'a cross-site sign-out is refused');
    await page.goto(site.url);
    const [signedIn] = await Promise.all([page.waitForNavigation(), page.click('#sign-in')]);
    assert.is(signedIn?.status(), 403, 'a cross-site sign-in is refused');
    await page.goto(site.url);
    const [linked] = await Promise.all([page.waitForNavigation(), page.click('#link')]);
    assert.is(linked?.status(), 403);
    assert.match(await text(page), /A request from another site is refused/);
    await shot(page, 'cross-site-refused');

    assert.is((await sessionCookie(context))?.value, session, 'the session is the one the visitor made');
    await own.reload();
    assert.is(new URL(own.url()).pathname, '/ui/runs', 'and it still works');
    assert.match(await own.$eval('header .who', (w) => w.textContent ?? ''), /ml-team · alice/);
  } finally {
    await context.close();
    await site.close();
  }
});

test.run();
