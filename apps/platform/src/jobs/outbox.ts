import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { jobs } from '../db/schema/index.ts';
import type { JobKind } from './kinds.ts';
import { msInterval, rowsOf } from './sql.ts';

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
}

/** A payload that does not match its kind's schema: a programming error, refused before anything is written. */
export class InvalidJobPayloadError extends Error {}

/**
 * Writes a pending job with the caller's `tx`, so it commits (or rolls back) together with the
 * state change that causes it, and answers the job id. Workers hear of it when the transaction
 * commits (a trigger NOTIFYs `jobs_due`), in this process and every other.
 */
export async function enqueue<P>(db: DbOrTx, input: EnqueueInput<P>): Promise<string> {
  const def = input.kind;
  const parsed = def.payload.safeParse(input.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidJobPayloadError(
      `Job ${def.kind}: the payload does not match its schema (${issue?.path.join('.') || 'payload'}: ${issue?.message}).`,
    );
  }
  const runAt = input.runAt ? sql`${input.runAt.toISOString()}::timestamptz` : sql`now()`;
  const id = newId('job');
  const key = input.orderingKey ?? null;
  // With an ordering key, enqueue order is `seq` order: concurrent transactions enqueuing on one key
  // take turns (a transaction-scoped advisory lock, taken in the same statement as the insert) until
  // commit, so a later seq is never visible before an earlier one of the same key.
  const inserted = rowsOf<{ id: string }>(
    await db.execute(sql`
      with turn as (select ${key === null ? sql`null` : sql`pg_advisory_xact_lock(hashtextextended(${key}, 7))`})
      insert into jobs (id, kind, payload, max_attempts, run_at, deadline_at, partner_id, dedupe_key, ordering_key)
      select ${id}, ${def.kind}, ${JSON.stringify(parsed.data)}::jsonb, ${input.maxAttempts ?? def.maxAttempts},
        ${runAt}, ${runAt} + ${msInterval(input.deadlineMs ?? def.deadlineMs)},
        ${input.partnerId ?? null}, ${input.dedupeKey ?? null}, ${key}
      from turn
      on conflict (dedupe_key) do nothing
      returning id`),
  );
  if (inserted.length === 0 && input.dedupeKey) {
    const [existing] = await db.select({ id: jobs.id }).from(jobs).where(eq(jobs.dedupeKey, input.dedupeKey));
    if (existing) return existing.id;
  }
  return id;
}
