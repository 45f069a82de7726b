import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { jobs } from '../db/schema/index.ts';
import { jobKind, type JobKind } from './kinds.ts';
import { msInterval } from './sql.ts';

export interface EnqueueInput<P> {
  /** A kind's name or its definition (the definition types the payload). */
  kind: string | JobKind<P>;
  payload: P;
  partnerId?: string | null | undefined;
  /**
   * At most one job per key, ever: enqueuing a key again is a no-op answering the first job's id
   * (e.g. `pos.order:<order id>` so one order is sent once however often the caller retries).
   */
  dedupeKey?: string | undefined;
  /** Not before this time (default: now). The deadline counts from here. */
  runAt?: Date | undefined;
  /** Overrides of the kind's limits for this one job. */
  maxAttempts?: number | undefined;
  deadlineMs?: number | undefined;
}

/**
 * Writes a pending job with the caller's `tx`, so it commits (or rolls back) together with the
 * state change that causes it. Answers the job id.
 */
export async function enqueue<P>(db: DbOrTx, input: EnqueueInput<P>): Promise<string> {
  const def = typeof input.kind === 'string' ? jobKind(input.kind) : input.kind;
  if (!def) throw new Error(`Unknown job kind ${String(input.kind)}: import the module that defines it`);
  const runAt = input.runAt ? sql`${input.runAt.toISOString()}::timestamptz` : sql`now()`;
  const id = newId('job');
  const inserted = await db
    .insert(jobs)
    .values({
      id,
      kind: def.kind,
      payload: input.payload,
      maxAttempts: input.maxAttempts ?? def.maxAttempts,
      runAt,
      deadlineAt: sql`${runAt} + ${msInterval(input.deadlineMs ?? def.deadlineMs)}`,
      partnerId: input.partnerId ?? null,
      dedupeKey: input.dedupeKey ?? null,
    })
    .onConflictDoNothing({ target: jobs.dedupeKey })
    .returning({ id: jobs.id });
  if (inserted.length === 0 && input.dedupeKey) {
    const [existing] = await db.select({ id: jobs.id }).from(jobs).where(eq(jobs.dedupeKey, input.dedupeKey));
    if (existing) return existing.id;
  }
  wakeLocalWorkers(input.runAt);
  return id;
}

// Workers in this process are woken on enqueue; workers elsewhere find the job on their next poll.
const wakers = new Set<(runAt: Date | undefined) => void>();

export function onEnqueue(wake: (runAt: Date | undefined) => void): () => void {
  wakers.add(wake);
  return () => wakers.delete(wake);
}

function wakeLocalWorkers(runAt: Date | undefined): void {
  for (const wake of wakers) wake(runAt);
}
