import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import type { Backoff } from './backoff.ts';

/** A claimed job as its handler sees it. */
export interface Job<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  maxAttempts: number;
  partnerId: string | null;
  deadlineAt: Date;
}

/** A job that reached `dead`, with the error of its last attempt. */
export type DeadJob<P = unknown> = Job<P> & { error: string };

export interface JobKind<P = unknown, R = unknown> {
  /** Dotted name stored in `jobs.kind`, e.g. `partner.http`. */
  kind: string;
  /** Attempts before the job goes dead (the first attempt counts). */
  maxAttempts: number;
  /** From the job's run_at at enqueue: past this no new attempt starts and the job goes dead. */
  deadlineMs: number;
  backoff: Backoff;
  /**
   * Does the work (typically one partner call via `deliver`). Throwing retries with backoff;
   * `PermanentJobError` goes straight to dead. Keep its total time well under the worker lease.
   */
  handle(job: Job<P>, ctx: AppContext): Promise<R>;
  /** Runs in the transaction that marks the job succeeded (record what the partner answered). */
  onSucceeded?(tx: Tx, job: Job<P>, result: R, ctx: AppContext): Promise<void>;
  /** Runs in the transaction that marks the job dead (e.g. tell the DSP the order failed). */
  onDead?(tx: Tx, job: DeadJob<P>, ctx: AppContext): Promise<void>;
}

/** Thrown by a handler when retrying cannot help (the partner was deleted, a 4xx that means "never"). */
export class PermanentJobError extends Error {}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const registry = new Map<string, JobKind<any, any>>();

/**
 * Registers a job kind when its module is imported. Every process that runs a worker imports the
 * same modules, so each knows the same kinds; a worker claims only kinds it knows.
 */
export function defineJobKind<P, R = unknown>(def: JobKind<P, R>): JobKind<P, R> {
  if (registry.has(def.kind)) throw new Error(`Job kind ${def.kind} is defined twice`);
  if (def.maxAttempts < 1) throw new Error(`Job kind ${def.kind}: maxAttempts must be at least 1`);
  registry.set(def.kind, def);
  return def;
}

export function jobKind(kind: string): JobKind | undefined {
  return registry.get(kind);
}

export function jobKindNames(): string[] {
  return [...registry.keys()];
}
