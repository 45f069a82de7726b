import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { DbOrTx, Tx } from '../db/client.ts';
import type { Backoff } from './backoff.ts';
import type { Part } from '../db/raw.ts';

/** A claimed job as its handler sees it. */
export interface Job<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  maxAttempts: number;
  partnerId: string | null;
  orderingKey: string | null;
  deadlineAt: Date;
  /**
   * Fires when this worker lost the job's lease (another worker may run it now) or the process is
   * draining past its grace period. Pass it to every call the handler makes (`deliver` takes it).
   */
  signal: AbortSignal;
  /** Writes of the delivery log to make with the job's outcome (see `JobRef.defer`): set by the worker. */
  defer?: (write: Part) => void;
  /**
   * What the code that enqueued the job had already read for it (`EnqueueInput.context`), when the
   * job started in that process at once; undefined otherwise (read it yourself).
   */
  context?: unknown;
  /** Set by the worker while `settle` runs: see {@link CarriedFinish}. */
  finish?: CarriedFinish;
}

/**
 * The job's success (its fenced status change and its deferred log writes) as parts of a
 * statement, for a `settle` that writes one statement anyway: carrying them makes the outcome and
 * the success one statement and one commit instead of two. `take` answers the parts once (then
 * undefined): `ctes` go into the statement's WITH list, `select` into its final select list, whose
 * row (always one) goes to `done`. Not taken, the worker runs them itself after `settle`.
 */
export interface CarriedFinish {
  take():
    | {
        ctes: readonly (readonly [alias: string, part: Part])[];
        select: string;
        done(row: Record<string, unknown>): void;
      }
    | undefined;
}

/** A job that reached `dead`, with the error of its last attempt. */
export type DeadJob<P = unknown> = Job<P> & { error: string };

export interface JobKind<P = unknown, R = unknown> {
  /** Dotted name stored in `jobs.kind`, e.g. `partner.http`. */
  kind: string;
  /** The payload's shape: checked when the job is enqueued and again when it runs. */
  payload: z.ZodType<P>;
  /** Attempts before the job goes dead (the first attempt counts). */
  maxAttempts: number;
  /** From the job's run_at at enqueue: past this no new attempt starts and the job goes dead. */
  deadlineMs: number;
  backoff: Backoff;
  /**
   * Does the work (typically one partner call via `deliver`). Throwing retries with backoff;
   * `PermanentJobError` goes straight to dead. The lease is renewed while it runs; `job.signal`
   * fires if it is lost.
   */
  handle(job: Job<P>, ctx: AppContext): Promise<R>;
  /** Runs in the transaction that marks the job succeeded (record what the partner answered). */
  onSucceeded?(tx: Tx, job: Job<P>, result: R, ctx: AppContext): Promise<void>;
  /**
   * Instead of `onSucceeded`, for a hook whose writes are safe to make twice (each guarded, e.g. an
   * order's move on its status): runs on its own statements just before the job is marked
   * succeeded, saving the transaction's round trips. A crash between the two runs the job again.
   * A hook that writes one statement may carry the success in it (`job.finish`).
   */
  settle?(db: DbOrTx, job: Job<P>, result: R, ctx: AppContext): Promise<void>;
  /** Runs in the transaction that marks the job dead (e.g. tell the DSP the order failed). */
  onDead?(tx: Tx, job: DeadJob<P>, ctx: AppContext): Promise<void>;
}

// Kinds of any payload and result, as lists of them hold.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobKind = JobKind<any, any>;

/** Thrown by a handler when retrying cannot help (the partner was deleted, a 4xx that means "never"). */
export class PermanentJobError extends Error {}

/**
 * Declares a job kind. Declaring registers nothing: the worker runs exactly the kinds it is handed
 * (`JOB_KINDS` in `job-kinds.ts` for the platform), so a kind left out is refused at start instead of
 * waiting unclaimed for ever.
 */
export function defineJobKind<P, R = unknown>(def: JobKind<P, R>): JobKind<P, R> {
  if (def.maxAttempts < 1) throw new Error(`Job kind ${def.kind}: maxAttempts must be at least 1`);
  return def;
}

/** A retry policy a test can shorten after the kinds are defined (the worker reads it at each use). */
export interface DeadlinePolicy {
  deadlineMs: number;
  backoff: Backoff;
}

/**
 * Declares a kind retried until `policy`'s deadline, however many attempts that takes: a partner
 * call whose outcome somebody waits for (an order, an event, a menu).
 */
export function defineDeadlineJobKind<P, R = unknown>(
  policy: DeadlinePolicy,
  def: Omit<JobKind<P, R>, 'maxAttempts' | 'deadlineMs' | 'backoff'>,
): JobKind<P, R> {
  return defineJobKind({
    ...def,
    maxAttempts: 100_000, // the deadline ends it
    get deadlineMs() {
      return policy.deadlineMs;
    },
    get backoff() {
      return policy.backoff;
    },
  });
}

/** The kinds by name; two kinds with one name are a programming error, caught at start. */
export function kindMap(kinds: readonly AnyJobKind[]): Map<string, AnyJobKind> {
  const map = new Map<string, AnyJobKind>();
  for (const k of kinds) {
    if (map.has(k.kind) && map.get(k.kind) !== k) throw new Error(`Job kind ${k.kind} is defined twice`);
    map.set(k.kind, k);
  }
  return map;
}
