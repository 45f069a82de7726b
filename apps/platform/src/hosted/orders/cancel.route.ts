import type { FastifyInstance } from 'fastify';
import { cancelHostedOrder, cancelHostedOrderByReference } from '@stream/contracts/apis/hr-orders/index';
import { authOf } from '../../auth/bearer.ts';
import type { Tx } from '../../db/client.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer } from '../answer.ts';
import { findByReference, findStoreOrder, moveOrder, statusOf, type OrderRow } from './records.ts';

/** Cancels a locked order; a cancelled one is answered again (a retried Cancel is not an error). */
async function cancel(tx: Tx, row: OrderRow) {
  const done = row.status === 'cancelled' ? row : await moveOrder(tx, row, 'cancelled');
  const status = statusOf(done);
  return hostedAnswer(status, `Order ${status.id} cancelled.`);
}

/** POST /Orders/{id}/Cancel; POST /Orders/Cancel?sourceReferenceId */
export function registerCancelRoute(app: FastifyInstance): void {
  const { db } = app.ctx;
  mount(app, cancelHostedOrder, async (req) => {
    const auth = authOf(req);
    const store = await findGrantedStore(db, auth, req.headers['x-store']);
    const scope = { storeId: store.id, partnerId: auth.partnerId };
    return db.transaction(async (tx) => cancel(tx, await findStoreOrder(tx, scope, req.params.id, true)));
  });
  mount(app, cancelHostedOrderByReference, async (req) => {
    const auth = authOf(req);
    const store = await findGrantedStore(db, auth, req.headers['x-store']);
    const scope = { storeId: store.id, partnerId: auth.partnerId };
    return db.transaction(async (tx) =>
      cancel(
        tx,
        await findByReference(tx, scope, req.headers['x-service-type'], req.query.sourceReferenceId),
      ),
    );
  });
}
