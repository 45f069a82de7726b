import { z } from 'zod';

/**
 * A state machine written down once, as data: its states (each with what it means) and every move
 * it allows (each with what causes it). Everything else derives from the declaration: the Zod enum
 * of the contracts (`statusEnum`), the database column's enum (`machine.states`), the platform's
 * guards (`statesLeadingTo`, `transitionRefusal`) and the diagram in the docs site. A move the
 * declaration does not list is refused (409 `invalid_transition` on the platform).
 */
export interface StateMachineDeclaration<S extends string> {
  /** What it is called in messages and the docs: "The {name} is active; it cannot become pending." */
  name: string;
  /** The id of its Zod enum, which is also its schema name in the OpenAPI documents. */
  schemaId: string;
  /** The enum's description in the contracts: how a status changes, a sentence or so a line. */
  summary: readonly string[];
  /** Where a new instance starts. */
  initial: NoInfer<S>;
  /** Other states a new instance may start in (a scheduled order), reached by no move. */
  entries?: readonly NoInfer<S>[];
  /** Every state and its one-line meaning, in the order they are listed (and drawn). */
  states: { readonly [K in S]: string };
  /** Every allowed move and what causes it. */
  transitions: readonly Transition<NoInfer<S>>[];
}

export interface Transition<S extends string> {
  from: S;
  to: S;
  /** What makes the move happen, short enough to label an arrow ("DELETE", "refresh rejected"). */
  cause: string;
}

export interface StateMachine<S extends string> {
  name: string;
  schemaId: string;
  summary: readonly string[];
  initial: S;
  /** Other states a new instance may start in. */
  entries: readonly S[];
  /** The states in declaration order (a non-empty tuple, as `z.enum` and drizzle's `enum` want). */
  states: readonly [S, ...S[]];
  /** The one-line meaning of each state. */
  meaning: { readonly [K in S]: string };
  transitions: readonly Transition<S>[];
  /** For every state, the states it may move to (declaration order of the transitions). */
  next: { readonly [K in S]: readonly S[] };
}

/** The status type of a machine: `StateOf<typeof INTEGRATION_STATES>`. */
export type StateOf<M> = M extends StateMachine<infer S> ? S : never;

/**
 * Declares a machine. Refuses (at import time, so in every test) a declaration that lists a move
 * twice or a state no move reaches from `initial` (or an `entries` state).
 */
export function defineStateMachine<const S extends string>(
  declaration: StateMachineDeclaration<S>,
): StateMachine<S> {
  const states = Object.keys(declaration.states) as S[];
  if (states.length === 0) throw new Error(`state machine ${declaration.name}: no states`);
  const known = new Set<string>(states);
  const next = Object.fromEntries(states.map((s) => [s, [] as S[]])) as Record<S, S[]>;
  for (const { from, to } of declaration.transitions) {
    if (!known.has(from) || !known.has(to)) {
      throw new Error(`state machine ${declaration.name}: ${from} -> ${to} names an unknown state`);
    }
    if (next[from].includes(to)) {
      throw new Error(`state machine ${declaration.name}: ${from} -> ${to} is declared twice`);
    }
    next[from].push(to);
  }
  const entries = declaration.entries ?? [];
  const reached = new Set<S>([declaration.initial, ...entries]);
  for (const s of reached) for (const to of next[s]) reached.add(to);
  const unreachable = states.filter((s) => !reached.has(s));
  if (!known.has(declaration.initial) || unreachable.length > 0) {
    throw new Error(
      `state machine ${declaration.name}: not reachable from ${declaration.initial}: ${unreachable.join(', ')}`,
    );
  }
  return {
    name: declaration.name,
    schemaId: declaration.schemaId,
    summary: declaration.summary,
    initial: declaration.initial,
    entries,
    states: states as [S, ...S[]],
    meaning: declaration.states,
    transitions: declaration.transitions,
    next,
  };
}

export function canTransition<S extends string>(m: StateMachine<S>, from: S, to: S): boolean {
  return m.next[from]?.includes(to) ?? false;
}

/** The states from which `to` may be reached (for `WHERE status IN (...)` guards). */
export function statesLeadingTo<S extends string>(m: StateMachine<S>, to: S): S[] {
  return m.states.filter((s) => m.next[s].includes(to));
}

/**
 * Why a move is refused, as the message and details of a 409 `invalid_transition`; `undefined`
 * when the machine allows it. The details list the moves allowed from `from`.
 */
export function transitionRefusal<S extends string>(
  m: StateMachine<S>,
  from: S,
  to: S,
): { message: string; details: { path: string; message: string }[] } | undefined {
  if (canTransition(m, from, to)) return undefined;
  const next = m.next[from] ?? [];
  return {
    // What it can still become, or that nothing more will change it: the partner's next step.
    message: next.length
      ? `The ${m.name} is ${from}; it cannot become ${to}, only ${next.join(', ')}.`
      : `The ${m.name} is ${from}, which is final; it cannot become ${to}.`,
    details: [{ path: 'status', message: `allowed from ${from}: ${next.join(', ') || 'none'}` }],
  };
}

/** The machine's states as the named Zod enum of the contracts (call once per machine: ids are unique). */
export function statusEnum<S extends string>(m: StateMachine<S>) {
  return z.enum(m.states).meta({ id: m.schemaId, description: m.summary.join(' ') });
}
