import type { FastifyInstance } from 'fastify';
import { getOrder } from '@stream/contracts/apis/partner/orders';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { findVisibleOrder, orderToWire } from './read.ts';

/** GET /orders/{order_id} */
export function registerOrdersRoute(app: FastifyInstance): void {
  mount(app, getOrder, async (req) => ({
    order: orderToWire(await findVisibleOrder(app.ctx.db, authOf(req), req.params.order_id)),
  }));
}
