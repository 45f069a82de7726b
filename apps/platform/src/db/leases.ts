import { sql } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { msInterval, rowsOf } from './sql.ts';

/**
 * Takes (or renews) the named lease for `ms` when it is free, expired, or already `holder`'s;
 * answers whether `holder` holds it now. Work that one process at a time should do (pruning) runs
 * only while its lease is held, so any number of processes can share one database.
 */
export async function acquireLease(db: DbOrTx, name: string, holder: string, ms: number): Promise<boolean> {
  const result = await db.execute(sql`
    insert into leases (name, holder, until)
    values (${name}, ${holder}, now() + ${msInterval(ms)})
    on conflict (name) do update set holder = excluded.holder, until = excluded.until
    where leases.until <= now() or leases.holder = excluded.holder
    returning holder`);
  return rowsOf(result).length > 0;
}

/** Gives the lease up early (a clean stop), so another process need not wait for it to expire. */
export async function releaseLease(db: DbOrTx, name: string, holder: string): Promise<void> {
  await db.execute(sql`delete from leases where name = ${name} and holder = ${holder}`);
}
