import type { z } from 'zod';
import type { PosOrderAnswer } from '@stream/contracts/apis/become-a-pos/index';
import type { OrderFailureDetails, OrderFailureReason } from '@stream/contracts';
import type { DbOrTx, Tx } from '../db/client.ts';
import { orgLocations, orders } from '../db/schema/index.ts';
import { orderChanged } from './effects.ts';
import { failureFromPosRejection } from './pos-rejection.ts';
import { lockOrder, moveOrder, type Order } from './records.ts';
import { eq } from 'drizzle-orm';

/**
 * What the POS's answer to a new order means for the order: accepted, accepted later (async),
 * or failed with a reason the DSP can act on. Runs in the transaction that finishes the delivery job.
 */

export type DeliveryResult =
  | { answer: z.output<typeof PosOrderAnswer>['order'] | null }
  | { rejected: string }
  | { skipped: string };

/** Fails an order (if it may still fail) and tells the DSP why. */
export async function failOrder(
  tx: DbOrTx,
  order: Order,
  reason: OrderFailureReason,
  details: OrderFailureDetails,
  cause: string,
): Promise<Order | undefined> {
  const moved = await moveOrder(tx, order, 'failed', cause, {
    failureReason: reason,
    failureDetails: details,
  });
  if (moved) await orderChanged(tx, moved, order.status);
  return moved;
}

export async function settleDelivery(tx: Tx, orderId: string, result: DeliveryResult): Promise<void> {
  if ('skipped' in result) return;
  const order = await lockOrder(tx, eq(orders.id, orderId));
  if (!order || order.status !== 'received') return;
  if ('rejected' in result) {
    const failure = failureFromPosRejection(parseJson(result.rejected), dspIdOf(order));
    await failOrder(tx, order, failure.reason, failure.details, 'POS refused the order');
    return;
  }
  const answer = result.answer;
  if (!answer?.provider_id) {
    await failOrder(
      tx,
      order,
      'unknown',
      {
        invalid_item_ids: [],
        error_message: 'The POS accepted the order without saying its id (order.provider_id).',
      },
      'POS answer unusable',
    );
    return;
  }
  if (answer.async_acceptance) {
    const moved = await moveOrder(tx, order, 'awaiting_confirmation', 'POS answers async_acceptance', {
      posOrderId: answer.provider_id,
    });
    if (moved) await orderChanged(tx, moved, order.status);
    return;
  }
  await acceptOrder(tx, order, answer.provider_id, answer.prep_time_minutes, 'POS accepts');
}

/** Accepts the order: the food is ready after the POS's prep time (its answer's, else the location's). */
export async function acceptOrder(
  tx: DbOrTx,
  order: Order,
  posOrderId: string | null,
  prepTimeMinutes: number | undefined,
  cause: string,
): Promise<void> {
  const prep = prepTimeMinutes ?? (await locationPrepTime(tx, order)) ?? 30;
  const moved = await moveOrder(tx, order, 'accepted', cause, {
    ...(posOrderId ? { posOrderId } : {}),
    estimatedReadyAt: new Date(Date.now() + Math.round(prep * 60_000)),
  });
  if (moved) await orderChanged(tx, moved, order.status);
}

export async function deliveryGaveUp(tx: Tx, orderId: string, error: string): Promise<void> {
  const order = await lockOrder(tx, eq(orders.id, orderId));
  if (!order || order.status !== 'received') return;
  await failOrder(
    tx,
    order,
    'unknown',
    {
      invalid_item_ids: [],
      error_message: `The POS could not be reached in time; the order was not placed (${error})`.slice(
        0,
        1000,
      ),
    },
    'POS unreachable until the delivery deadline',
  );
}

async function locationPrepTime(db: DbOrTx, order: Order): Promise<number | undefined> {
  if (!order.locationId) return undefined;
  const [row] = await db
    .select({ prep: orgLocations.prepTimeMinutes })
    .from(orgLocations)
    .where(eq(orgLocations.id, order.locationId));
  return row?.prep ?? undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface Line {
  id?: string;
  provider_id?: string;
  modifiers?: Line[];
}

/** The DSP's id of a POS item or modifier id, read off the order as translated (line by line). */
export function dspIdOf(order: Pick<Order, 'dspOrder' | 'posOrder'>): (posId: string) => string {
  const map = new Map<string, string>();
  const walk = (dsp: Line[] = [], pos: Line[] = []) =>
    pos.forEach((p, i) => {
      const d = dsp[i];
      if (p.provider_id && d?.id) map.set(p.provider_id, d.id);
      walk(d?.modifiers, p.modifiers);
    });
  walk(
    (order.dspOrder as { items?: Line[] }).items,
    (order.posOrder as { line_items?: Line[] } | null)?.line_items,
  );
  return (posId) => map.get(posId) ?? posId;
}
