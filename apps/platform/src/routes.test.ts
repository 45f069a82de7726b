/**
 * Routes are what the contracts say: every operation the platform serves is mounted exactly once,
 * from the file its path names, nothing else is mounted beyond a short allow-list, and
 * ARCHITECTURE.md's endpoint table agrees with all of it. The routes are those the server
 * recorded through its `onRoute` hook (`app.mountedRoutes`), not a list written here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_OPERATIONS } from '@stream/contracts/apis/index';
import { fastifyPath } from '@stream/contracts/operation';
import { startTestPlatform, type TestPlatform } from '../test/platform.ts';
import { DOCS_BUILD_DIR } from './docs-site.ts';
import type { MountedRoute } from './http/app.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SRC = 'apps/platform/src/';

let platform: TestPlatform;
let routes: MountedRoute[];
beforeAll(async () => {
  platform = await startTestPlatform({ sandbox: true });
  routes = platform.app.mountedRoutes;
});
afterAll(() => platform?.stop());

const served = ALL_OPERATIONS.filter((op) => op.servedBy === 'platform');
const key = (method: string, url: string) => `${method} ${url}`;

/** Routes that are no contract operation, and why they may exist. */
const ALLOWED = [
  {
    what: 'health',
    test: (r: MountedRoute) => r.method === 'GET' && ['/healthz', '/readyz'].includes(r.url),
  },
  { what: 'admin (loopback)', test: (r: MountedRoute) => r.url.startsWith('/_admin/') },
  { what: 'sandbox simulators', test: (r: MountedRoute) => r.url.startsWith('/sandbox/') },
  { what: 'documentation site', test: (r: MountedRoute) => r.method === 'GET' && r.url === '/*' },
  { what: 'CORS preflight of a route browsers call', test: (r: MountedRoute) => r.method === 'OPTIONS' },
  {
    what: 'a method a parameterised sibling would take from a literal path (`mountShadowedMethods`: 405)',
    test: (r: MountedRoute) =>
      r.source === `${SRC}http/api.ts` &&
      served.some((op) => fastifyPath(op.path) === r.url && op.method !== r.method),
  },
];

/**
 * The naming rule of ARCHITECTURE.md ("Where a handler lives"). The hosted restaurant APIs' paths
 * (`/Menus/{menuName}/OutOfStock`) start with a capital: their folders are under `hosted/`, and
 * every segment is written in kebab case (`hosted/menus/out-of-stock.route.ts`).
 */
export function routeFileOf(path: string): string {
  const hosted = /^\/[A-Z]/.test(path);
  const kebab = (s: string) => (hosted ? s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase() : s);
  const [folder, ...rest] = path
    .split('/')
    .filter((s) => s !== '' && !/^\{.+\}$/.test(s))
    .map((s) => kebab(s.replace(/^\./, '').replace(/\.[a-z]+$/, '')));
  return `${SRC}${hosted ? 'hosted/' : ''}${folder}/${rest.length > 0 ? rest.join('-') : folder}.route.ts`;
}

describe('routes are what the contracts say', () => {
  it('builds partner-built operations nowhere but under their own prefixes', () => {
    for (const op of ALL_OPERATIONS.filter((o) => o.servedBy === 'partner')) {
      expect(op.path, op.operationId).toMatch(/^\/(stream-pos|stream-dsp)\/|^\/event$/);
    }
  });

  it('mounts every operation the platform serves exactly once', () => {
    expect(served.length).toBeGreaterThan(0);
    for (const op of served) {
      const mounted = routes.filter((r) => r.method === op.method && r.url === fastifyPath(op.path));
      expect(mounted, `${op.operationId}: ${op.method} ${op.path}`).toHaveLength(1);
    }
  });

  it('mounts nothing else beyond the allow-list', () => {
    const contract = new Set(served.map((op) => key(op.method, fastifyPath(op.path))));
    const extra = routes.filter(
      (r) => !contract.has(key(r.method, r.url)) && !ALLOWED.some((a) => a.test(r)),
    );
    expect(extra).toEqual([]);
    // The allow-list is no blanket: each entry names routes that exist (the docs site needs its build).
    for (const allowed of ALLOWED.filter((a) => a.what !== 'documentation site')) {
      expect(routes.some(allowed.test), allowed.what).toBe(true);
    }
    const docs = routes.find(ALLOWED[3]!.test);
    expect(Boolean(docs)).toBe(existsSync(join(DOCS_BUILD_DIR, 'index.html')));
  });

  it('mounts each operation from the file its path names, in the folder of its first segment', () => {
    for (const op of served) {
      const route = routes.find((r) => r.method === op.method && r.url === fastifyPath(op.path));
      expect(route?.source, `${op.method} ${op.path}`).toBe(routeFileOf(op.path));
    }
    expect(routeFileOf('/onboarding/org')).toBe(`${SRC}onboarding/org.route.ts`);
    expect(routeFileOf('/tokens/{token_id}')).toBe(`${SRC}tokens/tokens.route.ts`);
    expect(routeFileOf('/.well-known/jwks.json')).toBe(`${SRC}well-known/jwks.route.ts`);
    expect(routeFileOf('/onboarding/org/{id}/locations')).toBe(`${SRC}onboarding/org-locations.route.ts`);
    expect(routeFileOf('/Menus/{menuName}/OutOfStock')).toBe(`${SRC}hosted/menus/out-of-stock.route.ts`);
    expect(routeFileOf('/MenuDiscounts')).toBe(`${SRC}hosted/menu-discounts/menu-discounts.route.ts`);
  });
});

interface TableEntry {
  row: string;
  /** `GET`, or undefined for a prefix row (`/_admin/*`: any method). */
  method?: string;
  /** Fastify form (`/tokens/:token_id`), or the prefix of a prefix row (`/_admin/`). */
  url: string;
  prefix: boolean;
  handler: string | undefined;
  /** Folders the row names (`packages/sandbox/src/`): a prefix row's routes may come from files in them. */
  folders: string[];
  contract: string | undefined;
  path: string;
}

/** The rows of ARCHITECTURE.md's "Endpoints and their handlers", one entry per method and path. */
function endpointTable(): TableEntry[] {
  const text = readFileSync(join(REPO, 'ARCHITECTURE.md'), 'utf8');
  const section = text.split('## Endpoints and their handlers')[1]?.split('\n## ')[0] ?? '';
  const entries: TableEntry[] = [];
  for (const line of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const [what = '', handlerCell = '', contractCell = ''] = line.split('|').slice(1);
    const spans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const handler = spans(handlerCell)[0];
    const folders = spans(handlerCell).filter((s) => s.endsWith('/'));
    const contract = spans(contractCell).find((c) => c.endsWith('.ts'));
    for (const span of spans(what)) {
      const exact = /^([A-Z]+(?:\/[A-Z]+)*) (\/\S*)$/.exec(span);
      if (exact) {
        for (const method of exact[1]!.split('/')) {
          entries.push({
            row: line,
            method,
            url: fastifyPath(exact[2]!),
            path: exact[2]!,
            prefix: false,
            handler,
            folders,
            contract,
          });
        }
      } else if (/^\/\S*\/\*$/.test(span)) {
        entries.push({
          row: line,
          url: span.slice(0, -1),
          path: span,
          prefix: true,
          handler,
          folders,
          contract,
        });
      }
    }
  }
  return entries;
}

describe("ARCHITECTURE.md's endpoint table", () => {
  const table = endpointTable();
  const matches = (e: TableEntry, r: MountedRoute) =>
    e.prefix ? r.url.startsWith(e.url) : e.method === r.method && e.url === r.url;

  it('has rows', () => {
    expect(table.filter((e) => !e.prefix).length).toBeGreaterThanOrEqual(served.length);
  });

  it('lists every mounted route exactly once, with the file that mounts it', () => {
    for (const r of routes) {
      const rows = table.filter((e) => matches(e, r));
      expect(rows, `${r.method} ${r.url} (from ${r.source}) has no row, or several`).toHaveLength(1);
      const row = rows[0]!;
      if (!row.prefix) expect(`${SRC}${row.handler}`, row.row).toBe(r.source);
      // A prefix row's routes come from its handler, or from a file in a folder the row names.
      else
        expect(
          r.source === `${SRC}${row.handler}` || row.folders.some((f) => r.source?.startsWith(f)),
          `${r.method} ${r.url} is mounted from ${r.source}, which its row does not name: ${row.row}`,
        ).toBe(true);
    }
  });

  it("names every admin route in The CLI's admin endpoint list, and no other", () => {
    const text = readFileSync(join(REPO, 'ARCHITECTURE.md'), 'utf8');
    const list = text.split('**Admin endpoint**')[1]?.split('Registered on every')[0] ?? '';
    const shape = (url: string) => url.replace(/\{[^}]+\}|:[^/]+/g, '{}');
    const documented = [...list.replace(/\s+/g, ' ').matchAll(/`([A-Z|]+) (\/_admin\/[^`]*)`/g)].flatMap(
      (m) => m[1]!.split('|').map((method) => `${method} ${shape(m[2]!)}`),
    );
    const mounted = routes
      .filter((r) => r.url.startsWith('/_admin/'))
      .map((r) => `${r.method} ${shape(r.url)}`);
    expect(documented.sort()).toEqual(mounted.sort());
  });

  it('lists no route that is not mounted, and names the contract file that declares it', () => {
    const docsBuilt = existsSync(join(DOCS_BUILD_DIR, 'index.html'));
    for (const e of table) {
      if (e.url === '/*' && !docsBuilt) continue;
      expect(
        routes.some((r) => matches(e, r)),
        `${e.method ?? '*'} ${e.path} is in the table but not mounted`,
      ).toBe(true);
      if (!e.prefix && e.contract) {
        const file = readFileSync(join(REPO, 'packages/contracts/src/apis', e.contract), 'utf8');
        expect(file, `${e.contract} declares ${e.path}`).toContain(`path: '${e.path}'`);
        expect(
          served.some((op) => op.method === e.method && op.path === e.path),
          `${e.method} ${e.path} is a served operation`,
        ).toBe(true);
      }
    }
  });
});
