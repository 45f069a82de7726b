import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { EXAMPLE_ORDER, EXAMPLE_PRICED } from '@stream/contracts/apis/hr-orders/index';
import { HostedOrder } from '@stream/contracts/apis/hr-orders/order';
import { HostedErrorBody } from '@stream/contracts/envelopes';
import { call } from '../../../test/http.ts';
import { refreshTokensUsedAMinuteAgo, requestAccessToken } from '../../auth/testing.ts';
import { hostedClockAt, hostedSuite, hostedWorld } from '../testing.ts';
import { hostedOrders, stores } from '../../db/schema/index.ts';
import { MAX_LISTED } from './orders.route.ts';
import { moveByOperator } from './records.ts';

hostedClockAt();
const suite = hostedSuite();

const order = (over: Record<string, unknown> = {}) => ({ ...structuredClone(EXAMPLE_ORDER), ...over });
const post = (
  path: string,
  data: unknown,
  opts: { serviceType?: string; applyDefaultModifiers?: boolean } = {},
) =>
  suite.world.hosted('POST', path, {
    serviceType: opts.serviceType ?? 'DoorDash',
    body: {
      ...(opts.applyDefaultModifiers === undefined
        ? {}
        : { applyDefaultModifiers: opts.applyDefaultModifiers }),
      data,
    },
  });
const codeOf = (res: { body: { messagesDetails: { id: string }[] } }) => res.body.messagesDetails[0]?.id;
const card = (last4: string, amount: number, status = 'SUCCESS', tip = 0) => ({
  transaction: { gatewayTransactionId: `txn-${last4}-${amount}`, amount, tip, type: 'SALE', status },
  paymentMethod: { cardBrand: 'Visa', last4CardNumber: last4, expMonth: 12, expYear: 2029 },
});

describe('POST /PriceOrder', () => {
  it("prices the reference example as the reference says, discarding the client's prices", async () => {
    const res = await post(
      '/PriceOrder',
      order({ items: EXAMPLE_ORDER.items.map((i) => ({ ...i, price: 999_999 })) }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ ...EXAMPLE_PRICED, cartStatus: { minimumOrderPriceMet: true } });
  });

  it('warns about a discount that does not apply and a store that would refuse the order', async () => {
    const res = await post('/PriceOrder', order({ deferDue: '2026-12-05T08:00:00-05:00' })); // Saturday 8:00
    expect(res.status).toBe(200);
    const weekday = res.body.data.discounts.find(
      (d: { sourceDiscount: string }) => d.sourceDiscount === 'weekday-pizza',
    );
    expect(weekday).toMatchObject({ valid: false, discountValue: 0 });
    const kinds = res.body.messagesDetails.map(
      (m: { id: string; messageType: string }) => `${m.messageType}:${m.id}`,
    );
    expect(kinds).toContain('WARNING:storeClosed');
    // The discount's warning names it as the errors name fields: by its path in the body.
    expect(kinds).toContain('WARNING:body.data.discounts[0]');
  });

  it('answers a list of modifiers as long as a body may hold at once, naming the first it does not know and counting the rest', async () => {
    // 70,000 ids fill the 1 MB body: checking each against those before it blocked the process 6 s.
    const orderModifiers = Array.from({ length: 70_000 }, (_, i) => ({ id: i.toString(36) }));
    const started = performance.now(); // Date is the file's fake clock, which stands still while the process is blocked
    const res = await post('/PriceOrder', order({ items: [{ id: 'garlic-knots', qty: 1, price: 0, orderModifiers }] }));
    expect(performance.now() - started).toBeLessThan(3000);
    expect([res.status, codeOf(res)]).toEqual([422, 'order_invalid']);
    // The first 100 are named, then how many more (a 10 MB answer named them all).
    expect(res.body.messagesDetails).toHaveLength(102);
    expect(res.body.messagesDetails[100]).toMatchObject({ id: 'body.data.items[0].orderModifiers[99].id' });
    expect(res.body.messagesDetails[101]).toMatchObject({ id: 'more_problems', message: expect.stringMatching(/^69900 more problem/) });
  }); // prettier-ignore

  it('is 422 order_invalid for an item the menu does not have, naming the field', async () => {
    const res = await post('/PriceOrder', order({ items: [{ id: 'calzone', qty: 1, price: 0 }] }));
    expect(res.status).toBe(422);
    expect(HostedErrorBody.parse(res.body).messagesDetails.map((m) => m.id)).toEqual([
      'order_invalid',
      'body.data.items[0].id',
    ]);
  });

  it.each([
    ['no items', { items: [] }, 'body.data.items'],
    ['qty 0', { items: [{ id: 'soda', qty: 0, price: 0 }] }, 'body.data.items[0].qty'],
    ['no price', { items: [{ id: 'soda', qty: 1 }] }, 'body.data.items[0].price'],
    ['item id of 26', { items: [{ id: 'x'.repeat(26), qty: 1, price: 0 }] }, 'body.data.items[0].id'],
    ['one half only', { items: [{ id: 'margherita-lg', qty: 1, price: 0, leftHalfItemId: 'veggie-lg' }] }, 'body.data.items[0].rightHalfItemId'],
    ['noteText of 201', { items: [{ id: 'soda', qty: 1, price: 0, noteText: 'n'.repeat(201) }] }, 'body.data.items[0].noteText'],
    ['modifier quantity 11', { items: [{ id: 'garlic-knots', qty: 1, price: 0, orderModifiers: [{ id: 'ranch', quantity: 11 }] }] }, 'body.data.items[0].orderModifiers[0].quantity'],
    ['preperationNote of 201', { preperationNote: 'p'.repeat(201) }, 'body.data.preperationNote'],
    ['deliveryNote of 201', { deliveryNote: 'd'.repeat(201) }, 'body.data.deliveryNote'],
    ['sourceReferenceId of 26', { sourceReferenceId: 'r'.repeat(26) }, 'body.data.sourceReferenceId'],
    ['no orderType', { orderType: undefined }, 'body.data.orderType'],
    ['no deferDue', { deferDue: undefined }, 'body.data.deferDue'],
    ['first name of 26', { customer: { firstName: 'A'.repeat(26) } }, 'body.data.customer.firstName'],
    ['first name of digits', { customer: { firstName: '4na' } }, 'body.data.customer.firstName'],
    ['phone of 21', { customer: { phoneNumber: '1'.repeat(21) } }, 'body.data.customer.phoneNumber'],
    ['email of 81', { customer: { email: `${'a'.repeat(69)}@example.com` } }, 'body.data.customer.email'],
    ['email without @', { customer: { email: 'ana.example.com' } }, 'body.data.customer.email'],
    ['street of 41', { customer: { street: 's'.repeat(41) } }, 'body.data.customer.street'],
    ['state of 3', { customer: { state: 'NYC' } }, 'body.data.customer.state'],
    ['postalcode of 11', { customer: { postalcode: '1'.repeat(11) } }, 'body.data.customer.postalcode'],
    ['addressType other', { customer: { addressType: 'castle' } }, 'body.data.customer.addressType'],
  ])('refuses %s with 400 naming the field', async (_what, over, path) => {
    const res = await post('/PriceOrder', order(over));
    expect(res.status, res.text).toBe(400);
    expect(res.body.messagesDetails.map((m: { id: string }) => m.id)).toContain(path);
  }); // prettier-ignore

  it.each([
    ['notes of 200, a reference of 25', { sourceReferenceId: 'r'.repeat(25), preperationNote: 'p'.repeat(200), deliveryNote: 'd'.repeat(200) }],
    ['customer at every limit', { customer: { firstName: 'A'.repeat(25), lastName: "O'Neil-Smith", phoneNumber: '+1 (212) 555-0123', email: `${'a'.repeat(68)}@example.com`, streetnumber: '1'.repeat(10), street: 's'.repeat(40), additionalAddressInfo: 'a'.repeat(25), city: 'c'.repeat(25), state: 'NY', postalcode: '1'.repeat(10), locationName: 'l'.repeat(25), zoneName: 'z'.repeat(25), addressType: 'apartment' } }],
    ['a phone number with an extension and a one-letter state (the spec limits both by length only)', { customer: { phoneNumber: '212 555 0123 ext 4', state: 'D' } }],
    ['a name with the apostrophe a phone types (’, U+2019)', { customer: { firstName: 'Ana', lastName: 'O’Brien' } }],
    ['modifier quantity 0', { items: [{ id: 'garlic-knots', qty: 1, price: 0, orderModifiers: [{ id: 'ranch', quantity: 0 }] }] }],
    ['an item id of 25 characters (not on the menu: priced as unknown, not refused as too long)', { items: [{ id: 'x'.repeat(25), qty: 1, price: 0 }] }],
  ])('takes %s', async (_what, over) => {
    const res = await post('/PriceOrder', order(over));
    expect([400, 500]).not.toContain(res.status);
  }); // prettier-ignore

  it('names each field it does not know in a WARNING (ignored, not lost in silence); fields of its answer are not named', async () => {
    const sent = order({
      preparationNote: 'extra crispy',
      discounts: [],
      customer: { firstName: 'Ana', postalCode: '10001' },
      items: [{ id: 'soda', qty: 1, price: 0, note: 'cold' }],
      ...{ subtotal: 1, total: 1, taxes: [], cartStatus: { minimumOrderPriceMet: true } }, // an answer sent back
    });
    const expected = [
      ['body.data.items[0].note', 'note is not a field of an order; it was ignored. Did you mean noteText?'],
      ['body.data.preparationNote', 'preparationNote is not a field of an order; it was ignored. Did you mean preperationNote?'],
    ];
    const warnings = (res: { body: { messagesDetails: { id: string; message: string; messageType: string }[] } }) =>
      res.body.messagesDetails.filter((m) => m.id.startsWith('body.')).map((m) => [m.id, m.message, m.messageType]).sort();
    const priced = await post('/PriceOrder', { ...sent, creditCardPayments: [] });
    expect(priced.status, priced.text).toBe(200);
    expect(warnings(priced)).toEqual([['body.data.creditCardPayments', 'creditCardPayments is not a field of an order; it was ignored.'], ...expected].map((w) => [...w, 'WARNING']).sort());
    const placed = await post('/Orders', sent);
    expect(placed.status, placed.text).toBe(201);
    expect(warnings(placed)).toEqual(expected.map((w) => [...w, 'WARNING']).sort());
    // postalCode is the spec's postalcode in another case: read as it, not lost (field names are read in any case).
    expect(placed.body.data.customer).toMatchObject({ firstName: 'Ana', postalcode: '10001' });
    expect((await post('/PriceOrder', order())).body.messagesDetails).toEqual([]);
  }); // prettier-ignore

  it('names at most 100 fields it does not know, then how many more; a field named constructor is no misspelling', async () => {
    const extra = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`extra${i}`, i]));
    const res = await post('/PriceOrder', order({ ...extra, constructor: 'x' }));
    expect(res.status, res.text).toBe(200);
    const details = res.body.messagesDetails as { id: string; message: string }[];
    expect(details).toHaveLength(101);
    expect(details[100]).toEqual({ id: 'more_warnings', message: '51 more field(s) of an order were ignored and are not listed.', messageType: 'WARNING' });
    const alone = await post('/PriceOrder', order({ constructor: 'x' }));
    expect(alone.body.messagesDetails).toEqual([{ id: 'body.data.constructor', message: 'constructor is not a field of an order; it was ignored.', messageType: 'WARNING' }]);
  }); // prettier-ignore

  it('takes an optional field sent as null as absent (as serialisers write it), and names a required one as missing', async () => {
    const nulls = {
      menuName: null, sourceReferenceId: null, preperationNote: null, deliveryNote: null, customer: null,
      discounts: null, orderSource: null, extendedProperties: null,
      items: [{ id: 'soda', qty: 2, price: 0, noteText: null, menuGroupId: null, leftHalfItemId: null, rightHalfItemId: null, orderModifiers: null, discounts: null }],
    };
    const plain = { ...Object.fromEntries(Object.entries({ ...order(), ...nulls }).filter(([, v]) => v !== null)), items: [{ id: 'soda', qty: 2, price: 0 }] };
    const body = (data: unknown) => ({ serviceType: 'DoorDash', body: { applyDefaultModifiers: null, data } });
    const priced = await suite.world.hosted('POST', '/PriceOrder', body({ ...order(), ...nulls }));
    expect(priced.status, priced.text).toBe(200);
    expect(priced.body.messagesDetails).toEqual([]); // a null is not "a field it does not know"
    expect(priced.body.data).toEqual((await post('/PriceOrder', plain)).body.data);
    const customer = { firstName: 'Ana', lastName: null, phoneNumber: null, email: null, addressType: null };
    const placed = await suite.world.hosted('POST', '/Orders', body({ ...order(), ...nulls, customer, creditCardPayments: null }));
    expect(placed.status, placed.text).toBe(201);
    expect(placed.body.data.customer).toEqual({ firstName: 'Ana' });
    // An order read back (its sourceReferenceId, rejectReason... null) can be placed again as it is.
    const read = await suite.world.hosted('GET', `/Orders/${placed.body.data.id}`);
    const again = await post('/Orders', read.body.data);
    expect(again.status, again.text).toBe(201);
    expect(again.body.data.total).toBe(read.body.data.total);
    const missing = await post('/PriceOrder', order({ orderType: null }));
    expect(missing.status).toBe(400);
    expect(missing.body.messagesDetails[1]).toMatchObject({ id: 'body.data.orderType', message: expect.stringContaining('required') });
  }); // prettier-ignore

  it('reads field names in any case, as ASP.NET binds them (Data, OrderType, NoteText); a record keeps its keys as sent', async () => {
    const pascal = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(pascal) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k[0]!.toUpperCase() + k.slice(1), pascal(x)])) : v;
    const sent = order({ extendedProperties: { tableNumber: '12' }, items: [{ id: 'margherita-lg', qty: 2, price: 0, noteText: 'well done', orderModifiers: [{ id: 'thin', quantity: 1 }] }] });
    const camel = await post('/PriceOrder', sent);
    expect(camel.status, camel.text).toBe(200);
    const res = await suite.world.hosted('POST', '/PriceOrder', { serviceType: 'DoorDash', body: { Data: { ...(pascal(sent) as object), ExtendedProperties: { tableNumber: '12' } } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.messagesDetails).toEqual(camel.body.messagesDetails);
    expect(res.body.data).toEqual(camel.body.data);
    expect(res.body.data.items[0]).toMatchObject({ noteText: 'well done', orderModifiers: [{ id: 'thin', quantity: 1 }] });
    // A value of a closed list in any case too, as ASP.NET's enum converter reads it.
    const values = await post('/PriceOrder', order({ orderSource: 'DoorDash', customer: { firstName: 'Ana', addressType: 'Apartment' }, items: [{ id: 'margherita-lg', qty: 1, price: 0, orderModifiers: [{ id: 'thin', quantity: 1 }, { id: 'pepperoni', quantity: 1, selectedHalf: 'WHOLE' }] }] }));
    expect([values.status, values.body.data?.orderSource, values.body.data?.customer?.addressType, values.body.data?.items[0].orderModifiers[1].selectedHalf]).toEqual([200, 'doordash', 'apartment', 'Whole']);
    // The contract's spelling wins over another case of it, which is ignored with its WARNING.
    const both = await post('/PriceOrder', { ...order(), DeliveryNote: 'ring twice', deliveryNote: 'knock' });
    expect([both.status, both.body.data?.deliveryNote]).toEqual([200, 'knock']);
    expect(both.body.messagesDetails).toEqual([{ id: 'body.data.DeliveryNote', message: 'DeliveryNote is not a field of an order; it was ignored.', messageType: 'WARNING' }]);
  }); // prettier-ignore

  it('checks the token is not revoked in its one query: a revoked token is 401', async () => {
    const grant = await requestAccessToken(suite.platform.url, suite.world.partner, { scopes: ['orders'] });
    const priceAs = () =>
      suite.world.hosted('POST', '/PriceOrder', { token: grant.access_token, serviceType: 'DoorDash', body: { data: order() } });
    expect((await priceAs()).status).toBe(200);
    // A refresh token presented twice revokes its whole family, this access token included.
    const refresh = () => call('POST', `${suite.platform.url}/oauth/token`, { body: { grant_type: 'refresh_token', client_id: suite.world.partner.client_id, client_secret: suite.world.partner.client_secret, refresh_token: grant.refresh_token } });
    expect((await refresh()).status).toBe(201);
    await refreshTokensUsedAMinuteAgo(suite.platform); // past the grace of a racing exchange
    expect((await refresh()).body.error.code).toBe('refresh_token_reused');
    const res = await priceAs();
    expect([res.status, codeOf(res)]).toEqual([401, 'invalid_token']);
    // Also when the request fails before its query (a store it cannot see).
    expect((await suite.world.hosted('POST', '/PriceOrder', { token: grant.access_token, store: 9999, serviceType: 'DoorDash', body: { data: order() } })).status).toBe(401);
  }); // prettier-ignore

  it('needs X-Service-Type (its value in any case) and the orders scope', async () => {
    const res = await suite.world.hosted('POST', '/PriceOrder', { body: { data: order() } });
    expect(res.status).toBe(400);
    expect(res.body.messagesDetails.map((m: { id: string }) => m.id)).toContain('headers.x-service-type');
    const types = 'None, GrubHubEMail, DoorDash, GrubHub, UberEats, GoogleOrdering, Menufy, Kanekt365';
    expect(res.body.messagesDetails[1]).toEqual({ id: 'headers.x-service-type', message: `is required: the service type, one of ${types}`, messageType: 'ERROR' });
    const wrong = await suite.world.hosted('POST', '/PriceOrder', { serviceType: 'Uber', body: { data: order() } });
    expect(wrong.body.messagesDetails[1]).toEqual({ id: 'headers.x-service-type', message: `must be a service type, one of ${types}; "Uber" is not one`, messageType: 'ERROR' });
    // Its value in any case, as query values are: the order is priced for DoorDash.
    const exact = await suite.world.hosted('POST', '/PriceOrder', { serviceType: 'DoorDash', body: { data: order() } });
    const lower = await suite.world.hosted('POST', '/PriceOrder', { serviceType: 'doordash', body: { data: order() } });
    expect([lower.status, lower.body.data?.total, lower.body.data?.serviceType]).toEqual([200, exact.body.data.total, exact.body.data.serviceType]);
    const menuOnly = await suite.world.partner.tokenWith(['menu']);
    const forbidden = await suite.world.hosted('POST', '/PriceOrder', {
      token: menuOnly,
      serviceType: 'DoorDash',
      body: { data: order() },
    });
    expect(forbidden.status).toBe(403);
  }); // prettier-ignore
});

describe('POST /Orders and what follows', () => {
  it('places an order, reads it, pays it once per card, and cancels it', async () => {
    const placed = await post('/Orders', order({ sourceReferenceId: 'ref-1' }));
    expect(placed.status, placed.text).toBe(201);
    const o = HostedOrder.parse(placed.body.data);
    expect(o).toMatchObject({ status: 'accepted', rejectReason: null, total: EXAMPLE_PRICED.total, businessDate: '2026-12-01' });
    expect(o.id).toBe(o.orderNumber);
    expect(o.stages!.map((s) => s.name)).toEqual(['created', 'accepted']);
    // Due in 49 minutes, more than the order type's 20: ready at deferDue.
    expect(o.estimatedTime).toBe(new Date(EXAMPLE_ORDER.deferDue).toISOString());

    const read = await suite.world.hosted('GET', `/Orders/${o.id}`);
    expect(read.body.data).toEqual(placed.body.data);
    // Its id in digits only: not hex, an exponent, a sign or padding JavaScript would read as it.
    for (const id of [`0x${o.id.toString(16)}`, `${o.id}e0`, `+${o.id}`, `%20${o.id}`, `${o.id}.0`]) {
      const res = await suite.world.hosted('GET', `/Orders/${id}`);
      expect([id, res.status, res.body.messagesDetails[0].id]).toEqual([id, 400, 'validation_failed']);
    }
    const status = await suite.world.hosted('GET', `/Orders/${o.id}/Status`);
    expect(status.body.data).toEqual({ id: o.id, status: 'accepted', estimatedTime: o.estimatedTime, sourceReferenceId: 'ref-1', rejectReason: null });

    const pay = (body: unknown) => suite.world.hosted('POST', `/Orders/${o.id}/ApplyCreditCardPayment`, { body: { data: body } });
    const failed = await pay(card('4242', 1000, 'FAILURE'));
    expect(failed.status).toBe(200);
    expect(failed.body.data.paymentTotal).toBe(0);
    const first = await pay(card('4242', 1000, 'SUCCESS', 300));
    expect(first.body.data).toMatchObject({ paymentTotal: 1000, tipTotal: 300, payments: [{ paymentNumber: 1, amount: 1000, tip: 300, last4Digits: '4242', paymentType: 'Visa' }] });
    const again = await pay(card('4242', 500));
    expect([again.status, codeOf(again)]).toEqual([409, 'card_already_applied']);
    const tooMuch = await pay(card('1111', o.total));
    expect([tooMuch.status, codeOf(tooMuch)]).toEqual([422, 'payment_exceeds_balance']);
    const rest = await pay(card('1111', o.total - 1000, 'SUCCESS', 100));
    expect(rest.body.data).toMatchObject({ paymentTotal: o.total, tipTotal: 400 });
    expect(rest.body.data.payments).toHaveLength(2);

    const cancel = await suite.world.hosted('POST', `/Orders/${o.id}/Cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.data.status).toBe('cancelled');
    expect((await suite.world.hosted('POST', `/Orders/${o.id}/Cancel`)).status).toBe(200); // a retry
    const stages = (await suite.world.hosted('GET', `/Orders/${o.id}`)).body.data.stages;
    expect(stages.map((s: { name: string; endTime: string | null }) => [s.name, s.endTime === null])).toEqual([
      ['created', false],
      ['accepted', false],
      ['cancelled', true],
    ]);
    const late = await pay(card('5555', 1));
    expect([late.status, codeOf(late)]).toEqual([422, 'order_status_unprocessable']);
  }); // prettier-ignore

  it('takes an order due in the past as due now: its hours, business date and ready time are now\'s, with a WARNING', async () => {
    // Due Monday 04:00, when Pickup was closed, sent Tuesday 17:41, when it is open.
    const late = await post('/Orders', order({ deferDue: '2026-11-30T04:00:00-05:00', sourceReferenceId: 'late-1' }));
    expect(late.status, late.text).toBe(201);
    expect(late.body.data).toMatchObject({ status: 'accepted', deferDue: '2026-11-30T04:00:00-05:00', businessDate: '2026-12-01' });
    const inMinutes = (Date.parse(late.body.data.estimatedTime) - Date.now()) / 60_000;
    expect([inMinutes > 19, inMinutes < 20.5]).toEqual([true, true]); // now plus Pickup's 20 minutes
    expect(late.body.messagesDetails).toEqual([{ id: 'body.data.deferDue', message: expect.stringMatching(/^deferDue 2026-11-30T04:00:00-05:00 is past; the order is due now, 2026-12-01 17:4\d \(Tuesday\) in the store's time zone/), messageType: 'WARNING' }]);
    // Today's orders (no dates: the store's today) hold it.
    const today = await suite.world.hosted('GET', '/Orders?sourceReferenceId=late-1');
    expect(today.body.data.map((o: { id: number }) => o.id)).toEqual([late.body.data.id]);
    // "Now" by a client's clock a minute behind ours is now, and no warning.
    const asap = await post('/PriceOrder', order({ deferDue: new Date(Date.now() - 60_000).toISOString() }));
    expect([asap.status, asap.body.data.businessDate, asap.body.messagesDetails]).toEqual([200, '2026-12-01', []]);
  }); // prettier-ignore

  it('names which of the payments sent with a new order was refused', async () => {
    const twice = await post('/Orders', order({ creditCardPayments: [card('4242', 100), card('4242', 100)] }));
    expect([twice.status, codeOf(twice)]).toEqual([409, 'card_already_applied']);
    expect(twice.body.messagesDetails.slice(1)).toEqual([
      { id: 'body.data.creditCardPayments[1]', message: expect.stringContaining('ending 4242 already paid'), messageType: 'ERROR' },
    ]);
  }); // prettier-ignore

  it('stores a rejected order and answers 422 order_rejected with it', async () => {
    const closed = await post('/Orders', order({ deferDue: '2026-12-02T04:00:00-05:00', creditCardPayments: [card('4000', 100)] }));
    expect(closed.status).toBe(422);
    expect(closed.body.messagesDetails[0]).toMatchObject({ id: 'order_rejected', messageType: 'ERROR' });
    expect(closed.body.data).toMatchObject({ status: 'rejected', rejectReason: 'storeClosed', estimatedTime: null, payments: [] });
    expect(closed.body.messagesDetails.map((m: { id: string }) => m.id)).toContain('body.data.creditCardPayments');
    const stored = await suite.world.hosted('GET', `/Orders/${closed.body.data.id}/Status`);
    expect(stored.body.data).toMatchObject({ status: 'rejected', rejectReason: 'storeClosed' });
    const cancel = await suite.world.hosted('POST', `/Orders/${closed.body.data.id}/Cancel`);
    expect([cancel.status, codeOf(cancel)]).toEqual([422, 'order_status_unprocessable']);

    const underMinimum = await post('/Orders', order({ orderType: 'Delivery', items: [{ id: 'soda', qty: 1, price: 0 }], discounts: [] }));
    expect(underMinimum.status).toBe(422);
    expect(underMinimum.body.data).toMatchObject({ rejectReason: 'orderValidation' });
    const gf = await post('/Orders', order({ items: [{ id: 'margherita-lg', qty: 1, price: 0, orderModifiers: [{ id: 'gluten-free', quantity: 1 }] }] }));
    expect(gf.status).toBe(422);
    expect(gf.body.data).toMatchObject({ rejectReason: 'itemOutOfStock' });
  }); // prettier-ignore

  it("takes an order on the store's own order-type terms: its estimatedTime and its service types", async () => {
    const pickup = '/Stores/1001/OrderTypes/Pickup';
    const busy = await suite.world.hosted('PATCH', pickup, { body: { data: { estimatedTime: 90, estimatedTimeManager: 'Dana' } } });
    expect(busy.status, busy.text).toBe(200);
    try {
      const quoted = await suite.world.hosted('GET', `${pickup}/EstimatedTime`);
      expect(quoted.body.data.estimatedMinutes).toBe(90);
      // Due in the past, so due now (an open hour): ready the store's 90 minutes from now, not the menu's 20.
      const placed = await post('/Orders', order({ deferDue: '2026-11-02T12:00:00-05:00' }));
      expect(placed.status, placed.text).toBe(201);
      const inMinutes = (Date.parse(placed.body.data.estimatedTime) - Date.now()) / 60_000;
      expect(inMinutes).toBeGreaterThan(89);
      expect(inMinutes).toBeLessThan(90.5);
    } finally {
      await suite.world.hosted('PATCH', pickup, { body: { data: { estimatedTime: 20, estimatedTimeManager: null } } });
    }
    // Delivery is offered for DoorDash and UberEats only (GET /Stores/1001/OrderTypes?serviceType=GrubHub).
    const offered = await suite.world.hosted('GET', '/Stores/1001/OrderTypes?serviceType=GrubHub');
    expect(offered.body.data.map((t: { id: string }) => t.id)).toEqual(['Pickup']);
    const delivery = order({ orderType: 'Delivery', items: [{ id: 'margherita-lg', qty: 2, price: 0 }], discounts: [] });
    for (const path of ['/PriceOrder', '/Orders']) {
      const res = await post(path, delivery, { serviceType: 'GrubHub', applyDefaultModifiers: true });
      expect([path, res.status, res.body.messagesDetails.map((m: { id: string }) => m.id)]).toEqual([path, 422, ['order_invalid', 'body.data.orderType']]);
      expect(res.body.message).toContain('it takes Pickup');
    }
    const uber = await post('/Orders', delivery, { serviceType: 'UberEats', applyDefaultModifiers: true });
    expect(uber.status, uber.text).toBe(201);
    // The order type in another case is the store's and the menu's (as in /Stores/{id}/OrderTypes/{orderType}).
    const lower = await post('/Orders', { ...delivery, orderType: 'DELIVERY' }, { serviceType: 'UberEats', applyDefaultModifiers: true });
    expect([lower.status, lower.body.data?.orderType, lower.body.data?.total]).toEqual([201, 'Delivery', uber.body.data.total]);
    const refused = await post('/PriceOrder', { ...delivery, orderType: 'delivery' }, { serviceType: 'GrubHub', applyDefaultModifiers: true });
    expect([refused.status, refused.body.message]).toEqual([422, expect.stringContaining('does not take Delivery orders for GrubHub')]);
  }); // prettier-ignore

  it("charges a delivery order the fee of the zone customer.zoneName names, as DeliveryMetrics quotes it; warns of a zone it cannot charge", async () => {
    const delivery = (zoneName?: string) => order({ orderType: 'Delivery', items: [{ id: 'margherita-lg', qty: 2, price: 0 }], discounts: [], customer: { firstName: 'Ana', zoneName } });
    const fees = async (zoneName?: string) => {
      const res = await post('/PriceOrder', delivery(zoneName), { serviceType: 'UberEats', applyDefaultModifiers: true });
      expect(res.status, res.text).toBe(200);
      const zoneWarnings = res.body.messagesDetails.filter((m: { id: string }) => m.id === 'body.data.customer.zoneName').map((m: { message: string }) => m.message);
      const taxed = res.body.data.taxes.map((t: { taxableAmount: number }) => t.taxableAmount);
      return { fees: res.body.data.fees, taxed, total: res.body.data.total, zoneWarnings };
    };
    const quoted = await suite.world.hosted('GET', '/Stores/1001/DeliveryMetrics?streetNumber=350&streetName=W%2024th%20St&city=New%20York&state=NY&postalCode=10011');
    const none = await fees();
    const chelsea = await fees('chelsea'); // matched in any case
    expect(chelsea.fees).toEqual([...none.fees, { feeName: 'Zone Fee', feeAmount: quoted.body.data.deliveryFee }]);
    expect([quoted.body.data.deliveryFee, chelsea.zoneWarnings]).toEqual([150, []]);
    // Taxed as the delivery fee is (the demo menu's food tax).
    expect(chelsea.taxed).toEqual([none.taxed[0] + 150]);
    expect(await fees('Pier')).toEqual({ ...none, zoneWarnings: ['The store has no delivery zone Pier (its zones: Chelsea); no zone fee was added.'] });
    // Placed, the order keeps the fee; a pickup order's zone is no fee and no warning.
    const placed = await post('/Orders', delivery('Chelsea'), { serviceType: 'UberEats', applyDefaultModifiers: true });
    expect([placed.status, placed.body.data?.fees]).toEqual([201, chelsea.fees]);
    const pickup = await post('/PriceOrder', order({ customer: { zoneName: 'Nowhere' } }));
    expect([pickup.status, pickup.body.data.fees, pickup.body.messagesDetails.filter((m: { id: string }) => m.id.includes('zoneName'))]).toEqual([200, [], []]);
    // A zone the store does not deliver to adds nothing (DeliveryMetrics quotes 0 there) and says so.
    const db = suite.platform.app.ctx.db;
    const [store] = await db.select({ zones: stores.geoFences }).from(stores).where(eq(stores.id, 1001));
    await db.update(stores).set({ geoFences: store!.zones.map((z) => ({ ...z, delivery: false })) }).where(eq(stores.id, 1001));
    try {
      expect(await fees('Chelsea')).toEqual({ ...none, zoneWarnings: ['The store does not deliver to zone Chelsea; no zone fee was added.'] });
    } finally {
      await db.update(stores).set({ geoFences: store!.zones }).where(eq(stores.id, 1001));
    }
  }); // prettier-ignore

  it('lists by business date (3 days at most) and filters; cancels by reference', async () => {
    const a = await post('/Orders', order({ sourceReferenceId: 'list-a', customer: { id: 'cust-9', phoneNumber: '+12125550999' } }), { serviceType: 'UberEats' });
    const b = await post('/Orders', order({ deferDue: '2026-12-03T12:30:00-05:00', sourceReferenceId: 'list-b' }), { serviceType: 'GrubHub' });
    const c = await post('/Orders', order({ deferDue: '2026-12-04T12:30:00-05:00', sourceReferenceId: 'list-c' }));
    for (const r of [a, b, c]) expect(r.status, r.text).toBe(201);
    const ids = async (q: string) => ((await suite.world.hosted('GET', `/Orders?${q}`)).body.data as { id: number }[]).map((o) => o.id);
    const range = await ids('businessDateFrom=2026-12-01&businessDateTo=2026-12-03');
    expect(range).toContain(a.body.data.id);
    expect(range).toContain(b.body.data.id);
    expect(range).not.toContain(c.body.data.id);
    expect(range).toEqual([...range].sort((x, y) => y - x)); // newest first
    expect(await ids('businessDateFrom=2026-12-01&businessDateTo=2026-12-03&serviceType=GrubHub')).toEqual([b.body.data.id]);
    expect(await ids('businessDateFrom=2026-12-01&sourceReferenceId=list-a')).toEqual([a.body.data.id]);
    expect(await ids('businessDateFrom=2026-12-01&customerId=cust-9')).toEqual([a.body.data.id]);
    expect(await ids('businessDateFrom=2026-12-01&phoneNumber=%2B12125550999')).toEqual([a.body.data.id]);
    // One bound alone is that one business date.
    for (const q of ['businessDateFrom=2026-12-03', 'businessDateTo=2026-12-03']) {
      const day = await ids(q);
      expect([q, day.includes(b.body.data.id), day.includes(a.body.data.id), day.includes(c.body.data.id)]).toEqual([q, true, false, false]);
    }
    const noStages = (await suite.world.hosted('GET', '/Orders?businessDateFrom=2026-12-04')).body.data[0];
    expect(noStages.stages).toBeUndefined();
    const withStages = (await suite.world.hosted('GET', '/Orders?businessDateFrom=2026-12-04&includeStageTimes=true')).body.data[0];
    expect(withStages.stages).toHaveLength(2);
    for (const [q, why] of [
      ['businessDateFrom=2026-12-01&businessDateTo=2026-12-04', 'businessDateTo 2026-12-04 is 4 days from businessDateFrom 2026-12-01, both included; at most 3: 2026-12-03 at the latest.'],
      ['businessDateFrom=2026-12-03&businessDateTo=2026-12-01', 'businessDateTo 2026-12-01 is before businessDateFrom 2026-12-03.'],
      ['businessdatefrom=2026-12-30&BUSINESSDATETO=2027-01-02', 'businessDateTo 2027-01-02 is 4 days from businessDateFrom 2026-12-30, both included; at most 3: 2027-01-01 at the latest.'],
    ]) {
      const res = await suite.world.hosted('GET', `/Orders?${q}`);
      expect([res.status, codeOf(res), res.body.data]).toEqual([400, 'date_range_too_long', null]);
      // The offending field has its entry, as every validation error's fields do.
      expect(res.body.messagesDetails.slice(1)).toEqual([{ id: 'querystring.businessDateTo', message: why, messageType: 'ERROR' }]);
    }
    expect((await suite.world.hosted('GET', '/Orders?businessDateFrom=2026-13-01')).status).toBe(400);

    const byRef = await suite.world.hosted('POST', '/Orders/Cancel?sourceReferenceId=list-b', { serviceType: 'GrubHub' });
    expect(byRef.status).toBe(200);
    expect(byRef.body.data).toMatchObject({ id: b.body.data.id, status: 'cancelled' });
    const wrongChannel = await suite.world.hosted('POST', '/Orders/Cancel?sourceReferenceId=list-a', { serviceType: 'GrubHub' });
    expect(wrongChannel.status).toBe(404);
  }); // prettier-ignore

  it('refuses dates and amounts beyond what it can store with a 400 naming the field, never a 5xx', async () => {
    // Year 0 and year 1 business dates do not exist in PostgreSQL (nor in the answer's YYYY-MM-DD).
    // The year is the one written, the client's own date, not the UTC one: 2100-01-01T10:30+14:00 is
    // 2099 in UTC and refused; 2099-12-31T23:59:59-12:00 is 2100 in UTC and taken.
    for (const deferDue of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '1999-12-31T23:59:59Z', '2100-01-01T00:00:00Z', '2100-01-01T10:30:00+14:00', '1999-12-31T23:30:00-05:00']) {
      for (const path of ['/PriceOrder', '/Orders']) {
        const res = await post(path, order({ deferDue }));
        expect([deferDue, path, res.status, res.body.messagesDetails.map((m: { id: string }) => m.id)]).toEqual([deferDue, path, 400, ['validation_failed', 'body.data.deferDue']]);
      }
    }
    for (const deferDue of ['2000-01-01T00:00:00Z', '2000-01-01T00:00:00+14:00', '2099-12-31T23:59:59-12:00', '2099-12-31T23:59:59Z']) {
      expect([deferDue, (await post('/PriceOrder', order({ deferDue }))).status]).toEqual([deferDue, 200]);
      const placed = await post('/Orders', order({ deferDue, sourceReferenceId: `edge-${deferDue.slice(0, 4)}` }));
      expect([deferDue, placed.status, placed.body.data?.deferDue]).toEqual([deferDue, expect.toBeOneOf([201, 422]), deferDue]);
    }
    const list = await suite.world.hosted('GET', '/Orders?businessDateFrom=0000-01-01&businessDateTo=0000-01-02');
    expect([list.status, list.body.messagesDetails.map((m: { id: string }) => m.id)]).toEqual([400, ['validation_failed', 'querystring.businessDateFrom', 'querystring.businessDateTo']]);

    const { id } = (await post('/Orders', order())).body.data;
    const pay = (body: unknown) => suite.world.hosted('POST', `/Orders/${id}/ApplyCreditCardPayment`, { body: { data: body } });
    for (const [field, payment] of [['tip', card('4242', 100, 'SUCCESS', 3_000_000_000)], ['amount', card('4242', 3_000_000_000)]] as const) {
      const res = await pay(payment);
      expect([field, res.status, res.body.messagesDetails.map((m: { id: string }) => m.id)]).toEqual([field, 400, ['validation_failed', `body.data.transaction.${field}`]]);
    }
    expect((await pay(card('4242', 100, 'SUCCESS', 2_147_483_647))).status).toBe(200);

    // An order totals at most what an amount may be, as its prices and payments: one card can pay it.
    const max = 2_147_483_647;
    const menu = { displayName: 'Jewels', serviceTypes: ['Menufy'], orderTypes: [{ id: 'Pickup', orderTypeCategory: 'Pickup', displayName: 'Pickup' }], groups: [{ id: 'g', displayName: 'G', items: [{ id: 'crown', displayName: 'Crown', priceInfo: { price: max } }] }] };
    expect((await suite.world.hosted('POST', '/Menus', { body: { data: menu } })).status).toBe(201);
    const crowns = (qty: number, sourceReferenceId: string) => order({ menuName: 'Jewels', discounts: [], sourceReferenceId, items: [{ id: 'crown', qty, price: 0 }] });
    const dear = await post('/Orders', crowns(1, 'crown-1'), { serviceType: 'Menufy' });
    expect([dear.status, dear.body.data.total]).toEqual([201, max]);
    const payDear = (last4: string, amount: number) => suite.world.hosted('POST', `/Orders/${dear.body.data.id}/ApplyCreditCardPayment`, { body: { data: card(last4, amount) } });
    expect((await payDear('1111', max)).status).toBe(200);
    const over = await payDear('2222', 1);
    expect([over.status, codeOf(over)]).toEqual([422, 'payment_exceeds_balance']);
  }); // prettier-ignore

  it('refuses an order totalling more than 2147483647 cents (422 order_invalid naming body.data.items), storing nothing', async () => {
    const max = 2_147_483_647;
    const menu = { displayName: 'Crowns', serviceTypes: ['Menufy'], orderTypes: [{ id: 'Pickup', orderTypeCategory: 'Pickup', displayName: 'Pickup' }], groups: [{ id: 'g', displayName: 'G', items: [{ id: 'crown', displayName: 'Crown', priceInfo: { price: max } }] }] };
    expect((await suite.world.hosted('POST', '/Menus', { body: { data: menu } })).status).toBe(201);
    const crowns = (qty: number) => order({ menuName: 'Crowns', discounts: [], sourceReferenceId: `crowns-${qty}`, items: [{ id: 'crown', qty, price: 0 }] });
    const why = `The order totals ${3 * max} cents, more than an order may total (${max} cents): order fewer or cheaper items, or split them over several orders.`;
    for (const path of ['/PriceOrder', '/Orders']) {
      const res = await post(path, crowns(3), { serviceType: 'Menufy' });
      expect([path, res.status, res.body.data]).toEqual([path, 422, null]);
      expect(HostedErrorBody.parse(res.body).messagesDetails).toEqual([
        { id: 'order_invalid', message: `The order cannot be priced against menu Crowns: body.data.items: ${why}`, messageType: 'ERROR' },
        { id: 'body.data.items', message: why, messageType: 'ERROR' },
      ]);
    }
    const { db } = suite.platform.app.ctx;
    expect(await db.select().from(hostedOrders).where(eq(hostedOrders.sourceReferenceId, 'crowns-3'))).toEqual([]);
    expect((await post('/PriceOrder', crowns(1), { serviceType: 'Menufy' })).body.data.total).toBe(max);
  }); // prettier-ignore

  it(`answers the newest ${MAX_LISTED} orders of a list and says in a WARNING that more match`, async () => {
    const placed = await post('/Orders', order({ deferDue: '2026-12-20T12:30:00-05:00', sourceReferenceId: 'busy' }));
    expect(placed.status, placed.text).toBe(201);
    const db = suite.platform.app.ctx.db;
    const [row] = await db.select().from(hostedOrders).where(eq(hostedOrders.id, placed.body.data.id));
    const { id: _id, createdAt: _c, updatedAt: _u, ...copy } = row!;
    const list = () => suite.world.hosted('GET', '/Orders?businessDateFrom=2026-12-20&sourceReferenceId=busy');
    await db.insert(hostedOrders).values(Array.from({ length: MAX_LISTED - 1 }, () => copy));
    const all = await list();
    expect([all.body.data.length, all.body.messagesDetails]).toEqual([MAX_LISTED, []]);
    await db.insert(hostedOrders).values(copy);
    const more = await list();
    expect(more.body.data).toHaveLength(MAX_LISTED);
    expect(more.body.data[0].id).toBeGreaterThan(more.body.data[MAX_LISTED - 1].id); // the newest
    expect(more.body.messagesDetails.map((m: { id: string; messageType: string }) => [m.id, m.messageType])).toEqual([['orders_truncated', 'WARNING']]);
  }); // prettier-ignore

  it('moves through the store’s statuses by the operator, and refuses moves the machine does not list', async () => {
    const { id } = (await post('/Orders', order())).body.data;
    const db = suite.platform.app.ctx.db;
    expect(await moveByOperator(db, id, 'ready')).toMatchObject({ id, status: 'ready' });
    const late = await suite.world.hosted('POST', `/Orders/${id}/Cancel`);
    expect([late.status, codeOf(late)]).toEqual([422, 'order_status_unprocessable']);
    expect(late.body.messagesDetails.map((m: { message: string }) => m.message).join(' ')).toContain(
      'deliveryStarted',
    );
    await moveByOperator(db, id, 'deliveryStarted');
    await moveByOperator(db, id, 'deliveryDelivered');
    await moveByOperator(db, id, 'completed');
    await expect(moveByOperator(db, id, 'ready')).rejects.toMatchObject({
      code: 'order_status_unprocessable',
    });
    await expect(moveByOperator(db, id, 'eaten')).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(moveByOperator(db, 999_999, 'ready')).rejects.toMatchObject({ code: 'not_found' });
    const stages = (await suite.world.hosted('GET', `/Orders/${id}`)).body.data.stages.map(
      (s: { name: string }) => s.name,
    );
    expect(stages).toEqual([
      'created',
      'accepted',
      'ready',
      'deliveryStarted',
      'deliveryDelivered',
      'completed',
    ]);
  });

  it("keeps orders to their store and the partner that placed them: anyone else's is 404", async () => {
    const placed = await post('/Orders', order({ sourceReferenceId: 'mine' }));
    const id = placed.body.data.id;
    expect((await suite.world.hosted('GET', `/Orders/${id}`, { store: 1002 })).status).toBe(404);
    const stranger = await hostedWorld(suite.platform); // another partner, granted the same company
    for (const [method, path] of [['GET', `/Orders/${id}`], ['GET', `/Orders/${id}/Status`], ['POST', `/Orders/${id}/Cancel`]]) {
      expect((await stranger.hosted(method!, path!)).status, path).toBe(404);
    }
    const theirs = await stranger.hosted('GET', '/Orders?businessDateFrom=2026-12-01&sourceReferenceId=mine');
    expect(theirs.body.data).toEqual([]);
    expect((await stranger.hosted('POST', '/Orders/Cancel?sourceReferenceId=mine', { serviceType: 'DoorDash' })).status).toBe(404);
  }); // prettier-ignore
});

describe('methods a path does not take', () => {
  it('answers GET /Orders/Cancel 405 method_not_allowed with Allow: POST (it is no order id), as any such method', async () => {
    const placed = await post('/Orders', order({ sourceReferenceId: 'not-by-get' }));
    expect(placed.status, placed.text).toBe(201);
    const expected = { data: null, message: 'GET is not allowed on /Orders/Cancel; use POST.', messagesDetails: [{ id: 'method_not_allowed', message: 'GET is not allowed on /Orders/Cancel; use POST.', messageType: 'ERROR' }] };
    for (const path of ['/Orders/Cancel', '/Orders/Cancel?sourceReferenceId=not-by-get']) {
      const res = await suite.world.hosted('GET', path, { serviceType: 'DoorDash' });
      expect([path, res.status, res.headers.get('allow'), res.body]).toEqual([path, 405, 'POST', expected]);
      // Before the token, as every 405 of these APIs.
      const anonymous = await call('GET', `${suite.platform.url}${path}`);
      expect([path, anonymous.status, anonymous.headers.get('allow')]).toEqual([path, 405, 'POST']);
    }
    const head = await call('HEAD', `${suite.platform.url}/Orders/Cancel`);
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'POST']);
    // Any other method too: the literal path is POST's alone, not also GET /Orders/{id}'s.
    for (const method of ['PUT', 'DELETE']) {
      const other = await call(method, `${suite.platform.url}/Orders/Cancel`);
      expect([method, other.status, other.headers.get('allow')]).toEqual([method, 405, 'POST']);
    }
    // Nothing was cancelled; POST cancels, and an order id is still an order id.
    expect((await suite.world.hosted('GET', `/Orders/${placed.body.data.id}`)).body.data.status).toBe('accepted');
    const cancelled = await suite.world.hosted('POST', '/Orders/Cancel?sourceReferenceId=not-by-get', { serviceType: 'DoorDash' });
    expect([cancelled.status, cancelled.body.data.status]).toEqual([200, 'cancelled']);
    const notAnId = await suite.world.hosted('GET', '/Orders/cancel');
    expect([notAnId.status, notAnId.body.messagesDetails[1]?.id]).toEqual([400, 'params.id']);
  }); // prettier-ignore
});
