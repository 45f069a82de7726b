import type { FastifyInstance } from 'fastify';
import { getMenuOutOfStock } from '@stream/contracts/apis/hr-menu/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer } from '../answer.ts';
import { findStoreMenu, outOfStockOf } from './store-menus.ts';

/** GET /Menus/{menuName}/OutOfStock */
export function registerMenuOutOfStockRoute(app: FastifyInstance): void {
  mount(app, getMenuOutOfStock, async (req) => {
    const store = await findGrantedStore(app.ctx.db, authOf(req), req.headers['x-store']);
    const items = outOfStockOf([await findStoreMenu(app.ctx.db, store.id, req.params.menuName)]);
    return hostedAnswer(items, `${items.length} out of stock.`);
  });
}
