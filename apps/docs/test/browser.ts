import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { ensureDocsBuild, ROOT } from '../../../scripts/ensure-docs-build.mjs';
import { startTestPlatform, type TestPlatform } from '../../platform/test/platform.ts';
import { hasChromium } from './chromium.ts';

export { launchChromium } from './chromium.ts';

/** Browser tests skip without Debian's chromium, except under CI where they must run (and fail). */
export const skipBrowserTests = !hasChromium() && process.env.CI !== 'true';
export const SCREENSHOTS = join(ROOT, 'artifacts/screenshots');

/**
 * The platform serving a fresh build of the site (built once per change of its sources, reused
 * otherwise) on 127.0.0.1.
 */
export async function startDocsPlatform(): Promise<TestPlatform> {
  const output: string[] = [];
  try {
    await ensureDocsBuild({ log: (line) => output.push(line), stdio: 'pipe', output });
  } catch (err) {
    throw new Error(`the docs site did not build:\n${output.join('').slice(-4000)}`, { cause: err });
  }
  return startTestPlatform();
}

/** What a page did that a test may assert on: console errors, page errors, requests it was refused. */
export interface PageLog {
  errors: string[];
  external: string[];
}

/**
 * A browser context that may only reach the platform: any other request is aborted and recorded,
 * so a test proves the site needs nothing from outside.
 */
export async function localContext(
  browser: Browser,
  base: string,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; log: PageLog }> {
  const context = await browser.newContext({ baseURL: base, ...options });
  const log: PageLog = { errors: [], external: [] };
  const origin = new URL(base).origin;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    log.external.push(url);
    return route.abort('blockedbyclient');
  });
  context.on('page', (page) => watch(page, log));
  return { context, log };
}

function watch(page: Page, log: PageLog): void {
  page.on('console', (msg) => {
    if (msg.type() === 'error') log.errors.push(`${page.url()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => log.errors.push(`${page.url()}: ${err.message}`));
}

/** Loads a page and waits until the client has hydrated it (Docusaurus marks the html element). */
export async function open(page: Page, path: string): Promise<void> {
  await page.goto(path, { waitUntil: 'load' });
  await page.waitForFunction(() => document.documentElement.dataset.hasHydrated === 'true');
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, `${name}.png`);
}
