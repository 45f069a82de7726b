import type { FastifyInstance } from 'fastify';
import { getHostedOrderStatus } from '@stream/contracts/apis/hr-orders/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer } from '../answer.ts';
import { findStoreOrder, statusOf } from './records.ts';

/** GET /Orders/{id}/Status */
export function registerOrderStatusRoute(app: FastifyInstance): void {
  mount(app, getHostedOrderStatus, async (req) => {
    const auth = authOf(req);
    const store = await findGrantedStore(app.ctx.db, auth, req.headers['x-store']);
    const status = statusOf(
      await findStoreOrder(app.ctx.db, { storeId: store.id, partnerId: auth.partnerId }, req.params.id),
    );
    return hostedAnswer(status, `Order ${status.id} is ${status.status}.`);
  });
}
