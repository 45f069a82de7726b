import type { FastifyInstance } from 'fastify';
import { applyCreditCardPayment } from '@stream/contracts/apis/hr-orders/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer } from '../answer.ts';
import { applyCardPayment } from './payments.ts';
import { findStoreOrder, orderToWire } from './records.ts';

/** POST /Orders/{id}/ApplyCreditCardPayment */
export function registerApplyCreditCardPaymentRoute(app: FastifyInstance): void {
  const { db } = app.ctx;
  mount(app, applyCreditCardPayment, async (req) => {
    const auth = authOf(req);
    const store = await findGrantedStore(db, auth, req.headers['x-store']);
    const order = await db.transaction(async (tx) => {
      const row = await findStoreOrder(
        tx,
        { storeId: store.id, partnerId: auth.partnerId },
        req.params.id,
        true,
      );
      await applyCardPayment(tx, row, req.body.data);
      return orderToWire(tx, row);
    });
    const t = req.body.data.transaction;
    return hostedAnswer(
      order,
      t.status === 'SUCCESS'
        ? `Payment ${order.payments.length} applied to order ${order.id}.`
        : `The failed transaction was recorded on order ${order.id}; it paid nothing.`,
    );
  });
}
