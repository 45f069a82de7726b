import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DEMO_MENU } from '@stream/contracts/apis/hr-menu/demo';
import { hostedSuite } from '../testing.ts';

/** Pricing keeps parsed menus by revision (menu-for.ts): a written menu must be priced at once. */
const suite = hostedSuite();

const drinks = DEMO_MENU.groups.findIndex((g) => g.items.some((i) => i.id === 'soda'));
const soda = DEMO_MENU.groups[drinks]!.items.findIndex((i) => i.id === 'soda');

const sodaPrice = async () => {
  const res = await suite.world.hosted('POST', '/PriceOrder', {
    serviceType: 'DoorDash',
    body: {
      data: {
        orderType: 'Pickup',
        deferDue: '2026-12-01T18:30:00-05:00',
        items: [{ id: 'soda', qty: 1, price: 0 }],
      },
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.items[0].price as number;
};

describe('the menu pricing reads', () => {
  it('is the one stored now: after a PATCH, and after any other write of the row', async () => {
    expect(await sodaPrice()).toBe(250);
    expect(await sodaPrice()).toBe(250); // from the parsed copy this time

    const patch = await suite.world.hosted('PATCH', '/Menus/Main', {
      body: [{ op: 'replace', path: `/groups/${drinks}/items/${soda}/priceInfo/price`, value: 300 }],
    });
    expect(patch.status, patch.text).toBe(200);
    expect(await sodaPrice()).toBe(300);

    // Another process, or an operator's SQL: the trigger gives the row a new revision all the same.
    const db = suite.platform.app.ctx.db;
    const revisions = () =>
      db.execute(sql`select revision from hosted_menus where name = 'Main' order by id`);
    const before = JSON.stringify(await revisions());
    await db.execute(sql`
      update hosted_menus
      set menu = jsonb_set(menu, ${`{groups,${drinks},items,${soda},priceInfo,price}`}::text[], '325')
      where name = 'Main'`);
    expect(JSON.stringify(await revisions())).not.toBe(before);
    expect(await sodaPrice()).toBe(325);
  });
});
