import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { MenuDryRun, MenuPublication } from '@stream/contracts/apis/partner/menus';
import type { PartnerAuth } from '../auth/access-token.ts';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { catalogs, locationBindings, menuPublications, orgLocations, orgs } from '../db/schema/index.ts';
import { asPartnerFailure } from '../connectors/index.ts';
import { ApiError } from '../http/errors.ts';
import { creationOrder, pageOf, pageWindow, limitToWindow, type PageQuery } from '../http/pagination.ts';
import { resolve } from './build.ts';
import { catalogVersionOf, latestCatalog, pullCatalog } from './catalogs.ts';
import { catalogAsSaid } from './object-updates.ts';
import { diffMenus } from './diff.ts';
import { fileOf, lastPublished, planPublish, storesOf, targetOf } from './publish.ts';

/** The Partner API's side of menus: who may see a location's, and what they see. */

const notFound = (id: string) =>
  new ApiError(
    'not_found',
    `No location ${id} is visible to you: it must be a location of your POS or of your organisations.`,
  );

/** The org location, when the caller is its POS or its org's white-label partner (an org-limited token: that org only). */
export async function findVisibleLocation(
  db: DbOrTx,
  auth: Pick<PartnerAuth, 'partnerId' | 'orgId'>,
  id: string,
) {
  const [found] = await db
    .select({ location: orgLocations, orgPartnerId: orgs.partnerId })
    .from(orgLocations)
    .innerJoin(orgs, eq(orgs.id, orgLocations.orgId))
    .where(eq(orgLocations.id, id));
  if (!found || (auth.orgId && auth.orgId !== found.location.orgId)) throw notFound(id);
  if (auth.partnerId !== found.location.sourcePartnerId && auth.partnerId !== found.orgPartnerId)
    throw notFound(id);
  return found.location;
}

export async function locationCatalog(ctx: AppContext, auth: PartnerAuth, locationId: string) {
  const location = await findVisibleLocation(ctx.db, auth, locationId);
  const row = await latestCatalog(ctx.db, location.id);
  if (!row)
    throw new ApiError(
      'not_found',
      `The catalog of ${location.id} was not pulled yet: publish or dry-run first.`,
    );
  return { catalog: catalogVersionOf(row) };
}

/** Pulls the catalog now and builds every bound store's file without publishing it. */
export async function dryRun(ctx: AppContext, auth: PartnerAuth, locationId: string) {
  const location = await findVisibleLocation(ctx.db, auth, locationId);
  // The POS could not be reached or gave no catalog: 502, as every call made for a partner.
  const row = await pullCatalog(ctx, location).catch((err: unknown) => {
    throw asPartnerFailure(err);
  });
  const { catalog, problems } = await catalogAsSaid(ctx.db, location, row);
  const stores: z.input<typeof MenuDryRun>[] = [];
  for (const { binding, dsp } of await storesOf(ctx.db, location.id)) {
    const target = targetOf(location, dsp);
    const resolved = resolve(catalog, target, problems);
    const file = fileOf(resolved, target.form);
    const last = await lastPublished(ctx.db, binding.id);
    stores.push({
      binding_id: binding.id,
      dsp: dsp.slug,
      dsp_store_id: binding.dspProviderId,
      form: target.form,
      would_publish: resolved.rejections.length === 0,
      rejections: resolved.rejections,
      diff: last?.file ? diffMenus(last.file, file) : null,
      menu_file: file,
    });
  }
  return { catalog: catalogVersionOf(row), stores };
}

export async function publishNow(ctx: AppContext, auth: PartnerAuth, locationId: string) {
  const location = await findVisibleLocation(ctx.db, auth, locationId);
  await planPublish(ctx.db, { location_id: location.id, cause: 'partner' });
  return { queued: true as const };
}

const PUBLICATIONS_ORDER = creationOrder(
  'menu-publications',
  menuPublications.createdAt,
  menuPublications.id,
  'desc',
);

export async function publicationsOf(
  ctx: AppContext,
  auth: PartnerAuth,
  locationId: string,
  query: PageQuery,
) {
  const window = pageWindow(PUBLICATIONS_ORDER.order, query);
  const location = await findVisibleLocation(ctx.db, auth, locationId);
  const rows = await limitToWindow(
    ctx.db
      .select({
        p: menuPublications,
        store: locationBindings.dspProviderId,
        version: catalogs.version,
        instant: PUBLICATIONS_ORDER.instant,
      })
      .from(menuPublications)
      .innerJoin(locationBindings, eq(locationBindings.id, menuPublications.bindingId))
      .leftJoin(catalogs, eq(catalogs.id, menuPublications.catalogId))
      .where(and(eq(menuPublications.locationId, location.id), PUBLICATIONS_ORDER.where(window)))
      .orderBy(...PUBLICATIONS_ORDER.orderBy)
      .$dynamic(),
    window,
  );
  const { items, ...page } = pageOf(window, rows, (r) => [r.instant, r.p.id]);
  const publications: z.input<typeof MenuPublication>[] = items.map(({ p, store, version }) => ({
    _id: p.id,
    binding_id: p.bindingId,
    dsp_store_id: store,
    form: p.form,
    status: p.status,
    failure_code: p.failureCode,
    failure_reason: p.failureReason,
    cause: p.cause,
    catalog_version: version,
    created_at: p.createdAt.toISOString(),
    finished_at: p.finishedAt?.toISOString() ?? null,
  }));
  return { publications, ...page };
}
