import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { newId } from '../db/ids.ts';
import { rowsOf } from '../db/sql.ts';
import { apiClients, lifecycleEvents, locationBindings, menuPublications } from '../db/schema/index.ts';
import { activeLocationRow } from '../onboarding/testing.ts';
import { startOrderWorld, type OrderWorld } from '../orders/testing.ts';
import { pageOf, pageOfAll, pageWindow, type ListOrder } from './pagination.ts';

/**
 * Cursor pagination of every Partner API list, over real HTTP: each list walked page by page while
 * rows are added between the pages answers every row exactly once, in its order; a bad `limit` or
 * `starting_after` is a 400 naming what to fix on every list.
 */

let w: OrderWorld;
beforeAll(async () => {
  w = await startOrderWorld();
});
afterAll(() => w?.stop());

const api = (method: string, path: string, body?: unknown) =>
  call(method, `${w.url}${path}`, { token: w.token, body });
const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/** Every page of `path` with `limit`, running `between` after each page that has more; its items in order. */
async function walk(
  path: string,
  field: string,
  limit: number,
  between: (pagesSoFar: number) => Promise<void> = async () => {},
): Promise<{ items: Record<string, unknown>[]; pages: number }> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    // A walk that repeats rows never ends: stop it with what it saw.
    expect(pages, `pages of ${path} so far: ${JSON.stringify(items)}`).toBeLessThan(50);
    const res = await api(
      'GET',
      withQuery(path, `limit=${limit}${cursor ? `&starting_after=${cursor}` : ''}`),
    );
    expect(res.status, res.text).toBe(200);
    items.push(...res.body[field]);
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull();
      expect(res.body[field].length).toBeLessThanOrEqual(limit);
      return { items, pages };
    }
    expect(res.body[field]).toHaveLength(limit);
    cursor = res.body.next_cursor;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    await between(pages);
  }
}

/** The whole list in one page (the default limit is enough here). */
async function all(path: string, field: string): Promise<Record<string, unknown>[]> {
  const res = await api('GET', path);
  expect(res.status, res.text).toBe(200);
  expect(res.body.has_more).toBe(false);
  return res.body[field];
}

const ids = (items: Record<string, unknown>[], key = '_id') => items.map((i) => i[key] as string);

describe('walking each Partner API list while rows are added', () => {
  it('tokens: oldest first, rows of one instant split across pages, every token once', async () => {
    const { db } = w.platform.app.ctx;
    const root = await rootPartnerId();
    // Five tokens of one transaction share one created_at: only their ids order them.
    await db.transaction(async (tx) => {
      for (let i = 0; i < 5; i++)
        await tx.insert(apiClients).values({
          id: newId('cli'),
          partnerId: root,
          orgId: w.orgId,
          name: `tied ${i}`,
          secretHash: 'x'.repeat(64),
          scopes: ['onboarding'],
        });
    });
    const path = `/tokens?org_id=${w.orgId}`;
    const before = ids(await all(path, 'tokens'));
    expect(before.length).toBeGreaterThanOrEqual(5);
    const added: string[] = [];
    const { items, pages } = await walk(path, 'tokens', 2, async () => {
      const res = await api('POST', '/tokens', { org_id: w.orgId, token_name: 'added', scopes: ['sso'] });
      expect(res.status, res.text).toBe(201);
      added.push(res.body.token._id);
    });
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(ids(items)).toEqual([...before, ...added]);
  });

  it('org locations: oldest first, to the microsecond, every location once', async () => {
    const { db } = w.platform.app.ctx;
    const of = { partnerId: await rootPartnerId(), orgId: w.orgId, posPartnerId: w.posPartner.partner_id };
    const made: string[] = [];
    for (let i = 0; i < 4; i++)
      made.push(await activeLocationRow(db, { ...of, name: `Row ${i}`, providerId: `row-${i}` }));
    // Four locations one microsecond apart, in one millisecond: a cursor kept to the millisecond would
    // skip or repeat them.
    for (const [i, id] of made.entries())
      await db.execute(
        sql`update org_locations set created_at = '2026-01-01T00:00:00.001Z'::timestamptz + interval '1 microsecond' * ${i} where id = ${id}`,
      );
    const path = `/onboarding/org/${w.orgId}/locations`;
    const before = ids(await all(path, 'locations'));
    expect(before.slice(0, 4)).toEqual(made);
    const added: string[] = [];
    const { items } = await walk(path, 'locations', 1, async (pages) => {
      if (pages <= 2)
        added.push(await activeLocationRow(db, { ...of, name: 'Added', providerId: newId('added') }));
    });
    expect(ids(items)).toEqual([...before, ...added]);
  });

  it("the POS's own locations: by provider_id, every location once", async () => {
    w.pos.locations = ['loc-1', 'loc-5', 'loc-3', 'loc-2', 'loc-4'];
    const path = `/onboarding/locations?onboarding_id=${w.onboardings.pos}`;
    const { items } = await walk(path, 'locations', 2, async (pages) => {
      // One sorts after the walk's position (it shows), one before it (it does not).
      if (pages === 1) w.pos.locations.push('loc-9', 'loc-0');
    });
    expect(ids(items, 'provider_id')).toEqual(['loc-1', 'loc-2', 'loc-3', 'loc-4', 'loc-5', 'loc-9']);
  });

  it('event providers: first enabled first, every provider once', async () => {
    const provider = async (i: number) => {
      const p = await w.platform.partner({
        kind: 'events',
        slug: `fleet-page-${i}-${Date.now()}`,
        name: `Fleet ${i}`,
      });
      const res = await api('PUT', `${providersPath()}/${p.slug}`);
      expect(res.status, res.text).toBe(200);
      return p.partner_id;
    };
    const enabled: string[] = [];
    for (let i = 0; i < 5; i++) enabled.push(await provider(i));
    const added: string[] = [];
    const { items, pages } = await walk(providersPath(), 'event_providers', 2, async (n) => {
      added.push(await provider(100 + n));
    });
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(ids(items, 'provider_id')).toEqual([...enabled, ...added]);
  });

  it('menu publications: newest first, every publication there at the start once', async () => {
    const { db } = w.platform.app.ctx;
    const [binding] = await db
      .select()
      .from(locationBindings)
      .where(eq(locationBindings.locationId, w.locationId));
    const publish = async () => {
      const id = newId('mpub');
      await db.insert(menuPublications).values({
        id,
        bindingId: binding!.id,
        locationId: w.locationId,
        form: 'v1',
        status: 'failed',
        failureCode: 'DSP_UNKNOWN',
        failureReason: 'test',
        cause: 'operator',
      });
      return id;
    };
    // Five in one transaction: one created_at, ordered by id (descending too).
    await db.transaction(async (tx) => {
      for (let i = 0; i < 5; i++)
        await tx.insert(menuPublications).values({
          id: newId('mpub'),
          bindingId: binding!.id,
          locationId: w.locationId,
          form: 'v1',
          status: 'failed',
          cause: 'operator',
        });
    });
    const path = `/menus/locations/${w.locationId}/publications`;
    const before = ids(await all(path, 'publications'));
    const { items } = await walk(path, 'publications', 2, async () => {
      await publish(); // newer than the walk's position: on a first page, not behind it
    });
    expect(ids(items)).toEqual(before);
  });

  it('billing reports: oldest month first, every month once, each as the whole list says', async () => {
    const { db } = w.platform.app.ctx;
    const partnerId = await rootPartnerId();
    const monthsAgo = (n: number) =>
      sql`date_trunc('month', now()) - interval '1 month' * ${n} + interval '1 day'`;
    await db.insert(lifecycleEvents).values({
      partnerId,
      orgId: w.orgId,
      subjectType: 'org',
      subjectId: w.orgId,
      event: 'org_created',
      at: monthsAgo(5),
      id: newId('lce'),
    });
    const whole = await all('/billing/reports', 'reports');
    expect(whole).toHaveLength(6);
    const { items, pages } = await walk('/billing/reports', 'reports', 2, async () => {
      // An earlier first event adds months before the walk's position: none is answered twice.
      await db.insert(lifecycleEvents).values({
        partnerId,
        orgId: w.orgId,
        subjectType: 'org',
        subjectId: w.orgId,
        event: 'org_created',
        at: monthsAgo(12),
        id: newId('lce'),
      });
    });
    expect(pages).toBe(3);
    expect(items).toEqual(whole);
  });
});

const providersPath = () => `/onboarding/org/${w.orgId}/locations/${w.locationId}/event-providers`;

/** The white-label partner owning the world's org. */
async function rootPartnerId(): Promise<string> {
  const rows = rowsOf<{ partner_id: string }>(
    await w.platform.app.ctx.db.execute(sql`select partner_id from orgs where id = ${w.orgId}`),
  );
  return rows[0]!.partner_id;
}

describe('paging is opt-in', () => {
  it('without limit a list answers every item in one page, beyond any page size; publications their newest 100, as always', async () => {
    const { db } = w.platform.app.ctx;
    const partnerId = await rootPartnerId();
    const rows = Array.from({ length: 120 }, (_, i) => ({ id: newId('cli'), partnerId, orgId: w.orgId, name: `many ${i}`, secretHash: 'x'.repeat(64), scopes: ['onboarding'] }));
    await db.insert(apiClients).values(rows);
    const whole = await api('GET', `/tokens?org_id=${w.orgId}`);
    expect([whole.status, whole.body.has_more, whole.body.next_cursor]).toEqual([200, false, null]);
    expect(ids(whole.body.tokens)).toEqual(expect.arrayContaining(rows.map((r) => r.id)));
    // The rest of a walk, without limit: everything after the cursor.
    const first = await api('GET', `/tokens?org_id=${w.orgId}&limit=1`);
    const rest = await api('GET', `/tokens?org_id=${w.orgId}&starting_after=${first.body.next_cursor}`);
    expect([...ids(first.body.tokens), ...ids(rest.body.tokens)]).toEqual(ids(whole.body.tokens));
    expect(rest.body.has_more).toBe(false);
    const [binding] = await db.select().from(locationBindings).where(eq(locationBindings.locationId, w.locationId));
    await db.insert(menuPublications).values(Array.from({ length: 110 }, () => ({ id: newId('mpub'), bindingId: binding!.id, locationId: w.locationId, form: 'v1' as const, status: 'failed' as const, cause: 'operator' })));
    const capped = await api('GET', `/menus/locations/${w.locationId}/publications`);
    expect([capped.body.publications.length, capped.body.has_more]).toEqual([100, true]);
  }); // prettier-ignore
});

describe('a bad limit or cursor', () => {
  const lists = () => [
    `/tokens?org_id=${w.orgId}`,
    `/onboarding/org/${w.orgId}/locations`,
    `/onboarding/locations?onboarding_id=${w.onboardings.pos}`,
    providersPath(),
    `/menus/locations/${w.locationId}/publications`,
    '/billing/reports',
  ];
  const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it.each(['0', '1001', 'ten', '1.5', '-1', ''])(
    'limit=%s is 400 validation_failed on every list',
    async (limit) => {
      for (const path of lists()) {
        const res = await api('GET', withQuery(path, `limit=${limit}`));
        expect([res.status, res.body.error?.code], `${path}: ${res.text}`).toEqual([
          400,
          'validation_failed',
        ]);
        // The same sentence for every bad limit: the range, not an example the range refuses.
        expect(res.body.error.details[0]).toEqual({
          path: 'querystring.limit',
          message: 'must be a whole number from 1 to 1000',
        });
      }
    },
  );

  it('a cursor of another list, or none at all, is 400 invalid_cursor on every list', async () => {
    const tokensPage = await api('GET', `/tokens?org_id=${w.orgId}&limit=1`);
    const ofTokens = tokensPage.body.next_cursor as string;
    expect(ofTokens).toEqual(expect.any(String));
    const bad = [
      '',
      'not a cursor!',
      'bm90IGpzb24', // "not json"
      cursor({ a: 1 }),
      cursor(['tokens']),
      cursor(['tokens', '2026-02-30T00:00:00.000000Z', 'cli_x']), // no such day
      cursor(['tokens', '2026-01-01T00:00:00.000000Z', 'cli_\u0000']),
      cursor(['tokens', '2026-01-01T00:00:00.000000Z', '\ud800']),
      cursor(['tokens', 42, 'cli_x']),
      'A'.repeat(5000),
    ];
    for (const path of lists()) {
      const foreign = path.startsWith('/tokens')
        ? cursor(['org-locations', '2026-01-01T00:00:00.000000Z', 'x'])
        : ofTokens;
      for (const value of [...bad, foreign]) {
        const res = await api('GET', withQuery(path, `starting_after=${encodeURIComponent(value)}`));
        expect([res.status, res.body.error?.code], `${path} ${value}: ${res.text}`).toEqual([
          400,
          'invalid_cursor',
        ]);
        expect(res.body.error.message).toMatch(/^starting_after .*next_cursor/);
      }
    }
  });
});

describe('pages in memory', () => {
  const order: ListOrder = { name: 'test', parts: ['text'], direction: 'asc' };

  it('walks a sorted list to its end, whatever the page size', () => {
    const items = ['d', 'a', 'c', 'b', 'e'];
    for (const limit of [1, 2, 3, 5, 6]) {
      const seen: string[] = [];
      let starting_after: string | undefined;
      for (;;) {
        const page = pageOfAll(pageWindow(order, { limit, starting_after }), items, (s) => [s]);
        seen.push(...page.items);
        if (!page.has_more) break;
        starting_after = page.next_cursor!;
      }
      expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    }
  });

  it('says there is more only when a row beyond the page was read', () => {
    const window = pageWindow(order, { limit: 2 });
    expect(pageOf(window, ['a', 'b'], (s) => [s])).toEqual({
      items: ['a', 'b'],
      has_more: false,
      next_cursor: null,
    });
    expect(pageOf(window, ['a', 'b', 'c'], (s) => [s]).has_more).toBe(true);
  });
});
