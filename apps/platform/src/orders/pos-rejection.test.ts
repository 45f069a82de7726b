import { describe, expect, it } from 'vitest';
import { failureFromPosRejection } from './pos-rejection.ts';

const toDsp = (id: string) => `dsp-${id}`;

describe('failureFromPosRejection', () => {
  it.each([
    [
      'out of stock: the DSP ids, once each',
      {
        stockValidation: [
          { type: 'item', provider_id: 'a' },
          { type: 'modifier', provider_id: 'b', quantity: 0 },
          { type: 'item', provider_id: 'a' },
        ],
      },
      'items_unavailable',
      ['dsp-a', 'dsp-b'],
      'dsp-a, dsp-b',
    ],
    [
      'totals',
      { orderTotalsValidation: [{ posTotal: 1000, streamTotal: 1035 }] },
      'order_validation_error',
      [],
      '1000',
    ],
    [
      'invalid cart',
      { orderValidation: [{ order_error: 'invalid_cart', order_error_reason: 'bad combo' }] },
      'order_validation_error',
      [],
      'bad combo',
    ],
    [
      'store unavailable',
      { orderValidation: [{ order_error: 'store_unavailable' }] },
      'restaurant_not_accepting_orders',
      [],
      'store_unavailable',
    ],
    [
      'POS offline',
      { orderValidation: [{ order_error: 'pos_offline' }] },
      'restaurant_not_accepting_orders',
      [],
      'pos_offline',
    ],
    [
      'other, with the POS reason',
      { orderValidation: [{ order_error: 'other', order_error_reason: 'Printer jam' }] },
      'unknown',
      [],
      'Printer jam',
    ],
    ['the deprecated unknownValidation', { unknownValidation: { why: 'legacy' } }, 'unknown', [], 'legacy'],
    [
      'several: stock wins',
      {
        orderValidation: [{ order_error: 'pos_offline' }],
        stockValidation: [{ type: 'item', provider_id: 'x' }],
        orderTotalsValidation: [{ posTotal: 1, streamTotal: 2 }],
      },
      'items_unavailable',
      ['dsp-x'],
      'dsp-x',
    ],
    [
      'closed before totals',
      {
        orderValidation: [{ order_error: 'store_unavailable' }],
        orderTotalsValidation: [{ posTotal: 1, streamTotal: 2 }],
      },
      'restaurant_not_accepting_orders',
      [],
      'not taking orders',
    ],
  ])('%s', (_, posValidation, reason, ids, text) => {
    const failure = failureFromPosRejection({ posValidation }, toDsp);
    expect(failure.reason).toBe(reason);
    expect(failure.details.invalid_item_ids).toEqual(ids);
    expect(failure.details.error_message).toContain(text);
  });

  it.each([
    ['a body that is not posValidation', { error: 'nope' }, '{"error":"nope"}'],
    ['text', 'Bad Request', 'Bad Request'],
    ['nothing', '', 'no reason given'],
  ])('%s is unknown, quoting the POS', (_, body, text) => {
    const failure = failureFromPosRejection(body, toDsp);
    expect(failure).toEqual({
      reason: 'unknown',
      details: { invalid_item_ids: [], error_message: expect.stringContaining(text) },
    });
  });

  it('quotes at most 300 characters of an unexpected body', () => {
    const failure = failureFromPosRejection('x'.repeat(5000), toDsp);
    expect(failure.details.error_message!.length).toBeLessThan(400);
  });
});
