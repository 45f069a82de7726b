import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CATALOG } from '@stream/sandbox/catalog';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import { newOrder, postDsp, postPos, startOrderWorld, type OrderWorld } from '../orders/testing.ts';
import { streamIdOf } from './build.ts';
import { idsOf, unavailableOf } from './order-ids.ts';

const line = { name: 'Horchata', quantity: 1, price: 450, currency: 'usd' };

describe('idsOf', () => {
  it('names the variation, its item, its category and every modifier and group, nested, each once', () => {
    const ids = idsOf([
      {
        ...line,
        id: 'itm',
        item_id: 'ifm',
        category_id: 'cat',
        modifiers: [
          {
            id: 'mod',
            modifier_group_id: 'mgr',
            name: 'M',
            quantity: 1,
            price: 0,
            currency: 'usd',
            modifiers: [{ id: 'mod-2', modifier_group_id: 'mgr', name: 'N', quantity: 1, price: 0, currency: 'usd' }],
          },
        ],
      },
      { ...line, id: 'itm', category_id: 'cat' },
    ]);
    expect(ids).toEqual(['itm', 'ifm', 'cat', 'mod', 'mgr', 'mod-2']);
  }); // prettier-ignore
});

describe('unavailableOf', () => {
  it('names the items ordered from a turned-off category, each once, and any other id as it is', () => {
    const items = [
      { ...line, id: 'itm-1', category_id: 'cat' },
      { ...line, id: 'itm-2', category_id: 'cat' },
      { ...line, id: 'itm-3', category_id: 'other' },
    ];
    expect(unavailableOf(items, ['cat', 'itm-2', 'mod'])).toEqual(['itm-1', 'itm-2', 'mod']);
  });
});

describe('an order naming a category the POS turned off', () => {
  let w: OrderWorld;
  beforeAll(async () => {
    w = await startOrderWorld();
  });
  afterAll(async () => {
    await w?.stop();
  });

  const sid = (kind: 'category' | 'item' | 'item_family', id: string) => streamIdOf(w.locationId, kind, id);
  const posEvents = () => w.pos.ofPath('/stream-pos/v1/events');
  const turn = (is_active: boolean) =>
    postPos(w, {
      type: 'location.catalog.object.updated',
      object: {
        location_id: w.posLocation,
        object_id: 'cat-drinks',
        object_type: 'category',
        object_update: { is_active },
      },
    });
  /** An order of one 16 oz horchata, from the category the DSP shows it in. */
  const order = (categoryId: string) =>
    postDsp(
      w,
      newOrder(w, {
        items: [
          {
            ...line,
            id: sid('item', 'itm-horchata-16'),
            item_id: sid('item_family', 'fam-horchata'),
            category_id: categoryId,
          },
        ],
        subtotal: 450,
      }),
    );

  it('fails items_unavailable naming the items ordered from it, as for a turned-off item, until the category is on again', async () => {
    w.pos.catalog = DEMO_CATALOG;
    const published = await call('POST', `${w.url}/menus/locations/${w.locationId}/publish`, { token: w.token });
    expect(published.status, published.text).toBe(202);
    await waitFor(() => posEvents().find((e) => (e.body as { type: string }).type === 'menu.publish_success'), 20_000, 'the menu published');
    w.pos.answer = (_, n) => ({ status: 200, body: { order: { provider_id: `pos-${n}` } } });
    const drinks = sid('category', 'cat-drinks');

    const events = posEvents().length;
    expect((await turn(false)).status).toBe(204);
    // The store's menu is published again without it; a DSP still showing the old one may order from it.
    await waitFor(() => posEvents()[events], 20_000, 'the menu published without the category');
    expect((await order(drinks)).body).toMatchObject({
      status: 'failed',
      failure_reason: 'items_unavailable',
      failure_details: { invalid_item_ids: [sid('item', 'itm-horchata-16')] },
    });

    const back = posEvents().length;
    expect((await turn(true)).status).toBe(204);
    await waitFor(() => posEvents()[back], 20_000, 'the menu published with the category');
    expect((await order(drinks)).body.status).toBe('received');
  }); // prettier-ignore

  it('fails items_unavailable naming the items ordered from it when the catalog itself turns it off, as an object update does', async () => {
    const publish = async (catalog: typeof DEMO_CATALOG) => {
      w.pos.catalog = catalog;
      const n = posEvents().length;
      expect((await call('POST', `${w.url}/menus/locations/${w.locationId}/publish`, { token: w.token })).status).toBe(202);
      expect((await waitFor(() => posEvents()[n], 20_000, 'the menu published')).body).toMatchObject({ type: 'menu.publish_success' });
    };
    const off = structuredClone(DEMO_CATALOG);
    off.category!.find((c) => c.provider_id === 'cat-drinks')!.is_active = false;
    try {
      await publish(off);
      expect((await order(sid('category', 'cat-drinks'))).body).toMatchObject({
        status: 'failed',
        failure_reason: 'items_unavailable',
        failure_details: { invalid_item_ids: [sid('item', 'itm-horchata-16')] },
      });
    } finally {
      await publish(DEMO_CATALOG);
    }
    expect((await order(sid('category', 'cat-drinks'))).body.status).toBe('received');
  }); // prettier-ignore
});

describe('an order line naming no category, of a family every category of which the POS turned off', () => {
  let w: OrderWorld;
  beforeAll(async () => {
    w = await startOrderWorld();
    w.pos.answer = (_, n) => ({ status: 200, body: { order: { provider_id: `pos-${n}` } } });
    // The store's first publication, on its binding, fails (the fake POS's catalog is empty): told
    // before the tests count the POS's events.
    await waitFor(() => posEvents()[0], 20_000, 'the binding publication told');
  });
  afterAll(async () => {
    await w?.stop();
  });

  const sid = (kind: 'item' | 'item_family', id: string) => streamIdOf(w.locationId, kind, id);
  const posEvents = () => w.pos.ofPath('/stream-pos/v1/events');
  /** The demo catalog with horchata offered in two categories (Drinks, and Specials on the lunch menu); `off` turned off. */
  const catalog = (...off: string[]) => {
    const c = structuredClone(DEMO_CATALOG);
    c.category!.push({ provider_id: 'cat-specials', name: 'Specials', item_family_ids: ['fam-horchata'] });
    c.menu!.find((m) => m.provider_id === 'menu-lunch')!.category_ids!.push('cat-specials');
    for (const cat of c.category!) if (off.includes(cat.provider_id)) cat.is_active = false;
    return c;
  };
  /** Waits for the next event to the POS, a menu published. */
  const published = async (n: number) =>
    expect((await waitFor(() => posEvents()[n], 20_000, 'the menu published')).body).toMatchObject({
      type: 'menu.publish_success',
    });
  const publish = async (c: typeof DEMO_CATALOG) => {
    w.pos.catalog = c;
    const n = posEvents().length;
    expect(
      (await call('POST', `${w.url}/menus/locations/${w.locationId}/publish`, { token: w.token })).status,
    ).toBe(202);
    await published(n);
  };
  /** A category turned on or off by an object update: at once, then once its store's menu is published again. */
  const turn = async (category: string, is_active: boolean, check: () => Promise<void>) => {
    const n = posEvents().length;
    const res = await postPos(w, {
      type: 'location.catalog.object.updated',
      object: {
        location_id: w.posLocation,
        object_id: category,
        object_type: 'category',
        object_update: { is_active },
      },
    });
    expect(res.status, res.text).toBe(204);
    await check();
    await published(n);
    await check();
  };
  /** An order of one 16 oz horchata, its line naming no category. */
  const order = () =>
    postDsp(
      w,
      newOrder(w, {
        items: [{ ...line, id: sid('item', 'itm-horchata-16'), item_id: sid('item_family', 'fam-horchata') }],
        subtotal: 450,
      }),
    );
  const passes = async () => expect((await order()).body.status).toBe('received');
  const fails = async () =>
    expect((await order()).body).toMatchObject({
      status: 'failed',
      failure_reason: 'items_unavailable',
      failure_details: { invalid_item_ids: [sid('item', 'itm-horchata-16')] },
    });

  it('passes while one of its categories is on, and fails items_unavailable naming the line once the catalog turns both off', async () => {
    await publish(catalog());
    await passes();
    await publish(catalog('cat-specials'));
    await passes();
    await publish(catalog('cat-specials', 'cat-drinks'));
    await fails();
    await publish(catalog('cat-specials'));
    await passes();
  }); // prettier-ignore

  it('fails the same, at once, when object updates turn them off (both, or the last one the catalog left on), and passes when one is on again', async () => {
    await publish(catalog());
    await turn('cat-specials', false, passes);
    await turn('cat-drinks', false, fails);
    await turn('cat-drinks', true, passes);
    await turn('cat-specials', true, passes);
    // One off in the catalog, the other by an object update.
    await publish(catalog('cat-specials'));
    await passes();
    await turn('cat-drinks', false, fails);
    await turn('cat-drinks', true, passes);
  }); // prettier-ignore
});
