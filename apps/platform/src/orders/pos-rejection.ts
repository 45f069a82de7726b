import { PosValidationError } from '@stream/contracts/apis/become-a-pos/index';
import type { OrderFailureDetails, OrderFailureReason } from '@stream/contracts';

/**
 * What a POS's refusal of a new order (400 with a `posValidation` body) means for the DSP, as one
 * pure function. When the POS gives several reasons, the one the DSP can act on best wins: stock
 * (which items to mark unavailable), then a closed or offline store, then totals and cart errors.
 */

export interface OrderFailure {
  reason: OrderFailureReason;
  details: OrderFailureDetails;
}

const quote = (body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return (text ?? '').slice(0, 300);
};

export function failureFromPosRejection(body: unknown, toDspId: (posId: string) => string): OrderFailure {
  const parsed = PosValidationError.safeParse(body);
  if (!parsed.success) {
    return {
      reason: 'unknown',
      details: {
        invalid_item_ids: [],
        error_message: `The POS refused the order: ${quote(body) || 'no reason given'}`,
      },
    };
  }
  const v = parsed.data.posValidation;
  const stock = v.stockValidation ?? [];
  if (stock.length > 0) {
    const ids = [...new Set(stock.map((s) => toDspId(s.provider_id)))];
    return {
      reason: 'items_unavailable',
      details: { invalid_item_ids: ids, error_message: `Out of stock at the restaurant: ${ids.join(', ')}.` },
    };
  }
  const errors = v.orderValidation ?? [];
  const withReason = (e: { order_error: string; order_error_reason?: string | undefined }) =>
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
  const totals = v.orderTotalsValidation ?? [];
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
        : `The POS refused the order: ${quote(v.unknownValidation ?? body)}`,
    },
  };
}
