import type { FastifyInstance } from 'fastify';
import { priceOrder } from '@stream/contracts/apis/hr-orders/index';
import { OrderInput } from '@stream/contracts/apis/hr-orders/order';
import { mount } from '../../http/route.ts';
import { hostedAnswer } from '../answer.ts';
import { ignoredFields } from '../ignored-fields.ts';
import { orderFields, priceForStore, pricingRequestOf } from '../orders/place.ts';

const ORDER_FIELDS = orderFields(OrderInput);

const dollars = (cents: number) => (cents / 100).toFixed(2);

/** POST /PriceOrder */
export function registerPriceOrderRoute(app: FastifyInstance): void {
  mount(app, priceOrder, async (req) => {
    const priced = await priceForStore(app.ctx.db, pricingRequestOf(req));
    const messages = [...ignoredFields(req, 'an order', ORDER_FIELDS), ...priced.messages];
    if (priced.rejection) {
      messages.push({
        id: priced.rejection.reason,
        message: priced.rejection.message,
        messageType: 'WARNING',
      });
    }
    return hostedAnswer(
      { ...priced.order, cartStatus: priced.cartStatus },
      `Priced: ${dollars(priced.order.total)} to pay.`,
      messages,
    );
  });
}
