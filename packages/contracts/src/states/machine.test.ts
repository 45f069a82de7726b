import { describe, expect, it } from 'vitest';
import { STATE_MACHINES } from '../states.ts';
import {
  canTransition,
  defineStateMachine,
  statesLeadingTo,
  statusEnum,
  transitionRefusal,
  type StateMachine,
} from './machine.ts';
import { BINDING_STATES, INTEGRATION_STATES, ORG_LOCATION_STATES } from './onboarding.ts';
import { ORDER_STATES } from './orders.ts';
import { DELIVERY_STATES } from './delivery.ts';
import { HOSTED_ORDER_MACHINE } from './hosted-orders.ts';

/** A small machine of the tests' own, so the helper's tests do not move with the real ones. */
const DOOR = defineStateMachine({
  name: 'door',
  schemaId: 'TestDoorStatus',
  summary: ['A door.', 'It opens and closes.'],
  initial: 'closed',
  states: { closed: 'Shut.', open: 'Open.', locked: 'Shut and locked.', gone: 'Removed (final).' },
  transitions: [
    { from: 'closed', to: 'open', cause: 'push' },
    { from: 'closed', to: 'locked', cause: 'key' },
    { from: 'closed', to: 'gone', cause: 'removed' },
    { from: 'open', to: 'closed', cause: 'pull' },
    { from: 'open', to: 'open', cause: 'wind' },
    { from: 'locked', to: 'closed', cause: 'key' },
  ],
});

describe('the state-machine helper', () => {
  it('keeps states in declaration order with their meaning, and derives the moves from each state', () => {
    expect(DOOR.states).toEqual(['closed', 'open', 'locked', 'gone']);
    expect(DOOR.meaning.locked).toBe('Shut and locked.');
    expect(DOOR.next).toEqual({
      closed: ['open', 'locked', 'gone'],
      open: ['closed', 'open'],
      locked: ['closed'],
      gone: [],
    });
  });

  it.each([
    ['closed', 'open', true],
    ['closed', 'locked', true],
    ['closed', 'gone', true],
    ['closed', 'closed', false],
    ['open', 'closed', true],
    ['open', 'open', true],
    ['open', 'locked', false],
    ['open', 'gone', false],
    ['locked', 'closed', true],
    ['locked', 'open', false],
    ['gone', 'closed', false],
    ['gone', 'gone', false],
  ] as const)('%s -> %s allowed: %s', (from, to, allowed) => {
    expect(canTransition(DOOR, from, to)).toBe(allowed);
    expect(transitionRefusal(DOOR, from, to) === undefined).toBe(allowed);
  });

  it.each([
    ['closed', ['open', 'locked']],
    ['open', ['closed', 'open']],
    ['locked', ['closed']],
    ['gone', ['closed']],
  ] as const)('statesLeadingTo %s is %j', (to, from) => {
    expect(statesLeadingTo(DOOR, to)).toEqual(from);
  });

  it.each([
    [
      'open',
      'locked',
      {
        message: 'The door is open; it cannot become locked, only closed, open.',
        details: 'allowed from open: closed, open',
      },
    ],
    [
      'gone',
      'open',
      {
        message: 'The door is gone, which is final; it cannot become open.',
        details: 'allowed from gone: none',
      },
    ],
  ] as const)('refuses %s -> %s with the 409 message and the allowed moves', (from, to, expected) => {
    expect(transitionRefusal(DOOR, from, to)).toEqual({
      message: expected.message,
      details: [{ path: 'status', message: expected.details }],
    });
  });

  it('derives a named Zod enum of the states, described by the summary', () => {
    const DoorStatus = statusEnum(DOOR);
    expect(DoorStatus.options).toEqual(['closed', 'open', 'locked', 'gone']);
    expect(DoorStatus.meta()).toEqual({ id: 'TestDoorStatus', description: 'A door. It opens and closes.' });
    expect(DoorStatus.safeParse('locked').success).toBe(true);
    expect(DoorStatus.safeParse('ajar').success).toBe(false);
  });

  const base = {
    name: 'bad',
    schemaId: 'TestBad',
    summary: [],
    initial: 'a',
    states: { a: 'A.', b: 'B.' },
  } as const;
  it.each([
    [
      'a move listed twice',
      [
        { from: 'a', to: 'b', cause: 'x' },
        { from: 'a', to: 'b', cause: 'y' },
      ],
      /a -> b is declared twice/,
    ],
    ['a state no move reaches', [{ from: 'b', to: 'a', cause: 'x' }], /not reachable from a: b/],
    ['an unknown state', [{ from: 'a', to: 'c', cause: 'x' }], /a -> c names an unknown state/],
  ] as const)('refuses a declaration with %s', (_, transitions, error) => {
    expect(() => defineStateMachine({ ...base, transitions: transitions as unknown as readonly [] })).toThrow(
      error,
    );
  });
});

/**
 * Every move the platform allows today, written out by hand: changing a machine means changing this
 * table too, on purpose.
 */
const EXPECTED: [StateMachine<string>, Record<string, string[]>][] = [
  [
    INTEGRATION_STATES,
    {
      pending: ['waiting_for_oauth', 'active', 'deprovisioned'],
      waiting_for_oauth: ['waiting_for_oauth', 'active', 'deprovisioned'],
      active: ['needs_reconnection', 'deprovisioned'],
      needs_reconnection: ['waiting_for_oauth', 'active', 'deprovisioned'],
      deprovisioned: [],
    },
  ],
  [
    BINDING_STATES,
    {
      pending: ['APPROVED', 'needs_reconnection', 'waiting_for_deprovision'],
      APPROVED: ['needs_reconnection', 'waiting_for_deprovision'],
      needs_reconnection: ['pending', 'waiting_for_deprovision'],
      waiting_for_deprovision: ['deprovisioned'],
      deprovisioned: [],
    },
  ],
  [
    ORG_LOCATION_STATES,
    {
      pending: ['active', 'waiting_for_deprovision'],
      active: ['pending', 'waiting_for_deprovision'],
      waiting_for_deprovision: ['deprovisioned'],
      deprovisioned: ['pending'],
    },
  ],
  [
    ORDER_STATES,
    {
      scheduled: ['received', 'failed', 'dsp_canceled'],
      received: ['accepted', 'awaiting_confirmation', 'failed'],
      awaiting_confirmation: ['accepted', 'failed', 'dsp_canceled'],
      accepted: ['ready_for_pickup', 'completed', 'dsp_canceled', 'merchant_canceled'],
      ready_for_pickup: ['completed', 'dsp_canceled', 'merchant_canceled'],
      completed: [],
      failed: [],
      dsp_canceled: [],
      merchant_canceled: [],
    },
  ],
  [
    DELIVERY_STATES,
    {
      unassigned: [
        'driver_assigned',
        'enroute_to_pickup',
        'arrived_at_pickup',
        'enroute_to_dropoff',
        'completed',
      ],
      driver_assigned: [
        'driver_assigned',
        'enroute_to_pickup',
        'arrived_at_pickup',
        'enroute_to_dropoff',
        'completed',
      ],
      enroute_to_pickup: ['driver_assigned', 'arrived_at_pickup', 'enroute_to_dropoff', 'completed'],
      arrived_at_pickup: ['driver_assigned', 'enroute_to_dropoff', 'completed'],
      enroute_to_dropoff: ['completed'],
      completed: [],
    },
  ],
  [
    HOSTED_ORDER_MACHINE,
    {
      created: ['accepted', 'rejected'],
      accepted: ['cancelled', 'ready', 'unknown'],
      rejected: [],
      cancelled: [],
      ready: ['deliveryStarted', 'completed'],
      deliveryStarted: ['deliveryArriving', 'deliveryDelivered'],
      deliveryArriving: ['deliveryDelivered'],
      deliveryDelivered: ['completed'],
      completed: [],
      unknown: ['cancelled', 'ready', 'completed'],
    },
  ],
];

describe('the platform machines', () => {
  it.each(EXPECTED.map(([m, moves]) => [m.name, m, moves] as const))(
    '%s allows exactly the moves the platform makes',
    (_, m, moves) => {
      expect(Object.keys(moves)).toEqual(m.states);
      for (const from of m.states) {
        for (const to of m.states) {
          expect(canTransition(m, from, to), `${from} -> ${to}`).toBe(moves[from]!.includes(to));
        }
      }
    },
  );

  it('start where their owners create them, and every state and move has its text', () => {
    for (const m of [INTEGRATION_STATES, BINDING_STATES, ORG_LOCATION_STATES])
      expect(m.initial).toBe('pending');
    expect([ORDER_STATES.initial, ...ORDER_STATES.entries]).toEqual(['received', 'scheduled']);
    expect(DELIVERY_STATES.initial).toBe('unassigned');
    for (const m of STATE_MACHINES) {
      for (const s of m.states) expect(m.meaning[s as keyof typeof m.meaning]).toMatch(/\S/);
      for (const t of m.transitions) expect(t.cause).toMatch(/\S/);
    }
  });

  it('are all listed in STATE_MACHINES, under distinct names and schema ids', () => {
    expect(STATE_MACHINES).toEqual([
      INTEGRATION_STATES,
      BINDING_STATES,
      ORG_LOCATION_STATES,
      ORDER_STATES,
      DELIVERY_STATES,
      HOSTED_ORDER_MACHINE,
    ]);
    expect(new Set(STATE_MACHINES.map((m) => m.name)).size).toBe(STATE_MACHINES.length);
    expect(new Set(STATE_MACHINES.map((m) => m.schemaId)).size).toBe(STATE_MACHINES.length);
  });
});
