import type { AppContext } from '../context.ts';
import type { DbOrTx, Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { part, run, runOne, statement, type Part } from '../db/raw.ts';
import type { AnyJobKind, JobKind } from './kinds.ts';

export interface EnqueueInput<P> {
  kind: JobKind<P>;
  /** Checked against the kind's schema here, so a malformed job is refused with the change that makes it. */
  payload: P;
  partnerId?: string | null | undefined;
  /**
   * At most one job per key, ever: enqueuing a key again is a no-op answering the first job's id
   * (e.g. `pos.order:<order id>` so one order is sent once however often the caller retries).
   */
  dedupeKey?: string | undefined;
  /**
   * Jobs of one ordering key (an order id, a DSP store) run one at a time, in the order they were
   * enqueued, across processes; a failing head holds back the ones behind it until it succeeds or
   * goes dead.
   */
  orderingKey?: string | undefined;
  /** Not before this time (default: now). The deadline counts from here. */
  runAt?: Date | undefined;
  /** Overrides of the kind's limits for this one job. */
  maxAttempts?: number | undefined;
  deadlineMs?: number | undefined;
  /**
   * Start the job in this process the moment the transaction commits (see {@link transaction}),
   * already claimed: no claim statement, no wake-up round trip. Only where the transaction is
   * serialised with every other enqueue on the same ordering key by a row lock (an order's calls:
   * every change of an order locks or updates its row first); elsewhere two transactions could
   * each see no earlier job of the key. Ignored outside `transaction`, for a later `runAt`, when
   * this process has no free slot, and when an earlier job of the key is unfinished: the job is
   * then an ordinary pending one.
   */
  runHere?: boolean | undefined;
  /**
   * Facts the enqueuing code has already read that the handler needs (rows it would otherwise read
   * again first), handed over in memory when the job starts here at once (`runHere`), as
   * `Job.context`. Never stored: a job that runs elsewhere, later or again reads them itself, so
   * the handler must work without it. A function gets the row of the statement that wrote the job
   * (see `PreparedJob.settle`).
   */
  context?: unknown;
}

/** A payload that does not match its kind's schema: a programming error, refused before anything is written. */
export class InvalidJobPayloadError extends Error {}

/** A job this process enqueued already claimed, to start once its transaction commits. */
export interface AdoptedJob {
  id: string;
  kind: AnyJobKind;
  payload: unknown;
  partnerId: string | null;
  orderingKey: string | null;
  maxAttempts: number;
  deadlineAt: Date;
  context: unknown;
}

/** What `transaction` needs of the worker of this process. */
export interface LocalRunner {
  readonly id: string;
  readonly leaseMs: number;
  /** Holds a slot for a job of this partner; false when none is free (or the worker is stopping). */
  reserve(partnerId: string | null): boolean;
  /** Gives back a slot `reserve` held, for a job that will not start here. */
  release(partnerId: string | null): void;
  /** Starts a committed job enqueued with a reserved slot. */
  adopt(job: AdoptedJob): void;
}

/** The transactions `transaction` runs, with the runner and the jobs to start after their commit. */
const localJobs = new WeakMap<DbOrTx, { runner: LocalRunner; adopted: AdoptedJob[] }>();

/** Each process's worker, once started, by its context: `transaction` hands it the jobs it may start at once. */
const runners = new WeakMap<AppContext, LocalRunner>();

/** Makes `runner` (the process's worker) start the `runHere` jobs enqueued with `ctx`. */
export function runJobsHere(ctx: AppContext, runner: LocalRunner): void {
  runners.set(ctx, runner);
}

/**
 * Runs `fn` in a transaction; the jobs it enqueues with `runHere` start in this process as soon as
 * it commits (a rollback gives their slots back). Without a worker in this process (the CLI,
 * tests of one module) it is a plain transaction.
 */
export async function transaction<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const runner = runners.get(ctx);
  if (!runner) return ctx.db.transaction(fn);
  const adopted: AdoptedJob[] = [];
  let result: T;
  try {
    result = await ctx.db.transaction((tx) => {
      localJobs.set(tx, { runner, adopted });
      return fn(tx);
    });
  } catch (err) {
    for (const job of adopted.splice(0)) runner.release(job.partnerId);
    throw err;
  }
  for (const job of adopted) runner.adopt(job);
  return result;
}

/**
 * Runs `fn` on the database outside any transaction (each statement commits by itself: use it for
 * work that is one statement), starting the jobs it enqueued with `runHere` once `fn` is done.
 */
export async function atOnce<T>(ctx: AppContext, fn: (db: DbOrTx) => Promise<T>): Promise<T> {
  const runner = runners.get(ctx);
  if (!runner) return fn(ctx.db);
  // A handle of its own (the database's methods, through its prototype) to key this call's jobs by.
  const db = Object.create(ctx.db) as DbOrTx;
  const adopted: AdoptedJob[] = [];
  localJobs.set(db, { runner, adopted });
  let result: T;
  try {
    result = await fn(db);
  } catch (err) {
    for (const job of adopted.splice(0)) runner.adopt(job); // committed before the failure: start them
    throw err;
  }
  for (const job of adopted) runner.adopt(job);
  return result;
}

/**
 * The job's row, as a part of a statement: the ordering key's transaction-scoped advisory lock
 * first (concurrent transactions enqueuing on one key commit in `seq` order, so a later seq is never
 * visible before an earlier one), then the row, claimed by `$10` (a worker id) when it may start at
 * once, else pending; `$12` (a condition on the rest of the statement, e.g. "the order was
 * inserted") must hold for the row to be written at all.
 */
const JOB_INSERT = `insert into jobs (id, kind, payload, max_attempts, run_at, deadline_at, partner_id, dedupe_key,
     ordering_key, status, attempts, locked_by, lease_until)
   select $1, $2, $3::jsonb, $4, at.t, at.t + $6::float8 * interval '1 millisecond', $7, $8, $9,
     case when here.yes then 'running' else 'pending' end, case when here.yes then 1 else 0 end,
     case when here.yes then $10 end,
     case when here.yes then now() + $11::float8 * interval '1 millisecond' end
   from (select case when $9::text is null then null
                else pg_advisory_xact_lock(hashtextextended($9::text, 7)) end) turn,
     (select coalesce($5::timestamptz, now()) as t) at,
     lateral (select $10::text is not null and at.t <= now() and ($9::text is null or not exists (
       select 1 from jobs p where p.ordering_key = $9::text and p.status in ('pending', 'running'))) as yes) here
   where GUARD
   on conflict (dedupe_key) do nothing
   returning id, status`;

const ENQUEUE = statement('jobs_enqueue', JOB_INSERT.replace('GUARD', 'true'));
const BY_DEDUPE_KEY = statement('jobs_by_dedupe_key', `select id from jobs where dedupe_key = $1`);

/** A job about to be written as part of a caller's statement (`prepareJob`). */
export interface PreparedJob {
  readonly id: string;
  /** The insert, for `compose`: it answers `id, status` (no row when the guard fails or the dedupe key is taken). */
  readonly insert: Part;
  /**
   * Call with the status the insert answered (undefined: nothing written, or the statement failed),
   * and the statement's row when the input's `context` is a function of it.
   */
  settle(status: string | undefined, row?: unknown): void;
}

/**
 * Checks a job and makes its insert, for a caller that writes it in a statement of its own (an
 * order with its first call, a move of an order with the calls it causes): `enqueue` in parts. The
 * caller runs the statement and then calls `settle` with the status the insert answered, also when
 * the statement failed, so a slot held for `runHere` is given back.
 */
export function prepareJob<P>(db: DbOrTx, input: EnqueueInput<P>, guard?: string): PreparedJob {
  const def = input.kind;
  const parsed = def.payload.safeParse(input.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidJobPayloadError(
      `Job ${def.kind}: the payload does not match its schema (${issue?.path.join('.') || 'payload'}: ${issue?.message}).`,
    );
  }
  const id = newId('job');
  const partnerId = input.partnerId ?? null;
  const local = input.runHere && !input.runAt ? localJobs.get(db) : undefined;
  const reserved = local?.runner.reserve(partnerId) ?? false;
  const maxAttempts = input.maxAttempts ?? def.maxAttempts;
  const deadlineMs = input.deadlineMs ?? def.deadlineMs;
  let settled = false;
  return {
    id,
    insert: part(guard ? JOB_INSERT.replace('GUARD', () => guard) : ENQUEUE.text, [
      id,
      def.kind,
      JSON.stringify(parsed.data),
      maxAttempts,
      input.runAt ?? null,
      deadlineMs,
      partnerId,
      input.dedupeKey ?? null,
      input.orderingKey ?? null,
      reserved ? local!.runner.id : null,
      local?.runner.leaseMs ?? null,
    ]),
    settle(status, row) {
      if (settled) return;
      settled = true;
      if (status === 'running' && reserved) {
        const { context } = input;
        local!.adopted.push({
          id,
          kind: def as AnyJobKind,
          payload: parsed.data,
          partnerId,
          orderingKey: input.orderingKey ?? null,
          maxAttempts,
          deadlineAt: new Date(Date.now() + deadlineMs),
          context: typeof context === 'function' ? (context as (row: unknown) => unknown)(row) : context,
        });
      } else if (reserved) local!.runner.release(partnerId);
    },
  };
}

/**
 * Writes a job with the caller's `tx`, so it commits (or rolls back) together with the state change
 * that causes it, and answers the job id. Workers hear of a pending job when the transaction commits
 * (a trigger NOTIFYs `jobs_due`), in this process and every other; a `runHere` job starts here.
 */
export async function enqueue<P>(db: DbOrTx, input: EnqueueInput<P>): Promise<string> {
  const job = prepareJob(db, input);
  let row: { id: string; status: string } | undefined;
  try {
    [row] = await run<{ id: string; status: string }>(db, ENQUEUE, job.insert.values);
  } finally {
    job.settle(row?.status);
  }
  if (!row && input.dedupeKey) {
    const existing = await runOne<{ id: string }>(db, BY_DEDUPE_KEY, [input.dedupeKey]);
    if (existing) return existing.id;
  }
  return job.id;
}
