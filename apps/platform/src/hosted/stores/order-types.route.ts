import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import {
  getStoreOrderType,
  listStoreOrderTypes,
  patchStoreOrderType,
} from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { stores } from '../../db/schema/index.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural } from '../answer.ts';
import { offeredFor, orderTypeNamed } from './order-types.ts';

/** GET /Stores/{id}/OrderTypes; GET, PATCH /Stores/{id}/OrderTypes/{orderType} */
export function registerOrderTypesRoute(app: FastifyInstance): void {
  const { db } = app.ctx;
  mount(app, listStoreOrderTypes, async (req) => {
    const store = await findGrantedStore(db, authOf(req), req.params.id);
    const wanted = req.query.serviceType;
    const types = store.orderTypes.filter((t) => !wanted || offeredFor(t, wanted));
    return hostedAnswer(types, `${plural(types.length, 'order type')}.`);
  });
  mount(app, getStoreOrderType, async (req) => {
    const store = await findGrantedStore(db, authOf(req), req.params.id);
    const type = orderTypeNamed(store.id, store.orderTypes, req.params.orderType);
    return hostedAnswer(type, `Order type ${type.id}.`);
  });
  mount(app, patchStoreOrderType, async (req) => {
    const auth = authOf(req);
    // Read, change and write the store's order types under its row lock: two patches apply in turn.
    const changed = await db.transaction(async (tx) => {
      const store = await findGrantedStore(tx, auth, req.params.id, true);
      const type = { ...orderTypeNamed(store.id, store.orderTypes, req.params.orderType), ...req.body.data };
      const orderTypes = store.orderTypes.map((t) => (t.id === type.id ? type : t));
      await tx
        .update(stores)
        .set({ orderTypes, updatedAt: sql`now()` })
        .where(eq(stores.id, store.id));
      return type;
    });
    return hostedAnswer(changed, `Order type ${changed.id} changed.`);
  });
}
