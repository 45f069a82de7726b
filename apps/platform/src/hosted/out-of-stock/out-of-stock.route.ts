import type { FastifyInstance } from 'fastify';
import { listOutOfStock } from '@stream/contracts/apis/hr-menu/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer } from '../answer.ts';
import { listStoreMenus, outOfStockOf } from '../menus/store-menus.ts';

/** GET /OutOfStock */
export function registerOutOfStockRoute(app: FastifyInstance): void {
  mount(app, listOutOfStock, async (req) => {
    const store = await findGrantedStore(app.ctx.db, authOf(req), req.headers['x-store']);
    const items = outOfStockOf(await listStoreMenus(app.ctx.db, store.id, req.query.serviceType));
    return hostedAnswer(items, `${items.length} out of stock.`);
  });
}
