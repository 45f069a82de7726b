import type { FastifyInstance } from 'fastify';
import { applyCreditCardPayment } from '@stream/contracts/apis/hr-orders/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, sendOnce } from '../answer.ts';
import { applyCardPayment } from './payments.ts';
import { findStoreOrder, orderToWire } from './records.ts';

/** POST /Orders/{id}/ApplyCreditCardPayment */
export function registerApplyCreditCardPaymentRoute(app: FastifyInstance): void {
  mount(app, applyCreditCardPayment, async (req, reply) => {
    const auth = authOf(req);
    const store = await findGrantedStore(app.ctx.db, auth, req.headers['x-store']);
    const request = { store: store.id, order: req.params.id, body: req.body };
    return sendOnce(app.ctx, req, reply, request, async (tx) => {
      const row = await findStoreOrder(
        tx,
        { storeId: store.id, partnerId: auth.partnerId },
        req.params.id,
        true,
      );
      const message = await applyCardPayment(tx, row, req.body.data);
      const order = await orderToWire(tx, row);
      return { status: 200, body: hostedAnswer(order, message) };
    });
  });
}
