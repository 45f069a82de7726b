import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { open, skipBrowserTests, useDocsBrowser } from './browser.ts';
import { guidePages, siteRoutes } from './pages.ts';

/** axe-core's browser build, injected into each page as a script (no request leaves the platform). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2.0 and 2.1, levels A and AA. */
const AXE_OPTIONS: RunOptions = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
  resultTypes: ['violations'],
};

/** A violation as a test failure shows it: rule, impact, what it asks, and the elements failing it. */
interface Finding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

const GUIDES = guidePages();

/** How many Mermaid diagrams each guide draws (its ```mermaid blocks), by route. */
const DIAGRAMS = new Map(GUIDES.map((g) => [g.route, (g.source.match(/^```mermaid$/gm) ?? []).length]));

/**
 * Opens a page and waits for what renders after hydration too: as many drawn Mermaid diagrams as its
 * Markdown holds, and no drawing in progress (Mermaid draws in a scratch element of the body). The
 * theme puts nothing in the page until a diagram is drawn, so the count is taken from the Markdown.
 */
async function load(page: Page, route: string): Promise<void> {
  await open(page, route);
  await page.waitForFunction(
    (diagrams) =>
      document.querySelectorAll('.docusaurus-mermaid-container > svg').length === diagrams &&
      document.querySelector('body > [id^="dmermaid-"]') === null,
    DIAGRAMS.get(route) ?? 0,
  );
}

/** Runs axe on the page as it is and answers its serious and critical violations. */
async function axeFindings(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const results = await page.evaluate(
    (options) =>
      (window as unknown as { axe: { run: (o: unknown) => Promise<AxeResults> } }).axe.run(options),
    AXE_OPTIONS,
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      rule: v.id,
      impact: v.impact!,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
}

/**
 * The routes axe checks: every page with its own layout (home, each API reference, the Markdown
 * page) and, as the guides share one layout and differ by what their Markdown holds, the first guide
 * holding each kind of content (a table, a diagram, an admonition, each of our components). axe takes
 * 3 to 20 s a page on a busy 2-core machine; every guide would add minutes to each run for little.
 */
function axeRoutes(): [route: string, heading: string][] {
  const MARKERS = [/^\|.*\|$/m, /```mermaid/, /^:::/m, /```bash/, /```json/, ...['Endpoint', 'ErrorTable', 'StateDiagram', 'UnionTable', 'OperationTable', 'EnumTable', 'ErrorCodes', 'MenuFailureCodeTable', 'ScopeTable'].map((c) => new RegExp(`<${c}\\b`))];
  const sampled = new Set(MARKERS.map((m) => GUIDES.find((g) => m.test(g.source))?.route).filter(Boolean));
  return siteRoutes().filter(([route]) => !route.startsWith('/docs/') || sampled.has(route));
} // prettier-ignore

describe.skipIf(skipBrowserTests)(
  'accessibility of the documentation site (axe-core, WCAG 2.0/2.1 A and AA)',
  () => {
    // One browser and one page for every route: axe runs on each page as a partner's browser shows it.
    const docs = useDocsBrowser({ context: { viewport: { width: 1280, height: 900 } } });
    let page: Page;
    beforeAll(async () => {
      page = await docs.context.newPage();
    });

    // An API reference (Redoc, every operation expanded) takes axe 20 s on a busy 2-core machine.
    it('samples every kind of guide content', () => {
      expect(axeRoutes().filter(([r]) => r.startsWith('/docs/')).length).toBeGreaterThanOrEqual(5);
    });

    it.each(axeRoutes())(
      '%s has no serious or critical violation and one h1 (%s)',
      async (route, heading) => {
        await load(page, route);
        // The h1 a screen reader finds (a hidden one does not count).
        const h1 = page.getByRole('heading', { level: 1 });
        expect.soft(await h1.allTextContents()).toEqual([heading]);
        expect(await axeFindings(page)).toEqual([]);
        expect(docs.log.external).toEqual([]);
      },
      120_000,
    );

    it('has no serious or critical violation in the dark theme either (home, guides with code and diagrams)', async () => {
      await page.addInitScript(() => localStorage.setItem('theme', 'dark'));
      for (const route of [
        '/',
        '/docs/authenticating/implementing-hmac-webhook-authentication',
        '/docs/become-a-stream-integration/integrate-with-stream-as-a-pos/overview',
      ]) {
        await load(page, route);
        expect(await page.evaluate(() => document.documentElement.dataset.theme), route).toBe('dark');
        expect(await axeFindings(page), route).toEqual([]);
      }
    }, 60_000);
  },
);
