import { and, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { MenuInput } from '@stream/contracts/apis/hr-menu/menu';
import {
  GatewayCredentials,
  GeoFence,
  PrimaryContact,
  StoreOrderType,
} from '@stream/contracts/apis/hr-stores/index';
import { HOSTED_SCOPES } from '@stream/contracts/common';
import { StoreTimeZone } from '@stream/contracts/hosted';
import type { Db } from '../db/client.ts';
import { apiClients, companies, companyGrants, stores } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { encrypt } from '../http/secrets.ts';
import { findPartner } from '../partners/service.ts';
import { upsertStoreMenu } from './menus/store-menus.ts';
import { fieldPath } from '@stream/contracts/server/field-path';

/**
 * Companies and their stores come from the operator: `stream-platform companies import <file>` reads
 * a `CompanyFile` (the demo company, `DEMO_COMPANY`, is one) and `companies grant` lets a partner
 * call the hosted APIs for them.
 */

const Text = (max: number) => z.string().min(1).max(max);
const ImportedId = z.number().int().min(1).max(2_147_483_647);

export const CompanyFile = z.strictObject({
  company: z.strictObject({ id: ImportedId, name: Text(100) }),
  stores: z
    .array(
      z.strictObject({
        id: ImportedId,
        name: Text(30),
        phoneNumber: Text(20).optional(),
        email: z.email().max(80).optional(),
        address: Text(100).optional(),
        additionalAddressInfo: Text(25).optional(),
        city: Text(25).optional(),
        state: Text(2).optional(),
        postalcode: Text(10).optional(),
        timeZone: StoreTimeZone,
        latitude: z.number().min(-90).max(90).optional(),
        longitude: z.number().min(-180).max(180).optional(),
        // The Store API's fields only: any other key would be stored and never shown.
        primaryContact: PrimaryContact.strict().optional(),
        paymentAddressRequiredForPayments: z.boolean().default(false),
        menus: z.array(MenuInput).default([]),
        geoFences: z.array(GeoFence).default([]),
        orderTypes: z.array(StoreOrderType).default([]),
        gatewayCredentials: z.array(GatewayCredentials).default([]),
      }),
    )
    .max(100_000),
});
export type CompanyFile = z.input<typeof CompanyFile>;

export interface ImportSummary {
  company_id: number;
  stores: number;
  menus: number;
}

/** Creates or updates the company, its stores and their menus (by name), all or nothing. */
export async function importCompany(db: Db, key: Buffer, raw: unknown): Promise<ImportSummary> {
  const parsed = CompanyFile.safeParse(raw);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => ({
      path: fieldPath('', i.path as (string | number)[]) || '(file)',
      message: i.message,
    }));
    throw new ApiError(
      'validation_failed',
      `The company file is not valid: ${details[0]!.path}: ${details[0]!.message}`,
      details,
    );
  }
  const { company, stores: list } = parsed.data;
  return db.transaction(async (tx) => {
    await tx
      .insert(companies)
      .values(company)
      .onConflictDoUpdate({ target: companies.id, set: { name: company.name, updatedAt: sql`now()` } });
    let menus = 0;
    for (const { menus: storeMenus, ...store } of list) {
      const [owner] = await tx
        .select({ companyId: stores.companyId, orderTypes: stores.orderTypes })
        .from(stores)
        .where(eq(stores.id, store.id));
      if (owner && owner.companyId !== company.id) {
        throw new ApiError(
          'conflict',
          `Store ${store.id} belongs to company ${owner.companyId}, not ${company.id}.`,
        );
      }
      // Gateway account tokens are secrets: sealed with ENCRYPTION_KEY before they are stored.
      const gatewayCredentials = store.gatewayCredentials.map((c) => ({
        ...c,
        accountToken: encrypt(key, c.accountToken),
      }));
      const values = {
        ...store,
        gatewayCredentials,
        orderTypes: keepLiveEstimates(store.orderTypes, owner?.orderTypes ?? []),
        companyId: company.id,
      };
      await tx
        .insert(stores)
        .values(values)
        .onConflictDoUpdate({ target: stores.id, set: { ...values, updatedAt: sql`now()` } });
      for (const menu of storeMenus) {
        await upsertStoreMenu(tx, store.id, menu);
        menus += 1;
      }
    }
    return { company_id: company.id, stores: list.length, menus };
  });
}

/**
 * An order type's `estimatedTime` and who set it are the store's live settings (the Store API's
 * PATCH, a manager's busy night): an import keeps them for the order types the store has, as it
 * keeps the system message, and sets them only for new ones.
 */
function keepLiveEstimates(
  imported: readonly StoreOrderType[],
  stored: readonly StoreOrderType[],
): StoreOrderType[] {
  return imported.map((type) => {
    const live = stored.find((t) => t.id === type.id);
    return live
      ? {
          ...type,
          estimatedTime: live.estimatedTime,
          estimatedTimeManager: live.estimatedTimeManager,
          estimatedTimeManagerDate: live.estimatedTimeManagerDate,
        }
      : type;
  });
}

/** The scopes of the hosted APIs (`Scope` in the contracts), as SQL. */
const HOSTED_SCOPES_SQL = sql.raw(`ARRAY[${HOSTED_SCOPES.map((s) => `'${s}'`).join(', ')}]::text[]`);

/**
 * Lets a partner (id or slug) call the hosted APIs for a company's stores. Its root API client may
 * from then on ask for the `menu`, `orders` and `stores` scopes.
 */
export async function grantCompany(
  db: Db,
  companyId: number,
  partnerIdOrSlug: string,
): Promise<{ company_id: number; partner_id: string; scopes: string[] }> {
  const partner = await findPartner(db, partnerIdOrSlug);
  if (!partner) throw new ApiError('unknown_partner', `No partner ${partnerIdOrSlug}.`);
  const [company] = await db.select({ id: companies.id }).from(companies).where(eq(companies.id, companyId));
  if (!company) throw new ApiError('not_found', `No company ${companyId}; import it first.`);
  return db.transaction(async (tx) => {
    await tx.insert(companyGrants).values({ companyId, partnerId: partner.id }).onConflictDoNothing();
    const [root] = await tx
      .update(apiClients)
      .set({
        scopes: sql`ARRAY(SELECT DISTINCT unnest(${apiClients.scopes} || ${HOSTED_SCOPES_SQL}) ORDER BY 1)`,
      })
      .where(
        and(eq(apiClients.partnerId, partner.id), isNull(apiClients.orgId), isNull(apiClients.revokedAt)),
      )
      .returning({ scopes: apiClients.scopes });
    return { company_id: companyId, partner_id: partner.id, scopes: root?.scopes ?? [] };
  });
}
