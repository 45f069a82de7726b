import type { FastifyInstance } from 'fastify';
import { getOrderTimeline } from '@stream/contracts/apis/partner/orders';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { timelineOf, visibleOrder } from './read.ts';

/** GET /orders/{order_id}/timeline */
export function registerTimelineRoute(app: FastifyInstance): void {
  mount(app, getOrderTimeline, async (req) => {
    const auth = authOf(req);
    const { order, eventProvider } = await visibleOrder(app.ctx.db, auth, req.params.order_id);
    return timelineOf(app.ctx.db, order.id, eventProvider ? auth.partnerId : undefined);
  });
}
