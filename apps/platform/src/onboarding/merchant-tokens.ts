import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { integrations } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { decrypt, encrypt } from '../http/secrets.ts';
import { findPartner } from '../partners/service.ts';
import { bindingsOfIntegration, moveBindings } from './bindings.ts';
import { INTEGRATION_STATES, statesLeadingTo, type IntegrationStatus } from '@stream/contracts/states';
import {
  PartnerCallError,
  exchangeToken,
  type MerchantTokenAnswer,
  type PartnerTarget,
} from './partner-client.ts';

/**
 * The merchant tokens a POS or DSP issued the platform, stored encrypted on the integration.
 * `withMerchantToken` is the one way to call a partner as a merchant: it refreshes shortly before
 * `expire_time`, refreshes once and retries when the partner answers 401, and when the partner
 * rejects the refresh it marks the integration and its bound locations `needs_reconnection`.
 */

export type Integration = typeof integrations.$inferSelect;

/** Refresh this long before `expire_time`, so a token never expires in flight. */
const REFRESH_EARLY_MS = 60_000;

/** The token columns for an answer of the partner's token endpoint. */
export function tokenColumns(key: Buffer, answer: MerchantTokenAnswer) {
  return {
    accessTokenEnc: encrypt(key, answer.access_token),
    refreshTokenEnc: encrypt(key, answer.refresh_token),
    expiresAt: new Date(answer.expire_time),
    refreshExpiresAt: new Date(answer.refresh_token_expire_time),
    merchantId: answer.id,
    ...(answer.sso_details ? { ssoDetails: answer.sso_details } : {}),
    updatedAt: new Date(),
  };
}

/** The partner an integration connects, as a call target. */
export async function targetOf(
  db: DbOrTx,
  integration: Pick<Integration, 'sourcePartnerId' | 'type'>,
): Promise<PartnerTarget> {
  const partner = await findPartner(db, integration.sourcePartnerId);
  if (!partner)
    throw new ApiError('partner_not_configured', 'The POS or DSP of this integration no longer exists.');
  return { partner, type: integration.type };
}

/** A partner call failure as the Partner API answers it. */
export function partnerFailure(err: PartnerCallError): ApiError {
  return new ApiError('partner_unreachable', `The partner did not give a usable answer: ${err.message}`);
}

export const needsReconnection = (reason: string | null) =>
  new ApiError(
    'integration_needs_reconnection',
    `The merchant must reconnect this integration (${reason ?? 'the partner rejected its grant'}): open its entry_url again or PUT a new code.`,
  );

async function load(db: DbOrTx, id: string): Promise<Integration> {
  const [row] = await db.select().from(integrations).where(eq(integrations.id, id));
  if (!row) throw new ApiError('not_found', 'The integration no longer exists.');
  return row;
}

/**
 * Marks the integration (when active) and its pending or APPROVED bindings `needs_reconnection`,
 * with the reason, in one transaction.
 */
export async function markNeedsReconnection(
  ctx: AppContext,
  integration: Integration,
  reason: string,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(integrations)
      .set({ status: 'needs_reconnection', statusReason: reason, updatedAt: sql`now()` })
      .where(
        and(
          eq(integrations.id, integration.id),
          inArray(integrations.status, statesLeadingTo(INTEGRATION_STATES, 'needs_reconnection')),
        ),
      );
    await moveBindings(tx, bindingsOfIntegration(integration), 'needs_reconnection', reason);
  });
  ctx.log.warn({ integration: integration.id, reason }, 'integration needs reconnection');
}

/**
 * Exchanges the refresh token. A concurrent refresh by another process is not a failure: when the
 * partner refuses ours but the stored tokens changed meanwhile, the new ones are used.
 */
async function refresh(ctx: AppContext, target: PartnerTarget, row: Integration): Promise<string> {
  const key = ctx.config.encryptionKey;
  const used = row.refreshTokenEnc;
  if (!used) throw new ApiError('integration_not_active', 'The integration has no merchant grant.');
  let answer: MerchantTokenAnswer;
  try {
    answer = await exchangeToken(ctx, target, { refreshToken: decrypt(key, used) });
  } catch (err) {
    if (!(err instanceof PartnerCallError)) throw err;
    if (err.reason === 'unavailable') throw partnerFailure(err);
    const now = await load(ctx.db, row.id);
    if (now.refreshTokenEnc !== used && now.accessTokenEnc) return decrypt(key, now.accessTokenEnc);
    const reason = `token refresh rejected by ${target.partner.slug}: ${err.message}`;
    await markNeedsReconnection(ctx, row, reason);
    throw needsReconnection(reason);
  }
  // Compare-and-set on the refresh token used: a concurrent refresh that stored first wins.
  await ctx.db
    .update(integrations)
    .set(tokenColumns(key, answer))
    .where(and(eq(integrations.id, row.id), eq(integrations.refreshTokenEnc, used)));
  return answer.access_token;
}

/**
 * Calls `use` with a valid access token of the integration. `allow` lists the statuses in which
 * the grant may be used (disconnect jobs still use a deprovisioned integration's token).
 */
export async function withMerchantToken<T>(
  ctx: AppContext,
  integrationId: string,
  use: (token: string, target: PartnerTarget) => Promise<T>,
  allow: readonly IntegrationStatus[] = ['active'],
): Promise<T> {
  const key = ctx.config.encryptionKey;
  const row = await load(ctx.db, integrationId);
  if (row.status === 'needs_reconnection' && !allow.includes(row.status))
    throw needsReconnection(row.statusReason);
  if (!allow.includes(row.status) || !row.accessTokenEnc) {
    throw new ApiError(
      'integration_not_active',
      `The integration is ${row.status}; it needs an active merchant grant.`,
    );
  }
  const target = await targetOf(ctx.db, row);
  const expiring = !row.expiresAt || row.expiresAt.getTime() - REFRESH_EARLY_MS <= Date.now();
  let token = expiring ? await refresh(ctx, target, row) : decrypt(key, row.accessTokenEnc);
  for (let attempt = 1; ; attempt++) {
    try {
      return await use(token, target);
    } catch (err) {
      if (!(err instanceof PartnerCallError)) throw err;
      if (err.reason !== 'unauthorized') throw err;
      if (attempt === 2) {
        const reason = `${target.partner.slug} refused a freshly refreshed access token: ${err.message}`;
        await markNeedsReconnection(ctx, row, reason);
        throw needsReconnection(reason);
      }
      token = await refresh(ctx, target, await load(ctx.db, row.id));
    }
  }
}
