import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ensureDocsBuild, ROOT } from '../../../scripts/ensure-docs-build.mjs';
import { startTestPlatform, type TestPlatform } from '../../platform/test/platform.ts';
import { hasChromium, launchChromium } from './chromium.ts';

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

/** What `useDocsBrowser` answers: each field is there from its beforeAll on, until its afterAll. */
export interface DocsBrowser {
  readonly platform: TestPlatform;
  readonly browser: Browser;
  /** The context opened last (by `useDocsBrowser({ context })` or `newContext`). */
  readonly context: BrowserContext;
  /** What the pages of that context did. */
  readonly log: PageLog;
  /** Closes the current context, if one is open, and opens a new `localContext` on the platform. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Closes the current context, if one is open. */
  closeContext(): Promise<void>;
}

/**
 * The browser set-up of the tests in the calling `describe`: a beforeAll starts the docs platform
 * and chromium, and opens a `localContext` when `context` gives its options; an afterAll closes the
 * open context and the browser and stops the platform. Call it in a
 * `describe.skipIf(skipBrowserTests)`.
 */
export function useDocsBrowser({ context }: { context?: BrowserContextOptions } = {}): DocsBrowser {
  let platform: TestPlatform | undefined;
  let browser: Browser | undefined;
  let current: { context: BrowserContext; log: PageLog } | undefined;
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`no ${what} yet: use it in a test or a hook after useDocsBrowser's`);
    return value;
  };
  const docs: DocsBrowser = {
    get platform() {
      return started(platform, 'docs platform');
    },
    get browser() {
      return started(browser, 'browser');
    },
    get context() {
      return started(current, 'browser context').context;
    },
    get log() {
      return started(current, 'browser context').log;
    },
    async newContext(options = {}) {
      await docs.closeContext();
      current = await localContext(docs.browser, docs.platform.url, options);
      return current.context;
    },
    async closeContext() {
      const open = current;
      current = undefined;
      await open?.context.close();
    },
  };
  beforeAll(async () => {
    platform = await startDocsPlatform();
    browser = await launchChromium();
    if (context) await docs.newContext(context);
  }, 20 * 60_000);
  afterAll(async () => {
    await docs.closeContext();
    await browser?.close();
    await platform?.stop();
  });
  return docs;
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
