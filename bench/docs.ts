/**
 * `npm run bench:docs`: how heavy the documentation site is. Prints the build time, then for a guide
 * page and the largest API reference page the JS and CSS bytes the page loads (on the wire and
 * decompressed) and its load time in headless chromium, median of 5 cold loads (fresh context, no
 * cache). The site is served the way `npm start` serves it (apps/platform/src/docs-site.ts) on
 * 127.0.0.1. `BENCH_DOCS_BUILD=reuse` skips the build and reports the last one's recorded time.
 * Figures depend on the machine: compare runs on the same one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { API_DOCS } from '@stream/contracts/operation';
import { launchChromium } from '../apps/docs/test/chromium.ts';
import { registerDocsSite } from '../apps/platform/src/docs-site.ts';
import { createHttpServer } from '../apps/platform/src/http/app.ts';
import { BUILD_DIR, ensureDocsBuild } from '../scripts/ensure-docs-build.mjs';

const RUNS = 5;
const GUIDE = '/docs/authenticating/requesting-a-token';

interface Load {
  jsWire: number;
  jsBytes: number;
  cssWire: number;
  cssBytes: number;
  /** Navigation start to the `load` event. */
  loadMs: number;
  /** Navigation start to React having hydrated the page (it is interactive). */
  hydratedMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/** The API reference page whose OpenAPI document is largest. */
function largestApiReference(): { route: string; title: string } {
  const sized = Object.values(API_DOCS).map((doc) => ({
    ...doc,
    size: statSync(join(BUILD_DIR, 'openapi', `${doc.slug}.json`)).size,
  }));
  return sized.sort((a, b) => b.size - a.size)[0]!;
}

async function coldLoad(browser: Browser, url: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    // Note the moment Docusaurus marks the page hydrated.
    await page.addInitScript(`new MutationObserver((_, o) => {
      if (document.documentElement?.dataset.hasHydrated === 'true') { window.__hydratedAt = performance.now(); o.disconnect(); }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-has-hydrated'] });`);
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction('window.__hydratedAt !== undefined');
    await page.waitForLoadState('networkidle');
    return await page.evaluate(`(() => {
      const sum = (re, key) => performance.getEntriesByType('resource')
        .filter((e) => re.test(new URL(e.name).pathname)).reduce((n, e) => n + e[key], 0);
      const nav = performance.getEntriesByType('navigation')[0];
      return {
        jsWire: sum(/\\.js$/, 'encodedBodySize'), jsBytes: sum(/\\.js$/, 'decodedBodySize'),
        cssWire: sum(/\\.css$/, 'encodedBodySize'), cssBytes: sum(/\\.css$/, 'decodedBodySize'),
        loadMs: nav.loadEventEnd, hydratedMs: window.__hydratedAt,
      };
    })()`);
  } finally {
    await context.close();
  }
}

async function main() {
  let buildMs: number;
  if (process.env.BENCH_DOCS_BUILD === 'reuse') {
    buildMs = JSON.parse(readFileSync(join(BUILD_DIR, '.build-stamp.json'), 'utf8')).buildMs;
  } else {
    buildMs = (await ensureDocsBuild({ force: true, log: (line) => console.error(line), stdio: 'pipe' })).ms;
  }

  const app = createHttpServer({ logger: false, bodyLimit: 1024 * 1024 });
  await registerDocsSite(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const browser = await launchChromium();
  try {
    const api = largestApiReference();
    const pages = [
      { name: `guide ${GUIDE}`, url: base + GUIDE },
      { name: `API reference ${api.route} (${api.title})`, url: base + api.route },
    ];
    const assets = readdirSync(join(BUILD_DIR, 'assets/js')).filter((f) => f.endsWith('.js'));
    console.log(`docs build: ${(buildMs / 1000).toFixed(1)} s (${assets.length} JS chunks)`);
    console.log(`page loads: median of ${RUNS} cold loads in headless chromium, served by the platform\n`);
    for (const page of pages) {
      const loads: Load[] = [];
      await coldLoad(browser, page.url); // warm the server's file cache, not the browser's
      for (let i = 0; i < RUNS; i++) loads.push(await coldLoad(browser, page.url));
      const m = (key: keyof Load) => median(loads.map((l) => l[key]));
      console.log(page.name);
      console.log(`  JS   ${kib(m('jsWire'))} on the wire, ${kib(m('jsBytes'))} decompressed`);
      console.log(`  CSS  ${kib(m('cssWire'))} on the wire, ${kib(m('cssBytes'))} decompressed`);
      console.log(`  load event ${m('loadMs').toFixed(0)} ms, hydrated ${m('hydratedMs').toFixed(0)} ms\n`);
    }
  } finally {
    await browser.close();
    await app.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
