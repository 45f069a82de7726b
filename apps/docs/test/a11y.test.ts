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

/** A diagram text below WCAG AA's 4.5:1 against what is drawn behind it, as a failure shows it. */
interface FaintText {
  text: string;
  colour: string;
  background: string;
  ratio: number;
}

/** Hides every diagram text (its box and the layout stay): what is left in a text's box is its background. */
const HIDE_DIAGRAM_TEXT = `.docusaurus-mermaid-container svg :is(text, tspan) { fill: transparent !important; stroke: transparent !important }
.docusaurus-mermaid-container svg foreignObject * { color: transparent !important }`;

/**
 * The texts of the page's drawn diagrams that read below 4.5:1, and how many texts were measured.
 * axe does not measure text in an SVG, so this does what a reader's eye does: it reads each text's
 * colour, hides every text, screenshots each diagram and takes the commonest colour in each text's
 * box as its background (a note's fill, a label's box, the page).
 */
async function faintDiagramTexts(page: Page): Promise<{ measured: number; faint: FaintText[] }> {
  const faint: FaintText[] = [];
  let measured = 0;
  for (const diagram of await page.locator('.docusaurus-mermaid-container').all()) {
    // Each element holding text itself, its colour and its box relative to the diagram's.
    const texts = await diagram.evaluate((root) => {
      const origin = root.getBoundingClientRect();
      return Array.from(root.querySelectorAll('svg *'))
        .filter((el) =>
          Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim()),
        )
        .map((el) => {
          const style = getComputedStyle(el);
          const box = el.getBoundingClientRect();
          return {
            text: el.textContent!.trim(),
            colour: el instanceof SVGElement ? style.fill : style.color,
            box: { x: box.x - origin.x, y: box.y - origin.y, width: box.width, height: box.height },
          };
        })
        .filter((t) => t.box.width >= 1 && t.box.height >= 1 && t.colour.startsWith('rgb'));
    });
    const hidden = await page.addStyleTag({ content: HIDE_DIAGRAM_TEXT });
    const png = (await diagram.screenshot()).toString('base64');
    await hidden.evaluate((el) => (el as Element).remove());
    // The screenshot decoded in the page (a canvas reads a PNG; Node has no decoder of its own).
    const backgrounds = await page.evaluate(
      async ({ png, boxes }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${png}`;
        await image.decode();
        const canvas = new OffscreenCanvas(image.width, image.height);
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(image, 0, 0);
        return boxes.map((b) => {
          const x = Math.max(0, Math.round(b.x));
          const y = Math.max(0, Math.round(b.y));
          const { data } = ctx.getImageData(x, y, Math.max(1, Math.min(Math.round(b.width), image.width - x)), Math.max(1, Math.min(Math.round(b.height), image.height - y)));
          const counts = new Map<number, number>();
          for (let i = 0; i < data.length; i += 4) {
            const rgb = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
            counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
          }
          const commonest = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
          return [commonest >> 16, (commonest >> 8) & 255, commonest & 255];
        });
      },
      { png, boxes: texts.map((t) => t.box) },
    ); // prettier-ignore
    texts.forEach((t, i) => {
      const background = backgrounds[i]!;
      const [r, g, b, a = 1] = t.colour.match(/[\d.]+/g)!.map(Number);
      // A translucent colour is seen blended with what is behind it.
      const seen = [r!, g!, b!].map((c, k) => c * a + background[k]! * (1 - a));
      const ratio = contrast(seen, background);
      measured++;
      if (ratio < 4.5) faint.push({ text: t.text, colour: hex(seen), background: hex(background), ratio: Math.round(ratio * 100) / 100 });
    }); // prettier-ignore
  }
  return { measured, faint };
}

/** WCAG 2's contrast ratio of two sRGB colours (0 to 255 a channel). */
function contrast(a: number[], b: number[]): number {
  const luminance = (rgb: number[]) => {
    const [r, g, b] = rgb.map((c) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  }; // prettier-ignore
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

const hex = (rgb: number[]) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

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

    // Every guide drawing a diagram, in both themes: axe measures no text in an SVG.
    it.each([...DIAGRAMS].filter(([, n]) => n > 0).map(([route]) => route))(
      "%s's diagrams write every text at 4.5:1 or more, in the light and the dark theme",
      async (route) => {
        for (const theme of ['light', 'dark']) {
          const themed = await docs.context.newPage();
          try {
            await themed.addInitScript((t) => localStorage.setItem('theme', t), theme);
            await load(themed, route);
            expect(await themed.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
            const { measured, faint } = await faintDiagramTexts(themed);
            expect(measured, `${theme}: texts measured`).toBeGreaterThan(0);
            expect(faint, theme).toEqual([]);
          } finally {
            await themed.close();
          }
        }
      },
      60_000,
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
