import { and, between, eq, or, sql } from 'drizzle-orm';
import type { Store } from '@stream/contracts/apis/hr-stores/index';
import type { StoreTimeZone } from '@stream/contracts/hosted';
import type { PartnerAuth } from '../../auth/bearer.ts';
import type { DbOrTx } from '../../db/client.ts';
import { companies, companyGrants, stores } from '../../db/schema/index.ts';
import { ApiError } from '../../http/errors.ts';
import { storeNotVisible, type StoreRow } from '../access.ts';
import { boundingBox, greatCircleMiles, type Point } from './geo.ts';

/** A store as the Store API shows it. */
export function storeToWire(row: StoreRow, companyName: string): Store {
  return {
    id: row.id,
    companyId: row.companyId,
    companyName,
    name: row.name,
    phoneNumber: row.phoneNumber,
    email: row.email,
    address: row.address,
    additionalAddressInfo: row.additionalAddressInfo,
    city: row.city,
    state: row.state,
    postalcode: row.postalcode,
    primaryContact: row.primaryContact,
    timeZone: row.timeZone as StoreTimeZone,
    paymentAddressRequiredForPayments: row.paymentAddressRequiredForPayments,
    latitude: row.latitude,
    longitude: row.longitude,
  };
}

const granted = (auth: PartnerAuth) =>
  sql`exists (select 1 from ${companyGrants} where ${companyGrants.companyId} = ${companies.id} and ${companyGrants.partnerId} = ${auth.partnerId})`;

/** The store with its company's name, if its company is granted to the caller. */
export async function findStoreForWire(db: DbOrTx, auth: PartnerAuth, storeId: number): Promise<Store> {
  const [row] = await db
    .select({ store: stores, companyName: companies.name })
    .from(stores)
    .innerJoin(companies, eq(companies.id, stores.companyId))
    .where(and(eq(stores.id, storeId), granted(auth)));
  if (!row) throw storeNotVisible(storeId);
  return storeToWire(row.store, row.companyName);
}

/**
 * The company's stores within `miles` of a point, nearest first. The box around the circle is a
 * range scan of the `(latitude, longitude)` index; the exact distance is computed for what it holds.
 */
export async function searchStores(
  db: DbOrTx,
  auth: PartnerAuth,
  companyId: number,
  center: Point,
  miles: number,
): Promise<(Store & { distance: number })[]> {
  const [company] = await db
    .select({ name: companies.name })
    .from(companies)
    .where(and(eq(companies.id, companyId), granted(auth)));
  if (!company) {
    throw new ApiError(
      'not_found',
      `No company ${companyId} is visible to you; check X-Company and your company grants.`,
    );
  }
  const box = boundingBox(center, miles);
  const rows = await db
    .select()
    .from(stores)
    .where(
      and(
        eq(stores.companyId, companyId),
        between(stores.latitude, box.minLatitude, box.maxLatitude),
        or(...box.longitudes.map(([west, east]) => between(stores.longitude, west, east))),
      ),
    );
  return rows
    .map((row) => ({
      row,
      distance: greatCircleMiles(center, { latitude: row.latitude!, longitude: row.longitude! }),
    }))
    .filter((r) => r.distance <= miles)
    .sort((a, b) => a.distance - b.distance || a.row.id - b.row.id)
    .map((r) => ({ ...storeToWire(r.row, company.name), distance: Math.round(r.distance * 100) / 100 }));
}
