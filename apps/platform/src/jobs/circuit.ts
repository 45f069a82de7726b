import type { DbOrTx } from '../db/client.ts';
import { part, run, statement, type Part } from '../db/raw.ts';
import type { Job } from './kinds.ts';

/**
 * A circuit breaker per partner, for the deliveries of the job kinds that record their outcomes
 * here (event deliveries; the wire notes: alert at a 10-25 % failure rate, pause at 50 %).
 * - Outcomes are counted in one-minute windows. At `openRatio` failures (with at least
 *   `minAttempts` outcomes in the window) the circuit opens: the claim takes no job of that partner
 *   until `retry_at`, so nothing is sent, no attempt is used up and nothing is dropped.
 * - Then it is half-open: the claim lets one job of the partner through at a time (a probe). Its
 *   success closes the circuit; its failure opens it again, for twice as long (`backoff`).
 * - Any success closes it. The state is one row per partner (`partner_circuits`), shared by every
 *   process through the database.
 */
export const CIRCUIT = {
  windowMs: 60_000,
  minAttempts: 10,
  openRatio: 0.5,
  alertRatio: 0.1,
  backoff: { baseMs: 15_000, maxMs: 5 * 60_000 },
};

// Whether the window starts again (it is older than `$4` ms, or a success closes an open circuit),
// the window's counts with this outcome, and whether the circuit opens: all from the row as it was.
const STALE = `(c.window_started_at <= now() - $4::float8 * interval '1 millisecond' or (c.state = 'open' and $2::int = 0))`;
const ATTEMPTS = `(case when ${STALE} then 1 else c.window_attempts + 1 end)`;
const FAILURES = `(case when ${STALE} then $2::int else c.window_failures + $2::int end)`;
// A failure opens a closed circuit past the threshold, and reopens a half-open one (a failed probe);
// failures of calls already in flight when it opened change nothing.
const OPENING = `($2::int = 1 and ((c.state = 'open' and c.retry_at <= now()) or
  (c.state = 'closed' and ${ATTEMPTS} >= $5::int and ${FAILURES} >= ${ATTEMPTS} * $8::float8)))`;

/** One outcome in one statement: `$2` is 1 for a failure (`$3` says what), 0 for a success. */
const RECORD = statement(
  'partner_circuit_outcome',
  `insert into partner_circuits as c (partner_id, window_attempts, window_failures, last_error)
   values ($1, 1, $2::int, $3)
   on conflict (partner_id) do update set
     window_started_at = case when ${STALE} then now() else c.window_started_at end,
     window_attempts = ${ATTEMPTS},
     window_failures = ${FAILURES},
     state = case when $2::int = 0 then 'closed' when ${OPENING} then 'open' else c.state end,
     opens = case when $2::int = 0 then 0 when ${OPENING} then c.opens + 1 else c.opens end,
     opened_at = case when $2::int = 0 then null when ${OPENING} and c.state = 'closed' then now()
                 else c.opened_at end,
     retry_at = case when $2::int = 0 then null
                when ${OPENING} then now() + least($7::float8, $6::float8 * power(2, c.opens)) * interval '1 millisecond'
                else c.retry_at end,
     last_error = case when $2::int = 1 then $3 else c.last_error end,
     updated_at = now()`,
);

function outcomePart(partnerId: string, failure: string | null): Part {
  return part(RECORD.text, [
    partnerId,
    failure === null ? 0 : 1,
    failure?.slice(0, 1000) ?? null,
    CIRCUIT.windowMs,
    CIRCUIT.minAttempts,
    CIRCUIT.backoff.baseMs,
    CIRCUIT.backoff.maxMs,
    CIRCUIT.openRatio,
  ]);
}

/**
 * Records a delivery's outcome for `partnerId`'s circuit (`failure`: what went wrong, or null),
 * with the job's own outcome when the job can take it (one round trip fewer), else at once.
 */
export async function recordOutcome(
  db: DbOrTx,
  job: Pick<Job, 'defer'>,
  partnerId: string,
  failure: string | null,
): Promise<void> {
  const write = outcomePart(partnerId, failure);
  if (job.defer) job.defer(write);
  else await run(db, RECORD, write.values);
}

export interface CircuitState {
  state: 'closed' | 'open' | 'half_open';
  failureRate: number;
  alerting: boolean;
  openedAt: Date | null;
  retryAt: Date | null;
  lastError: string | null;
}

const READ = statement(
  'partner_circuits_read',
  `select partner_id as "partnerId", state, window_attempts as "attempts", window_failures as "failures",
     window_started_at > now() - $2::float8 * interval '1 millisecond' as "current",
     opened_at as "openedAt", retry_at as "retryAt", last_error as "lastError", retry_at <= now() as "due"
   from partner_circuits where partner_id = any($1::text[])`,
);

/** The circuits of these partners as they stand now (closed, with no failures, when none was recorded). */
export async function circuitsOf(
  db: DbOrTx,
  partnerIds: readonly string[],
): Promise<Map<string, CircuitState>> {
  const rows = await run<{
    partnerId: string;
    state: 'closed' | 'open';
    attempts: number;
    failures: number;
    current: boolean;
    openedAt: Date | null;
    retryAt: Date | null;
    lastError: string | null;
    due: boolean | null;
  }>(db, READ, [partnerIds, CIRCUIT.windowMs]);
  const states = new Map<string, CircuitState>();
  for (const id of partnerIds)
    states.set(id, {
      state: 'closed',
      failureRate: 0,
      alerting: false,
      openedAt: null,
      retryAt: null,
      lastError: null,
    });
  for (const r of rows) {
    const failureRate = r.current && r.attempts > 0 ? r.failures / r.attempts : 0;
    states.set(r.partnerId, {
      state: r.state === 'open' ? (r.due ? 'half_open' : 'open') : 'closed',
      failureRate,
      alerting:
        r.state === 'open' || (r.attempts >= CIRCUIT.minAttempts && failureRate >= CIRCUIT.alertRatio),
      openedAt: r.openedAt,
      retryAt: r.retryAt,
      lastError: r.lastError,
    });
  }
  return states;
}
