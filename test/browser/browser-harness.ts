/**
 * A real browser for the page tests: Debian's Chromium (never a downloaded one) driven by
 * playwright-core, every request it makes recorded, and screenshots written to
 * test-output/screenshots/ (gitignored) for a reviewer to look at.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const SCREENSHOTS = fileURLToPath(new URL('../../../test-output/screenshots/', import.meta.url));

/** Set QUIVER_SKIP_BROWSER=1 to skip the browser tests where there is no Chromium (never in CI). */
export const skipBrowser = process.env['QUIVER_SKIP_BROWSER'] === '1' ? 'QUIVER_SKIP_BROWSER=1' : false;

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the browser tests need Debian's chromium at ${CHROMIUM} (apt-get install chromium); set QUIVER_SKIP_BROWSER=1 to skip them`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Every URL the page requested (documents, assets, fetches). */
  requests: string[];
  /** Uncaught exceptions in the page. */
  errors: string[];
  /** Content-Security-Policy violations the page reported: `directive sample`. */
  violations: string[];
  /** Dialogs (alert, confirm, prompt) the page opened: script that should not have run did. */
  dialogs: string[];
  /** URLs of requests that went anywhere but `origin` (blob: and data: never leave the page). */
  foreignRequests(origin: string): string[];
  close(): Promise<void>;
}

export async function openWatchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watched: WatchedPage = {
    page,
    context,
    requests: [],
    errors: [],
    violations: [],
    dialogs: [],
    foreignRequests: (origin) => watched.requests.filter((url) => !isLocal(url, origin)),
    close: () => context.close(),
  };
  context.on('request', (request) => watched.requests.push(request.url()));
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // Playwright's own instrumentation, not the page's script: it runs whatever the page's policy says.
  await page.exposeFunction('reportViolation', (text: string) => watched.violations.push(text));
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.sample));",
  });
  return watched;
}

function isLocal(url: string, origin: string): boolean {
  if (url.startsWith('blob:') || url.startsWith('data:')) return true;
  return new URL(url).origin === origin;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Runs the editor's request with Ctrl+Enter and waits for the outcome; fails with the page's message. */
export async function runAndExpectSuccess(page: Page): Promise<string> {
  await page.keyboard.press('Control+Enter');
  await page.waitForSelector('.status.success, .status.error');
  const status = (await page.textContent('.status')) ?? '';
  if (await page.isVisible('.status.error')) throw new Error(`the page reports: ${status}`);
  return status;
}

/** Replaces the editor's text the way a person does: select all, type. */
export async function typeInEditor(page: Page, text: string): Promise<void> {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}
