import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CATALOG } from '@stream/sandbox/catalog';
import { sql } from 'drizzle-orm';
import { call } from '../../test/http.ts';
import { rowsOf } from '../db/sql.ts';
import { waitFor } from '../../test/wait.ts';
import {
  moveClock,
  newOrder,
  postDsp,
  postPos,
  startOrderWorld,
  type OrderWorld,
} from '../orders/testing.ts';
import { streamIdOf } from './build.ts';
import { CATALOG_DEBOUNCE_MS, MENU_PUBLISH } from './publish.ts';

/**
 * Object updates against publications in flight, over real HTTP: a POS and a DSP written from the
 * contract (node:http, not the sandbox).
 */

let w: OrderWorld;
beforeAll(async () => {
  Object.assign(MENU_PUBLISH, { deadlineMs: 60 * 60_000, backoff: { baseMs: 60_000, maxMs: 60_000 } });
  CATALOG_DEBOUNCE_MS.value = 300;
  w = await startOrderWorld();
});
afterAll(async () => {
  await w?.stop();
});

const api = (method: string, path: string) => call(method, `${w.url}${path}`, { token: w.token });
const menus = (what: string) => `/menus/locations/${w.locationId}/${what}`;
const posEvents = () => w.pos.ofPath('/stream-pos/v1/events').map((r) => r.body as { type: string });
const dspEvents = () => w.dsp.ofPath('/stream-dsp/v1/event').map((r) => r.body as Record<string, unknown>);

/** `is_active` of an object in the menu file at `url`, as the DSP downloads it. */
async function shownActive(url: string, streamId: string) {
  const file = await call('GET', url);
  const found = JSON.stringify(file.body).match(new RegExp(`"stream_id":"${streamId}"[^}]*"is_active":(true|false)`));
  return found ? found[1] === 'true' : undefined;
} // prettier-ignore

describe('an object turned off while a publication is in flight', () => {
  it('stays off: the publication built from the catalog pulled before it is superseded, never sent again', async () => {
    await waitFor(() => posEvents()[0], 20_000, 'the binding publication (an empty catalog)');
    w.pos.catalog = DEMO_CATALOG;
    expect((await api('POST', menus('publish'))).status).toBe(202);
    await waitFor(() => posEvents()[1], 20_000, 'the first publication');
    expect(posEvents()[1]!.type).toBe('menu.publish_success');

    // The DSP is down: a publication of a changed catalog waits to retry (a minute, unless the clock moves).
    let down = true;
    w.dsp.answer = (body) => (body.type === 'location.publish' && down ? { status: 503, body: {} } : { status: 200, body: {} });
    const changed = structuredClone(DEMO_CATALOG);
    changed.item!.find((i) => i.provider_id === 'itm-carnitas-3')!.price_amount = 1250;
    w.pos.catalog = changed;
    const tried = dspEvents().length;
    expect((await api('POST', menus('publish'))).status).toBe(202);
    const refused = await waitFor(() => dspEvents().slice(tried).find((e) => e.type === 'location.publish'), 20_000, 'the refused publish');

    // Meanwhile the restaurant runs out of single tacos; the DSP hears it at once.
    const variation = streamIdOf(w.locationId, 'item', 'itm-carnitas-1');
    const off = await postPos(w, {
      type: 'location.catalog.object.updated',
      object: { location_id: w.posLocation, object_id: 'itm-carnitas-1', object_type: 'item', object_update: { is_active: false } },
    });
    expect(off.status).toBe(204);
    await waitFor(() => dspEvents().find((e) => e.type === 'location.update'), 20_000, 'the update');

    // The DSP is back: the retry builds the file again, so the one built before the update is never sent.
    down = false;
    const sent = dspEvents().length;
    await moveClock(w, 60_000);
    await waitFor(() => posEvents()[3], 20_000, 'the superseded publication and its successor');
    expect(posEvents().slice(2).map((e) => e.type)).toEqual(['menu.publish_failure', 'menu.publish_success']);
    expect(posEvents()[2]).toMatchObject({ data: { failure_code: 'DSP_INTERNAL_FAILURE', failure_reason: expect.stringContaining('superseded') } });
    const publish = dspEvents().slice(sent).find((e) => e.type === 'location.publish') as { download_url: string };
    expect(publish.download_url).not.toBe((refused as { download_url: string }).download_url);
    // The file it downloads shows the taco off.
    expect(await shownActive(publish.download_url, variation)).toBe(false);
    // And an order naming it is refused before the POS.
    const item = { id: variation, name: 'One taco', quantity: 1, price: 450, currency: 'usd' };
    const refusedOrder = await postDsp(w, newOrder(w, { items: [item], subtotal: 450 }));
    expect(refusedOrder.body).toMatchObject({ status: 'failed', failure_reason: 'items_unavailable' });
  }); // prettier-ignore

  it('pulls the catalog for an object no menu holds, and publishes only if the catalog changed', async () => {
    const ingests = async () =>
      rowsOf<{ status: string }>(
        await w.platform.app.ctx.db.execute(sql`select status from jobs where kind = 'menus.ingest' and ordering_key = ${`menus:${w.locationId}`}`),
      );
    const settled = async (n: number) =>
      waitFor(async () => {
        const jobs = await ingests();
        return jobs.length >= n && jobs.every((j) => j.status === 'succeeded') ? jobs : undefined;
      }, 20_000, 'the pull');
    // A family sold in-store only (in no category) and an id the catalog does not have, each turned off twice.
    const catalog = structuredClone(w.pos.catalog as typeof DEMO_CATALOG);
    catalog.item_family!.push({ provider_id: 'fam-in-store', name: 'In store only', price_amount: 100, price_currency: 'USD' });
    w.pos.catalog = catalog;
    const before = posEvents().length;
    expect((await api('POST', menus('publish'))).status).toBe(202);
    await waitFor(() => posEvents()[before], 20_000, 'the publication with the in-store family');
    const [events, publishes, pulls] = [posEvents().length, dspEvents().filter((e) => e.type === 'location.publish').length, (await ingests()).length];
    for (const object_id of ['fam-in-store', 'fam-in-store', 'not-in-catalog', 'not-in-catalog']) {
      const res = await postPos(w, {
        type: 'location.catalog.object.updated',
        object: { location_id: w.posLocation, object_id, object_type: 'item_family', object_update: { is_active: false } },
      });
      expect(res.status).toBe(204);
    }
    await settled(pulls + 1);
    await new Promise((r) => setTimeout(r, 500));
    // The catalog did not change: no menu sent again, nothing to tell the POS.
    expect(dspEvents().filter((e) => e.type === 'location.publish').length).toBe(publishes);
    expect(posEvents().length).toBe(events);

    // A new object the POS turns on: the pull finds it and publishes it.
    catalog.category![0]!.item_family_ids!.push('fam-new');
    catalog.item_family!.push({ provider_id: 'fam-new', name: 'New', price_amount: 300, price_currency: 'USD' });
    w.pos.catalog = catalog;
    const res = await postPos(w, {
      type: 'location.catalog.object.updated',
      object: { location_id: w.posLocation, object_id: 'fam-new', object_type: 'item_family', object_update: { is_active: true } },
    });
    expect(res.status).toBe(204);
    await waitFor(() => posEvents()[events], 20_000, 'the publication of the new family');
    expect(posEvents()[events]!.type).toBe('menu.publish_success');
  }); // prettier-ignore
});

describe('an object turned off by an object update', () => {
  const variation = () => streamIdOf(w.locationId, 'item', 'itm-bowl-regular');
  const update = async (is_active: boolean) => {
    const sent = dspEvents().length;
    const res = await postPos(w, {
      type: 'location.catalog.object.updated',
      object: {
        location_id: w.posLocation,
        object_id: 'itm-bowl-regular',
        object_type: 'item',
        object_update: { is_active },
      },
    });
    expect(res.status).toBe(204);
    await waitFor(
      () =>
        dspEvents()
          .slice(sent)
          .find((e) => e.type === 'location.update'),
      20_000,
      'the update',
    );
  };
  /** Publishes the POS's catalog now; the download_url the DSP was sent. */
  const publish = async () => {
    const [events, sent] = [posEvents().length, dspEvents().length];
    expect((await api('POST', menus('publish'))).status).toBe(202);
    await waitFor(() => posEvents()[events], 20_000, 'the publication');
    expect(posEvents()[events]!.type).toBe('menu.publish_success');
    return (
      dspEvents()
        .slice(sent)
        .find((e) => e.type === 'location.publish') as { download_url: string }
    ).download_url;
  };
  const order = async () => {
    const item = { id: variation(), name: 'Regular', quantity: 1, price: 1150, currency: 'usd' };
    return (await postDsp(w, newOrder(w, { items: [item], subtotal: 1150 }))).body as {
      failure_reason?: string;
    };
  };

  it('stays off through publications of a catalog that does not change it, until the POS turns it on', async () => {
    await update(false);
    // The same catalog published again: the item is still off in the file, and orders for it are refused.
    expect(await shownActive(await publish(), variation())).toBe(false);
    expect(await order()).toMatchObject({ status: 'failed', failure_reason: 'items_unavailable' });
    await update(true);
    expect((await order()).failure_reason).not.toBe('items_unavailable');
    expect(await shownActive(await publish(), variation())).toBe(true);
  }); // prettier-ignore

  it('gives way to a later catalog that changes its availability itself', async () => {
    await update(false);
    // The POS's catalog says off too, then on again: the newest statement is the catalog's.
    const catalog = structuredClone(w.pos.catalog as typeof DEMO_CATALOG);
    const item = catalog.item!.find((i) => i.provider_id === 'itm-bowl-regular')!;
    item.is_active = false;
    w.pos.catalog = structuredClone(catalog);
    expect(await shownActive(await publish(), variation())).toBe(false);
    delete item.is_active;
    w.pos.catalog = catalog;
    expect(await shownActive(await publish(), variation())).toBe(true);
    expect((await order()).failure_reason).not.toBe('items_unavailable');
  }); // prettier-ignore
});

describe('a modifier group or category turned off or on', () => {
  const update = (object_type: string, object_id: string, is_active: boolean) =>
    postPos(w, {
      type: 'location.catalog.object.updated',
      object: { location_id: w.posLocation, object_id, object_type, object_update: { is_active } },
    });
  /** The publication an update makes: its file as the DSP downloads it. */
  const republished = async (object_type: string, object_id: string, is_active: boolean) => {
    const [events, sent] = [posEvents().length, dspEvents().length];
    expect((await update(object_type, object_id, is_active)).status).toBe(204);
    await waitFor(() => posEvents()[events], 20_000, 'the publication');
    expect(posEvents()[events]!.type).toBe('menu.publish_success');
    const publish = dspEvents()
      .slice(sent)
      .find((e) => e.type === 'location.publish') as { download_url: string };
    return JSON.stringify((await call('GET', publish.download_url)).body);
  };
  const group = () => streamIdOf(w.locationId, 'modifier_group', 'grp-extras');
  const order = async () => {
    const modifier = {
      id: streamIdOf(w.locationId, 'modifier', 'mod-cheese'),
      modifier_group_id: group(),
      name: 'Cheese',
      quantity: 1,
      price: 75,
      currency: 'usd',
    };
    const item = {
      id: streamIdOf(w.locationId, 'item', 'itm-carnitas-3'),
      name: 'Three tacos',
      quantity: 1,
      price: 1250,
      currency: 'usd',
      modifiers: [modifier],
    };
    return (await postDsp(w, newOrder(w, { items: [item], subtotal: 1325 }))).body as {
      failure_reason?: string;
    };
  };

  it('publishes the menu again without a modifier group turned off, refuses orders naming it, and with it once on', async () => {
    const off = await republished('modifier_group', 'grp-extras', false);
    expect(off).not.toContain(group());
    expect(off).toContain(streamIdOf(w.locationId, 'modifier_group', 'grp-salsa'));
    expect(await order()).toMatchObject({ status: 'failed', failure_reason: 'items_unavailable' });
    expect(await republished('modifier_group', 'grp-extras', true)).toContain(group());
    expect((await order()).failure_reason).not.toBe('items_unavailable');
  }); // prettier-ignore

  it('publishes a category turned off, and sends no store a menu the update does not change', async () => {
    expect(await republished('category', 'cat-drinks', false)).not.toContain(streamIdOf(w.locationId, 'category', 'cat-drinks'));
    const publishes = async () =>
      rowsOf<{ status: string }>(await w.platform.app.ctx.db.execute(sql`select status from jobs where kind = 'menus.publish'`));
    const [before, events, sent] = [(await publishes()).length, posEvents().length, dspEvents().length];
    // The brunch menu is not served at this location: turning its category on changes no file.
    expect((await update('category', 'cat-brunch', true)).status).toBe(204);
    await waitFor(async () => {
      const jobs = await publishes();
      return jobs.length > before && jobs.every((j) => j.status === 'succeeded') ? jobs : undefined;
    }, 20_000, 'the publish planned for it');
    expect(dspEvents().length).toBe(sent);
    expect(posEvents().length).toBe(events);
    expect(await republished('category', 'cat-drinks', true)).toContain(streamIdOf(w.locationId, 'category', 'cat-drinks'));
  }); // prettier-ignore

  it('publishes the catalog again for a tax turned off or on (a menu likewise), as the catalog then says', async () => {
    const catalog = structuredClone(w.pos.catalog as typeof DEMO_CATALOG);
    const alcohol = streamIdOf(w.locationId, 'tax', 'tax-alcohol');
    catalog.tax!.find((t) => t.provider_id === 'tax-alcohol')!.is_active = false;
    w.pos.catalog = catalog;
    expect(await republished('tax', 'tax-alcohol', false)).not.toContain(alcohol);
    catalog.tax!.find((t) => t.provider_id === 'tax-alcohol')!.is_active = true;
    w.pos.catalog = catalog;
    expect(await republished('tax', 'tax-alcohol', true)).toContain(alcohol);
  }); // prettier-ignore

  it('answers 400 naming the kinds it takes for any other', async () => {
    const res = await update('widget', 'w-1', false);
    expect([res.status, res.body.error?.code]).toEqual([400, 'validation_failed']);
    const kinds = 'category, item_family, item, modifier_group, modifier, menu, tax';
    expect(res.body.error?.message).toBe(`body.object.object_type: "widget" is not one of ${kinds}.`);
    expect(res.body.error?.details).toEqual([{ path: 'body.object.object_type', message: `"widget" is not one of ${kinds}` }]);
  }); // prettier-ignore
});
