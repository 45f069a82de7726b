import { and, eq, gt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { DEFAULT_PREP_TIME_MINUTES } from '@stream/contracts';
import { dspReceiveEvent } from '@stream/contracts/apis/become-a-dsp/index';
import type { MenuFile } from '@stream/contracts/apis/become-a-dsp/menu-file';
import { PRICE_PLATFORMS } from '@stream/contracts/apis/become-a-pos/catalog';
import {
  posReceiveEvent,
  type MenuFailureCode,
  type PosMenuEvent,
} from '@stream/contracts/apis/become-a-pos/menu-events';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import {
  jobs,
  locationBindings,
  menuItems,
  menuPublications,
  orgLocations,
  partners,
} from '../db/schema/index.ts';
import { PartnerCallError, permanentIfGrantUnusable } from '../connectors/index.ts';
import { ApiError } from '../http/errors.ts';
import { defineDeadlineJobKind, defineJobKind, PermanentJobError } from '../jobs/kinds.ts';
import { enqueue } from '../jobs/outbox.ts';
import { merchant } from '../onboarding/merchant.ts';
import type { Partner } from '../partners/service.ts';
import { MENU_LIMITS, resolve, toV1, toV2, type MenuTarget, type Rejection, type Resolved } from './build.ts';
import { latestCatalog, pullCatalog, type CatalogRow } from './catalogs.ts';
import { menuFileUrl } from './files.ts';
import { catalogAsSaid, replayLaterUpdates } from './object-updates.ts';
import type { Catalog } from './catalog.ts';
import type { MenuSettings } from './settings.ts';
import { asClause } from '@stream/contracts/issue-sentences';

/**
 * Publishing a location's menu to its DSP stores, as outbox jobs: `menus.ingest` pulls the catalog
 * and plans one `menus.publish` per bound store; `menus.publish` builds the store's file, refuses it
 * locally when a check fails, else stores it and sends the DSP `location.publish` with a signed
 * `download_url`; `menus.notify-pos` tells the POS the outcome. A store's publishes run one at a
 * time (ordering key) and coalesce: one that a newer publish of the same store waits behind is
 * skipped, since the newer one reads the newest catalog anyway.
 */

export type Binding = typeof locationBindings.$inferSelect;
export type Publication = typeof menuPublications.$inferSelect;
type Location = typeof orgLocations.$inferSelect;

/** Retries of a publish: the DSP gets an hour (Retry-After honoured), then the failure is final. */
export const MENU_PUBLISH = { deadlineMs: 60 * 60_000, backoff: { baseMs: 2_000, maxMs: 5 * 60_000 } };

/** How a DSP's store takes its menus: the partner's settings `menu_form` (`v2` flag) and `max_modifier_depth`. */
export function targetOf(location: Location, dsp: Partner): MenuTarget & { form: 'v1' | 'v2' } {
  const settings = (dsp.settings ?? {}) as MenuSettings;
  const platform =
    settings.price_platform ?? ((PRICE_PLATFORMS as readonly string[]).includes(dsp.slug) ? dsp.slug : null);
  return {
    locationId: location.id,
    posLocationId: location.providerId,
    platform,
    prepTimeMinutes: location.prepTimeMinutes ?? DEFAULT_PREP_TIME_MINUTES,
    maxModifierDepth: settings.max_modifier_depth ?? MENU_LIMITS.maxModifierDepth,
    form: settings.menu_form === 'v2' ? 'v2' : 'v1',
  };
}

export function fileOf(resolved: Resolved, form: 'v1' | 'v2'): MenuFile {
  return form === 'v2' ? toV2(resolved) : toV1(resolved);
}

/** The location's live stores with their DSP (APPROVED bindings, or one of them). */
export async function storesOf(db: DbOrTx, locationId: string, bindingId?: string) {
  return db
    .select({ binding: locationBindings, dsp: partners })
    .from(locationBindings)
    .innerJoin(partners, eq(partners.id, locationBindings.dspPartnerId))
    .where(
      and(
        eq(locationBindings.locationId, locationId),
        eq(locationBindings.status, 'APPROVED'),
        bindingId ? eq(locationBindings.id, bindingId) : undefined,
      ),
    )
    .orderBy(locationBindings.createdAt);
}

const IngestPayload = z.object({
  location_id: z.string(),
  cause: z.string(),
  binding_id: z.string().optional(),
});

/** Plans a pull and publish of the location's menus (`binding_id`: that store only). */
export function planPublish(db: DbOrTx, payload: z.infer<typeof IngestPayload>, delayMs = 0) {
  return enqueue(db, {
    kind: menuIngest,
    payload,
    orderingKey: `menus:${payload.location_id}`,
    ...(delayMs > 0 ? { runAt: new Date(Date.now() + delayMs) } : {}),
  });
}

/** How long a `location.catalog.updated` waits for more of a burst before the catalog is pulled. */
export const CATALOG_DEBOUNCE_MS = { value: 2_000 };

/**
 * A pull and publish after a catalog change: none added while one is still waiting to run. A pull for
 * an object update naming an object no published menu holds (`object.updated`) publishes only to
 * stores whose menu is not already of the catalog it pulls: POS updates about objects sold in store
 * only must not send every DSP its menu again. Any waiting pull serves it; it serves no `catalog.updated`.
 */
export async function planCatalogPull(
  db: DbOrTx,
  locationId: string,
  cause: 'catalog.updated' | 'object.updated' = 'catalog.updated',
): Promise<void> {
  const [waiting] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        eq(jobs.orderingKey, `menus:${locationId}`),
        eq(jobs.kind, 'menus.ingest'),
        eq(jobs.status, 'pending'),
        cause === 'catalog.updated' ? sql`${jobs.payload}->>'cause' = ${cause}` : undefined,
      ),
    )
    .limit(1);
  if (!waiting) await planPublish(db, { location_id: locationId, cause }, CATALOG_DEBOUNCE_MS.value);
}

/** Retries of a catalog pull: the POS gets an hour, then each store it was for is told it failed (onDead). */
export const MENU_INGEST = { deadlineMs: 60 * 60_000, backoff: { baseMs: 2_000, maxMs: 5 * 60_000 } };

export const menuIngest = defineDeadlineJobKind<z.infer<typeof IngestPayload>, void>(MENU_INGEST, {
  kind: 'menus.ingest',
  payload: IngestPayload,
  async handle(job, ctx) {
    const [location] = await ctx.db
      .select()
      .from(orgLocations)
      .where(eq(orgLocations.id, job.payload.location_id));
    if (!location) throw new PermanentJobError(`Location ${job.payload.location_id} no longer exists.`);
    let catalog: CatalogRow;
    try {
      catalog = await pullCatalog(ctx, location);
    } catch (err) {
      if (err instanceof ApiError && err.code.startsWith('integration_'))
        throw new PermanentJobError(err.message);
      if (err instanceof PartnerCallError && err.reason !== 'unavailable')
        throw new PermanentJobError(err.message);
      throw err;
    }
    for (const { binding } of await storesOf(ctx.db, location.id, job.payload.binding_id)) {
      if (
        job.payload.cause === 'object.updated' &&
        (
          await ctx.db
            .select({ id: menuPublications.id })
            .from(menuPublications)
            .where(and(isHead(binding.id), eq(menuPublications.catalogId, catalog.id)))
        ).length > 0
      )
        continue;
      await planStorePublish(ctx.db, binding, job.payload.cause);
    }
  },
  // A pull given up (the POS failing past the hour, or an answer retrying cannot change) would
  // otherwise leave every store on its old menu without a word: each store it was for records a
  // failed publication, listed to the partners and told to the POS like any other.
  async onDead(tx, job, ctx) {
    const [location] = await tx
      .select()
      .from(orgLocations)
      .where(eq(orgLocations.id, job.payload.location_id));
    const stores = location ? await storesOf(tx, location.id, job.payload.binding_id) : [];
    ctx.log.warn(
      { job: job.id, location: job.payload.location_id, stores: stores.length, error: job.error },
      'menus: catalog pull given up; its stores keep their last menu',
    );
    const reason = `The catalog could not be pulled from the POS (GET /stream-pos/v1/catalog, ${job.attempt} attempt(s)): ${asClause(job.error)}. The store keeps its last menu; answer the pull with the catalog, then send location.catalog.updated or publish again.`;
    for (const store of stores)
      await recordMenuFailure(
        tx,
        { ...store, location: location! },
        { code: 'MENU_FAILURE_UNKNOWN', reason: reason.slice(0, 1000), cause: job.payload.cause },
      );
  },
});

/** Plans a publish of the location's latest catalog to one store (no pull). */
export function planStorePublish(db: DbOrTx, binding: Binding, cause: string) {
  return enqueue(db, {
    kind: menuPublish,
    payload: { binding_id: binding.id, cause },
    partnerId: binding.dspPartnerId,
    orderingKey: publishKey(binding.id),
  });
}

const publishKey = (bindingId: string) => `menu:${bindingId}`;
const PublishPayload = z.object({ binding_id: z.string(), cause: z.string() });

/** Why the DSP refused, in the failure codes of section 8. */
export function dspFailureOf(status: number | undefined, body: string | undefined): MenuFailureCode {
  if (status === 401) return 'DSP_UNAUTHORIZED';
  if (status === 403) return 'DSP_FORBIDDEN';
  if (status === 409) return 'MENU_ALREADY_PROCESSING';
  if (status === 429) return 'DSP_THROTTLED_REQUEST';
  if (status === undefined || status >= 500 || status === 408) return 'DSP_INTERNAL_FAILURE';
  if (status === 400 || status === 422) {
    if (body?.includes('MENU_COMPLIANCE_ISSUE')) return 'MENU_COMPLIANCE_ISSUE';
    if (body?.includes('MENU_CONTENT_ISSUE')) return 'MENU_CONTENT_ISSUE';
    return 'DSP_REJECTED';
  }
  return 'DSP_UNKNOWN';
}

/** Binding refusals a DSP can name in its 4xx answer to the connection call (anywhere in the body). */
const ONBOARDING_FAILURES = [
  'DSP_ACCOUNT_NOT_FOUND',
  'DSP_LOCATION_IS_NOT_ELIGIBLE',
  'DUPLICATE_LOCATION_ID',
  'DSP_LOCATION_ALREADY_ACTIVE',
] as const satisfies readonly MenuFailureCode[];

/** The binding refusal a DSP's answer names, if any: retrying cannot change it. */
export function onboardingFailureOf(body: string | undefined): MenuFailureCode | undefined {
  return ONBOARDING_FAILURES.find((code) => body?.includes(code));
}

export const menuPublish = defineDeadlineJobKind<z.infer<typeof PublishPayload>, void>(MENU_PUBLISH, {
  kind: 'menus.publish',
  payload: PublishPayload,
  async handle(job, ctx) {
    // Coalesce: a newer publish of this store waits behind this one and will read the newest catalog.
    const [newer] = await ctx.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          eq(jobs.orderingKey, publishKey(job.payload.binding_id)),
          eq(jobs.status, 'pending'),
          gt(jobs.seq, sql`(select seq from jobs where id = ${job.id})`),
        ),
      )
      .limit(1);
    if (newer) return;
    const [store] = await ctx.db
      .select({ binding: locationBindings, dsp: partners, location: orgLocations })
      .from(locationBindings)
      .innerJoin(partners, eq(partners.id, locationBindings.dspPartnerId))
      .innerJoin(orgLocations, eq(orgLocations.id, locationBindings.locationId))
      .where(eq(locationBindings.id, job.payload.binding_id));
    if (!store || store.binding.status !== 'APPROVED') return; // unbound meanwhile: nothing to publish to
    const catalog = await latestCatalog(ctx.db, store.location.id);
    if (!catalog) throw new PermanentJobError('The location has no catalog yet.');
    const publication = await startPublication(ctx.db, store, catalog, job.payload.cause);
    // Refused locally (recorded and told), or an object update that changes nothing in this store's menu.
    if (publication?.status !== 'publishing') return;
    try {
      await merchant.call(ctx, store.binding.dspIntegrationId, dspReceiveEvent, {
        body: {
          type: 'location.publish',
          location_id: store.binding.dspProviderId,
          download_url: menuFileUrl(ctx.config.publicUrl, ctx.config.encryptionKey, publication.id),
        },
        job,
        grant: undefined,
      });
    } catch (err) {
      const code =
        err instanceof PartnerCallError
          ? dspFailureOf(err.status, err.responseText)
          : err instanceof ApiError && err.code.startsWith('integration_')
            ? 'DSP_UNAUTHORIZED'
            : 'MENU_FAILURE_UNKNOWN';
      const reason = err instanceof Error ? err.message : String(err);
      const retry =
        code === 'DSP_INTERNAL_FAILURE' ||
        code === 'DSP_THROTTLED_REQUEST' ||
        code === 'MENU_ALREADY_PROCESSING';
      // The code so far: final when the retries run out (onDead), or at once when retrying cannot help.
      await ctx.db
        .update(menuPublications)
        .set({ failureCode: code, failureReason: reason })
        .where(eq(menuPublications.id, publication.id));
      if (retry) throw err;
      await finishPublication(ctx.db, publication.id, 'failed', code, reason);
      return;
    }
    // As the POS says it now: updates sent since the file was built are told after it.
    const said = await catalogAsSaid(ctx.db, store.location, catalog);
    await recordMenuItems(ctx.db, store, said.catalog);
    await replayLaterUpdates(ctx.db, store, publication, said.updates);
    await finishPublication(ctx.db, publication.id, 'published');
  },
  async onDead(tx, job) {
    const [open] = await tx
      .select()
      .from(menuPublications)
      .where(
        and(
          eq(menuPublications.bindingId, job.payload.binding_id),
          eq(menuPublications.status, 'publishing'),
        ),
      );
    if (open)
      await finishPublication(
        tx,
        open.id,
        'failed',
        open.failureCode ?? 'MENU_FAILURE_UNKNOWN',
        open.failureReason ?? job.error,
      );
  },
});

/**
 * The store's publication in flight (a retry continues it), else a new one built from `catalog`:
 * `failed` at once when a local check refuses it, else `publishing` with its file. The file is built
 * again at every attempt, from the latest catalog with the object updates that stand over it
 * (`catalogAsSaid`): a publication in flight whose file is no longer that one (a newer catalog, or an
 * object turned off or on while it waited to retry) is not continued, since the DSP never took it and
 * must never be sent a menu older than one that exists. It ends `failed` with what it met so far, its
 * reason saying what superseded it, and the newer file is published instead (never lost). A publish
 * for a category or modifier group update (`object.updated`) whose file is the store's last published
 * one is none.
 */
async function startPublication(
  db: DbOrTx,
  store: { binding: Binding; dsp: Partner; location: Location },
  catalog: CatalogRow,
  cause: string,
): Promise<Publication | undefined> {
  const target = targetOf(store.location, store.dsp);
  const said = await catalogAsSaid(db, store.location, catalog);
  const resolved = resolve(said.catalog, target, said.problems);
  const [rejection] = resolved.rejections;
  const file = fileOf(resolved, target.form);
  const [open] = await db
    .select({
      publication: menuPublications,
      // Compared in SQL (jsonb equality ignores key order); a row without a file is never current.
      current: sql<boolean>`coalesce(${menuPublications.file} = ${JSON.stringify(file)}::jsonb, false)`,
    })
    .from(menuPublications)
    .where(and(eq(menuPublications.bindingId, store.binding.id), eq(menuPublications.status, 'publishing')));
  if (open && !rejection && open.current && open.publication.catalogId === catalog.id)
    return open.publication;
  if (open) {
    const superseded =
      open.publication.catalogId === catalog.id
        ? 'superseded by the object updates since it was built, before the DSP took it'
        : `superseded by catalog version ${catalog.version} before the DSP took it`;
    const { failureCode, failureReason } = open.publication;
    await finishPublication(
      db,
      open.publication.id,
      'failed',
      failureCode ?? 'MENU_FAILURE_UNKNOWN',
      failureReason ? `${failureReason}; ${superseded}` : superseded,
    );
  }
  const id = newId('mpub');
  const row = {
    id,
    bindingId: store.binding.id,
    locationId: store.location.id,
    catalogId: catalog.id,
    form: target.form,
    file,
    cause,
  };
  if (cause === 'object.updated' && !rejection) {
    // Compared in SQL (jsonb equality ignores key order), so the head's file is not read out.
    const [same] = await db
      .select({ id: menuPublications.id })
      .from(menuPublications)
      .where(
        and(isHead(store.binding.id), sql`${menuPublications.file} = ${JSON.stringify(row.file)}::jsonb`),
      );
    if (same) return undefined;
  }
  if (rejection) {
    await db.insert(menuPublications).values({ ...row, status: 'publishing' });
    await finishPublication(db, id, 'failed', rejection.code, reasonOf(rejection));
    return { ...(await findPublication(db, id))! };
  }
  const [inserted] = await db
    .insert(menuPublications)
    .values({ ...row, status: 'publishing' })
    .returning();
  return inserted!;
}

/**
 * What each stream_id of the published menu stands for at the POS (`menu_items`), written once the
 * DSP took the file: from then on the store's orders name these ids.
 */
async function recordMenuItems(
  db: DbOrTx,
  store: { dsp: Partner; location: Location },
  catalog: Catalog,
): Promise<void> {
  const resolved = resolve(catalog, targetOf(store.location, store.dsp));
  const rows = [...resolved.mapping].map(([streamId, m]) => ({
    locationId: store.location.id,
    streamId,
    kind: m.kind,
    providerId: m.providerId,
    familyProviderId: m.familyProviderId ?? null,
    isActive: m.isActive ?? true,
    categoryProviderIds: m.categoryProviderIds ?? null,
  }));
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insert(menuItems)
      .values(rows.slice(i, i + 1000))
      .onConflictDoUpdate({
        target: [menuItems.locationId, menuItems.streamId],
        set: {
          kind: sql`excluded.kind`,
          providerId: sql`excluded.provider_id`,
          familyProviderId: sql`excluded.family_provider_id`,
          isActive: sql`excluded.is_active`,
          categoryProviderIds: sql`excluded.category_provider_ids`,
        },
      });
  }
}

const reasonOf = (r: Rejection) =>
  r.objects.length > 1 ? `${r.reason} (${r.objects.length} objects at fault.)` : r.reason;

export async function findPublication(db: DbOrTx, id: string): Promise<Publication | undefined> {
  const [row] = await db.select().from(menuPublications).where(eq(menuPublications.id, id));
  return row;
}

/**
 * A failure that is no publish attempt (an object update the store cannot take, a binding the DSP
 * refused): recorded among the store's publications and told to the POS like one.
 */
export async function recordMenuFailure(
  db: DbOrTx,
  store: { binding: Binding; dsp: Partner; location: Location },
  failure: { code: MenuFailureCode; reason: string; cause: string; catalogId?: string | null },
): Promise<void> {
  const id = newId('mpub');
  await db.insert(menuPublications).values({
    id,
    bindingId: store.binding.id,
    locationId: store.location.id,
    catalogId: failure.catalogId ?? null,
    form: targetOf(store.location, store.dsp).form,
    cause: failure.cause,
    status: 'failed',
  });
  await finishPublication(db, id, 'failed', failure.code, failure.reason);
}

/** Ends a publication and tells the POS (`menu.publish_success` / `_failure`) through the outbox. */
async function finishPublication(
  db: DbOrTx,
  id: string,
  status: 'published' | 'failed',
  code?: MenuFailureCode,
  reason?: string,
) {
  const [finished] = await db
    .update(menuPublications)
    .set({
      status,
      failureCode: status === 'failed' ? (code ?? 'MENU_FAILURE_UNKNOWN') : null,
      failureReason: status === 'failed' ? (reason ?? null) : null,
      finishedAt: new Date(),
    })
    .where(eq(menuPublications.id, id))
    .returning({ bindingId: menuPublications.bindingId });
  await enqueue(db, {
    kind: menuNotifyPos,
    payload: { publication_id: id },
    // Keyed by store, not publication: a store's outcomes (a superseded publication's failure, then
    // its successor's success) reach the POS in the order they happened, so the last it hears is true.
    orderingKey: `menu-events:${finished!.bindingId}`,
  });
}

/**
 * Where a publication is the store's head, the last one that reached it: a caller that needs only its
 * catalog, or one question about its file answered in SQL, selects that and does not load the file.
 */
export const isHead = (bindingId: string) =>
  eq(
    menuPublications.id,
    sql`(select id from menu_publications where binding_id = ${bindingId} and status = 'published'
      order by created_at desc limit 1)`,
  );

/** The store's head, whole (what a dry run diffs against). */
export async function lastPublished(db: DbOrTx, bindingId: string): Promise<Publication | undefined> {
  const [row] = await db.select().from(menuPublications).where(isHead(bindingId));
  return row;
}

const NotifyPayload = z.object({ publication_id: z.string() });

export const menuNotifyPos = defineJobKind<z.infer<typeof NotifyPayload>, void>({
  kind: 'menus.notify-pos',
  payload: NotifyPayload,
  maxAttempts: 1_000,
  deadlineMs: 24 * 60 * 60_000,
  backoff: { baseMs: 2_000, maxMs: 10 * 60_000 },
  async handle(job, ctx) {
    const [found] = await ctx.db
      .select({
        publication: menuPublications,
        binding: locationBindings,
        dsp: partners,
        location: orgLocations,
      })
      .from(menuPublications)
      .innerJoin(locationBindings, eq(locationBindings.id, menuPublications.bindingId))
      .innerJoin(partners, eq(partners.id, locationBindings.dspPartnerId))
      .innerJoin(orgLocations, eq(orgLocations.id, menuPublications.locationId))
      .where(eq(menuPublications.id, job.payload.publication_id));
    if (!found) throw new PermanentJobError('The publication no longer exists.');
    try {
      await merchant.call(ctx, found.location.integrationId, posReceiveEvent, {
        body: posEventOf(found.publication, found.binding, found.dsp, found.location),
        job,
      });
    } catch (err) {
      // Any answer but a 2xx is retried for the day; only a grant the merchant must renew gives up.
      permanentIfGrantUnusable(err);
    }
  },
});

/** The POS event of a finished publication (spec section 3: `{type, data, created_at}`). */
export function posEventOf(p: Publication, binding: Binding, dsp: Partner, location: Location): PosMenuEvent {
  const data = {
    source: dsp.slug,
    dsp_provider_location_id: binding.dspProviderId,
    menu_id: p.id,
    location_id: location.providerId,
  };
  const createdAt = (p.finishedAt ?? p.createdAt).getTime();
  return p.status === 'published'
    ? { type: 'menu.publish_success', data: { ...data, status: 'success' }, created_at: createdAt }
    : {
        type: 'menu.publish_failure',
        data: {
          ...data,
          status: 'failure',
          failure_code: p.failureCode ?? 'MENU_FAILURE_UNKNOWN',
          failure_reason: p.failureReason ?? 'The publication failed.',
        },
        created_at: createdAt,
      };
}
