import { IntegrationStatus } from '@stream/contracts/apis/partner/onboarding';
import { BindingStatus, OrgLocationStatus } from '@stream/contracts/apis/partner/onboarding-locations';
import { BINDING_STATES, INTEGRATION_STATES, ORG_LOCATION_STATES } from '@stream/contracts/states';
import { describe, expect, it } from 'vitest';
import { integrations, locationBindings, orgLocations } from '../db/schema/index.ts';
import { ApiError, transition } from '../http/errors.ts';
import { LIVE_BINDING_STATES, locationStatusFromBindings } from './bindings.ts';

describe('each status list is the one of its contracts machine', () => {
  it.each([
    ['integration', INTEGRATION_STATES.states, IntegrationStatus.options, integrations.status.enumValues],
    ['bound location', BINDING_STATES.states, BindingStatus.options, locationBindings.status.enumValues],
    ['org location', ORG_LOCATION_STATES.states, OrgLocationStatus.options, orgLocations.status.enumValues],
  ] as const)('%s: machine, contract enum and database column agree', (_, machine, contract, column) => {
    expect(contract).toEqual(machine);
    expect(column).toEqual(machine);
  });
});

describe('transition (the 409 every route answers for a move the machine refuses)', () => {
  it.each([
    ['pending', 'active'],
    ['waiting_for_oauth', 'waiting_for_oauth'],
    ['needs_reconnection', 'deprovisioned'],
  ] as const)('lets %s become %s', (from, to) => {
    expect(transition(INTEGRATION_STATES, from, to)).toBe(to);
  });

  it.each([
    ['active', 'active', 'allowed from active: needs_reconnection, deprovisioned'],
    ['active', 'waiting_for_oauth', 'allowed from active: needs_reconnection, deprovisioned'],
    ['deprovisioned', 'deprovisioned', 'allowed from deprovisioned: none'],
  ] as const)('refuses %s -> %s with invalid_transition, listing %j', (from, to, allowed) => {
    let thrown: unknown;
    try {
      transition(INTEGRATION_STATES, from, to);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({
      code: 'invalid_transition',
      status: 409,
      message:
        from === 'deprovisioned'
          ? `The integration is ${from}, which is final; it cannot become ${to}.`
          : `The integration is ${from}; it cannot become ${to}, only needs_reconnection, deprovisioned.`,
      details: [{ path: 'status', message: allowed }],
    });
  });
});

describe('org location status from its bindings', () => {
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

  it('counts as live the bindings that have not started deprovisioning', () => {
    expect(LIVE_BINDING_STATES).toEqual(
      BINDING_STATES.states.filter((s) => s !== 'waiting_for_deprovision' && s !== 'deprovisioned'),
    );
  });
});
