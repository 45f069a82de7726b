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

  // Each list is read on its own, each entry too: null is absent, a numbered id is its decimal string,
  // and an entry that cannot be read is skipped (each of these made the whole refusal `unknown`).
  it.each([
    [
      'a null list beside the stock refusal',
      { stockValidation: [{ type: 'item', provider_id: 'a' }], orderTotalsValidation: null, orderValidation: null },
      'items_unavailable',
      ['dsp-a'],
      'dsp-a',
    ],
    ['a null quantity', { stockValidation: [{ type: 'item', provider_id: 'a', quantity: null }] }, 'items_unavailable', ['dsp-a'], 'dsp-a'],
    ['a numbered provider_id, as its decimal string', { stockValidation: [{ type: 'item', provider_id: 123, quantity: 0 }] }, 'items_unavailable', ['dsp-123'], 'dsp-123'],
    ['an item family (a type the contract does not list)', { stockValidation: [{ type: 'item_family', provider_id: 'fam' }] }, 'items_unavailable', ['dsp-fam'], 'dsp-fam'],
    [
      'an entry that cannot be read, skipped beside one that can',
      { stockValidation: [{ type: 'item' }, { type: 'item', provider_id: 1.5 }, 'x', null, { type: 'modifier', provider_id: 'b' }] },
      'items_unavailable',
      ['dsp-b'],
      'dsp-b',
    ],
    ['a null order_error_reason', { orderValidation: [{ order_error: 'store_unavailable', order_error_reason: null }] }, 'restaurant_not_accepting_orders', [], 'store_unavailable'],
    [
      'an unreadable order error beside a closed store, and stock with nothing readable',
      { stockValidation: [{ type: 'item' }], orderValidation: [{ order_error: 7 }, { order_error: 'pos_offline' }], orderTotalsValidation: 'n/a' },
      'restaurant_not_accepting_orders',
      [],
      'pos_offline',
    ],
    ['a null stock list beside totals', { stockValidation: null, orderTotalsValidation: [{ posTotal: 1000, streamTotal: 1035, note: null }] }, 'order_validation_error', [], '1000'],
  ])('reads leniently: %s', (_, posValidation, reason, ids, text) => {
    const failure = failureFromPosRejection({ posValidation }, toDsp);
    expect(failure.reason).toBe(reason);
    expect(failure.details.invalid_item_ids).toEqual(ids);
    expect(failure.details.error_message).toContain(text);
  }); // prettier-ignore

  it.each([
    ['a body that is not posValidation', { error: 'nope' }, '{"error":"nope"}'],
    ['text', 'Bad Request', 'Bad Request'],
    ['nothing', '', 'no reason given'],
    ['a null posValidation', { posValidation: null }, '{"posValidation":null}'],
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
