import { and, eq } from 'drizzle-orm';
import { STORE_TIME_ZONES, type StoreTimeZone } from '@stream/contracts/hosted';
import type { PartnerAuth } from '../auth/bearer.ts';
import type { DbOrTx } from '../db/client.ts';
import { companyGrants, stores } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { localTime } from './zoned-time.ts';

export type StoreRow = typeof stores.$inferSelect;

/** A store the caller may reach, with the IANA zone its business dates and hours are read in. */
export interface HostedStore extends StoreRow {
  zone: string;
}

export const storeNotVisible = (storeId: number) =>
  new ApiError('not_found', `No store ${storeId} is visible to you; check X-Store and your company grants.`);

/**
 * The store named by `X-Store` if its company is granted to the caller's partner. Anything else is
 * 404, never 403, so store ids of other companies do not leak.
 */
export async function findGrantedStore(
  db: DbOrTx,
  auth: PartnerAuth,
  storeId: number,
  /** Lock the store's row for a read-modify-write in the caller's transaction. */
  forUpdate = false,
): Promise<HostedStore> {
  const query = db
    .select({ store: stores })
    .from(stores)
    .innerJoin(companyGrants, eq(companyGrants.companyId, stores.companyId))
    .where(and(eq(stores.id, storeId), eq(companyGrants.partnerId, auth.partnerId)));
  const [row] = forUpdate ? await query.for('update', { of: stores }) : await query;
  if (!row) throw storeNotVisible(storeId);
  return hostedStoreOf(row.store);
}

/** The IANA zone a store's `timeZone` names (section 9's names). */
export const zoneOf = (timeZone: string): string => STORE_TIME_ZONES[timeZone as StoreTimeZone] ?? 'UTC';

/** A store row with the IANA zone its `timeZone` names. */
export const hostedStoreOf = (row: StoreRow): HostedStore => ({ ...row, zone: zoneOf(row.timeZone) });

/** The store's calendar date (YYYY-MM-DD) at an instant. */
export const storeDate = (store: Pick<HostedStore, 'zone'>, at: Date): string =>
  localTime(at, store.zone).date;
