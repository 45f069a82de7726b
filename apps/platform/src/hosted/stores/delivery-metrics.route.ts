import type { FastifyInstance } from 'fastify';
import { getDeliveryMetrics } from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer } from '../answer.ts';
import { deliveryMetrics } from './delivery-metrics.ts';

/** GET /Stores/{id}/DeliveryMetrics */
export function registerDeliveryMetricsRoute(app: FastifyInstance): void {
  mount(app, getDeliveryMetrics, async (req) => {
    const store = await findGrantedStore(app.ctx.db, authOf(req), req.params.id);
    const { metric, messages } = await deliveryMetrics(store, req.query, app.ctx.config.geo);
    const where = !metric.zoneName
      ? 'outside every zone'
      : metric.deliverable
        ? `zone ${metric.zoneName}`
        : `zone ${metric.zoneName}, where the store does not deliver`;
    return hostedAnswer(
      metric,
      `${metric.deliverable ? 'Deliverable' : 'Not deliverable'}: ${where}, ${metric.distance} ${metric.distanceUOM}.`,
      messages,
    );
  });
}
