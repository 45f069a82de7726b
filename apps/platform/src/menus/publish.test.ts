import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MenuFileV1, MenuFileV2 } from '@stream/contracts/apis/become-a-dsp/menu-file';
import { DEMO_CATALOG } from '@stream/sandbox/catalog';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import { requestAccessToken } from '../auth/testing.ts';
import { rowsOf } from '../db/sql.ts';
import {
  moveClock,
  newOrder,
  posCalls,
  postDsp,
  postPos,
  startOrderWorld,
  type OrderWorld,
} from '../orders/testing.ts';
import { MENU_LIMITS, resolve, streamIdOf, toV1 } from './build.ts';
import { normalizeCatalog } from './catalog.ts';
import { CATALOG_DEBOUNCE_MS, MENU_INGEST, MENU_PUBLISH } from './publish.ts';
import { setMenuSettings } from './settings.ts';

/**
 * Publishing menus over real HTTP: a POS and a DSP written from the contract (node:http, not the
 * sandbox) bound through onboarding, the platform's Partner API, outbox and database between them.
 */

let w: OrderWorld;
beforeAll(async () => {
  Object.assign(MENU_PUBLISH, { deadlineMs: 3_000, backoff: { baseMs: 50, maxMs: 200 } });
  CATALOG_DEBOUNCE_MS.value = 300;
  w = await startOrderWorld();
});
afterAll(async () => {
  await w?.stop();
});

const api = (method: string, path: string, token = w.token) => call(method, `${w.url}${path}`, { token });
const menus = (what: string) => `/menus/locations/${w.locationId}/${what}`;
/** The location's catalog problems as [severity, kind, id, field], in the order the API lists them. */
const catalogProblems = async () =>
  ((await api('GET', menus('catalog'))).body.catalog.problems as Record<string, string>[]).map((p) => [
    p.severity,
    p.kind,
    p.id,
    p.field,
  ]);
const posEvents = () => w.pos.ofPath('/stream-pos/v1/events').map((r) => r.body as Record<string, never>);
const publishes = () =>
  w.dsp
    .ofPath('/stream-dsp/v1/event')
    .filter((r) => (r.body as { type: string }).type === 'location.publish');

async function publications(): Promise<{ _id: string; status: string; failure_code: string | null }[]> {
  return (await api('GET', menus('publications'))).body.publications;
}

/** The object of a menu file with this stream_id, wherever it is nested. */
function objectIn(node: unknown, streamId: string): Record<string, unknown> | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if ((node as { stream_id?: unknown }).stream_id === streamId) return node as Record<string, unknown>;
  for (const v of Object.values(node)) {
    const found = objectIn(v, streamId);
    if (found) return found;
  }
  return undefined;
}

/** Publishes now and waits for the outcome the POS is told (the `n`th menu event). */
async function publish(n: number) {
  const res = await api('POST', menus('publish'));
  expect(res.status, res.text).toBe(202);
  return waitFor(() => posEvents()[n - 1], 20_000, `menu event ${n}`);
}

describe('publishing a location menu', () => {
  it('tells the POS a binding found no menu for its location (the fake POS starts with an empty catalog)', async () => {
    const event = await waitFor(() => posEvents()[0], 20_000, 'the first menu event');
    const [pub] = await publications();
    expect(event).toEqual({
      type: 'menu.publish_failure',
      data: {
        status: 'failure',
        source: w.dspPartner.slug,
        dsp_provider_location_id: w.store,
        menu_id: pub!._id,
        location_id: w.posLocation,
        failure_code: 'NO_MENUS_ASSIGNED',
        failure_reason: `No active menu is assigned to location ${w.posLocation}: add it to a menu's location_memberships (or leave them out).`,
      },
      created_at: expect.any(Number),
    });
    expect(publishes()).toEqual([]);
  });

  it('publishes the catalog on demand: the DSP downloads the v1 file and the POS hears of the success', async () => {
    w.pos.catalog = DEMO_CATALOG;
    const event = await publish(2);
    const [pub] = await publications();
    expect(event).toMatchObject({
      type: 'menu.publish_success',
      data: { status: 'success', menu_id: pub!._id, location_id: w.posLocation },
    });
    expect(pub).toMatchObject({ status: 'published', failure_code: null });
    // The POS answers its events 204, no body: "any 2xx" is a delivered event, not a dead job.
    const notified = await waitFor(
      async () => {
        const jobs = rowsOf<{ status: string }>(
          await w.platform.app.ctx.db.execute(sql`select status from jobs where kind = 'menus.notify-pos'`),
        );
        const settled =
          jobs.length >= 2 && jobs.every((j) => j.status !== 'pending' && j.status !== 'running');
        return settled ? jobs : undefined;
      },
      10_000,
      'the POS notifications settled',
    );
    expect(notified.map((j) => j.status)).toEqual(notified.map(() => 'succeeded'));
    const [sent] = publishes();
    const { download_url } = sent!.body as { download_url: string; location_id: string };
    expect(sent!.body).toEqual({ type: 'location.publish', location_id: w.store, download_url });
    const file = await call('GET', download_url);
    expect(file.status).toBe(200);
    expect(MenuFileV1.safeParse(file.body).success).toBe(true);
    const expected = toV1(
      resolve(normalizeCatalog(DEMO_CATALOG).catalog, {
        locationId: w.locationId,
        posLocationId: w.posLocation,
        platform: null,
        prepTimeMinutes: 15,
        maxModifierDepth: MENU_LIMITS.maxModifierDepth,
      }),
    );
    expect(file.body).toEqual(expected);
    // A link altered or of another publication is refused.
    // (The first character changed, whatever it was: a fixed replacement equals it now and then.)
    const forged = await call(
      'GET',
      download_url.replace(/signature=(\w)/, (_, c: string) => `signature=${c === '0' ? '1' : '0'}`),
    );
    expect([forged.status, forged.body.error.code]).toEqual([404, 'not_found']);
    // A link cut short says so.
    const cut = await call('GET', download_url.split('?')[0]!);
    expect([cut.status, cut.body.error.code]).toEqual([400, 'validation_failed']);
    expect(cut.body.error.message).toContain('use the whole download_url, its query included');
  });

  it('pulls the catalog as the merchant, naming the location and the merchant account in their headers', async () => {
    const pulls = w.pos.ofPath('/stream-pos/v1/catalog');
    expect(pulls.length).toBeGreaterThan(0);
    for (const pull of pulls) {
      // X-Provider-Location-Id: the POS's own location id; X-Provider-Merchant-Id: the token answer's `id`.
      expect(pull.headers['x-provider-location-id']).toBe(w.posLocation);
      expect(pull.headers['x-provider-merchant-id']).toBe('merchant-pos');
      expect(pull.headers.authorization).toBe('Bearer at_pos');
    }
  });

  it('shows the catalog with its problems, and dry-runs with a diff without publishing', async () => {
    const catalog = await api('GET', menus('catalog'));
    expect(catalog.status, catalog.text).toBe(200);
    expect(catalog.body.catalog).toMatchObject({ version: 2, problems: [], counts: { item: 6, menu: 3 } });

    const changed = structuredClone(DEMO_CATALOG);
    changed.item![0]!.price_amount = 475;
    changed.item_family!.push({ provider_id: 'fam-nocur', name: 'Broken', price_amount: 100 });
    w.pos.catalog = changed;
    const before = publishes().length;
    const dry = await api('POST', menus('dry-run'));
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.catalog.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        kind: 'item_family',
        id: 'fam-nocur',
        field: 'price_currency',
      }),
    ]);
    const [store] = dry.body.stores;
    expect(store).toMatchObject({ dsp_store_id: w.store, form: 'v1', would_publish: true, rejections: [] });
    expect(store.diff).toEqual({
      added: [],
      removed: [],
      changed: [
        { kind: 'item', stream_id: expect.stringMatching(/^itm_/), name: 'One taco', fields: ['price'] },
      ],
    });
    expect(MenuFileV1.safeParse(store.menu_file).success).toBe(true);

    changed.tax![0]!.rate = 150;
    const refused = await api('POST', menus('dry-run'));
    expect(refused.body.stores[0]).toMatchObject({
      would_publish: false,
      rejections: [{ code: 'TAX_RATE_TOO_HIGH', objects: [{ kind: 'tax', id: 'tax-sales' }] }],
    });
    expect(publishes().length).toBe(before);
    w.pos.catalog = DEMO_CATALOG;
  });

  it('reads a catalog that breaks the contract object by object, and answers 502 when the POS gives none', async () => {
    const broken = structuredClone(DEMO_CATALOG) as Record<string, Record<string, unknown>[]>;
    broken.tax![0]!.name = 5; // the wrong type: this tax is left out, not the catalog
    w.pos.catalog = broken;
    const dry = await api('POST', menus('dry-run'));
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.catalog.problems[0]).toEqual(
      expect.objectContaining({ severity: 'error', kind: 'tax', id: broken.tax![0]!.provider_id, field: 'name' }),
    );
    // The families taxed by it are left out with it (their tax would not be the POS's), and their sizes with them, each said; the rest stays.
    const taxed = DEMO_CATALOG.item_family!.filter((f) => f.tax_ids?.includes(broken.tax![0]!.provider_id as string)).map((f) => f.provider_id);
    const sizes = DEMO_CATALOG.item!.filter((i) => taxed.includes(i.item_family_id!)).map((i) => i.provider_id);
    const idsOf = (field: string) => dry.body.catalog.problems.filter((p: { field: string }) => p.field === field).map((p: { id: string }) => p.id);
    expect([idsOf('tax_ids'), idsOf('item_family_id')]).toEqual([taxed, sizes]);
    expect(dry.body.catalog.counts.item).toBe(DEMO_CATALOG.item!.length - sizes.length);
    for (const answer of [{ status: 503, body: {} }, { status: 200 }, { status: 200, body: [1, 2] }] as const) {
      w.pos.catalogAnswer = answer;
      const res = await api('POST', menus('dry-run'));
      expect([JSON.stringify(answer), res.status, res.body.error.code]).toEqual([JSON.stringify(answer), 502, 'partner_unreachable']);
    }
    w.pos.catalogAnswer = undefined;
    w.pos.catalog = DEMO_CATALOG;
  }); // prettier-ignore

  it.each([
    [{ status: 403 }, 'DSP_FORBIDDEN'],
    [
      { status: 400, body: { error: { code: 'MENU_CONTENT_ISSUE', message: 'too deep' } } },
      'MENU_CONTENT_ISSUE',
    ],
    [{ status: 422, body: { message: 'MENU_COMPLIANCE_ISSUE' } }, 'MENU_COMPLIANCE_ISSUE'],
    [{ status: 400, body: { message: 'no' } }, 'DSP_REJECTED'],
    [{ status: 418 }, 'DSP_UNKNOWN'],
    [{ status: 503 }, 'DSP_INTERNAL_FAILURE'],
    [{ status: 429 }, 'DSP_THROTTLED_REQUEST'],
    [{ status: 409 }, 'MENU_ALREADY_PROCESSING'],
  ])('maps the DSP answering %j to %s, told to the POS', async (answer, code) => {
    w.dsp.answer = (body) => (body.type === 'location.publish' ? answer : { status: 200, body: {} });
    try {
      const n = posEvents().length + 1;
      const event = await publish(n);
      expect(event).toMatchObject({
        type: 'menu.publish_failure',
        data: {
          status: 'failure',
          failure_code: code,
          failure_reason: expect.stringContaining(String(answer.status)),
        },
      });
      expect((await publications())[0]).toMatchObject({ status: 'failed', failure_code: code });
    } finally {
      w.dsp.answer = () => ({ status: 200, body: {} });
    }
  });

  it('honours Retry-After and publishes once the DSP takes it', async () => {
    let calls = 0;
    const times: number[] = [];
    w.dsp.answer = (body) => {
      if (body.type !== 'location.publish') return { status: 200, body: {} };
      times.push(Date.now());
      return ++calls === 1
        ? { status: 429, body: {}, headers: { 'retry-after': '1' } }
        : { status: 200, body: {} };
    };
    try {
      const event = await publish(posEvents().length + 1);
      expect(event).toMatchObject({ type: 'menu.publish_success' });
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    } finally {
      w.dsp.answer = () => ({ status: 200, body: {} });
    }
  });

  it('retries a menu outcome the POS refuses, as any answer but a 2xx, and takes any 2xx, whatever its body', async () => {
    let n = 0;
    // A 409 first, then a 200 whose body is a JSON string, not an object: delivered all the same.
    w.pos.events = () => (++n === 1 ? { status: 409, body: { error: 'busy' } } : { status: 200, body: 'OK' });
    try {
      const before = posEvents().length;
      const res = await api('POST', menus('publish'));
      expect(res.status, res.text).toBe(202);
      const job = await waitFor(
        async () => {
          const [newest] = rowsOf<{ status: string; attempts: number }>(
            await w.platform.app.ctx.db.execute(sql`select status, attempts from jobs where kind = 'menus.notify-pos' order by created_at desc limit 1`),
          );
          return newest && newest.status !== 'pending' && newest.status !== 'running' && posEvents().length > before ? newest : undefined;
        },
        20_000,
        'the POS notification settled',
      );
      expect(job).toEqual({ status: 'succeeded', attempts: 2 });
      // Both attempts carried the same event.
      expect(posEvents().slice(before)).toEqual([posEvents()[before], posEvents()[before]]);
    } finally {
      w.pos.events = () => ({ status: 204 });
    }
  }); // prettier-ignore

  it('publishes a newer catalog that arrives while an older publish waits to retry, never the older file', async () => {
    const saved = { ...MENU_PUBLISH };
    // The DSP is down for the first try; the retry waits a minute unless the clock moves.
    Object.assign(MENU_PUBLISH, { deadlineMs: 60 * 60_000, backoff: { baseMs: 60_000, maxMs: 60_000 } });
    let down = true;
    w.dsp.answer = (body) => (body.type === 'location.publish' && down ? { status: 503, body: {} } : { status: 200, body: {} });
    try {
      const tried = publishes().length;
      expect((await api('POST', menus('publish'))).status).toBe(202);
      await waitFor(() => publishes()[tried], 20_000, 'the publish the DSP refuses');
      const renamed = structuredClone(DEMO_CATALOG);
      renamed.category![0]!.name = 'Renamed while retrying';
      w.pos.catalog = renamed;
      down = false;
      const events = posEvents().length;
      const version = async () => (await api('GET', menus('catalog'))).body.catalog.version as number;
      const before = await version();
      expect((await api('POST', menus('publish'))).status).toBe(202);
      await waitFor(async () => (await version()) > before, 10_000, 'the newer catalog pulled');
      await moveClock(w, 60_000);
      const success = await waitFor(() => posEvents().slice(events).find((e) => e.type === 'menu.publish_success'), 20_000, 'the success');
      const last = publishes().at(-1)!.body as { download_url: string };
      expect(JSON.stringify((await call('GET', last.download_url)).body)).toContain('Renamed while retrying');
      const pubs = await publications();
      expect(pubs.find((p) => p._id === (success as unknown as { data: { menu_id: string } }).data.menu_id)).toMatchObject({ status: 'published' });
      const older = pubs.find((p) => p.status === 'failed' && p.failure_code === 'DSP_INTERNAL_FAILURE');
      expect(older).toBeDefined();
    } finally {
      Object.assign(MENU_PUBLISH, saved);
      w.dsp.answer = () => ({ status: 200, body: {} });
      w.pos.catalog = DEMO_CATALOG;
    }
  }); // prettier-ignore

  it.each([
    { type: 'item', id: 'itm-carnitas-1', kind: 'item' },
    { type: 'category', id: 'cat-drinks', kind: 'category' },
  ] as const)('publishes the menu as the POS last said it when a $type is turned off while a publish waits to retry, never the older file', async ({ type, id, kind }) => {
    const saved = { ...MENU_PUBLISH };
    // The DSP is down for the first try; the retry waits a minute unless the clock moves.
    Object.assign(MENU_PUBLISH, { deadlineMs: 60 * 60_000, backoff: { baseMs: 60_000, maxMs: 60_000 } });
    let down = true;
    w.dsp.answer = (body) => (body.type === 'location.publish' && down ? { status: 503, body: {} } : { status: 200, body: {} });
    const turn = (is_active: boolean) =>
      postPos(w, { type: 'location.catalog.object.updated', object: { location_id: w.posLocation, object_id: id, object_type: type, object_update: { is_active } } });
    const publicationOf = (url: string) => new URL(url).pathname.split('/').at(-1)!;
    try {
      const tried = publishes().length;
      expect((await api('POST', menus('publish'))).status).toBe(202);
      const refused = (await waitFor(() => publishes()[tried], 20_000, 'the publish the DSP refuses')).body as { download_url: string };
      const events = posEvents().length;
      expect((await turn(false)).status).toBe(204);
      down = false;
      await moveClock(w, 60_000);
      const success = await waitFor(() => posEvents().slice(events).find((e) => e.type === 'menu.publish_success'), 20_000, 'the success');
      const sent = publishes().slice(tried + 1).map((r) => (r.body as { download_url: string }).download_url);
      // The DSP is never sent the file built before the update, only a new publication of the menu as it now is.
      expect(sent.map(publicationOf)).not.toContain(publicationOf(refused.download_url));
      const shown = objectIn((await call('GET', sent.at(-1)!)).body, streamIdOf(w.locationId, kind, id));
      // A category turned off is in no file; an item turned off is in it, off.
      if (kind === 'category') expect(shown).toBeUndefined();
      else expect(shown).toMatchObject({ is_active: false });
      const pubs = await publications();
      expect(pubs.find((p) => p._id === (success as unknown as { data: { menu_id: string } }).data.menu_id)).toMatchObject({ status: 'published' });
      const older = pubs.find((p) => p._id === publicationOf(refused.download_url)) as unknown as { status: string; failure_code: string; failure_reason: string };
      expect(older).toMatchObject({ status: 'failed', failure_code: 'DSP_INTERNAL_FAILURE' });
      expect(older.failure_reason).toContain('superseded');
    } finally {
      // Back on: a category is published again (its menu changes); wait for it, so the tests after count their own.
      const events = posEvents().length;
      expect((await turn(true)).status).toBe(204);
      if (kind === 'category') await waitFor(() => posEvents()[events], 20_000, 'the category back on');
      Object.assign(MENU_PUBLISH, saved);
      w.dsp.answer = () => ({ status: 200, body: {} });
    }
  }); // prettier-ignore

  it('pulls and publishes once for a burst of catalog.updated webhooks', async () => {
    const before = (await publications()).length;
    const events = posEvents().length;
    // A window no machine is too slow for, then the clock moved past it (no timing in the test).
    CATALOG_DEBOUNCE_MS.value = 60_000;
    try {
      for (let i = 0; i < 5; i++) {
        const res = await postPos(w, {
          type: 'location.catalog.updated',
          object: { location_id: w.posLocation },
        });
        expect(res.status).toBe(204);
      }
    } finally {
      CATALOG_DEBOUNCE_MS.value = 300;
    }
    await moveClock(w, 60_000);
    await waitFor(() => posEvents()[events], 20_000, 'the publication of the burst');
    const rows = rowsOf<{ count: number }>(
      await w.platform.app.ctx.db.execute(
        sql`select count(*)::int as count from jobs where kind = 'menus.ingest' and ordering_key = ${`menus:${w.locationId}`} and payload->>'cause' = 'catalog.updated'`,
      ),
    );
    expect(rows[0]!.count).toBe(1);
    expect((await publications()).length).toBe(before + 1);
  });

  it('pulls every location of the merchant for a merchant-wide catalog.updated, and none of another merchant', async () => {
    const ingests = async () =>
      rowsOf<{ count: number }>(
        await w.platform.app.ctx.db.execute(
          sql`select count(*)::int as count from jobs where kind = 'menus.ingest' and ordering_key = ${`menus:${w.locationId}`}`,
        ),
      )[0]!.count;
    const before = await ingests();
    const other = await postPos(w, {
      type: 'location.catalog.updated',
      object: { merchant_id: 'someone-else' },
    });
    expect(other.status).toBe(204);
    expect(await ingests()).toBe(before);
    const events = posEvents().length;
    const res = await postPos(w, {
      type: 'location.catalog.updated',
      object: { merchant_id: 'merchant-pos' },
    });
    expect(res.status).toBe(204);
    const event = await waitFor(() => posEvents()[events], 20_000, 'the publication');
    expect(event).toMatchObject({ type: 'menu.publish_success', data: { location_id: w.posLocation } });
    expect(await ingests()).toBe(before + 1);
  });

  it('translates the ids of the published menu into the POS ids, and refuses ids it never published', async () => {
    const sid = (kind: 'item' | 'item_family' | 'modifier' | 'modifier_group', id: string) =>
      streamIdOf(w.locationId, kind, id);
    w.pos.answer = () => ({ status: 200, body: { order: { provider_id: 'pos-menu-1' } } });
    const order = newOrder(w, {
      items: [
        {
          id: sid('item', 'itm-carnitas-3'),
          item_id: sid('item_family', 'fam-carnitas'),
          name: 'Three tacos',
          quantity: 1,
          price: 1200,
          currency: 'usd',
          modifiers: [
            {
              id: sid('modifier', 'mod-habanero'),
              modifier_group_id: sid('modifier_group', 'grp-salsa'),
              name: 'Habanero',
              quantity: 1,
              price: 50,
              currency: 'usd',
            },
          ],
        },
      ],
      subtotal: 1250,
    });
    const res = await postDsp(w, order);
    expect(res.status, res.text).toBe(202);
    const [sent] = await waitFor(() => {
      const calls = posCalls(w, res.body.order_id);
      return calls.length > 0 ? calls : undefined;
    });
    const line = (sent!.body as { object: { line_items: Record<string, unknown>[] } }).object.line_items[0];
    expect(line).toMatchObject({
      provider_id: 'itm-carnitas-3',
      item_family_provider_id: 'fam-carnitas',
      modifiers: [{ provider_id: 'mod-habanero', modifier_group_provider_id: 'grp-salsa' }],
    });

    const unknown = await postDsp(w, newOrder(w)); // the demo ids: never published here
    expect(unknown.body).toMatchObject({
      status: 'failed',
      failure_reason: 'pos_missing_items',
      failure_details: { invalid_item_ids: ['var-1', 'item-1', 'mod-1'] },
    });
  });

  it('relays an object turned off to the DSP without republishing, and refuses orders naming it until it is back', async () => {
    const variation = streamIdOf(w.locationId, 'item', 'itm-carnitas-1');
    const publishesBefore = publishes().length;
    const updates = () =>
      w.dsp
        .ofPath('/stream-dsp/v1/event')
        .filter((r) => (r.body as { type: string }).type === 'location.update');
    const turn = (is_active: boolean) =>
      postPos(w, {
        type: 'location.catalog.object.updated',
        object: {
          location_id: w.posLocation,
          object_id: 'itm-carnitas-1',
          object_type: 'item',
          object_update: { is_active },
        },
      });
    expect((await turn(false)).status).toBe(204);
    const [update] = await waitFor(() => (updates().length > 0 ? updates() : undefined));
    expect(update!.body).toEqual({
      type: 'location.update',
      location_id: w.store,
      object_updates: { variations: [{ stream_id: variation, is_active: false }] },
    });
    const item = {
      id: variation,
      name: 'One taco',
      quantity: 1,
      price: 450,
      currency: 'usd',
    };
    const refused = await postDsp(w, newOrder(w, { items: [item], subtotal: 450 }));
    expect(refused.body).toMatchObject({
      status: 'failed',
      failure_reason: 'items_unavailable',
      failure_details: { invalid_item_ids: [variation] },
    });
    expect((await turn(true)).status).toBe(204);
    await waitFor(() => (updates().length > 1 ? true : undefined));
    w.pos.answer = () => ({ status: 200, body: { order: { provider_id: 'pos-menu-2' } } });
    const taken = await postDsp(w, newOrder(w, { items: [item], subtotal: 450 }));
    expect(taken.body.status).toBe('received');
    expect(publishes().length).toBe(publishesBefore);

    // Its family off: the size is off too, named alone (no item_id); the family on again: on sale.
    const family = (is_active: boolean) =>
      postPos(w, {
        type: 'location.catalog.object.updated',
        object: {
          location_id: w.posLocation,
          object_id: 'fam-carnitas',
          object_type: 'item_family',
          object_update: { is_active },
        },
      });
    expect((await family(false)).status).toBe(204);
    const off = await postDsp(w, newOrder(w, { items: [item], subtotal: 450 }));
    expect(off.body).toMatchObject({
      failure_reason: 'items_unavailable',
      failure_details: { invalid_item_ids: [variation] },
    });
    expect((await family(true)).status).toBe(204);
    w.pos.answer = () => ({ status: 200, body: { order: { provider_id: 'pos-menu-3' } } });
    expect((await postDsp(w, newOrder(w, { items: [item], subtotal: 450 }))).body.status).toBe('received');

    const bad = await postPos(w, {
      type: 'location.catalog.object.updated',
      object: {
        location_id: w.posLocation,
        object_id: 'x',
        object_type: 'widget',
        object_update: { is_active: false },
      },
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('sends a DSP with the v2 flag the flat file', async () => {
    await setMenuSettings(w.platform.app.ctx.db, w.dspPartner.slug, { menu_form: 'v2' });
    try {
      const event = await publish(posEvents().length + 1);
      expect(event).toMatchObject({ type: 'menu.publish_success' });
      const { download_url } = publishes().at(-1)!.body as { download_url: string };
      const file = await call('GET', download_url);
      expect(MenuFileV2.safeParse(file.body).success).toBe(true);
      expect(file.body.item_families.length).toBeGreaterThan(0);
    } finally {
      await setMenuSettings(w.platform.app.ctx.db, w.dspPartner.slug, { menu_form: 'v1' });
    }
  });

  it('shows a location to its POS and white-label partner only', async () => {
    const stranger = await w.platform.partner();
    const { access_token } = await requestAccessToken(w.url, stranger);
    for (const [method, what] of [
      ['GET', 'catalog'],
      ['POST', 'dry-run'],
      ['POST', 'publish'],
      ['GET', 'publications'],
    ] as const) {
      const res = await api(method, menus(what), access_token);
      expect([res.status, res.body.error.code], `${method} ${what}`).toEqual([404, 'not_found']);
    }
    const pos = await requestAccessToken(w.url, w.posPartner);
    expect((await api('GET', menus('publications'), pos.access_token)).status).toBe(200);
  });

  /** Ingests the POS location `loc` and binds it to the DSP store `store`; answers its org location id. */
  async function bindAnother(loc: string, store: string): Promise<string> {
    w.pos.locations.push(loc);
    w.dsp.locations.push(store);
    const post = (path: string, body: unknown) => call('POST', `${w.url}${path}`, { token: w.token, body });
    const ingested = await post('/onboarding/locations/ingest', {
      onboarding_id: w.onboardings.pos,
      locations: [{ provider_id: loc }],
    });
    expect(ingested.status, ingested.text).toBe(200);
    const locationId = ingested.body.locations[0]._id as string;
    const bound = await post('/onboarding/locations/bind', {
      onboarding_id: w.onboardings.dsp,
      locations: [{ pos_location_id: locationId, dsp_provider_id: store, dsp_store_name: store }],
    });
    expect(bound.status, bound.text).toBe(200);
    return locationId;
  }
  const eventOf = (store: string) => () =>
    posEvents().find(
      (e) => (e.data as unknown as { dsp_provider_location_id: string }).dsp_provider_location_id === store,
    );

  it.each([
    ['DSP_ACCOUNT_NOT_FOUND', { error: { code: 'DSP_ACCOUNT_NOT_FOUND', message: 'No such merchant.' } }],
    ['DSP_LOCATION_IS_NOT_ELIGIBLE', { error: { code: 'DSP_LOCATION_IS_NOT_ELIGIBLE' } }],
    ['DUPLICATE_LOCATION_ID', { message: 'DUPLICATE_LOCATION_ID: bound to another location' }],
    ['DSP_LOCATION_ALREADY_ACTIVE', { code: 'DSP_LOCATION_ALREADY_ACTIVE' }],
    ['ONBOARDING_FAILURE_UNKNOWN', { error: 'no' }],
  ] as const)(
    'tells the POS a binding the DSP refuses with %s, and keeps no menu for it',
    async (code, body) => {
      const store = `store-${code.toLowerCase()}`;
      w.dsp.connection = (b) => (b.location_id === store ? { status: 400, body } : { status: 204 });
      try {
        const locationId = await bindAnother(`loc-${code.toLowerCase()}`, store);
        const event = await waitFor(eventOf(store), 20_000, `the menu event of ${store}`);
        expect(event).toMatchObject({
          type: 'menu.publish_failure',
          data: { status: 'failure', failure_code: code, location_id: `loc-${code.toLowerCase()}` },
        });
        expect(event).toMatchObject({
          data: { failure_reason: expect.stringContaining(`The DSP refused to connect store ${store}`) },
        });
        const calls = w.dsp.ofPath('/stream-dsp/v1/locations/connection');
        const attempts = calls.filter(
          (r) => (r.body as { location_id: string }).location_id === store,
        ).length;
        // A refusal the DSP named is final at once; an unnamed one is retried first.
        expect(
          code === 'ONBOARDING_FAILURE_UNKNOWN' ? attempts > 1 : attempts === 1,
          `${attempts} calls`,
        ).toBe(true);
        const listed = await api('GET', `/menus/locations/${locationId}/publications`);
        expect(listed.body.publications).toEqual([
          expect.objectContaining({
            status: 'failed',
            failure_code: code,
            cause: 'connection',
            catalog_version: null,
          }),
        ]);
      } finally {
        w.dsp.connection = () => ({ status: 204 });
      }
    },
  );

  it('tells the POS an object update for a store with no published menu (UPDATE_ON_UNPUBLISHED), then publishes the store', async () => {
    const store = 'store-unpublished';
    w.dsp.answer = (body) =>
      body.type === 'location.publish' && body.location_id === store
        ? { status: 400 }
        : { status: 200, body: {} };
    try {
      await bindAnother('loc-unpublished', store);
      await waitFor(eventOf(store), 20_000, 'the refused first publish');
    } finally {
      w.dsp.answer = () => ({ status: 200, body: {} });
    }
    const sentBefore = w.dsp.ofPath('/stream-dsp/v1/event').length;
    const res = await postPos(w, {
      type: 'location.catalog.object.updated',
      object: {
        location_id: 'loc-unpublished',
        object_id: 'itm-carnitas-1',
        object_type: 'item',
        object_update: { is_active: false },
      },
    });
    expect(res.status).toBe(204);
    const ofStore = () =>
      posEvents().filter(
        (e) => (e.data as unknown as { dsp_provider_location_id: string }).dsp_provider_location_id === store,
      );
    // The object is in no menu of the location: the store hears nothing of it, and the pull that
    // follows publishes its first menu.
    const [, refusal, published] = await waitFor(() => (ofStore().length >= 3 ? ofStore() : undefined));
    expect(refusal).toMatchObject({
      type: 'menu.publish_failure',
      data: { failure_code: 'UPDATE_ON_UNPUBLISHED' },
    });
    expect(published).toMatchObject({ type: 'menu.publish_success' });
    const sent = w.dsp.ofPath('/stream-dsp/v1/event').slice(sentBefore);
    expect(sent.map((r) => r.body)).toEqual([
      { type: 'location.publish', location_id: store, download_url: expect.any(String) },
    ]);
  });

  it("tells the POS an object update its store's latest menu no longer holds (OUTDATED_HEAD)", async () => {
    const without = structuredClone(DEMO_CATALOG);
    without.item = without.item!.filter((i) => i.provider_id !== 'itm-horchata-24');
    w.pos.catalog = without;
    try {
      expect(await publish(posEvents().length + 1)).toMatchObject({ type: 'menu.publish_success' });
      const updates = () =>
        w.dsp
          .ofPath('/stream-dsp/v1/event')
          .filter((r) => (r.body as { type: string }).type === 'location.update');
      const sent = updates().length;
      const before = posEvents().length;
      const res = await postPos(w, {
        type: 'location.catalog.object.updated',
        object: {
          location_id: w.posLocation,
          object_id: 'itm-horchata-24',
          object_type: 'item',
          object_update: { is_active: true },
        },
      });
      expect(res.status).toBe(204);
      const event = await waitFor(() => posEvents()[before], 20_000, 'the update refusal');
      expect(event).toMatchObject({
        data: { dsp_provider_location_id: w.store, failure_code: 'OUTDATED_HEAD' },
      });
      expect(event).toMatchObject({
        data: { failure_reason: expect.stringContaining('no longer holds itm-horchata-24') },
      });
      expect(updates().length).toBe(sent);
    } finally {
      w.pos.catalog = DEMO_CATALOG;
    }
  });

  it('publishes the rest of a catalog holding a broken object: the file is byte for byte the one without it, and the catalog says what was left out', async () => {
    /** Publishes `catalog` and answers the file the DSP downloads, as the bytes it gets. */
    const published = async (catalog: unknown) => {
      w.pos.catalog = catalog;
      expect(await publish(posEvents().length + 1)).toMatchObject({ type: 'menu.publish_success' });
      const { download_url } = publishes().at(-1)!.body as { download_url: string };
      return (await call('GET', download_url)).text;
    };
    const broken = structuredClone(DEMO_CATALOG) as Record<string, Record<string, unknown>[]>;
    broken.modifier_group!.push({ provider_id: 'grp-broken' }); // no name: left out
    broken.item_family!.push({ provider_id: 'fam-broken', name: 'Broken', price_amount: 500, price_currency: 'USD', modifier_group_ids: ['grp-broken'] });
    (broken.category![0]!.item_family_ids as string[]).push('fam-broken', 'fam-never-sent');
    try {
      const clean = await published(DEMO_CATALOG);
      expect(await published(broken)).toBe(clean);
      expect(await catalogProblems()).toEqual([
        ['error', 'modifier_group', 'grp-broken', 'name'],
        ['error', 'item_family', 'fam-broken', 'modifier_group_ids'],
        ['warning', 'category', 'cat-tacos', 'item_family_ids'],
        ['warning', 'category', 'cat-tacos', 'item_family_ids'],
      ]);
    } finally {
      w.pos.catalog = DEMO_CATALOG;
    }
  }); // prettier-ignore

  it('tells the POS a menu left blank by item families left out for problems of their own to fix those (MENU_BLANK)', async () => {
    w.pos.catalog = {
      menu: [{ provider_id: 'menu', name: 'Menu', schedule: { monday: ['11:00-15:00'] }, category_ids: ['cat'] }],
      category: [{ provider_id: 'cat', name: 'Cat', item_family_ids: ['fam-nocur', 'fam-lower'] }],
      item_family: [
        { provider_id: 'fam-nocur', name: 'No currency', price_amount: 100 },
        { provider_id: 'fam-lower', name: 'Lower case', price_amount: 100, price_currency: 'usd' },
      ],
    };
    try {
      expect(await publish(posEvents().length + 1)).toMatchObject({
        type: 'menu.publish_failure',
        data: { failure_code: 'MENU_BLANK', failure_reason: "The menus assigned to the location hold no item: the 2 item families their categories list were left out for a problem or never sent: fix them as the catalog's problems say." },
      });
    } finally {
      w.pos.catalog = DEMO_CATALOG;
    }
    expect(await publish(posEvents().length + 1)).toMatchObject({ type: 'menu.publish_success' });
  }); // prettier-ignore

  it('publishes a catalog version stored before references to missing objects were settled, settling them as it is read (no MENU_CATALOG_MISMATCH)', async () => {
    const db = w.platform.app.ctx.db;
    // Stored as normalising kept it then: a category naming a family never sent, a family a tax never sent.
    const old = structuredClone(DEMO_CATALOG);
    old.item!.find((i) => i.provider_id === 'itm-bowl-regular')!.price_amount = 1175;
    old.category!.find((c) => c.provider_id === 'cat-bowls')!.item_family_ids!.push('fam-gone');
    old.item_family!.find((f) => f.provider_id === 'fam-horchata')!.tax_ids!.push('tax-gone');
    const [{ version, settled }] = rowsOf<{ version: number; settled: boolean }>(await db.execute(sql`select max(version) as version, bool_and(references_settled) as settled from catalogs where location_id = ${w.locationId}`)) as [{ version: number; settled: boolean }];
    expect(settled, 'a pulled version is stored settled, and read as stored').toBe(true);
    // references_settled false, as on every row older than the flag.
    await db.execute(sql`insert into catalogs (id, location_id, version, catalog, problems, digest)
      values ('ctlg_unsettled', ${w.locationId}, ${version + 1}, ${JSON.stringify(old)}::jsonb, '[]'::jsonb, 'unsettled')`);
    try {
      // A category update publishes the latest version again, without a pull.
      const n = posEvents().length + 1;
      const turned = await postPos(w, { type: 'location.catalog.object.updated', object: { location_id: w.posLocation, object_id: 'cat-bowls', object_type: 'category', object_update: { is_active: true } } });
      expect(turned.status).toBe(204);
      expect(await waitFor(() => posEvents()[n - 1], 20_000, 'the publication')).toMatchObject({ type: 'menu.publish_success' });
      const file = (await call('GET', (publishes().at(-1)!.body as { download_url: string }).download_url)).body;
      expect(objectIn(file, streamIdOf(w.locationId, 'item', 'itm-bowl-regular'))).toMatchObject({ price: 1175 });
      expect(objectIn(file, streamIdOf(w.locationId, 'item_family', 'fam-horchata'))).toBeUndefined();
      // Said as a fresh pull says it.
      expect(await catalogProblems()).toEqual([
        ['error', 'item_family', 'fam-horchata', 'tax_ids'],
        ['error', 'item', 'itm-horchata-16', 'item_family_id'],
        ['error', 'item', 'itm-horchata-24', 'item_family_id'],
        ['warning', 'category', 'cat-bowls', 'item_family_ids'],
        ['warning', 'category', 'cat-drinks', 'item_family_ids'],
      ]);
    } finally {
      w.pos.catalog = DEMO_CATALOG;
      await publish(posEvents().length + 1);
    }
  }); // prettier-ignore

  it('records a failed publication of each store, told to the POS, for a catalog pull the POS fails past its retries', async () => {
    const saved = { ...MENU_INGEST };
    Object.assign(MENU_INGEST, { deadlineMs: 1_500, backoff: { baseMs: 50, maxMs: 200 } });
    w.pos.catalogAnswer = { status: 500, body: { error: 'down' } };
    try {
      const pulls = w.pos.ofPath('/stream-pos/v1/catalog').length;
      const event = await publish(posEvents().length + 1);
      expect(w.pos.ofPath('/stream-pos/v1/catalog').length - pulls).toBeGreaterThan(1);
      expect(event).toMatchObject({
        type: 'menu.publish_failure',
        data: { dsp_provider_location_id: w.store, failure_code: 'MENU_FAILURE_UNKNOWN', failure_reason: expect.stringMatching(/^The catalog could not be pulled from the POS \(GET \/stream-pos\/v1\/catalog, \d+ attempt\(s\)\): .*500/) },
      });
      expect((await api('GET', menus('publications'))).body.publications[0]).toMatchObject({
        _id: (event as unknown as { data: { menu_id: string } }).data.menu_id,
        status: 'failed',
        failure_code: 'MENU_FAILURE_UNKNOWN',
        cause: 'partner',
        catalog_version: null,
      });
    } finally {
      Object.assign(MENU_INGEST, saved);
      w.pos.catalogAnswer = undefined;
    }
  }); // prettier-ignore

  it("tells the POS one store's outcomes in the order they happened: a later one waits while an earlier one is retried", async () => {
    const known = new Set((await publications()).map((p) => p._id));
    const newest = async (status: string) => (await publications()).find((p) => !known.has(p._id) && p.status === status);
    const menuIdOf = (e: object) => (e as { data: { menu_id: string } }).data.menu_id;
    let failed: string | undefined;
    const accepted: string[] = [];
    // The POS refuses the first outcome until told otherwise, and takes any other.
    let refusing = true;
    w.pos.events = (body) => {
      const id = menuIdOf(body);
      failed ??= (body as { data: { failure_code?: string } }).data.failure_code === 'DSP_FORBIDDEN' ? id : undefined;
      if (refusing && id === failed) return { status: 500, body: {} };
      if (!known.has(id)) accepted.push(id);
      return { status: 204 };
    };
    let forbidden = true;
    w.pos.catalog = DEMO_CATALOG;
    w.dsp.answer = (body) => (body.type === 'location.publish' && forbidden ? { status: 403 } : { status: 200, body: {} });
    try {
      expect((await api('POST', menus('publish'))).status).toBe(202);
      expect((await waitFor(() => newest('failed'), 20_000, 'the publication the DSP refuses'))._id).toBe(failed);
      const refusals = () => posEvents().filter((e) => menuIdOf(e) === failed).length;
      await waitFor(() => refusals() > 0, 20_000, 'its outcome refused by the POS');
      forbidden = false;
      expect((await api('POST', menus('publish'))).status).toBe(202);
      const published = (await waitFor(() => newest('published'), 20_000, 'the next publication'))._id;
      const seen = refusals();
      await moveClock(w, 10 * 60_000);
      await waitFor(() => refusals() > seen, 20_000, 'the first outcome refused again');
      expect(accepted).not.toContain(published);
      refusing = false;
      await moveClock(w, 10 * 60_000);
      await waitFor(() => accepted.includes(published), 20_000, 'the success');
      expect(accepted).toEqual([failed, published]);
    } finally {
      w.pos.events = () => ({ status: 204 });
      w.dsp.answer = () => ({ status: 200, body: {} });
    }
  }); // prettier-ignore

  it('keeps every stream_id in the database across three re-ingests with changes', async () => {
    const ids = async () =>
      new Map(
        rowsOf<{ kind: string; provider_id: string; stream_id: string }>(
          await w.platform.app.ctx.db.execute(
            sql`select kind, provider_id, stream_id from menu_items where location_id = ${w.locationId}`,
          ),
          // A family sold without items has two rows (itself and its variation): the prefix tells them apart.
        ).map((r) => [`${r.kind}:${r.provider_id}:${r.stream_id.slice(0, 3)}`, r.stream_id]),
      );
    const first = await ids();
    expect(first.size).toBeGreaterThan(20);
    const changes: ((c: typeof DEMO_CATALOG) => void)[] = [
      (c) => (c.item![0]!.price_amount! += 25),
      (c) => {
        c.item_family!.push({
          provider_id: 'fam-new',
          name: 'New',
          price_amount: 300,
          price_currency: 'USD',
        });
        c.category![0]!.item_family_ids!.unshift('fam-new');
      },
      (c) => {
        c.modifier!.reverse();
        c.item_family!.reverse();
      },
    ];
    try {
      for (const change of changes) {
        const changed = structuredClone(DEMO_CATALOG);
        change(changed);
        w.pos.catalog = changed;
        expect(await publish(posEvents().length + 1)).toMatchObject({ type: 'menu.publish_success' });
        const now = await ids();
        for (const [key, streamId] of first) expect(now.get(key), key).toBe(streamId);
      }
      expect((await ids()).has('item_family:fam-new:ifm')).toBe(true);
    } finally {
      w.pos.catalog = DEMO_CATALOG;
    }
  });

  // Last: the DSP's 401 leaves its integration needing reconnection.
  it('tells the POS a DSP that refuses the merchant token (DSP_UNAUTHORIZED)', async () => {
    w.dsp.answer = (body) => (body.type === 'location.publish' ? { status: 401 } : { status: 200, body: {} });
    try {
      const event = await publish(posEvents().length + 1);
      expect(event).toMatchObject({ data: { failure_code: 'DSP_UNAUTHORIZED' } });
    } finally {
      w.dsp.answer = () => ({ status: 200, body: {} });
    }
  });
});
