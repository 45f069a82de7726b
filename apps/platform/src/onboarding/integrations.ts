import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { CreateIntegrationRequest, Onboarding } from '@stream/contracts/apis/partner/onboarding';
import { INTEGRATION_STATES, ORG_LOCATION_STATES, statesLeadingTo } from '@stream/contracts/states';
import type { PartnerAuth } from '../auth/bearer.ts';
import { recordLifecycle } from '../billing/lifecycle.ts';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { integrations, locationBindings, orgLocations, orgs, partners } from '../db/schema/index.ts';
import { ApiError, notFound, transition } from '../http/errors.ts';
import { findPartner } from '../partners/service.ts';
import { findVisibleOrg } from './orgs.ts';
import { bindingsOfIntegration, moveBindings, moveLocation } from './bindings.ts';
import { enqueueConnect, enqueueDisconnect } from './connection-jobs.ts';
import { needsReconnection } from '../connectors/merchant.ts';
import {
  PartnerCallError,
  UnusableAnswerError,
  authorizeUrl,
  exchangeToken,
  isOAuthConfigured,
  partnerFailure,
  targetOf,
  tokenColumns,
  type Integration,
} from '../connectors/index.ts';
import { entryToken, isEntryToken, newNonce, readState, signState } from './oauth-state.ts';

/** Integrations: create, read, connect (browser or headless), delete. Routes stay thin over these. */

export type { Integration };

/** The platform's OAuth redirect target, registered with every POS and DSP. */
export const callbackUrl = (ctx: AppContext) => `${ctx.config.publicUrl}/onboarding/oauth/callback`;

export function entryUrl(ctx: AppContext, id: string): string {
  return `${ctx.config.publicUrl}/onboarding/integrations/${id}/entry?token=${entryToken(ctx.config.encryptionKey, id)}`;
}

/** The integration if the caller may see it (its partner's, and its org for an org-limited token); else 404. */
export async function findVisibleIntegration(
  db: DbOrTx,
  auth: PartnerAuth,
  id: string,
): Promise<Integration> {
  const [row] = await db
    .select()
    .from(integrations)
    .where(and(eq(integrations.id, id), eq(integrations.partnerId, auth.partnerId)));
  if (!row || (auth.orgId !== null && row.orgId !== auth.orgId)) throw notFound('integration');
  return row;
}

/** The wire form (`{onboarding}`), with the source slug and the org's provider id joined in. */
export async function present(ctx: AppContext, id: string): Promise<{ onboarding: Onboarding }> {
  const [row] = await ctx.db
    .select({ i: integrations, source: partners.slug, partnerOrgId: orgs.providerId })
    .from(integrations)
    .innerJoin(partners, eq(partners.id, integrations.sourcePartnerId))
    .innerJoin(orgs, eq(orgs.id, integrations.orgId))
    .where(eq(integrations.id, id));
  if (!row) throw notFound('integration');
  const { i } = row;
  return {
    onboarding: {
      _id: i.id,
      org_id: i.orgId,
      type: i.type,
      status: i.status,
      status_reason: i.statusReason,
      source: row.source,
      integration_id: i.sourcePartnerId,
      partner_id: i.partnerId,
      partner_org_id: row.partnerOrgId,
      merchant_id: i.merchantId,
      entry_url: entryUrl(ctx, i.id),
      return_url: i.returnUrl,
      created_at: i.createdAt.toISOString(),
      updated_at: i.updatedAt.toISOString(),
    },
  };
}

export async function createIntegration(
  ctx: AppContext,
  auth: PartnerAuth,
  input: z.output<typeof CreateIntegrationRequest>,
): Promise<string> {
  const org = await findVisibleOrg(ctx.db, auth, input.org_id);
  const source = await findPartner(ctx.db, input.source);
  if (!source || source.kind !== input.type) {
    throw new ApiError(
      'unknown_source',
      `There is no ${input.type.toUpperCase()} partner with the slug "${input.source}".`,
      [{ path: 'body.source', message: `not a ${input.type} partner` }],
    );
  }
  if (!isOAuthConfigured(source)) {
    throw new ApiError(
      'partner_not_configured',
      `${source.slug} has not registered its base URL and OAuth client yet.`,
    );
  }
  const id = newId('onb');
  await ctx.db.insert(integrations).values({
    id,
    partnerId: auth.partnerId,
    orgId: org.id,
    type: input.type,
    sourcePartnerId: source.id,
    status: 'pending',
    returnUrl: input.return_url,
  });
  return id;
}

/** The URL a browser flow ends at: `return_url` with the outcome added to its query. */
export function returnTo(
  integration: Pick<Integration, 'id' | 'returnUrl'>,
  outcome: { error?: string },
): string {
  const url = new URL(integration.returnUrl);
  url.searchParams.set('onboarding_id', integration.id);
  url.searchParams.set('status', outcome.error ? 'error' : 'active');
  if (outcome.error) url.searchParams.set('error', outcome.error);
  return url.toString();
}

/**
 * The entry URL: checks its token, moves the integration to `waiting_for_oauth` with a fresh
 * nonce, and answers where to send the browser (the partner's authorize page, or `return_url`
 * with an error when the integration cannot start OAuth).
 */
export async function openEntry(ctx: AppContext, id: string, token: string): Promise<string> {
  const [row] = await ctx.db.select().from(integrations).where(eq(integrations.id, id));
  if (!row || !isEntryToken(ctx.config.encryptionKey, id, token)) {
    throw new ApiError('invalid_entry_token', 'This onboarding link is not valid; ask for a new one.');
  }
  try {
    transition(INTEGRATION_STATES, row.status, 'waiting_for_oauth');
    const target = await targetOf(ctx.db, row);
    if (!isOAuthConfigured(target.partner)) throw new ApiError('partner_not_configured', 'not configured');
    const nonce = newNonce();
    const [moved] = await ctx.db
      .update(integrations)
      .set({ status: 'waiting_for_oauth', oauthNonce: nonce, updatedAt: sql`now()` })
      .where(and(eq(integrations.id, id), eq(integrations.status, row.status)))
      .returning({ id: integrations.id });
    if (!moved)
      throw new ApiError('invalid_transition', 'The integration changed while the link was opened.');
    return authorizeUrl(target, callbackUrl(ctx), signState(ctx.config.encryptionKey, id, nonce));
  } catch (err) {
    if (err instanceof ApiError) return returnTo(row, { error: err.code });
    throw err;
  }
}

/**
 * Exchanges a code and activates the integration (`PUT {code}`, and the browser callback). The
 * write is guarded on the states that may become active, so two exchanges racing cannot both win.
 */
export async function connectWithCode(ctx: AppContext, row: Integration, code: string): Promise<void> {
  transition(INTEGRATION_STATES, row.status, 'active');
  const target = await targetOf(ctx.db, row);
  let answer;
  try {
    answer = await exchangeToken(ctx, target, { code, redirectUri: callbackUrl(ctx) });
  } catch (err) {
    if (err instanceof UnusableAnswerError) {
      // The code is spent and the answer unusable: say why on the integration, for whoever looks.
      const reason = `${target.partner.slug} answered the code exchange with no usable tokens: ${err.message}`;
      await ctx.db
        .update(integrations)
        .set({ statusReason: reason.slice(0, 1000), updatedAt: sql`now()` })
        .where(eq(integrations.id, row.id));
      throw partnerFailure(err);
    }
    if (!(err instanceof PartnerCallError)) throw err;
    if (err.reason === 'unavailable') throw partnerFailure(err);
    throw new ApiError('oauth_exchange_failed', `${target.partner.slug} refused the code: ${err.message}`);
  }
  await ctx.db.transaction(async (tx) => {
    const [moved] = await tx
      .update(integrations)
      .set({
        ...tokenColumns(ctx.config.encryptionKey, answer, 'code'),
        status: 'active',
        statusReason: null,
        oauthNonce: null,
        activatedAt: sql`coalesce(${integrations.activatedAt}, now())`,
      })
      .where(
        and(
          eq(integrations.id, row.id),
          inArray(integrations.status, statesLeadingTo(INTEGRATION_STATES, 'active')),
        ),
      )
      .returning();
    if (!moved)
      throw new ApiError('invalid_transition', 'The integration changed while the code was exchanged.');
    await recordLifecycle(tx, {
      partnerId: row.partnerId,
      orgId: row.orgId,
      subjectType: 'integration',
      subjectId: row.id,
      event: 'integration_activated',
    });
    await redriveBindings(tx, moved);
  });
}

/**
 * A reconnected grant retries the bindings it had left `needs_reconnection`, those whose other side
 * is connected (one whose other grant is broken too waits for that one: retrying it could only fail).
 */
async function redriveBindings(tx: DbOrTx, integration: Integration): Promise<void> {
  const otherSideActive =
    integration.type === 'pos'
      ? sql`exists (select 1 from ${integrations} i where i.id = ${locationBindings.dspIntegrationId} and i.status = 'active')`
      : sql`exists (select 1 from ${orgLocations} l join ${integrations} i on i.id = l.integration_id
          where l.id = ${locationBindings.locationId} and i.status = 'active')`;
  const moved = await moveBindings(tx, and(bindingsOfIntegration(integration), otherSideActive)!, 'pending');
  for (const b of moved) {
    const posPartner = await tx
      .select({ id: orgLocations.sourcePartnerId })
      .from(orgLocations)
      .where(eq(orgLocations.id, b.locationId));
    await enqueueConnect(tx, b, {
      pos: posPartner[0]?.id ?? integration.sourcePartnerId,
      dsp: b.dspPartnerId,
    });
  }
}

/** `GET /onboarding/oauth/callback`: answers the URL to send the browser to. */
export async function completeCallback(
  ctx: AppContext,
  query: { state: string; code?: string | undefined; error?: string | undefined },
): Promise<string> {
  const invalid = () =>
    new ApiError('invalid_oauth_state', 'This sign-in link is not valid; start again from the entry URL.');
  const state = readState(ctx.config.encryptionKey, query.state);
  if (!state) throw invalid();
  // Spend the nonce first: a state works once, whatever happens next.
  const [row] = await ctx.db
    .update(integrations)
    .set({ oauthNonce: null, updatedAt: sql`now()` })
    .where(and(eq(integrations.id, state.integrationId), eq(integrations.oauthNonce, state.nonce)))
    .returning();
  if (!row) {
    // Signed by us but spent or superseded (the callback page reloaded, the entry URL opened in
    // two tabs): its integration's return_url is trustworthy. The code is not used; the merchant
    // goes back to where the integration stands, not to a bare error page.
    const [spent] = await ctx.db.select().from(integrations).where(eq(integrations.id, state.integrationId));
    if (!spent) throw invalid();
    return returnTo(spent, spent.status === 'active' ? {} : { error: 'invalid_oauth_state' });
  }
  if (query.error || !query.code) {
    const said = query.error ? ` (error=${query.error})` : ' (no code)';
    await noteFailure(ctx, row, `The merchant did not authorize at the partner${said}.`);
    return returnTo(row, { error: 'oauth_denied' });
  }
  try {
    await connectWithCode(ctx, row, query.code);
    return returnTo(row, {});
  } catch (err) {
    if (err instanceof ApiError) {
      ctx.log.warn({ integration: row.id, code: err.code, message: err.message }, 'oauth callback failed');
      await noteFailure(ctx, row, `${err.code}: ${err.message}`);
      return returnTo(row, { error: err.code });
    }
    throw err;
  }
}

/**
 * Why a browser round trip failed, on the integration (its status stays: the merchant may try
 * again), so a partner reading it learns what its `return_url` was told. Never over an active one.
 */
async function noteFailure(ctx: AppContext, row: Integration, reason: string): Promise<void> {
  await ctx.db
    .update(integrations)
    .set({ statusReason: reason.slice(0, 1000), updatedAt: sql`now()` })
    .where(and(eq(integrations.id, row.id), ne(integrations.status, 'active')));
}

/**
 * `DELETE`: the integration is deprovisioned at once; what it connected goes
 * `waiting_for_deprovision` and disconnect jobs delete the connections at the partners.
 */
export async function deleteIntegration(ctx: AppContext, row: Integration): Promise<void> {
  transition(INTEGRATION_STATES, row.status, 'deprovisioned');
  await ctx.db.transaction(async (tx) => {
    const [moved] = await tx
      .update(integrations)
      .set({ status: 'deprovisioned', oauthNonce: null, deprovisionedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(integrations.id, row.id), ne(integrations.status, 'deprovisioned')))
      .returning();
    if (!moved) throw new ApiError('invalid_transition', 'The integration is already deprovisioned.');
    await recordLifecycle(tx, {
      partnerId: row.partnerId,
      orgId: row.orgId,
      subjectType: 'integration',
      subjectId: row.id,
      event: 'integration_deprovisioned',
    });
    const bindings = await moveBindings(tx, bindingsOfIntegration(row), 'waiting_for_deprovision');
    for (const b of bindings)
      await enqueueDisconnect(tx, { side: 'dsp', binding_id: b.id }, b.dspPartnerId, b);
    if (row.type === 'pos') await deprovisionLocations(tx, row);
  });
}

async function deprovisionLocations(tx: DbOrTx, row: Integration): Promise<void> {
  const locations = await tx
    .select()
    .from(orgLocations)
    .where(
      and(
        eq(orgLocations.integrationId, row.id),
        inArray(orgLocations.status, statesLeadingTo(ORG_LOCATION_STATES, 'waiting_for_deprovision')),
      ),
    );
  for (const location of locations) {
    if (await moveLocation(tx, location, 'waiting_for_deprovision', null)) {
      await enqueueDisconnect(tx, { side: 'pos', location_id: location.id }, row.sourcePartnerId);
    }
  }
}

/** 409 unless the integration can be used to call its partner now. */
export function assertActive(row: Integration): void {
  if (row.status === 'active') return;
  if (row.status === 'needs_reconnection') throw needsReconnection(row.statusReason);
  // A deprovisioned integration is final: "finish the OAuth step" would send the partner to a dead end.
  throw new ApiError(
    'integration_not_active',
    row.status === 'deprovisioned'
      ? 'The integration is deprovisioned, which is final; create a new integration to connect the merchant again.'
      : `The integration is ${row.status}; finish the OAuth step first (the merchant opens its entry_url, or PUT a code on it).`,
  );
}
