import {
  PosOrderRefusal,
  PosStockRefusal,
  PosTotalsRefusal,
} from '@stream/contracts/apis/become-a-pos/index';
import type { OrderFailureDetails, OrderFailureReason } from '@stream/contracts';
import type { z } from 'zod';
import { withoutNulls } from '../shared/without-nulls.ts';

/**
 * What a POS's refusal of a new order (400 with a `posValidation` body) means for the DSP, as one
 * pure function. When the POS gives several reasons, the one the DSP can act on best wins: stock
 * (which items to mark unavailable), then a closed or offline store, then totals and cart errors.
 *
 * The refusal is read leniently, list by list and entry by entry (the `PosValidationError` contract):
 * null is absent, a numbered `provider_id` is its decimal string, a stock entry needs only its
 * `provider_id` (its `type` and `quantity` change nothing here), and an entry that cannot be read is
 * skipped, so one odd entry does not make the whole refusal `unknown` for the DSP.
 */

export interface OrderFailure {
  reason: OrderFailureReason;
  details: OrderFailureDetails;
}

const quote = (body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return (text ?? '').slice(0, 300);
};

/** The entries of `list` that `entry` reads; none when it is not a list. */
function readable<S extends z.ZodType>(list: unknown, entry: S): z.output<S>[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((e: unknown) => {
    const parsed = entry.safeParse(e);
    return parsed.success ? [parsed.data] : [];
  });
}

const StockEntry = PosStockRefusal.pick({ provider_id: true });

export function failureFromPosRejection(body: unknown, toDspId: (posId: string) => string): OrderFailure {
  const root = withoutNulls(body);
  const v =
    typeof root === 'object' && root !== null && !Array.isArray(root)
      ? (root as { posValidation?: unknown }).posValidation
      : undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return {
      reason: 'unknown',
      details: {
        invalid_item_ids: [],
        error_message: `The POS refused the order: ${quote(body) || 'no reason given'}`,
      },
    };
  }
  const lists = v as Record<string, unknown>;
  const stock = readable(lists.stockValidation, StockEntry);
  if (stock.length > 0) {
    const ids = [...new Set(stock.map((s) => toDspId(s.provider_id)))];
    return {
      reason: 'items_unavailable',
      details: { invalid_item_ids: ids, error_message: `Out of stock at the restaurant: ${ids.join(', ')}.` },
    };
  }
  const errors = readable(lists.orderValidation, PosOrderRefusal);
  const withReason = (e: { order_error: string; order_error_reason?: string | null | undefined }) =>
    e.order_error_reason ? `${e.order_error}: ${e.order_error_reason}` : e.order_error;
  const closed = errors.find((e) => e.order_error === 'store_unavailable' || e.order_error === 'pos_offline');
  if (closed) {
    return {
      reason: 'restaurant_not_accepting_orders',
      details: {
        invalid_item_ids: [],
        error_message: `The restaurant is not taking orders (${withReason(closed)}).`,
      },
    };
  }
  const totals = readable(lists.orderTotalsValidation, PosTotalsRefusal);
  const cart = errors.find((e) => e.order_error === 'invalid_cart');
  if (totals.length > 0 || cart) {
    const t = totals[0];
    return {
      reason: 'order_validation_error',
      details: {
        invalid_item_ids: [],
        error_message: t
          ? `The POS computes a total of ${t.posTotal}, the order says ${t.streamTotal}; check prices and taxes.`
          : `The POS refused the cart (${withReason(cart!)}).`,
      },
    };
  }
  const other = errors[0];
  return {
    reason: 'unknown',
    details: {
      invalid_item_ids: [],
      error_message: other
        ? `The POS refused the order (${withReason(other)}).`
        : `The POS refused the order: ${quote(lists.unknownValidation ?? body)}`,
    },
  };
}
