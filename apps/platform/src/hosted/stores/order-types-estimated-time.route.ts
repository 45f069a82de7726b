import type { FastifyInstance } from 'fastify';
import { getEstimatedTime } from '@stream/contracts/apis/hr-stores/index';
import type { StoreTimeZone } from '@stream/contracts/hosted';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer } from '../answer.ts';
import { estimateReady } from './estimated-time.ts';
import { orderTypeNamed } from './order-types.ts';

/** GET /Stores/{id}/OrderTypes/{orderType}/EstimatedTime */
export function registerEstimatedTimeRoute(app: FastifyInstance): void {
  mount(app, getEstimatedTime, async (req) => {
    const store = await findGrantedStore(app.ctx.db, authOf(req), req.params.id);
    const type = orderTypeNamed(store.id, store.orderTypes, req.params.orderType);
    const now = new Date();
    const desired = req.query.desiredDueTime ? new Date(req.query.desiredDueTime) : now;
    const { at, adjusted } = estimateReady(type, desired, now, store.zone);
    return hostedAnswer(
      {
        orderType: type.id,
        desiredDueTime: desired.toISOString(),
        estimatedTime: at.toISOString(),
        estimatedMinutes: type.estimatedTime,
        timeZone: store.timeZone as StoreTimeZone,
        adjusted,
      },
      `Ready at ${at.toISOString()}${adjusted ? ', after the next opening' : ''}.`,
    );
  });
}
