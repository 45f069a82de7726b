import { and, eq, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type {
  CancelOrderWebhook,
  DeliveryStatusUpdateWebhook,
  DspWebhook,
  DspWebhookAnswer,
  NewOrderWebhook,
  StoreStatusUpdateWebhook,
} from '@stream/contracts/apis/become-a-dsp/index';
import {
  DEFAULT_PREP_TIME_MINUTES,
  ORDER_SOURCES,
  type OrderFailureDetails,
  type OrderFailureReason,
} from '@stream/contracts';
import type { OrderStatus } from '@stream/contracts/states';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { prepared } from '../db/prepared.ts';
import { integrations, locationBindings, orders, orgLocations, partners } from '../db/schema/index.ts';
import type { Integration } from '../connectors/merchant.ts';
import { ApiError } from '../http/errors.ts';
import { atOnce, enqueue, transaction } from '../jobs/outbox.ts';
import { LIVE_BINDING_STATES, type Binding, type OrgLocation } from '../onboarding/bindings.ts';
import type { Partner } from '../partners/service.ts';
import { refusalReason } from './availability.ts';
import { dspIntegrations, dspPartners, locationProviders, posKey, withPosGrant } from './calls.ts';
import { failOrder } from './outcome.ts';
import {
  addTimeline,
  byDspOrder,
  insertOrder,
  lockOrder,
  recordWebhook,
  type NewOrder,
  type Order,
  type TimelineInput,
} from './records.ts';
import { applyDspEvent, applyQueuedEvent, settle, type Settled } from './relay.ts';
import { recordStoreStatus } from './store-status.ts';
import { idsOf, menuIdsOf, unavailableOf } from '../menus/order-ids.ts';
import { toPosOrder } from './translate.ts';
import { problemsMessage, validateDspOrder } from './validate.ts';

/**
 * `POST /order/{partner_id}`: what the platform does with each DSP webhook. Everything a webhook
 * causes is written in one transaction with the webhook itself, committed before the answer.
 */

export interface WebhookOutcome {
  status: 200 | 202;
  answer: DspWebhookAnswer;
}

export async function receiveDspWebhook(
  ctx: AppContext,
  partner: Partner,
  body: DspWebhook,
): Promise<WebhookOutcome> {
  switch (body.type) {
    case 'new_order':
      return receiveNewOrder(ctx, partner, body);
    case 'cancel_order':
    case 'delivery_status_update':
      return receiveOrderEvent(ctx, partner, body);
    case 'store_status_update':
      return receiveStoreStatus(ctx, partner, body);
  }
}

/** The DSP's marketplace: its `settings.source`, its slug when that is a source, else `example-dsp`. */
export function sourceOf(partner: Pick<Partner, 'slug' | 'settings'>): string {
  const configured = partner.settings?.source;
  if (typeof configured === 'string') return configured;
  return (ORDER_SOURCES as readonly string[]).includes(partner.slug) ? partner.slug : 'example-dsp';
}

interface Route {
  binding: Binding;
  location: OrgLocation;
  /** Whether a menu was published for the location: then its ids map DSP ids to the POS's. */
  hasMenu: boolean;
  /** The location's POS grant and event providers, and the binding's DSP grant: handed to the order's POS call (`withPosGrant`). */
  row: Integration | null;
  partner: Partner | null;
  providers: string[];
  dspRow: Integration | null;
  dspPartner: Partner | null;
}

// Every new order looks its store up, with what its POS call needs: prepared once per database.
const liveRoute = prepared('orders_route', (db, name) =>
  db
    .select({
      binding: locationBindings,
      location: orgLocations,
      hasMenu: sql<boolean>`exists (select 1 from menu_items m where m.location_id = ${orgLocations.id})`,
      row: integrations,
      partner: partners,
      providers: locationProviders(sql`now()`),
      dspRow: dspIntegrations,
      dspPartner: dspPartners,
    })
    .from(locationBindings)
    .innerJoin(orgLocations, eq(orgLocations.id, locationBindings.locationId))
    .leftJoin(integrations, eq(integrations.id, orgLocations.integrationId))
    .leftJoin(partners, eq(partners.id, integrations.sourcePartnerId))
    .leftJoin(dspIntegrations, eq(dspIntegrations.id, locationBindings.dspIntegrationId))
    .leftJoin(dspPartners, eq(dspPartners.id, dspIntegrations.sourcePartnerId))
    .where(
      and(
        eq(locationBindings.dspPartnerId, sql.placeholder('dspPartnerId')),
        eq(locationBindings.dspProviderId, sql.placeholder('storeId')),
        inArray(locationBindings.status, LIVE_BINDING_STATES),
      ),
    )
    .prepare(name),
);

/** The location a DSP store is bound to (a live binding), if any. */
async function routeOf(db: DbOrTx, dspPartnerId: string, storeId: string): Promise<Route | undefined> {
  const [row] = await liveRoute(db).execute({ dspPartnerId, storeId });
  return row;
}

interface Failure {
  reason: OrderFailureReason;
  details: OrderFailureDetails;
  cause: string;
}
const failure = (
  reason: OrderFailureReason,
  cause: string,
  error_message: string,
  ids: string[] = [],
): Failure => ({
  reason,
  cause,
  details: { invalid_item_ids: ids, error_message },
});

const answerOf = (eventId: string, order: Order): DspWebhookAnswer => ({
  event_id: eventId,
  order_id: order.id,
  status: order.status,
  ...(order.failureReason ? { failure_reason: order.failureReason } : {}),
  ...(order.failureDetails ? { failure_details: order.failureDetails } : {}),
});

async function receiveNewOrder(
  ctx: AppContext,
  partner: Partner,
  body: z.output<typeof NewOrderWebhook>,
): Promise<WebhookOutcome> {
  const receivedAt = Date.now();
  const route = await routeOf(ctx.db, partner.id, body.location_id);
  const eventId = newId('evt');
  const orderId = newId('ord');
  const validation = validateDspOrder(body.order, {
    receivedAtMs: receivedAt,
    defaultSource: sourceOf(partner),
  });
  const valid = validation.ok ? validation.order : undefined;
  let posOrder: Record<string, unknown> | null = null;
  let failed: Failure | undefined;
  if (!route) {
    failed = failure(
      'location_not_found',
      'unknown store',
      `Store ${body.location_id} is not connected to a restaurant location on the platform; the merchant must bind it first.`,
    );
  } else if (!valid) {
    failed = failure(
      'order_validation_error',
      'order breaks the contract',
      problemsMessage(validation.ok ? [] : validation.problems),
    );
  } else {
    // Through the published menu's ids; with none published they pass through.
    const menu = route.hasMenu ? await menuIdsOf(ctx.db, route.location.id, idsOf(valid.items)) : undefined;
    const translated = toPosOrder(valid, {
      orderId,
      posLocationId: route.location.providerId,
      placedAtMs: receivedAt,
      itemIds: menu?.ids,
    });
    if (translated.ok && menu?.inactive.length) {
      const unavailable = unavailableOf(valid.items, menu.inactive);
      failed = failure(
        'items_unavailable',
        'items turned off at the POS',
        `These items are not available at the restaurant now: ${unavailable.join(', ')}.`,
        unavailable,
      );
    } else if (!translated.ok) {
      failed = failure(
        'pos_missing_items',
        'items unknown to the POS',
        `The POS does not know these items: ${translated.missingItemIds.join(', ')}. Republish the menu.`,
        translated.missingItemIds,
      );
    } else posOrder = translated.order;
    // A future order is checked again at its release; the location may reopen by then.
    const refusing = valid.is_future_order
      ? undefined
      : refusalReason(route.location, route.binding, receivedAt);
    if (!failed && refusing)
      failed = failure('restaurant_not_accepting_orders', 'location not taking orders', refusing);
  }
  const prepMs = (route?.location.prepTimeMinutes ?? DEFAULT_PREP_TIME_MINUTES) * 60_000;
  const requestedFor = valid ? new Date(valid.estimated_ready_at_ms) : null;
  const status = !failed && valid?.is_future_order === true ? 'scheduled' : 'received';
  // The answer is known now unless the order fails below (then it is rewritten).
  const answer: DspWebhookAnswer = { event_id: eventId, order_id: orderId, status };
  const row: NewOrder & { id: string; status: OrderStatus } = {
    id: orderId,
    dspPartnerId: partner.id,
    dspOrderId: body.order.id,
    dspLocationId: body.location_id,
    bindingId: route?.binding.id ?? null,
    locationId: route?.location.id ?? null,
    orgId: route?.location.orgId ?? null,
    posPartnerId: route?.location.sourcePartnerId ?? null,
    posLocationId: route?.location.providerId ?? null,
    status,
    fulfillmentType: body.order.fulfillment_type,
    isFutureOrder: valid?.is_future_order ?? false,
    requestedFor,
    releaseAt: status === 'scheduled' && requestedFor ? new Date(requestedFor.getTime() - prepMs) : null,
    estimatedReadyAt: requestedFor,
    dspOrder: body.order as Record<string, unknown>,
    posOrder,
    answer,
  };
  const webhook = {
    id: eventId,
    partnerId: partner.id,
    type: body.type,
    body,
    orderId,
    locationId: route?.location.id,
  };
  const entries: TimelineInput[] = [
    { kind: 'received', type: body.type, partnerId: partner.id, eventId },
    { kind: 'status', type: status, to: status, detail: 'new order' },
  ];
  if (!failed) {
    // The common case is one statement: the order, its webhook, its timeline and its first call.
    // The POS call starts with the grants read with the route (no read of its own).
    const grant = route?.row &&
      route.partner && {
        row: route.row,
        partner: route.partner,
        providers: route.providers,
        binding: route.binding,
        dspRow: route.dspRow,
        dspPartner: route.dspPartner,
      };
    const inserted = await atOnce(ctx, (db) =>
      insertOrder(db, row, webhook, entries, true, grant ? withPosGrant(grant) : undefined),
    );
    if (inserted) return { status: 202, answer };
    // The same order was posted before (or concurrently, and committed first): answer as then.
    return transaction(ctx, (tx) => repeatedPost(tx, partner, body));
  }
  const why = failed;
  return transaction(ctx, async (tx) => {
    const inserted = await insertOrder(tx, row, webhook, entries, false);
    if (!inserted) return repeatedPost(tx, partner, body);
    const failedAnswer = answerOf(eventId, {
      ...inserted,
      status: 'failed',
      failureReason: why.reason,
      failureDetails: why.details,
    });
    await failOrder(tx, inserted, why.reason, why.details, why.cause, { answer: failedAnswer });
    return { status: 202, answer: failedAnswer };
  });
}

/** A new order posted again: recorded on its timeline, answered as the first post was. */
async function repeatedPost(
  tx: DbOrTx,
  partner: Partner,
  body: z.output<typeof NewOrderWebhook>,
): Promise<WebhookOutcome> {
  const [first] = await tx
    .select({ id: orders.id, answer: orders.answer, locationId: orders.locationId })
    .from(orders)
    .where(byDspOrder(partner.id, body.order.id));
  if (!first) throw new Error(`order ${body.order.id} conflicted on insert but cannot be read`);
  const eventId = await recordWebhook(tx, {
    partnerId: partner.id,
    type: body.type,
    body,
    orderId: first.id,
    locationId: first.locationId,
  });
  await addTimeline(tx, first.id, {
    kind: 'received',
    type: body.type,
    partnerId: partner.id,
    eventId,
    detail: 'posted again: answered as the first post',
  });
  return { status: 202, answer: first.answer as DspWebhookAnswer };
}

type OrderEventBody = z.output<typeof CancelOrderWebhook> | z.output<typeof DeliveryStatusUpdateWebhook>;

async function receiveOrderEvent(
  ctx: AppContext,
  partner: Partner,
  body: OrderEventBody,
): Promise<WebhookOutcome> {
  const settled: Settled<WebhookOutcome> = await ctx.db.transaction(async (tx) => {
    const order = await lockOrder(tx, byDspOrder(partner.id, body.order_id));
    if (!order || order.dspLocationId !== body.location_id) {
      throw new ApiError(
        'order_not_found',
        `No order ${body.order_id} of store ${body.location_id} came from you; post its new_order first.`,
      );
    }
    const eventId = await recordWebhook(tx, {
      partnerId: partner.id,
      type: body.type,
      body,
      orderId: order.id,
      locationId: order.locationId,
    });
    await addTimeline(tx, order.id, { kind: 'received', type: body.type, partnerId: partner.id, eventId });
    // Still on its way to the POS: applied after that delivery settles, in order, never lost.
    if (order.status === 'received') {
      await enqueue(tx, {
        kind: applyQueuedEvent,
        payload: { order_id: order.id, event_id: eventId },
        orderingKey: posKey(order.id),
      });
      return {
        value: {
          status: 202,
          answer: { event_id: eventId, order_id: order.id, status: order.status, queued: true },
        },
      };
    }
    const applied = await applyDspEvent(tx, order, body, eventId);
    return settle(applied, (o) => ({
      status: 200,
      answer: { event_id: eventId, order_id: o.id, status: o.status },
    }));
  });
  if ('refused' in settled) throw settled.refused;
  return settled.value;
}

async function receiveStoreStatus(
  ctx: AppContext,
  partner: Partner,
  body: z.output<typeof StoreStatusUpdateWebhook>,
): Promise<WebhookOutcome> {
  return ctx.db.transaction(async (tx) => {
    const route = await routeOf(tx, partner.id, body.location_id);
    if (!route) {
      throw new ApiError(
        'location_not_found',
        `Store ${body.location_id} is not connected to a location on the platform.`,
      );
    }
    const eventId = await recordWebhook(tx, {
      partnerId: partner.id,
      type: body.type,
      body,
      locationId: route.location.id,
    });
    await recordStoreStatus(tx, route.binding, body.status_update);
    return { status: 200, answer: { event_id: eventId } };
  });
}
