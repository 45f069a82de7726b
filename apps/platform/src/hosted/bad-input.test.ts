/**
 * No input, however malformed, makes a hosted call answer a 5xx or anything but its envelope: every
 * Menu, Order and Store operation gets broken bodies, headers and path parameters.
 */
import { describe, expect, it } from 'vitest';
import { HR_MENU_OPERATIONS } from '@stream/contracts/apis/hr-menu/index';
import { HR_ORDER_OPERATIONS } from '@stream/contracts/apis/hr-orders/index';
import { HR_STORE_OPERATIONS } from '@stream/contracts/apis/hr-stores/index';
import { HostedErrorBody } from '@stream/contracts/envelopes';
import { hostedSuite } from './testing.ts';

const suite = hostedSuite();

const OPERATIONS = [...HR_MENU_OPERATIONS, ...HR_ORDER_OPERATIONS, ...HR_STORE_OPERATIONS];
const nested = (depth: number): unknown =>
  depth === 0 ? 1 : { data: nested(depth - 1), items: [nested(depth - 1)] };
const BODIES: [string, string | unknown][] = [
  ['not JSON', '{"data": '],
  ['a number', 42],
  ['null', 'null'],
  ['an array', [1, 2, 3]],
  ['data of the wrong type', { data: 'menu' }],
  [
    'numbers as strings',
    { data: { displayName: 'x', groups: 'none', items: [{ id: 1, qty: '2', price: '1' }] } },
  ],
  [
    'huge numbers',
    {
      data: {
        orderType: 'Pickup',
        deferDue: '2026-12-01T18:30:00Z',
        items: [{ id: 'soda', qty: 1e308, price: -1e308 }],
      },
    },
  ],
  ['NUL characters', { data: { displayName: 'a\u0000b', orderType: 'P\u0000', deferDue: 'x', items: [] } }],
  ['deep nesting', nested(12)],
  [
    'a patch with odd pointers',
    [
      { op: 'add', path: '/groups/-/items/~2', value: 1 },
      { op: 'copy', from: '/nope', path: '/x' },
    ],
  ],
];
const PATHS = ['Main', '%00', '%E0%A4%A', '..%2F..', '999999999999999999', '-1', 'x'.repeat(300)];

const fill = (template: string, value: string) => template.replace(/\{[^}]+\}/g, value);

describe.each(OPERATIONS.map((op) => [`${op.method} ${op.path}`, op] as const))('%s', (_name, op) => {
  it('answers broken input with a 4xx in the hosted envelope', async () => {
    const attempts: { path: string; body?: unknown; headers?: Record<string, string> }[] = [];
    for (const p of PATHS) attempts.push({ path: fill(op.path, p) });
    if (op.method !== 'GET') for (const [, body] of BODIES) attempts.push({ path: fill(op.path, '1'), body });
    for (const store of ['', 'abc', '-5', '1e3', '0x10', ' 1001 ']) {
      attempts.push({
        path: fill(op.path, '1'),
        headers: { 'x-store': store, 'x-company': store, 'x-service-type': 'Nope' },
      });
    }
    for (const a of attempts) {
      const res = await suite.world.hosted(op.method, a.path, {
        ...(a.body === undefined ? {} : { body: a.body }),
        ...(a.headers ? { headers: a.headers } : {}),
        serviceType: 'DoorDash',
      });
      const what = `${op.method} ${a.path} ${JSON.stringify(a.body ?? a.headers ?? '').slice(0, 80)}`;
      expect(res.status, what).toBeLessThan(500);
      if (res.status >= 400) {
        expect(HostedErrorBody.safeParse(res.body).success, `${what}: ${res.text.slice(0, 200)}`).toBe(true);
      }
    }
  });
});

describe('a store id that is no store id', () => {
  it('is told what it must be: a whole number, and its range when it is out of it', async () => {
    const said = async (store: string) =>
      (await suite.world.hosted('GET', '/Menus?serviceType=DoorDash', { headers: { 'x-store': store } })).body
        .message;
    expect(await said('abc')).toBe('headers.x-store: must be a store id: a whole number such as 1001');
    for (const store of ['99999999999999999999', '2147483648', '0'])
      expect(await said(store), store).toBe('headers.x-store: must be a store id from 1 to 2147483647');
    const path = await suite.world.hosted('GET', '/Stores/99999999999999999999');
    expect(path.body.message).toBe('params.id: must be a store id from 1 to 2147483647');
  });
});
