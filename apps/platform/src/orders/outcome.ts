import type { z } from 'zod';
import type { PosOrderAnswer } from '@stream/contracts/apis/become-a-pos/index';
import {
  DEFAULT_PREP_TIME_MINUTES,
  type OrderFailureDetails,
  type OrderFailureReason,
} from '@stream/contracts';
import type { DbOrTx, Tx } from '../db/client.ts';
import type { CarriedFinish } from '../jobs/kinds.ts';
import { orgLocations, orders } from '../db/schema/index.ts';
import { parseJson } from '../connectors/index.ts';
import { rowsOf } from '../db/sql.ts';
import { failureFromPosRejection } from './pos-rejection.ts';
import { findOrder, moveOrder, type MoveOptions, type Order, type OrderPatch } from './records.ts';
import { eq, sql } from 'drizzle-orm';

/**
 * What the POS's answer to a new order means for the order: accepted, accepted later (async),
 * or failed with a reason the DSP can act on. Runs in the transaction that finishes the delivery job.
 */

/**
 * What the POS delivery job found: the order as it read it, its location's event providers, what
 * it hands the calls of the outcome (`MoveOptions.prepare`), and the POS's answer.
 */
export type DeliveryResult = Pick<MoveOptions, 'prepare'> & { order: Order; providers: readonly string[] } & (
    | { answer: z.output<typeof PosOrderAnswer>['order'] | null }
    | { rejected: string }
    | { skipped: string }
    /** Answered 2xx, but not as the contract says (the reason). */
    | { unusable: string }
  );

/** Fails an order (if it may still fail) and tells the DSP why. */
export function failOrder(
  tx: DbOrTx,
  order: Order,
  reason: OrderFailureReason,
  details: OrderFailureDetails,
  cause: string,
  patch: OrderPatch = {},
  opts: MoveOptions = {},
): Promise<Order | undefined> {
  return moveOrder(
    tx,
    order,
    'failed',
    cause,
    { ...patch, failureReason: reason, failureDetails: details },
    opts,
  );
}

/**
 * The delivery job's outcome. Only a `received` order is settled here; every move is guarded on
 * that status, so an order settled meanwhile (by a racing event) is left as it is.
 */
export async function settleDelivery(
  tx: DbOrTx,
  result: DeliveryResult,
  /** The delivery job's success, written with the move when there is one. */
  finish?: CarriedFinish,
): Promise<void> {
  if ('skipped' in result) return;
  const order = result.order;
  if (order.status !== 'received') return;
  const opts: MoveOptions = { providers: result.providers, prepare: result.prepare, finish };
  if ('rejected' in result) {
    const failure = failureFromPosRejection(parseJson(result.rejected) ?? result.rejected, dspIdOf(order));
    await failOrder(tx, order, failure.reason, failure.details, 'POS refused the order', {}, opts);
    return;
  }
  const answer = 'answer' in result ? result.answer : null;
  if (!answer?.provider_id) {
    // The POS was reached and may have made the order: it is told to cancel it, and the DSP why.
    const why = 'unusable' in result ? result.unusable : 'no order.provider_id';
    await failOrder(
      tx,
      order,
      'unknown',
      {
        invalid_item_ids: [],
        error_message:
          `The POS answered the order, but not as its contract says (${why}); it was asked to cancel it.`.slice(
            0,
            1000,
          ),
      },
      'POS answer unusable',
      {},
      { ...opts, why: { posMayHoldIt: true } },
    );
    return;
  }
  if (answer.async_acceptance) {
    await moveOrder(
      tx,
      order,
      'awaiting_confirmation',
      'POS answers async_acceptance',
      { posOrderId: answer.provider_id, posPrepMinutes: answer.prep_time_minutes ?? null },
      opts,
    );
    return;
  }
  await acceptOrder(
    tx,
    order,
    answer.provider_id,
    answer.prep_time_minutes ?? undefined,
    'POS accepts',
    opts,
  );
}

/** Accepts the order: the food is ready after the POS's prep time (its answer's, else the location's, else 30 min). */
export async function acceptOrder(
  tx: DbOrTx,
  order: Order,
  posOrderId: string | null,
  prepTimeMinutes: number | undefined,
  cause: string,
  opts: MoveOptions = {},
): Promise<Order | undefined> {
  const prep = prepTimeMinutes ?? (await locationPrepTime(tx, order.id)) ?? DEFAULT_PREP_TIME_MINUTES;
  return moveOrder(
    tx,
    order,
    'accepted',
    cause,
    {
      ...(posOrderId ? { posOrderId } : {}),
      estimatedReadyAt: new Date(Date.now() + Math.round(prep * 60_000)),
    },
    opts,
  );
}

/**
 * The order's delivery ran past its deadline. Failed `unknown` for the DSP; when an attempt may have
 * reached the POS (no answer came, and not because it could not connect: a timeout, a dropped
 * connection, a crash mid-call), the POS is told to cancel it too, as a kitchen may be cooking it.
 */
export async function deliveryGaveUp(
  tx: Tx,
  job: { id: string; error: string; payload: { order_id: string } },
): Promise<void> {
  const order = await findOrder(tx, job.payload.order_id);
  if (order?.status !== 'received') return;
  const [reached] = rowsOf<{ yes: boolean }>(
    await tx.execute(sql`
    select exists (
      select 1 from delivery_attempts
      where job_id = ${job.id} and response_status is null and coalesce(error, '') !~ ${UNREACHED}
    ) as yes`),
  );
  const mayHoldIt = reached?.yes === true;
  await failOrder(
    tx,
    order,
    'unknown',
    {
      invalid_item_ids: [],
      error_message: (mayHoldIt
        ? `The POS did not answer in time; it may have received the order and was asked to cancel it (${job.error})`
        : `The POS could not be reached in time; the order was not placed (${job.error})`
      ).slice(0, 1000),
    },
    'POS unreachable until the delivery deadline',
    {},
    { why: { posMayHoldIt: mayHoldIt } },
  );
}

/** A failed attempt's error when the request never reached the POS (`connectors/http.ts` writes them). */
const UNREACHED = '^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|timeout: could not connect)';

async function locationPrepTime(db: DbOrTx, orderId: string): Promise<number | undefined> {
  const [row] = await db
    .select({ prep: orgLocations.prepTimeMinutes })
    .from(orders)
    .innerJoin(orgLocations, eq(orgLocations.id, orders.locationId))
    .where(eq(orders.id, orderId));
  return row?.prep ?? undefined;
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
