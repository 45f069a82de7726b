import { asc, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../../test/db.ts';
import type { Database } from '../db/client.ts';
import { acquireLease, releaseLease } from '../db/leases.ts';
import { deliveryAttempts, jobs } from '../db/schema/index.ts';
import { pruneFinished } from './retention.ts';

let database: Database;
beforeAll(async () => {
  database = await testDatabase();
});
afterAll(async () => {
  await database?.close();
});

const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

async function job(id: string, status: 'pending' | 'running' | 'succeeded' | 'dead', ageDays: number) {
  const at = ago(ageDays);
  await database.db.insert(jobs).values({
    id,
    kind: 'test.any',
    payload: {},
    status,
    maxAttempts: 1,
    deadlineAt: at,
    runAt: at,
    createdAt: at,
    finishedAt: status === 'succeeded' || status === 'dead' ? at : null,
  });
}

async function attempt(id: string, jobId: string | null, ageDays: number) {
  await database.db.insert(deliveryAttempts).values({
    id,
    jobId,
    attempt: 1,
    method: 'POST',
    url: 'http://127.0.0.1:9/x',
    latencyMs: 1,
    createdAt: ago(ageDays),
  });
}

describe('retention', () => {
  it('deletes only what finished before the cut-off, with its attempts, in batches', async () => {
    await job('job_old_ok', 'succeeded', 40);
    await job('job_old_dead', 'dead', 31);
    await job('job_recent_ok', 'succeeded', 29);
    await job('job_old_pending', 'pending', 40); // a retry long overdue: never pruned
    await job('job_old_running', 'running', 40);
    for (let i = 0; i < 5; i++) await job(`job_batch_${i}`, 'succeeded', 60);
    await attempt('att_old_ok', 'job_old_ok', 40);
    await attempt('att_old_dead', 'job_old_dead', 31);
    await attempt('att_recent', 'job_recent_ok', 29);
    await attempt('att_pending', 'job_old_pending', 40);
    await attempt('att_loose_old', null, 45); // a token exchange outside any job
    await attempt('att_loose_new', null, 1);

    const gone = await pruneFinished(database.db, { olderThanMs: 30 * DAY, batchSize: 2 });
    expect(gone).toEqual({ jobs: 7, attempts: 3 });
    const left = await database.db.select({ id: jobs.id }).from(jobs).orderBy(asc(jobs.id));
    expect(left.map((r) => r.id)).toEqual(['job_old_pending', 'job_old_running', 'job_recent_ok']);
    const attemptsLeft = await database.db
      .select({ id: deliveryAttempts.id })
      .from(deliveryAttempts)
      .orderBy(asc(deliveryAttempts.id));
    expect(attemptsLeft.map((r) => r.id)).toEqual(['att_loose_new', 'att_pending', 'att_recent']);
  });

  it('is done by one process at a time: the lease has one holder until it expires or is released', async () => {
    expect(await acquireLease(database.db, 'outbox.prune', 'proc-a', 60_000)).toBe(true);
    expect(await acquireLease(database.db, 'outbox.prune', 'proc-b', 60_000)).toBe(false);
    expect(await acquireLease(database.db, 'outbox.prune', 'proc-a', 60_000)).toBe(true); // renewal
    await releaseLease(database.db, 'outbox.prune', 'proc-a');
    expect(await acquireLease(database.db, 'outbox.prune', 'proc-b', 60_000)).toBe(true);
    // An expired lease goes to whoever asks next.
    await database.db.execute(sql`update leases set until = now() - interval '1 second'`);
    expect(await acquireLease(database.db, 'outbox.prune', 'proc-a', 60_000)).toBe(true);
  });
});
