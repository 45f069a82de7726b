import type { FastifyInstance } from 'fastify';
import { listMenuDiscounts } from '@stream/contracts/apis/hr-menu/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural } from '../answer.ts';
import { listStoreMenus } from '../menus/store-menus.ts';

/** GET /MenuDiscounts */
export function registerMenuDiscountsRoute(app: FastifyInstance): void {
  mount(app, listMenuDiscounts, async (req) => {
    const store = await findGrantedStore(app.ctx.db, authOf(req), req.headers['x-store']);
    const menus = await listStoreMenus(app.ctx.db, store.id, req.query.serviceType);
    const discounts = menus.flatMap((m) =>
      m.menu.availableDiscounts.map((d) => ({ ...d, menuName: m.name })),
    );
    return hostedAnswer(discounts, `${plural(discounts.length, 'discount')}.`);
  });
}
