import { ApiError } from '../http/errors.ts';

/**
 * A state machine written down as data: for every state, the states it may move to. Anything not
 * listed is refused with `invalid_transition` (409), so an event that does not fit the current
 * state is answered, never silently applied.
 */
export interface StateMachine<S extends string> {
  name: string;
  states: readonly S[];
  transitions: { readonly [F in S]: readonly S[] };
}

export function defineStateMachine<const S extends string>(m: StateMachine<S>): StateMachine<S> {
  return m;
}

export function canTransition<S extends string>(m: StateMachine<S>, from: S, to: S): boolean {
  return m.transitions[from]?.includes(to) ?? false;
}

/** Returns `to` when the move is allowed, else throws the 409 the caller answers with. */
export function transition<S extends string>(m: StateMachine<S>, from: S, to: S): S {
  if (!canTransition(m, from, to)) {
    throw new ApiError('invalid_transition', `The ${m.name} is ${from}; it cannot become ${to}.`, [
      { path: 'status', message: `allowed from ${from}: ${m.transitions[from].join(', ') || 'none'}` },
    ]);
  }
  return to;
}

/** The states from which `to` may be reached (for `WHERE status IN (...)` guards). */
export function statesLeadingTo<S extends string>(m: StateMachine<S>, to: S): S[] {
  return m.states.filter((s) => m.transitions[s].includes(to));
}
