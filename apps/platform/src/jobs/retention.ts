import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { pruneIdempotencyKeys } from '../http/idempotency-keys.ts';
import { acquireLease, releaseLease } from '../db/leases.ts';
import { msInterval, rowsOf } from '../db/sql.ts';

/** Retention defaults: finished jobs and their delivery attempts are kept 30 days, pruned hourly. */
export const RETENTION_DEFAULTS = { days: 30, intervalMs: 60 * 60 * 1000, batchSize: 1000 };

const LEASE = 'outbox.prune';

/**
 * Deletes, in batches of `batchSize`, the jobs that finished (succeeded or dead) more than
 * `olderThanMs` ago with their delivery attempts, and the attempts made outside any job (token
 * exchanges, location listings) as old. Pending and running jobs are never touched, however old.
 * `renew` runs between batches (keeps the lease); answers how many jobs and attempts went.
 */
export async function pruneFinished(
  db: Db,
  opts: { olderThanMs: number; batchSize?: number; renew?: () => Promise<boolean> },
): Promise<{ jobs: number; attempts: number }> {
  const batch = opts.batchSize ?? RETENTION_DEFAULTS.batchSize;
  const cutoff = sql`now() - ${msInterval(opts.olderThanMs)}`;
  const total = { jobs: 0, attempts: 0 };
  for (;;) {
    // One statement a batch: the attempts of the batch's jobs, then the jobs (FKs are checked at its end).
    const result = await db.execute(sql`
      with old as (
        select id from jobs
        where status in ('succeeded', 'dead') and finished_at < ${cutoff}
        limit ${batch}
        for update skip locked
      ), gone_attempts as (
        delete from delivery_attempts where job_id in (select id from old) returning 1
      ), gone_jobs as (
        delete from jobs where id in (select id from old) returning 1
      )
      select (select count(*) from gone_jobs)::int as jobs, (select count(*) from gone_attempts)::int as attempts`);
    const [row] = rowsOf<{ jobs: number; attempts: number }>(result);
    total.jobs += row?.jobs ?? 0;
    total.attempts += row?.attempts ?? 0;
    if ((row?.jobs ?? 0) < batch || (opts.renew && !(await opts.renew()))) break;
  }
  for (;;) {
    const result = await db.execute(sql`
      with gone as (
        delete from delivery_attempts where id in (
          select id from delivery_attempts where job_id is null and created_at < ${cutoff} limit ${batch})
        returning 1
      )
      select count(*)::int as n from gone`);
    const n = rowsOf<{ n: number }>(result)[0]?.n ?? 0;
    total.attempts += n;
    if (n < batch || (opts.renew && !(await opts.renew()))) break;
  }
  return total;
}

export interface Pruner {
  stop(): Promise<void>;
}

/**
 * Prunes every `intervalMs` (and once shortly after start) in whichever process holds the
 * `outbox.prune` lease; the others skip that round. Each round also deletes the Idempotency-Keys
 * past their 24 hours (an expired key is reusable even before). Nothing is pruned with `days` = 0.
 */
export function startPruner(ctx: AppContext, holder: string): Pruner {
  const { days, intervalMs } = { ...RETENTION_DEFAULTS, ...ctx.config.retention };
  if (days <= 0) return { stop: async () => {} };
  const leaseMs = 10 * 60 * 1000;
  let running: Promise<void> | undefined;
  const round = () =>
    (running ??= (async () => {
      try {
        if (!(await acquireLease(ctx.db, LEASE, holder, leaseMs))) return;
        const gone = await pruneFinished(ctx.db, {
          olderThanMs: days * 24 * 60 * 60 * 1000,
          renew: () => acquireLease(ctx.db, LEASE, holder, leaseMs),
        });
        const keys = await pruneIdempotencyKeys(ctx.db);
        if (gone.jobs || gone.attempts || keys) {
          ctx.log.info(
            { ...gone, idempotency_keys: keys },
            'pruned finished jobs, attempts and expired keys',
          );
        }
      } catch (err) {
        ctx.log.error({ err }, 'pruning finished jobs failed');
      } finally {
        running = undefined;
      }
    })());
  const first = setTimeout(round, Math.min(intervalMs, 30_000));
  const timer = setInterval(round, intervalMs);
  first.unref();
  timer.unref();
  return {
    stop: async () => {
      clearTimeout(first);
      clearInterval(timer);
      await running;
      await releaseLease(ctx.db, LEASE, holder).catch(() => {});
    },
  };
}
