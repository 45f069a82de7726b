import { and, eq, sql, type SQL } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../context.ts';
import type { Db, DbOrTx } from '../db/client.ts';
import { jobs } from '../db/schema/index.ts';
import { backoffDelay } from './backoff.ts';
import { jobKind, jobKindNames, PermanentJobError, type Job, type JobKind } from './kinds.ts';
import { onEnqueue } from './outbox.ts';
import { msInterval, rowsOf } from './sql.ts';
// The generic partner call kind is always known to a worker, whoever enqueued it.
import './partner-http.ts';

export interface Worker {
  /** Stored in `jobs.locked_by` while this worker holds a job. */
  readonly id: string;
  /** Stops claiming and waits for the jobs in flight to finish. */
  stop(): Promise<void>;
}

export interface WorkerOptions {
  id?: string;
}

/** Beyond this a due time is left to polling rather than a timer. */
const MAX_TIMER_MS = 60_000;

interface ClaimedRow {
  id: string;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  partner_id: string | null;
  deadline_ms: number;
  /** No attempt may start: attempts used up (a crashed worker's last one) or the deadline passed. */
  expired: boolean;
}

/**
 * Claims due jobs, and `running` jobs whose lease expired (their worker died), in one statement.
 * SKIP LOCKED lets any number of workers in any number of processes claim side by side without
 * waiting on or taking each other's jobs. The claim counts as an attempt before it starts, so a
 * job that crashes its worker every time still runs out of attempts.
 */
async function claim(db: Db, workerId: string, limit: number, leaseMs: number, kinds: string[]) {
  const result = await db.execute(sql`
    with next as materialized (
      select id from jobs
      where kind in (${sql.join(
        kinds.map((k) => sql`${k}`),
        sql`, `,
      )})
        and ((status = 'pending' and run_at <= now()) or (status = 'running' and lease_until <= now()))
      order by run_at
      limit ${limit}
      for update skip locked
    )
    update jobs
    set status = 'running', attempts = jobs.attempts + 1, locked_by = ${workerId},
        lease_until = now() + ${msInterval(leaseMs)}
    from next
    where jobs.id = next.id
    returning jobs.id, jobs.kind, jobs.payload::text as payload, jobs.attempts, jobs.max_attempts,
      jobs.partner_id, (extract(epoch from jobs.deadline_at) * 1000)::float8 as deadline_ms,
      (jobs.attempts > jobs.max_attempts or jobs.deadline_at <= now()) as expired`);
  return rowsOf<ClaimedRow>(result);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

/**
 * Runs the outbox: claims up to `concurrency` jobs at a time, polling every `pollMs` (at once when
 * this process enqueues or a retry it scheduled falls due), and holds each for `leaseMs`. Every state change is fenced on
 * (locked_by, attempts), so a worker that lost its lease cannot overwrite the job's newer state.
 */
export function startWorker(ctx: AppContext, opts: WorkerOptions = {}): Worker {
  const { pollMs, leaseMs, concurrency } = ctx.config.worker;
  const id = opts.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const log = ctx.log.child({ worker: id });
  const inFlight = new Set<Promise<void>>();
  let stopping = false;

  // Sleeping and being woken: by an enqueue in this process, a finished job (a free slot), or stop.
  let woken = false;
  let wake: (() => void) | undefined;
  // An enqueue wakes us before its transaction commits, so poll quickly a few times after one.
  let quickPolls = 0;
  const nudge = () => {
    woken = true;
    wake?.();
  };
  // Wake-ups at a known due time (a retry this worker scheduled, a job enqueued for later), so
  // work in this process never waits for the poll; polling is for other processes and leases.
  const timers = new Set<NodeJS.Timeout>();
  const wakeAt = (ms: number) => {
    if (stopping || ms > MAX_TIMER_MS) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      nudge();
    }, ms + 2);
    timers.add(timer);
  };
  const unsubscribe = onEnqueue((runAt) => {
    const due = runAt ? runAt.getTime() - Date.now() : 0;
    if (due > 0) return wakeAt(due);
    quickPolls = 3;
    nudge();
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

  const fenced = (job: Job) =>
    and(
      eq(jobs.id, job.id),
      eq(jobs.status, 'running'),
      eq(jobs.lockedBy, id),
      eq(jobs.attempts, job.attempt),
    );

  async function succeed(def: JobKind, job: Job, result: unknown) {
    const finish = async (db: DbOrTx) => {
      const [row] = await db
        .update(jobs)
        .set({ status: 'succeeded', finishedAt: sql`now()`, leaseUntil: null })
        .where(fenced(job))
        .returning({ id: jobs.id });
      if (!row) log.warn({ job: job.id }, 'lease lost before the job finished; its new holder decides');
      return Boolean(row);
    };
    // The common case (no hook) is one statement; a hook shares the status change's transaction.
    const { onSucceeded } = def;
    if (!onSucceeded) return void (await finish(ctx.db));
    await ctx.db.transaction(async (tx) => {
      if (await finish(tx)) await onSucceeded(tx, job, result, ctx);
    });
  }

  /** Schedules a retry, or goes dead (and runs onDead in the same transaction) when none is left. */
  async function fail(
    def: JobKind,
    job: Job,
    error: string,
    opts: { permanent?: boolean; attemptStarted?: boolean },
  ) {
    const delay = backoffDelay(def.backoff, job.attempt);
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
        await def.onDead?.(tx, { ...job, error }, ctx);
      }
      return row.status;
    });
    if (status === 'pending') wakeAt(delay);
  }

  async function run(row: ClaimedRow) {
    const def = jobKind(row.kind);
    if (!def) return; // claimed only kinds this process knows
    const job: Job = {
      id: row.id,
      kind: row.kind,
      payload: undefined,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      partnerId: row.partner_id,
      deadlineAt: new Date(row.deadline_ms),
    };
    try {
      job.payload = JSON.parse(row.payload);
      if (row.expired) {
        const why =
          row.attempts > row.max_attempts
            ? `The worker running attempt ${row.max_attempts} of ${row.max_attempts} stopped before finishing it.`
            : 'The deadline passed before another attempt could start.';
        return await fail(def, job, why, { permanent: true, attemptStarted: false });
      }
      let result: unknown;
      try {
        result = await def.handle(job, ctx);
      } catch (err) {
        return await fail(def, job, message(err), { permanent: err instanceof PermanentJobError });
      }
      try {
        await succeed(def, job, result);
      } catch (err) {
        await fail(def, job, `onSucceeded failed: ${message(err)}`, {});
      }
    } catch (err) {
      // Recording the outcome failed (database down, or onDead threw): the lease expires and the
      // job is claimed again, so nothing is lost.
      log.error({ err, job: job.id }, 'could not record the outcome of a job');
    }
  }

  const loop = (async () => {
    while (!stopping) {
      woken = false;
      const free = concurrency - inFlight.size;
      const kinds = jobKindNames();
      let claimed: ClaimedRow[] = [];
      if (free > 0 && kinds.length > 0) {
        try {
          claimed = await claim(ctx.db, id, free, leaseMs, kinds);
        } catch (err) {
          log.error({ err }, 'claiming jobs failed');
        }
      }
      for (const row of claimed) {
        const p: Promise<void> = run(row).finally(() => {
          inFlight.delete(p);
          nudge();
        });
        inFlight.add(p);
      }
      if (claimed.length > 0 && claimed.length === free) continue; // there may be more due
      const quick = quickPolls > 0 && claimed.length === 0;
      if (quick) quickPolls--;
      await sleep(quick ? Math.min(pollMs, 15) : pollMs);
    }
  })();

  let stopped: Promise<void> | undefined;
  return {
    id,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        unsubscribe();
        for (const timer of timers) clearTimeout(timer);
        wake?.();
        await loop;
        await Promise.allSettled([...inFlight]);
      })()),
  };
}
