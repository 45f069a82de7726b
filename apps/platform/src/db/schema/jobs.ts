import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { partners } from './partners.ts';
import { createdAt, id, timestamptz } from './columns.ts';

/**
 * The outbox. A job is written in the same transaction as the state change that causes it, and
 * claimed by any platform process with FOR UPDATE SKIP LOCKED plus a lease.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: id(),
    /** Enqueue order: jobs of one ordering key run in `seq` order. */
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    status: text('status', { enum: ['pending', 'running', 'succeeded', 'dead'] })
      .notNull()
      .default('pending'),
    /** Attempts started so far (incremented when claimed, so a crash mid-attempt still counts). */
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    runAt: timestamptz('run_at').notNull().defaultNow(),
    /** Past this time no new attempt starts; the job goes dead. */
    deadlineAt: timestamptz('deadline_at').notNull(),
    leaseUntil: timestamptz('lease_until'),
    /** The worker holding (or, once finished, last holding) the job. */
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    /** Optional: at most one job per key, ever (enqueue answers the first job's id again). */
    dedupeKey: text('dedupe_key').unique(),
    /** Fairness: a worker runs at most WORKER_PARTNER_CONCURRENCY jobs of one partner at a time. */
    partnerId: text('partner_id'),
    /** Optional: jobs of one key run one at a time in `seq` order (a failing head holds the rest). */
    orderingKey: text('ordering_key'),
    createdAt: createdAt(),
    finishedAt: timestamptz('finished_at'),
  },
  (t) => [
    // The unfinished jobs of a key, for "is an earlier one still pending or running?".
    index('jobs_ordering')
      .on(t.orderingKey, t.seq)
      .where(sql`ordering_key is not null and status in ('pending', 'running')`),
    // Retention: finished jobs by age.
    index('jobs_finished')
      .on(t.finishedAt)
      .where(sql`status in ('succeeded', 'dead')`),
    index('jobs_due')
      .on(t.runAt)
      .where(sql`status = 'pending'`),
    index('jobs_leased')
      .on(t.leaseUntil)
      .where(sql`status = 'running'`),
  ],
);

/**
 * One row per HTTP attempt to a partner: what was sent, what came back, how long it took. Written
 * before the call and completed after it, so `finished_at` null means in flight, or interrupted
 * (the process died mid-call). Secret fields (marked in the contracts) are redacted.
 */
export const deliveryAttempts = pgTable(
  'delivery_attempts',
  {
    id: id(),
    jobId: text('job_id').references(() => jobs.id),
    partnerId: text('partner_id'),
    attempt: integer('attempt').notNull(),
    method: text('method').notNull(),
    url: text('url').notNull(),
    requestBody: text('request_body'),
    responseStatus: integer('response_status'),
    responseExcerpt: text('response_excerpt'),
    /** Null until the attempt finished. */
    latencyMs: integer('latency_ms'),
    error: text('error'),
    createdAt: createdAt(),
    /** When the outcome was recorded; null: in flight, or interrupted by a crash. */
    finishedAt: timestamptz('finished_at'),
  },
  (t) => [
    index('delivery_attempts_job').on(t.jobId),
    index('delivery_attempts_partner').on(t.partnerId, t.createdAt),
    // Retention: attempts made outside any job, by age.
    index('delivery_attempts_loose')
      .on(t.createdAt)
      .where(sql`job_id is null`),
  ],
);

/**
 * Named leases on work that one process at a time should do (pruning): whoever holds an unexpired
 * lease does it; a holder that dies loses it when it expires.
 */
export const leases = pgTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  until: timestamptz('until').notNull(),
});

/**
 * A circuit breaker per partner (`jobs/circuit.ts`): the outcomes of deliveries to it in the current
 * window, and whether its deliveries are paused (`open`) until `retry_at`. Written by the job kinds
 * that opt in (event deliveries); read by every claim.
 */
export const partnerCircuits = pgTable('partner_circuits', {
  partnerId: text('partner_id')
    .primaryKey()
    .references(() => partners.id),
  state: text('state', { enum: ['closed', 'open'] })
    .notNull()
    .default('closed'),
  windowStartedAt: timestamptz('window_started_at').notNull().defaultNow(),
  windowAttempts: integer('window_attempts').notNull().default(0),
  windowFailures: integer('window_failures').notNull().default(0),
  /** Times it opened in a row without a success: the pause doubles with each. */
  opens: integer('opens').notNull().default(0),
  openedAt: timestamptz('opened_at'),
  retryAt: timestamptz('retry_at'),
  lastError: text('last_error'),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});
