import { API_DOCS } from '@stream/contracts/operation';
import { checkOpenApiDocument } from '@stream/contracts/openapi/validate';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { guidePages, siteRoutes } from './pages.ts';
import { open, screenshotPath, skipBrowserTests, useDocsBrowser } from './browser.ts';

const GUIDE = '/docs/authenticating/requesting-a-token';
const IN_STORE_ORDERS =
  '/docs/become-a-stream-integration/integrate-with-stream-as-a-pos/integration-steps/order-management/in-store-orders';
const SANDBOX_SHELL = '/docs/become-a-stream-integration/sandbox#set-up-your-shell';

/** The guides platform.md section 2 lists, under /docs. */
const SPEC_GUIDES = [
  ...[
    'create-an-api-client',
    'implementing-hmac-webhook-authentication',
    'implementing-oauth-2-into-your-product',
    'requesting-a-token',
  ].map((p) => `authenticating/${p}`),
  'become-a-stream-integration/certification',
  'become-a-stream-integration/sandbox',
  ...[
    'overview',
    'changelog',
    'integration-milestones-and-timeline',
    ...[
      'location-management',
      'menu-ingestion',
      'menu-object-updates',
      'menu-schemas',
      'merchant-onboarding',
    ].map((p) => `integration-steps/${p}`),
    ...['', '/order-fulfillment', '/scheduled-orders'].map((p) => `integration-steps/order-management${p}`),
  ].map((p) => `become-a-stream-integration/integrate-with-stream-as-a-dsp/${p}`),
  ...[
    'overview',
    'changelog',
    'integration-milestones-and-timeline',
    ...['', '/catalog-examples', '/catalog-object-provider-id', '/global-catalog'].map(
      (p) => `integration-steps/catalog-management${p}`,
    ),
    'integration-steps/location-management',
    'integration-steps/merchant-onboarding',
    ...['', '/in-store-orders', '/webhook-events'].map((p) => `integration-steps/order-management${p}`),
  ].map((p) => `become-a-stream-integration/integrate-with-stream-as-a-pos/${p}`),
  ...[
    'overview',
    'changelog',
    'handling-events',
    ...['', '/order-canceled', '/order-confirmed', '/order-updated'].map((p) => `order-events${p}`),
    ...['', '/assign-driver', '/update-delivery-status'].map((p) => `order-state-events${p}`),
  ].map((p) => `become-a-stream-integration/integrate-with-stream-events/${p}`),
  ...['the-schema', 'category', 'item', 'item_family', 'modifier', 'modifier_group'].map(
    (p) => `catalog-standard/${p}`,
  ),
  ...[
    'approved-partner-configuration',
    'become-a-white-label-partner',
    'headless-onboarding',
    'performing-sso-login',
  ].map((p) => `white-label-stream/${p}`),
].map((p) => `/docs/${p}`);

describe('guides of the spec', () => {
  it('every guide path platform.md lists is a page of the site (each is opened in chromium below)', () => {
    const routes = new Set(guidePages().map((p) => p.route));
    expect(SPEC_GUIDES.length).toBe(49);
    expect(SPEC_GUIDES.filter((route) => !routes.has(route))).toEqual([]);
  });
});

describe.skipIf(skipBrowserTests)('documentation site in chromium', () => {
  const docs = useDocsBrowser();
  let page: Page;

  /** A fresh context per test: its own storage, only the platform reachable. */
  async function fresh(options: BrowserContextOptions = {}): Promise<Page> {
    page = await (await docs.newContext(options)).newPage();
    return page;
  }
  afterEach(() => docs.closeContext());

  it.each(siteRoutes())(
    '%s renders its heading, needs nothing from outside, logs no error',
    async (route, heading) => {
      await fresh();
      await open(page, route);
      await expect.poll(() => page.locator('h1').first().textContent()).toBe(heading);
      expect(await page.title()).toMatch(/\| Docs$|^Docs/);
      // One locale, not for search engines, and no image a screen reader cannot name.
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.locator('meta[name="robots"]').getAttribute('content')).toContain('noindex');
      await page.waitForLoadState('networkidle');
      expect(await page.locator('img:not([alt])').evaluateAll((els) => els.map((e) => e.outerHTML))).toEqual(
        [],
      );
      expect(docs.log.errors).toEqual([]);
      expect(docs.log.external).toEqual([]);
    },
  );

  it('serves every kind of route as a static page: its heading is there without JavaScript', async () => {
    await fresh({ javaScriptEnabled: false });
    for (const [route, heading] of [
      ['/', 'Docs'],
      [GUIDE, 'Requesting a token'],
      ['/api/hr/menu', `${API_DOCS['hr-menu'].title} reference`],
      ['/markdown-page', 'Conventions'],
    ] as const) {
      const res = await page.goto(route, { waitUntil: 'load' });
      expect(res?.status(), route).toBe(200);
      expect(await page.locator('h1').first().textContent(), route).toBe(heading);
    }
  });

  it('shows the not-found page for any other URL', async () => {
    await fresh();
    // Unknown pages, also beside and below the real ones (the folders /docs and /api/hr have no page).
    for (const url of ['/no/such/page', '/docs', '/api/hr', '/api/nope', '/docs/intro/nope']) {
      const res = await page.goto(url, { waitUntil: 'load' });
      expect(res?.status(), url).toBe(404);
      await expect.poll(() => page.locator('h1').textContent(), { message: url }).toBe('Page Not Found');
    }
    // Client-side navigation to an unknown route shows it too.
    await open(page, '/docs/intro');
    await page.evaluate(() => window.history.pushState({}, '', '/docs/nowhere'));
    await page.evaluate(() => window.dispatchEvent(new PopStateEvent('popstate')));
    await expect.poll(() => page.locator('h1').textContent()).toBe('Page Not Found');
  });

  it('is marked not to be indexed and publishes no sitemap', async () => {
    await fresh();
    await open(page, '/');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toContain('noindex');
    const sitemap = await page.request.get('/sitemap.xml', { headers: { accept: 'application/xml' } });
    expect(sitemap.status()).toBe(404);
  });

  it('has one locale: English, no language switch, no alternate language versions', async () => {
    await fresh({ viewport: { width: 1280, height: 900 } });
    await open(page, '/docs/intro');
    const hreflangs = await page
      .locator('link[rel="alternate"][hreflang]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('hreflang')));
    expect(hreflangs.filter((l) => l !== 'en' && l !== 'x-default')).toEqual([]);
    expect(await page.locator('.navbar [class*="localeDropdown"], .navbar .dropdown').count()).toBe(0);
    expect(await page.locator('link[rel="alternate"][hreflang="en"]').getAttribute('href')).toMatch(
      /\/docs\/intro$/,
    );
  });

  it('starts light whatever the OS prefers, and remembers the switch across a reload', async () => {
    await fresh({ colorScheme: 'dark' });
    await open(page, GUIDE);
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    expect(await theme()).toBe('light');
    await page.getByRole('button', { name: /Switch between dark and light mode/ }).click();
    expect(await theme()).toBe('dark');
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
    await page.reload({ waitUntil: 'load' });
    expect(await theme()).toBe('dark');
    await page.getByRole('button', { name: /Switch between dark and light mode/ }).click();
    await page.reload({ waitUntil: 'load' });
    expect(await theme()).toBe('light');
  });

  it('opens the mobile menu just below 996 px and navigates with it', async () => {
    await fresh({ viewport: { width: 995, height: 900 } });
    await open(page, '/docs/intro');
    // The desktop sidebar is gone below 996 px; the navbar toggle opens the side menu instead.
    await expect.poll(() => page.locator('aside.theme-doc-sidebar-container').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Toggle navigation bar' }).click();
    const menu = page.locator('.navbar-sidebar');
    await expect.poll(() => menu.isVisible()).toBe(true);
    await menu.getByRole('link', { name: 'Requesting a token' }).click();
    await page.waitForURL(`**${GUIDE}`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Requesting a token');
    await expect.poll(() => menu.isVisible()).toBe(false);
  });

  it('keeps the desktop sidebar shown, not hideable, with its categories open', async () => {
    // Docusaurus' breakpoint: 996 px and below is mobile, so 997 px is the narrowest desktop.
    await fresh({ viewport: { width: 997, height: 900 } });
    await open(page, '/docs/intro');
    expect(await page.locator('aside.theme-doc-sidebar-container').isVisible()).toBe(true);
    // The sidebar's own hide button (a category with an index page has a toggle named after it).
    expect(await page.getByRole('button', { name: /^Collapse sidebar$/i }).count()).toBe(0);
    const collapsed = page.locator('.theme-doc-sidebar-menu .menu__list-item--collapsed');
    expect(await collapsed.count()).toBe(0);
  });

  it('lists the h2 and h3 headings of a guide in its table of contents', async () => {
    await fresh({ viewport: { width: 1280, height: 900 } });
    await open(page, GUIDE);
    const headings = await page
      .locator('article .markdown > h2, article .markdown > h3')
      .evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\u200b/g, '').trim()));
    const toc = await page
      .locator('.theme-doc-toc-desktop .table-of-contents a')
      .evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));
    expect(headings.length).toBeGreaterThan(1);
    expect(toc).toEqual(headings);
  });

  it('has a skip link first in the tab order that moves focus to the main content', async () => {
    await fresh();
    await open(page, GUIDE);
    await page.keyboard.press('Tab');
    const first = await page.evaluate(() => document.activeElement?.textContent?.trim());
    expect(first).toBe('Skip to main content');
    // Hidden until focused, then shown where a keyboard user can see it.
    const box = await page.evaluate(() => {
      const r = (document.activeElement as HTMLElement).getBoundingClientRect();
      return { width: r.width, height: r.height, top: r.top, left: r.left };
    });
    expect(box.width).toBeGreaterThan(20);
    expect(box.height).toBeGreaterThan(10);
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.left).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('MAIN');
    // And the next Tab goes on from there: into the guide, past the navbar and the sidebar.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
  });

  it.each(Object.values(API_DOCS))(
    '$route lists every operation of its document, offered for download',
    async (doc) => {
      await fresh({ viewport: { width: 1280, height: 900 } });
      await open(page, doc.route);
      const link = page.getByRole('link', { name: 'Download the OpenAPI 3.1 document' });
      const href = await link.getAttribute('href');
      expect(href).toBe(`/openapi/${doc.slug}.json`);
      const res = await page.request.get(href!);
      expect(res.status()).toBe(200);
      const spec = await res.json();
      expect(spec.openapi).toMatch(/^3\.1\.\d+$/);
      expect(checkOpenApiDocument(spec)).toEqual([]);
      const operations = Object.values(spec.paths ?? {}).flatMap((item) =>
        Object.values(item as Record<string, { operationId?: string }>).filter((op) => op && op.operationId),
      );
      for (const op of operations) {
        const section = page.locator(`[data-section-id$="operation/${op.operationId}"]`);
        expect(await section.count(), op.operationId).toBeGreaterThan(0);
      }
      expect(docs.log.external).toEqual([]);
    },
  );

  it('shows "This page crashed." on a render error, and "Try again" recovers', async () => {
    await fresh();
    // The home page's CrashProbe throws while this flag is set.
    await page.addInitScript(() => {
      (window as { __DOCS_FORCE_CRASH__?: boolean }).__DOCS_FORCE_CRASH__ = true;
    });
    await page.goto('/', { waitUntil: 'load' });
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('This page crashed.');
    expect(await page.getByText('Forced render error (test)').count()).toBeGreaterThan(0);
    await page.evaluate(() => {
      (window as { __DOCS_FORCE_CRASH__?: boolean }).__DOCS_FORCE_CRASH__ = false;
    });
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Docs');
  });

  it('shows the red box with its message and Retry when a chunk fails to load, and Retry recovers', async () => {
    await fresh();
    let block = true;
    // The shared bundles load; the route's own chunks fail.
    await page.route(/\/assets\/js\/.*\.js$/, (route) =>
      block && !/\/(main|runtime~main)\.[0-9a-f]+\.js$/.test(route.request().url())
        ? route.abort('failed')
        : route.continue(),
    );
    await page.goto(GUIDE, { waitUntil: 'load' });
    const box = page.locator('#chunk-load-error');
    await expect.poll(() => box.isVisible()).toBe(true);
    expect(await box.textContent()).toMatch(/ChunkLoadError: Loading chunk .* failed/);
    expect(await box.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(250, 56, 62)');
    block = false;
    await box.getByRole('button', { name: 'Retry' }).click();
    await page.waitForFunction(() => document.documentElement.dataset.hasHydrated === 'true');
    expect(await box.count()).toBe(0);
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Requesting a token');
  });

  it('reloads the page when the next route fails to preload', async () => {
    await fresh({ viewport: { width: 1280, height: 900 } });
    await open(page, '/docs/intro');
    await page.evaluate(() => {
      (window as { marker?: boolean }).marker = true;
    });
    // Route chunks fail until the page reloads (the reload is the next navigation request).
    let block = true;
    page.on('request', (req) => {
      if (req.isNavigationRequest()) block = false;
    });
    await page.route(/\/assets\/js\/.*\.js$/, (route) =>
      block && !/\/(main|runtime~main)\.[0-9a-f]+\.js$/.test(route.request().url())
        ? route.abort('failed')
        : route.continue(),
    );
    const reloaded = page.waitForEvent('load');
    await page.locator(`nav a[href="${GUIDE}"]`).first().click();
    await reloaded;
    expect(await page.evaluate(() => (window as { marker?: boolean }).marker)).toBeUndefined();
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Requesting a token');
  });

  it('scrolls a navigation to the hash target it names, else to the top', async () => {
    await fresh({ viewport: { width: 1280, height: 700 } });
    const scrollY = () => page.evaluate(() => Math.round(window.scrollY));
    await open(page, IN_STORE_ORDERS);
    // A link to a heading of another guide: that heading ends up at the top, under the navbar.
    const link = page.locator(`article a[href="${SANDBOX_SHELL}"]`).first();
    await link.scrollIntoViewIfNeeded();
    await link.click();
    await page.waitForURL(`**${SANDBOX_SHELL}`);
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Sandbox');
    const target = page.locator('#set-up-your-shell');
    await expect
      .poll(() => target.evaluate((e) => Math.round(e.getBoundingClientRect().top)))
      .toBeGreaterThanOrEqual(0);
    const navbar = await page.locator('.navbar').evaluate((e) => e.getBoundingClientRect().height);
    expect(await target.evaluate((e) => e.getBoundingClientRect().top)).toBeLessThan(navbar + 40);
    expect(await scrollY()).toBeGreaterThan(0);
    // A link without a hash, clicked far down a page: the next page starts at its top.
    await page.locator('footer').getByRole('link', { name: 'Guides', exact: true }).click();
    await page.waitForURL('**/docs/intro');
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Introduction');
    await expect.poll(scrollY).toBe(0);
  });

  it("loads a route's code only when the route is visited", async () => {
    await fresh({ viewport: { width: 1280, height: 900 } });
    // A 2g connection: no prefetching, so any code a route needs arrives when it is visited.
    await page.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'connection', {
        get: () => ({ effectiveType: '2g', saveData: false }),
        configurable: true,
      });
    });
    const scripts: string[] = [];
    page.on('request', (req) => {
      if (req.resourceType() === 'script') scripts.push(req.url());
    });
    await open(page, '/');
    await page.waitForLoadState('networkidle');
    const atHome = scripts.length;
    await page.locator('main a[href="/api/"]').first().click();
    await page.waitForURL('**/api/');
    await expect
      .poll(() => page.locator('h1').first().textContent())
      .toBe(`${API_DOCS.partner.title} reference`);
    expect(scripts.slice(atHome).length).toBeGreaterThan(0);
    expect(scripts.slice(atHome).filter((url) => scripts.slice(0, atHome).includes(url))).toEqual([]);
  });

  it('skips prefetching on a 2g or data-saver connection', async () => {
    const prefetched = async (connection?: { effectiveType: string; saveData: boolean }) => {
      await fresh({ viewport: { width: 1280, height: 900 } });
      if (connection) {
        await page.addInitScript((c) => {
          Object.defineProperty(Navigator.prototype, 'connection', { get: () => c, configurable: true });
        }, connection);
      }
      await open(page, '/docs/intro');
      await page.locator(`a[href="${GUIDE}"]`).first().hover();
      await page.waitForLoadState('networkidle');
      return page.evaluate(() => document.querySelectorAll('link[rel="prefetch"]').length);
    };
    await expect.poll(() => prefetched()).toBeGreaterThan(0);
    expect(await prefetched({ effectiveType: '2g', saveData: false })).toBe(0);
    expect(await prefetched({ effectiveType: '4g', saveData: true })).toBe(0);
  });

  it('shows the route progress bar while a slow route loads', async () => {
    await fresh({ viewport: { width: 1280, height: 900 } });
    await open(page, '/');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/assets\/js\/.*\.js$/, async (route) => {
      if (!route.request().url().includes('/main.')) await held;
      await route.continue();
    });
    await page.locator('a[href="/docs/intro"]').first().click();
    await page.waitForSelector('#nprogress', { state: 'attached' });
    release();
    await page.waitForURL('**/docs/intro');
    await expect.poll(() => page.locator('h1').first().textContent()).toBe('Introduction');
  });

  it('shows the wrong-base-URL banner on the home page when the bundles cannot load', async () => {
    await fresh();
    // A wrong base URL breaks every bundle and stylesheet (the banner is hidden by the site's CSS).
    await page.route(/\/assets\//, (route) => route.abort('failed'));
    await page.goto('/', { waitUntil: 'load' });
    const banner = page.locator('#__docusaurus-base-url-issue-banner');
    await expect.poll(() => banner.isVisible()).toBe(true);
    expect(await banner.textContent()).toContain('We suggest trying baseUrl');
    const suggestion = page.locator('#__docusaurus-base-url-issue-banner-suggestion-container');
    expect(await suggestion.textContent()).toBe('/');
    // The same home page behind a proxy at /partner-docs/: the banner suggests that path.
    const home = await (await page.request.get('/', { headers: { accept: 'text/html' } })).text();
    await page.route('**/partner-docs/', (route) => route.fulfill({ contentType: 'text/html', body: home }));
    await page.goto('/partner-docs/', { waitUntil: 'load' });
    await expect.poll(() => banner.isVisible()).toBe(true);
    expect(await suggestion.textContent()).toBe('/partner-docs/');
    // Only the home page carries it.
    await page.goto(GUIDE, { waitUntil: 'load' });
    expect(await page.locator('h1').first().textContent()).toBe('Requesting a token');
    expect(await banner.count()).toBe(0);
  });

  it('has the chrome: Guides in the navbar, the footer links, the copyright', async () => {
    await fresh({ viewport: { width: 1280, height: 900 } });
    await open(page, '/');
    expect(await page.title()).toBe('Docs');
    expect((await page.locator('.navbar__title').textContent())?.trim()).toBe('Docs');
    expect((await page.locator('.hero__subtitle').textContent())?.trim()).toBe('Partner Documentation');
    expect(await page.locator('.navbar').getByRole('link', { name: 'Guides' }).getAttribute('href')).toBe(
      '/docs/intro',
    );
    const footer = page.locator('footer');
    for (const name of ['Guides', 'Integrating as a POS', 'Integrating as a DSP']) {
      expect(await footer.getByRole('link', { name, exact: true }).count(), name).toBe(1);
    }
    // The product website, an outside link (opens in a new tab).
    const website = footer.getByRole('link', { name: /^Stream/ });
    expect(await website.getAttribute('href')).toMatch(/^https:\/\//);
    expect(await footer.textContent()).toContain('Copyright © 2025');
  });

  it('takes screenshots of a home, a guide and an API reference page in light and dark', async () => {
    for (const theme of ['light', 'dark']) {
      await fresh({ viewport: { width: 1280, height: 900 } });
      await page.addInitScript((t) => localStorage.setItem('theme', t), theme);
      for (const [name, route] of [
        ['home', '/'],
        ['guide', GUIDE],
        ['api-reference', '/api/'],
      ]) {
        await open(page, route!);
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        await page.screenshot({
          path: screenshotPath(`${name}-${theme}`),
          fullPage: name !== 'api-reference',
        });
      }
    }
    // Six full renders (two of a long API reference) on a shared machine: a limit for hangs only.
  }, 90_000);
});
