import { createHash } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { posGetCatalog } from '@stream/contracts/apis/become-a-pos/catalog';
import type { CatalogVersion } from '@stream/contracts/apis/partner/menus';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import type { orgLocations } from '../db/schema/index.ts';
import { catalogs, integrations } from '../db/schema/index.ts';
import { parseJson, UnusableAnswerError } from '../connectors/index.ts';
import { merchant } from '../onboarding/merchant.ts';
import {
  KINDS,
  loadCatalog,
  normalizeCatalog,
  settleReferences,
  storeCatalog,
  type Catalog,
  type CatalogProblem,
  type StoredCatalog,
} from './catalog.ts';

/**
 * A location's catalog pulled from its POS and kept as versions: a pull that changes nothing (same
 * normalised catalog, same problems) makes no new version, so the version says when the catalog changed.
 */

export type CatalogRow = typeof catalogs.$inferSelect;
export type OrgLocation = typeof orgLocations.$inferSelect;

/**
 * Pulls the location's catalog as the merchant (`GET /stream-pos/v1/catalog`) and stores it if it
 * changed. A JSON object that breaks the contract somewhere is still a catalog: `normalizeCatalog`
 * checks it object by object and leaves the broken ones out, each with its problem. An answer that
 * is not a JSON object at all fails the pull (`UnusableAnswerError`).
 */
export async function pullCatalog(ctx: AppContext, location: OrgLocation): Promise<CatalogRow> {
  const [grant] = await ctx.db
    .select({ merchantId: integrations.merchantId })
    .from(integrations)
    .where(eq(integrations.id, location.integrationId));
  let raw: unknown;
  try {
    raw = await merchant.call(ctx, location.integrationId, posGetCatalog, {
      headers: {
        'x-provider-location-id': location.providerId,
        ...(grant?.merchantId ? { 'x-provider-merchant-id': grant.merchantId } : {}),
      },
    });
  } catch (err) {
    raw = err instanceof UnusableAnswerError ? parseJson(err.responseText) : undefined;
    if (!isJsonObject(raw)) throw err;
  }
  return saveCatalog(ctx.db, location.id, raw);
}

const isJsonObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Stores `raw` (as received) as the location's next version, unless it is the current one again. */
export async function saveCatalog(db: DbOrTx, locationId: string, raw: unknown): Promise<CatalogRow> {
  const { catalog, problems } = normalizeCatalog(raw);
  const stored = storeCatalog(catalog);
  const digest = createHash('sha256')
    .update(JSON.stringify([stored, problems]))
    .digest('hex');
  return db.transaction(async (tx) => {
    const [latest] = await tx
      .select()
      .from(catalogs)
      .where(eq(catalogs.locationId, locationId))
      .orderBy(desc(catalogs.version))
      .limit(1)
      .for('update');
    if (latest?.digest === digest) {
      const [touched] = await tx
        .update(catalogs)
        .set({ fetchedAt: new Date() })
        .where(eq(catalogs.id, latest.id))
        .returning();
      return touched!;
    }
    // Two pulls at once: the unique (location, version) index lets one insert; the other retries on top.
    const [row] = await tx
      .insert(catalogs)
      .values({
        id: newId('ctlg'),
        locationId,
        version: (latest?.version ?? 0) + 1,
        catalog: stored as unknown as Record<string, unknown[]>,
        problems,
        digest,
        referencesSettled: true,
      })
      .returning();
    return row!;
  });
}

export async function latestCatalog(db: DbOrTx, locationId: string): Promise<CatalogRow | undefined> {
  const [row] = await db
    .select()
    .from(catalogs)
    .where(and(eq(catalogs.locationId, locationId)))
    .orderBy(desc(catalogs.version))
    .limit(1);
  return row;
}

/**
 * A stored version as the catalog it is, with its problems. A version stored before normalising
 * settled references (`referencesSettled` false) is settled as it is read: it would otherwise fail
 * every publication made without a pull (MENU_CATALOG_MISMATCH) until the next one. A newer one is
 * read as stored (settling 5,000 items costs 11-18 ms, and a publication reads its catalog twice).
 */
export function catalogOf(row: CatalogRow): { catalog: Catalog; problems: CatalogProblem[] } {
  const catalog = loadCatalog(row.catalog as unknown as StoredCatalog);
  const problems = [...(row.problems as CatalogProblem[])];
  if (!row.referencesSettled) settleReferences(catalog, problems);
  return { catalog, problems };
}

export function catalogVersionOf(row: CatalogRow): z.input<typeof CatalogVersion> {
  const { catalog, problems } = catalogOf(row);
  return {
    location_id: row.locationId,
    version: row.version,
    fetched_at: row.fetchedAt.toISOString(),
    counts: Object.fromEntries(KINDS.map((k) => [k, catalog[k].size])),
    problems,
  };
}
