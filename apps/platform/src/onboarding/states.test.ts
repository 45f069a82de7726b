import { describe, expect, it } from 'vitest';
import { INTEGRATION_STATES } from './integration-states.ts';
import { BINDING_STATES, ORG_LOCATION_STATES, locationStatusFromBindings } from './location-states.ts';
import { canTransition, statesLeadingTo, transition } from './state-machine.ts';
import { ApiError } from '../http/errors.ts';

describe('integration states', () => {
  it.each([
    ['pending', 'waiting_for_oauth', true],
    ['pending', 'active', true],
    ['waiting_for_oauth', 'active', true],
    ['waiting_for_oauth', 'waiting_for_oauth', true],
    ['active', 'active', false],
    ['active', 'waiting_for_oauth', false],
    ['active', 'needs_reconnection', true],
    ['needs_reconnection', 'active', true],
    ['deprovisioned', 'active', false],
    ['deprovisioned', 'deprovisioned', false],
  ] as const)('%s -> %s allowed: %s', (from, to, ok) => {
    expect(canTransition(INTEGRATION_STATES, from, to)).toBe(ok);
  });

  it('refuses a transition with invalid_transition (409)', () => {
    try {
      transition(INTEGRATION_STATES, 'deprovisioned', 'active');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('invalid_transition');
      expect((err as ApiError).status).toBe(409);
    }
  });

  it('lists every state in the transition table, and only known targets', () => {
    for (const m of [INTEGRATION_STATES, BINDING_STATES, ORG_LOCATION_STATES]) {
      expect(Object.keys(m.transitions).sort()).toEqual([...m.states].sort());
      for (const targets of Object.values<readonly string[]>(m.transitions)) {
        for (const t of targets) expect(m.states).toContain(t);
      }
    }
  });
});

describe('binding and location states', () => {
  it('only pending becomes APPROVED', () => {
    expect(statesLeadingTo(BINDING_STATES, 'APPROVED')).toEqual(['pending']);
  });

  it.each([
    ['pending', ['pending'], 'pending'],
    ['pending', ['pending', 'APPROVED'], 'active'],
    ['active', ['needs_reconnection'], 'pending'],
    ['active', [], 'pending'],
    ['waiting_for_deprovision', ['APPROVED'], 'waiting_for_deprovision'],
    ['deprovisioned', ['APPROVED'], 'deprovisioned'],
  ] as const)('location %s with bindings %j is %s', (current, bindings, expected) => {
    expect(locationStatusFromBindings(current, bindings)).toBe(expected);
  });
});
