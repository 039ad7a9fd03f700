/**
 * A real browser for the console tests: Debian's `chromium` (installed by .ci/run) driven by
 * puppeteer-core, which downloads no browser. Headless, with a profile of its own in a temp dir;
 * Chromium's own sandbox needs user namespaces a root process does not get, so as root it runs with
 * --no-sandbox (the pages it loads are the console's own and the test's). Screenshots go to a folder
 * under the test's temp dir (removed with it) or, to keep them for review, ASSISTANT_TEST_SCREENSHOTS.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { onPath } from './net.js';
import { tempDir } from './temp.js';

/** Why no browser test can run here, or undefined. */
export function chromiumMissing(): string | undefined {
  return onPath('chromium') ? undefined : 'chromium not on PATH (see .ci/run)';
}

/** A headless chromium; close it when done (browser.close()). */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: onPath('chromium')!,
    headless: true,
    userDataDir: tempDir('chromium-profile-'),
    // A container's /dev/shm is often 64 MB, too small for chromium's renderer: it uses /tmp instead.
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-dev-shm-usage', '--no-first-run', '--disable-sync', '--disable-component-update'],
    // A bound against a hang on a loaded machine, not a speed limit.
    timeout: 120_000,
    protocolTimeout: 240_000,
  });
}

/** A new page whose waits (navigation, selectors) allow a busy machine its time. */
export async function newPage(browser: Browser | BrowserContext): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(120_000);
  page.setDefaultNavigationTimeout(120_000);
  return page;
}

/** Numbered full-page screenshots in one folder, whose path is printed once for whoever reviews them. */
export function screenshotFolder(name: string): (page: Page, what: string) => Promise<void> {
  const kept = process.env.ASSISTANT_TEST_SCREENSHOTS;
  const dir = kept ? join(kept, name) : join(tempDir(`${name}-`), 'screenshots');
  mkdirSync(dir, { recursive: true });
  console.log(`screenshots: ${dir}`);
  let n = 0;
  return async (page, what) => {
    const file = join(dir, `${String(++n).padStart(2, '0')}-${what}.png`);
    writeFileSync(file, await page.screenshot({ fullPage: true }));
  };
}
