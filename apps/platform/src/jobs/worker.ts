import { and, eq, sql, type SQL } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../context.ts';
import type { Db, DbOrTx } from '../db/client.ts';
import { jobs } from '../db/schema/index.ts';
import { backoffDelay } from './backoff.ts';
import {
  kindMap,
  PermanentJobError,
  type AnyJobKind,
  type CarriedFinish,
  type Job,
  type JobKind,
} from './kinds.ts';
import { msInterval, rowsOf } from '../db/sql.ts';
import { atOnce, transaction, type AdoptedJob, type LocalRunner } from './outbox.ts';
import { compose, part, run, statement, type Part } from '../db/raw.ts';

export interface Worker extends LocalRunner {
  /** Stored in `jobs.locked_by` while this worker holds a job. */
  readonly id: string;
  /**
   * Stops claiming and waits for the jobs in flight; past `graceMs` (default: the configured
   * `drainMs`) their signals fire and they are handed back unfinished, their attempt not counted.
   */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

export interface WorkerOptions {
  id?: string;
  /** The kinds this worker runs: exactly these, no others (see `JOB_KINDS`). */
  kinds: readonly AnyJobKind[];
}

/** Defaults of the optional worker settings (the configuration may leave them out). */
export const WORKER_DEFAULTS = { partnerConcurrency: 32, drainMs: 10_000 };

/** Beyond this a due time is left to polling rather than a timer. */
const MAX_TIMER_MS = 60_000;
/** Channel the `jobs_notify` trigger signals on every insert, once its transaction commits. */
export const JOBS_CHANNEL = 'jobs_due';

interface ClaimedRow {
  id: string;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  partner_id: string | null;
  ordering_key: string | null;
  deadline_ms: number;
  /** No attempt may start: attempts used up (a crashed worker's last one) or the deadline passed. */
  expired: boolean;
  /** An expired job's last attempt's error, which its death names (an onDead tells it on). */
  last_error: string | null;
}

/** A job's success, fenced on (locked_by, attempts): a worker that lost the lease changes nothing. */
const FINISH = statement(
  'jobs_finish',
  `update jobs set status = 'succeeded', finished_at = now(), lease_until = null
   where id = $1 and status = 'running' and locked_by = $2 and attempts = $3
   returning id, ordering_key is not null and exists (
     select 1 from jobs next where next.ordering_key = jobs.ordering_key and next.status = 'pending'
   ) as successor`,
);

/**
 * Claims due jobs, and `running` jobs whose lease expired (their worker died), in one statement.
 * SKIP LOCKED lets any number of workers in any number of processes claim side by side without
 * waiting on or taking each other's jobs. The claim counts as an attempt before it starts, so a
 * job that crashes its worker every time still runs out of attempts.
 * - Ordering: a job with an ordering key is claimable only when no earlier job (lower `seq`) of its
 *   key is pending or running, in any process.
 * - Fairness: no partner gets more than `perPartner` of this worker's slots (`inFlight` counts the
 *   ones it holds already), so one hung partner cannot take them all.
 * - Circuits: a paused partner (`jobs/circuit.ts`) gets nothing until `retry_at`, then one job at
 *   a time (the probe).
 */
const CLAIM = statement(
  'jobs_claim',
  `with candidates as materialized (
     select j.id, j.partner_id, j.run_at, j.seq, circuit.partner_id is not null as probe from jobs j
     left join partner_circuits circuit on circuit.partner_id = j.partner_id and circuit.state = 'open'
     where j.kind = any($1::text[])
       and ((j.status = 'pending' and j.run_at <= now()) or (j.status = 'running' and j.lease_until <= now()))
       and (j.partner_id is null or coalesce(($2::jsonb ->> j.partner_id)::int, 0) < $3::int)
       and (j.ordering_key is null or not exists (
         select 1 from jobs prior
         where prior.ordering_key = j.ordering_key and prior.seq < j.seq
           and prior.status in ('pending', 'running')))
       and (circuit.partner_id is null or (circuit.retry_at <= now() and not exists (
         select 1 from jobs probing
         where probing.partner_id = j.partner_id and probing.status = 'running' and probing.lease_until > now())))
     order by j.run_at, j.seq
     limit $4::int * 4
     for update of j skip locked
   ), picked as (
     select id from (
       select c.*, row_number() over (partition by c.partner_id order by c.run_at, c.seq) as rn
       from candidates c
     ) ranked
     where partner_id is null
       or rn <= case when probe then 1 else $3::int - coalesce(($2::jsonb ->> partner_id)::int, 0) end
     order by run_at, seq
     limit $4::int
   )
   update jobs
   set status = 'running', attempts = jobs.attempts + 1, locked_by = $5,
       lease_until = now() + $6::float8 * interval '1 millisecond'
   from picked
   where jobs.id = picked.id
   returning jobs.id, jobs.kind, jobs.payload::text as payload, jobs.attempts, jobs.max_attempts,
     jobs.partner_id, jobs.ordering_key, (extract(epoch from jobs.deadline_at) * 1000)::float8 as deadline_ms,
     (jobs.attempts > jobs.max_attempts or jobs.deadline_at <= now()) as expired,
     case when jobs.attempts > jobs.max_attempts or jobs.deadline_at <= now() then jobs.last_error end as last_error`,
);

/**
 * Claims due jobs, and `running` jobs whose lease expired (their worker died), in one statement.
 * SKIP LOCKED lets any number of workers in any number of processes claim side by side without
 * waiting on or taking each other's jobs. The claim counts as an attempt before it starts, so a
 * job that crashes its worker every time still runs out of attempts.
 * - Ordering: a job with an ordering key is claimable only when no earlier job (lower `seq`) of its
 *   key is pending or running, in any process.
 * - Fairness: no partner gets more than `perPartner` of this worker's slots (`inFlight` counts the
 *   ones it holds already), so one hung partner cannot take them all.
 */
function claim(
  db: Db,
  workerId: string,
  opts: {
    limit: number;
    leaseMs: number;
    kinds: string[];
    perPartner: number;
    inFlight: Map<string, number>;
  },
): Promise<ClaimedRow[]> {
  return run<ClaimedRow>(db, CLAIM, [
    opts.kinds,
    JSON.stringify(Object.fromEntries(opts.inFlight)),
    opts.perPartner,
    opts.limit,
    workerId,
    opts.leaseMs,
  ]);
}

/** Renews the leases of the jobs this worker holds, in one statement; answers the ids it still holds. */
async function heartbeat(db: Db, workerId: string, held: Job[], leaseMs: number): Promise<Set<string>> {
  const pairs = sql.join(
    held.map((j) => sql`(${j.id}, ${j.attempt}::int)`),
    sql`, `,
  );
  const result = await db.execute(sql`
    update jobs set lease_until = now() + ${msInterval(leaseMs)}
    where (id, attempts) in (${pairs}) and locked_by = ${workerId} and status = 'running'
    returning id`);
  return new Set(rowsOf<{ id: string }>(result).map((r) => r.id));
}

/**
 * Refuses to start a worker while unfinished jobs of a kind it does not run are waiting: they would
 * never be claimed. A kind missing from `JOB_KINDS` fails here, loudly, not silently later.
 */
export async function checkJobKinds(db: Db, kinds: readonly AnyJobKind[]): Promise<void> {
  const known = [...kindMap(kinds).keys()];
  const result = await db.execute(sql`
    select distinct kind from jobs
    where status in ('pending', 'running')
      and kind not in (${sql.join(
        known.map((k) => sql`${k}`),
        sql`, `,
      )})`);
  const unknown = rowsOf<{ kind: string }>(result).map((r) => r.kind);
  if (unknown.length > 0) {
    throw new Error(
      `Unfinished jobs of kind ${unknown.join(', ')} are waiting, but this process does not run that kind: ` +
        'add it to JOB_KINDS (apps/platform/src/job-kinds.ts).',
    );
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

type Held = { job: Job; controller: AbortController; partnerId: string | null };

/**
 * Runs the outbox: claims up to `concurrency` jobs at a time and holds each under a lease it renews
 * every third of `leaseMs` while the handler runs. It is woken by the `jobs_due` notification that a
 * committed enqueue sends (any process), by a retry it scheduled falling due, and by a free slot;
 * it also polls every `pollMs`, for leases that expired and notifications that were missed. Every
 * state change is fenced on (locked_by, attempts), so a worker that lost its lease cannot overwrite
 * the job's newer state.
 */
export function startWorker(ctx: AppContext, opts: WorkerOptions): Worker {
  const { pollMs, leaseMs, concurrency } = ctx.config.worker;
  const perPartner = ctx.config.worker.partnerConcurrency ?? WORKER_DEFAULTS.partnerConcurrency;
  const drainMs = ctx.config.worker.drainMs ?? WORKER_DEFAULTS.drainMs;
  const kinds = kindMap(opts.kinds);
  const kindNames = [...kinds.keys()];
  const id = opts.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const log = ctx.log.child({ worker: id });
  const inFlight = new Map<Promise<void>, Held>();
  let stopping = false;

  // Sleeping and being woken: by a notification, a due retry, a finished job when work may be
  // waiting for its slot or behind it (`mayHaveWork`), or stop.
  let woken = false;
  let wake: (() => void) | undefined;
  /** Jobs may be due that the last claim did not take: slots ran out, or a partner was at its share. */
  let mayHaveWork = true;
  const nudge = () => {
    woken = true;
    mayHaveWork = true;
    wake?.();
  };
  // Wake-ups at a known due time (a retry this worker scheduled, a job enqueued for later), so
  // work never waits for the poll; polling is for leases and missed notifications.
  const timers = new Set<NodeJS.Timeout>();
  const wakeAt = (ms: number) => {
    if (stopping || ms > MAX_TIMER_MS) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      nudge();
    }, ms + 2);
    timers.add(timer);
  };
  const listening = ctx.database
    .listen(JOBS_CHANNEL, (payload) => {
      const due = Number(payload) - Date.now();
      if (due > 0) wakeAt(due);
      else nudge();
    })
    .catch((err: unknown) => {
      log.warn({ err }, 'cannot listen for new jobs; polling only');
      return undefined;
    });
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopping) return resolve();
      const timer = setTimeout(() => wake?.(), ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  // One statement renews every lease this worker holds; a job whose lease was lost is aborted.
  const beat = setInterval(
    async () => {
      const held = [...inFlight];
      if (held.length === 0) return;
      try {
        const still = await heartbeat(
          ctx.db,
          id,
          held.map(([, h]) => h.job),
          leaseMs,
        );
        for (const [p, h] of held) {
          if (still.has(h.job.id) || !inFlight.has(p)) continue; // renewed, or finished meanwhile
          log.warn({ job: h.job.id }, 'lease lost while the handler ran; aborting it');
          h.controller.abort(new Error('The lease on this job was lost; another worker may run it.'));
        }
      } catch (err) {
        // The database is unreachable: the lease may lapse; the fenced finish decides later.
        log.error({ err }, 'renewing job leases failed');
      }
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  beat.unref();

  const fenced = (job: Job) =>
    and(
      eq(jobs.id, job.id),
      eq(jobs.status, 'running'),
      eq(jobs.lockedBy, id),
      eq(jobs.attempts, job.attempt),
    );

  /** Writes the delivery log lines a job deferred (see `JobRef.defer`), on the paths that do not fold them in. */
  async function flush(db: DbOrTx, writes: Part[]) {
    for (const w of writes.splice(0)) {
      const { statement: st, values } = compose('delivery_log', [], w);
      await run(db, st, values);
    }
  }

  async function succeed(def: JobKind, job: Job, result: unknown, writes: Part[]) {
    const finish = async (db: DbOrTx) => {
      // The job's success and its deferred log writes: one statement.
      const composed = compose(
        'jobs_finish',
        writes.map((w, i) => [`log${i}`, w] as const),
        part(FINISH.text, [job.id, id, job.attempt]),
      );
      const [row] = await run<{ successor: boolean }>(db, composed.statement, composed.values);
      return finished(job, row);
    };
    // The common case (no hook) is one statement; a hook shares the status change's transaction,
    // and the jobs it enqueues to run here start when that commits. A `settle` may carry the
    // success in its own statement, leaving nothing to write here.
    const { onSucceeded, settle } = def;
    let carried = false;
    if (settle) {
      job.finish = !onSucceeded ? carriedFinish(job, writes, () => (carried = true)) : undefined;
      try {
        await atOnce(ctx, (db) => settle(db, job, result, ctx));
      } finally {
        job.finish = undefined;
      }
    }
    if (!carried && !onSucceeded) await finish(ctx.db);
    else if (onSucceeded)
      await transaction(ctx, async (tx) => {
        if (await finish(tx)) await onSucceeded(tx, job, result, ctx);
      });
    writes.length = 0; // written with the outcome (a failure above leaves them to `fail`)
  }

  /** What the fenced success answered: no row, the lease was lost; else whether a successor waits. */
  function finished(job: Job, row: { successor: boolean } | undefined): boolean {
    if (!row) log.warn({ job: job.id }, 'lease lost before the job finished; its new holder decides');
    // The next job of its ordering key may be claimed now.
    if (row?.successor) mayHaveWork = true;
    return Boolean(row);
  }

  /** The job's success for its `settle` to carry (see `CarriedFinish`); `onCarried` once it did. */
  function carriedFinish(job: Job, writes: readonly Part[], onCarried: () => void): CarriedFinish {
    let taken = false;
    return {
      take() {
        if (taken) return undefined;
        taken = true;
        return {
          ctes: [
            ...writes.map((w, i) => [`finish_log${i}`, w] as const),
            ['finish', part(FINISH.text, [job.id, id, job.attempt])] as const,
          ],
          select: `(select id from finish) as "finishedId", (select successor from finish) as "finishedSuccessor"`,
          done(row) {
            onCarried();
            finished(
              job,
              row.finishedId === null ? undefined : { successor: row.finishedSuccessor === true },
            );
          },
        };
      },
    };
  }

  /** Hands a job back untouched (the process is draining): due now, its attempt not counted. */
  async function handBack(job: Job, why: string, writes: Part[]) {
    await flush(ctx.db, writes);
    await ctx.db
      .update(jobs)
      .set({
        status: 'pending',
        runAt: sql`now()`,
        attempts: sql`${jobs.attempts} - 1`,
        leaseUntil: null,
        lastError: why,
      })
      .where(fenced(job));
  }

  /** Schedules a retry, or goes dead (and runs onDead in the same transaction) when none is left. */
  async function fail(
    def: JobKind,
    job: Job,
    error: string,
    opts: { permanent?: boolean; attemptStarted?: boolean; retryAfterMs?: number | undefined },
    writes: Part[] = [],
  ) {
    await flush(ctx.db, writes);
    // A partner's Retry-After is honoured: never sooner than it asked.
    const delay = Math.max(backoffDelay(def.backoff, job.attempt), opts.retryAfterMs ?? 0);
    const dead: SQL = opts.permanent
      ? sql`true`
      : sql`(${jobs.attempts} >= ${jobs.maxAttempts} or now() + ${msInterval(delay)} > ${jobs.deadlineAt})`;
    const status = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .update(jobs)
        .set({
          status: sql`case when ${dead} then 'dead' else 'pending' end`,
          runAt: sql`case when ${dead} then ${jobs.runAt} else now() + ${msInterval(delay)} end`,
          finishedAt: sql`case when ${dead} then now() end`,
          // A claim that could not start an attempt gives the attempt back.
          attempts: opts.attemptStarted === false ? sql`${jobs.attempts} - 1` : undefined,
          leaseUntil: null,
          lastError: error.slice(0, 2000),
        })
        .where(fenced(job))
        .returning({ status: jobs.status });
      if (!row) return log.warn({ job: job.id }, 'lease lost before the job failed; its new holder decides');
      if (row.status === 'dead') {
        log.warn({ job: job.id, kind: job.kind, error }, 'job is dead');
        if (job.orderingKey) mayHaveWork = true; // the next job of its key may run now
        // A payload its kind cannot read cannot tell its hook anything: skipped rather than retried for ever.
        if (job.payload === undefined)
          log.error({ job: job.id }, 'dead job with an unreadable payload: onDead skipped');
        else await def.onDead?.(tx, { ...job, error }, ctx);
      }
      return row.status;
    });
    if (status === 'pending') wakeAt(delay);
  }

  /** Runs a claimed job: its stored payload is read (and its expiry checked) first. */
  async function runClaimed(def: AnyJobKind, job: Job, row: ClaimedRow, controller: AbortController) {
    try {
      // Parsed first: a job that expired before this attempt still goes dead with its payload, which
      // the kind's onDead reads (to tell the DSP which order failed).
      const payload = def.payload.safeParse(JSON.parse(row.payload));
      if (payload.success) job.payload = payload.data;
      if (row.expired) {
        const why =
          row.attempts > row.max_attempts
            ? `The worker running attempt ${row.max_attempts} of ${row.max_attempts} stopped before finishing it.`
            : `The deadline passed before another attempt could start${row.last_error ? `; the last attempt: ${row.last_error}` : '.'}`;
        return await fail(def, job, why, { permanent: true, attemptStarted: false });
      }
      if (!payload.success) {
        const issue = payload.error.issues[0];
        const why = `The stored payload does not match the ${def.kind} schema (${issue?.path.join('.') || 'payload'}: ${issue?.message}).`;
        return await fail(def, job, why, { permanent: true });
      }
    } catch (err) {
      return log.error({ err, job: job.id }, 'could not record the outcome of a job');
    }
    await execute(def, job, controller);
  }

  /** Runs the handler and records its outcome. */
  async function execute(def: AnyJobKind, job: Job, controller: AbortController) {
    const writes: Part[] = [];
    job.defer = (write) => writes.push(write);
    try {
      let result: unknown;
      try {
        result = await def.handle(job, ctx);
      } catch (err) {
        if (controller.signal.aborted && stopping)
          return await handBack(job, `interrupted: ${message(err)}`, writes);
        if (controller.signal.aborted) return await flush(ctx.db, writes); // lease lost: its new holder decides
        return await fail(
          def,
          job,
          message(err),
          {
            permanent: err instanceof PermanentJobError,
            retryAfterMs: (err as { retryAfterMs?: number }).retryAfterMs,
          },
          writes,
        );
      }
      try {
        await succeed(def, job, result, writes);
      } catch (err) {
        await fail(def, job, `onSucceeded failed: ${message(err)}`, {}, writes);
      }
    } catch (err) {
      // Recording the outcome failed (database down, or onDead threw): the lease expires and the
      // job is claimed again, so nothing is lost.
      log.error({ err, job: job.id }, 'could not record the outcome of a job');
    }
  }

  /** Holds the job in flight while `work` runs; a finished job frees its slot and wakes the loop. */
  function hold(job: Job, controller: AbortController, work: Promise<void>) {
    const p: Promise<void> = work.finally(() => {
      inFlight.delete(p);
      if (mayHaveWork) nudge();
    });
    inFlight.set(p, { job, controller, partnerId: job.partnerId });
  }

  function start(row: ClaimedRow) {
    const def = kinds.get(row.kind)!; // claimed only kinds this worker runs
    const controller = new AbortController();
    const job: Job = {
      id: row.id,
      kind: row.kind,
      payload: undefined,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      partnerId: row.partner_id,
      orderingKey: row.ordering_key,
      deadlineAt: new Date(row.deadline_ms),
      signal: controller.signal,
    };
    hold(job, controller, runClaimed(def, job, row, controller));
  }

  // Slots held for jobs this process enqueued to start itself once their transaction commits.
  const reserved = new Map<string | null, number>();
  let reservedTotal = 0;
  const unreserve = (partnerId: string | null) => {
    reservedTotal--;
    reserved.set(partnerId, (reserved.get(partnerId) ?? 1) - 1);
  };

  const perPartnerInFlight = () => {
    const counts = new Map<string, number>();
    for (const { partnerId } of inFlight.values())
      if (partnerId) counts.set(partnerId, (counts.get(partnerId) ?? 0) + 1);
    for (const [partnerId, n] of reserved)
      if (partnerId && n > 0) counts.set(partnerId, (counts.get(partnerId) ?? 0) + n);
    return counts;
  };

  function reserve(partnerId: string | null): boolean {
    if (stopping || inFlight.size + reservedTotal >= concurrency) return false;
    if (partnerId && (perPartnerInFlight().get(partnerId) ?? 0) >= perPartner) return false;
    reservedTotal++;
    reserved.set(partnerId, (reserved.get(partnerId) ?? 0) + 1);
    return true;
  }

  function release(partnerId: string | null) {
    unreserve(partnerId);
    if (mayHaveWork) nudge(); // the slot is free for claiming again
  }

  /** A job this worker claimed in the enqueuing transaction: attempt 1, payload already checked. */
  function adopt(adopted: AdoptedJob) {
    unreserve(adopted.partnerId);
    // Stopped meanwhile: the lease runs out and another process (or the next start) claims it.
    if (stopping) return;
    const controller = new AbortController();
    const job: Job = {
      id: adopted.id,
      kind: adopted.kind.kind,
      payload: adopted.payload,
      attempt: 1,
      maxAttempts: adopted.maxAttempts,
      partnerId: adopted.partnerId,
      orderingKey: adopted.orderingKey,
      deadlineAt: adopted.deadlineAt,
      signal: controller.signal,
      context: adopted.context,
    };
    hold(job, controller, execute(adopted.kind, job, controller));
  }

  const loop = (async () => {
    await listening; // a job enqueued from now on wakes this worker
    while (!stopping) {
      woken = false;
      const free = concurrency - inFlight.size - reservedTotal;
      let claimed: ClaimedRow[] = [];
      if (free > 0) {
        const held = perPartnerInFlight();
        mayHaveWork = false;
        try {
          claimed = await claim(ctx.db, id, {
            limit: free,
            leaseMs,
            kinds: kindNames,
            perPartner,
            inFlight: held,
          });
        } catch (err) {
          log.error({ err }, 'claiming jobs failed');
        }
        // Claimed to the limit, or some partner at its share: more may be due once a slot frees.
        if (claimed.length === free || [...held.values()].some((n) => n >= perPartner)) mayHaveWork = true;
      }
      for (const row of claimed) start(row);
      if (claimed.length > 0 && inFlight.size < concurrency) continue; // there may be more due
      await sleep(pollMs);
    }
  })();

  let stopped: Promise<void> | undefined;
  return {
    id,
    leaseMs,
    reserve,
    release,
    adopt,
    stop: (stopOpts = {}) =>
      (stopped ??= (async () => {
        stopping = true;
        for (const timer of timers) clearTimeout(timer);
        wake?.();
        await loop;
        const unlisten = await listening;
        await unlisten?.().catch(() => {});
        const all = Promise.allSettled([...inFlight.keys()]);
        const grace = stopOpts.graceMs ?? drainMs;
        let timer: NodeJS.Timeout | undefined;
        const late = await Promise.race([
          all.then(() => false),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), grace))),
        ]);
        clearTimeout(timer);
        if (late) {
          log.warn({ jobs: inFlight.size }, 'draining: handing back the jobs still running');
          for (const h of inFlight.values()) h.controller.abort(new Error('The worker is stopping.'));
          await all;
        }
        clearInterval(beat);
      })()),
  };
}
