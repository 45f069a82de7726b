import type { FastifyInstance } from 'fastify';
import type { HostedMessage } from '@stream/contracts/envelopes';
import {
  CreateOrderData,
  createOrder,
  getHostedOrder,
  listHostedOrders,
} from '@stream/contracts/apis/hr-orders/index';
import { authOf } from '../../auth/bearer.ts';
import { ApiError } from '../../http/errors.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore, storeDate } from '../access.ts';
import { hostedAnswer, plural, sendOnce } from '../answer.ts';
import { ignoredFields } from '../ignored-fields.ts';
import { orderFields, placeOrder, pricingRequestOf } from './place.ts';
import { findStoreOrder, listStoreOrders, orderToWire, ordersToWire } from './records.ts';

const DAY_MS = 86_400_000;
/** The orders query covers at most 3 business dates (restaurant-apis.md section 9). */
const MAX_DAYS = 3;
/** The most orders one list answers (the newest); more are said in a WARNING. */
export const MAX_LISTED = 1000;
const ORDER_FIELDS = orderFields(CreateOrderData);

/** GET, POST /Orders; GET /Orders/{id} */
export function registerHostedOrdersRoute(app: FastifyInstance): void {
  const { db } = app.ctx;
  mount(app, listHostedOrders, async (req) => {
    const auth = authOf(req);
    const store = await findGrantedStore(db, auth, req.headers['x-store']);
    const today = storeDate(store, new Date());
    const from = req.query.businessDateFrom ?? req.query.businessDateTo ?? today;
    const to = req.query.businessDateTo ?? (req.query.businessDateFrom ? from : today);
    const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
    if (days < 1 || days > MAX_DAYS) {
      // Both bounds were sent (one alone is one day): the end is what to move, as other errors name a field.
      const latest = new Date(Date.parse(from) + (MAX_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
      const why =
        days < 1
          ? `businessDateTo ${to} is before businessDateFrom ${from}`
          : `businessDateTo ${to} is ${days} days from businessDateFrom ${from}, both included; at most ${MAX_DAYS}: ${latest} at the latest`;
      throw new ApiError(
        'date_range_too_long',
        `businessDateFrom ${from} to businessDateTo ${to} is ${days < 1 ? 'reversed' : `${days} days`}; ask for 1 to ${MAX_DAYS} days.`,
        [{ path: 'querystring.businessDateTo', message: `${why}.` }],
      );
    }
    // One more than answered, to know whether there are more.
    const found = await listStoreOrders(
      db,
      { storeId: store.id, partnerId: auth.partnerId },
      { ...req.query, from, to },
      MAX_LISTED + 1,
    );
    const rows = found.slice(0, MAX_LISTED);
    const more: HostedMessage[] =
      found.length > MAX_LISTED
        ? [
            {
              id: 'orders_truncated',
              message: `More than ${MAX_LISTED} orders match; these are the newest ${MAX_LISTED}. Ask for fewer days or filter (sourceReferenceId, customerId, phoneNumber, serviceType) to see the others.`,
              messageType: 'WARNING',
            },
          ]
        : [];
    return hostedAnswer(
      await ordersToWire(db, rows, req.query.includeStageTimes),
      `${plural(rows.length, 'order')}${more.length ? ' (the newest; more match)' : ''}.`,
      more,
    );
  });

  mount(app, createOrder, async (req, reply) => {
    const r = pricingRequestOf(req);
    const request = { store: r.storeId, serviceType: r.serviceType, body: req.body };
    return sendOnce(app.ctx, req, reply, request, async (tx) => {
      const placed = await placeOrder(tx, r);
      const messages = [...ignoredFields(req, 'an order', ORDER_FIELDS), ...placed.messages];
      const order = await orderToWire(tx, placed.row);
      if (!placed.rejection) {
        const message = `Order ${order.id} accepted; ready at ${order.estimatedTime}.`;
        return { status: 201, body: hostedAnswer(order, message, messages) };
      }
      const message = `Order ${order.id} rejected: ${placed.rejection.message}`;
      const rejected = { id: 'order_rejected', message, messageType: 'ERROR' } as const;
      return { status: 422, body: hostedAnswer(order, message, [rejected, ...messages]) };
    });
  });

  mount(app, getHostedOrder, async (req) => {
    const auth = authOf(req);
    const store = await findGrantedStore(db, auth, req.headers['x-store']);
    const order = await orderToWire(
      db,
      await findStoreOrder(db, { storeId: store.id, partnerId: auth.partnerId }, req.params.id),
    );
    return hostedAnswer(order, `Order ${order.id}.`);
  });
}
