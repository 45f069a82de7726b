import { and, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Operation } from '@stream/contracts/operation';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { prepared } from '../db/prepared.ts';
import { integrations, partners } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { PermanentJobError } from '../jobs/kinds.ts';
import { decrypt, encrypt } from '../http/secrets.ts';
import { findPartner, type Partner } from '../partners/service.ts';
import {
  PartnerCallError,
  callOperation,
  operationUrl,
  type AnswerOf,
  type CallInput,
  type OptionalInput,
  type PartnerTarget,
} from './call.ts';
import { UnusableAnswerError } from './http.ts';
import { PARTNER_OPERATIONS } from './operations.ts';

/**
 * Calls as a merchant: the tokens a POS or DSP issued the platform over OAuth, stored encrypted on
 * the integration. `merchantConnector(hooks).call(ctx, integrationId, op, input)` is the one way
 * to call a partner as a merchant: it refreshes shortly before `expire_time`, and refreshes once
 * and retries when the partner answers 401. What a refused grant means for the rest of the
 * platform (bindings to `needs_reconnection`) is the `onGrantRejected` hook's business.
 */

export type Integration = typeof integrations.$inferSelect;
export type IntegrationStatus = Integration['status'];

/** Refresh this long before `expire_time`, so a token never expires in flight. */
const REFRESH_EARLY_MS = 60_000;

type MerchantOAuth = (typeof PARTNER_OPERATIONS)[keyof typeof PARTNER_OPERATIONS]['oauth'];
type TokenOp = MerchantOAuth['token'];
/** The answer to a code exchange (POS or DSP), as the contract reads it: it carries a refresh token. */
export type CodeAnswer = z.output<MerchantOAuth['answers']['authorization_code']>;
/** The answer to a refresh, as the contract reads it: the refresh token may be left out (kept). */
export type RefreshAnswer = z.output<MerchantOAuth['answers']['refresh_token']>;
/** A token answer (POS or DSP), to either grant. */
export type MerchantTokenAnswer = CodeAnswer | RefreshAnswer;

/**
 * The refresh token columns for a token answer. An answer without `refresh_token` (a refresh, RFC
 * 6749 section 6) keeps the stored token, and its expiry unless the answer gives one. A new token
 * without `refresh_token_expire_time` has no known expiry, as at login.
 */
function refreshTokenColumns(key: Buffer, answer: MerchantTokenAnswer) {
  const expiry =
    answer.refresh_token_expire_time === undefined ? undefined : new Date(answer.refresh_token_expire_time);
  if (answer.refresh_token === undefined) return expiry ? { refreshExpiresAt: expiry } : {};
  return { refreshTokenEnc: encrypt(key, answer.refresh_token), refreshExpiresAt: expiry ?? null };
}

/** The token columns for an answer of the partner's token endpoint. */
export function tokenColumns(key: Buffer, answer: MerchantTokenAnswer, grant: 'code' | 'refresh') {
  return {
    accessTokenEnc: encrypt(key, answer.access_token),
    expiresAt: new Date(answer.expire_time),
    ...refreshTokenColumns(key, answer),
    // A login names the account (or not); a refresh continues that login, so one that names no
    // account keeps it (the catalog's X-Provider-Merchant-Id and merchant-wide webhooks need it).
    ...(grant === 'code' || answer.id !== undefined ? { merchantId: answer.id ?? null } : {}),
    ...('sso_details' in answer && answer.sso_details ? { ssoDetails: answer.sso_details } : {}),
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

/** A partner call failure (no answer, or none the platform can use) as the Partner API answers it. */
export function partnerFailure(err: { message: string }): ApiError {
  return new ApiError('partner_unreachable', `The partner did not give a usable answer: ${err.message}`);
}

/** What a call made while a client waits throws: a partner's failure as `partnerFailure`, anything else as it is. */
export function asPartnerFailure(err: unknown): unknown {
  return err instanceof PartnerCallError || err instanceof UnusableAnswerError ? partnerFailure(err) : err;
}

/**
 * What a job calling as the merchant does with a failed call: a grant the merchant must renew
 * (`integration_*`) will not heal by retrying, so the job gives up; anything else, a partner's 4xx
 * included, is thrown on to be retried until the job's deadline.
 */
export function permanentIfGrantUnusable(err: unknown): never {
  if (err instanceof ApiError && err.code.startsWith('integration_'))
    throw new PermanentJobError(err.message);
  throw err;
}

export const needsReconnection = (reason: string | null) =>
  new ApiError(
    'integration_needs_reconnection',
    `The merchant must reconnect this integration (${reason ?? 'the partner rejected its grant'}): open its entry_url again or PUT a new code.`,
  );

/** Where the merchant's browser goes to log in at the partner. */
export function authorizeUrl(t: PartnerTarget, redirectUri: string, state: string): string {
  if (!t.partner.oauthClientId)
    throw new PartnerCallError('unavailable', `The partner ${t.partner.slug} has no OAuth client.`);
  return operationUrl(t, PARTNER_OPERATIONS[t.type].oauth.authorize, undefined, {
    client_id: t.partner.oauthClientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    state,
  });
}

/** True when the partner record has what merchant OAuth needs. */
export function isOAuthConfigured(p: Partner): boolean {
  return Boolean(p.baseUrl && p.oauthClientId && p.oauthClientSecretEnc);
}

export type CodeGrant = { code: string; redirectUri: string };
export type RefreshGrant = { refreshToken: string };

/**
 * `POST /stream-{pos|dsp}/v1/token`: a code or refresh token for merchant tokens, the answer read
 * with its grant's schema (a code's must carry a refresh token, a refresh's may not). The client
 * secret, code and tokens are marked secret in the contract, so the delivery log never holds them.
 */
export async function exchangeToken(ctx: AppContext, t: PartnerTarget, grant: CodeGrant): Promise<CodeAnswer>;
export async function exchangeToken(
  ctx: AppContext,
  t: PartnerTarget,
  grant: RefreshGrant,
): Promise<RefreshAnswer>;
export async function exchangeToken(
  ctx: AppContext,
  t: PartnerTarget,
  grant: CodeGrant | RefreshGrant,
): Promise<MerchantTokenAnswer> {
  const { partner } = t;
  if (!partner.oauthClientId || !partner.oauthClientSecretEnc) {
    throw new PartnerCallError('unavailable', `The partner ${partner.slug} has no OAuth client.`);
  }
  const client = {
    client_id: partner.oauthClientId,
    client_secret: decrypt(ctx.config.encryptionKey, partner.oauthClientSecretEnc),
  };
  const { oauth } = PARTNER_OPERATIONS[t.type];
  const body =
    'code' in grant
      ? {
          ...client,
          grant_type: 'authorization_code' as const,
          code: grant.code,
          // The DSP token request has no redirect_uri (wire-notes).
          ...(oauth.redirectUri ? { redirect_uri: grant.redirectUri } : {}),
        }
      : { ...client, grant_type: 'refresh_token' as const, refresh_token: grant.refreshToken };
  const answer = oauth.answers[body.grant_type];
  return callOperation<TokenOp>(ctx, t, oauth.token, { body, answer }) as Promise<MerchantTokenAnswer>;
}

/** What the platform does when a partner refuses a merchant's grant (supplied by onboarding). */
export type GrantRejectedHook = (ctx: AppContext, integration: Integration, reason: string) => Promise<void>;

export interface MerchantConnectorHooks {
  /**
   * The partner refused the refresh token, refused a freshly refreshed access token, or answered
   * the refresh with tokens the platform cannot use: the merchant must reconnect. Runs before
   * the call throws 409 `integration_needs_reconnection`.
   */
  onGrantRejected: GrantRejectedHook;
}

/** An integration with the partner it connects, as `withToken` reads them. */
export interface Grant {
  row: Integration;
  partner: Partner;
}

export interface MerchantCallOptions {
  /** Statuses in which the grant may be used (default `active`; disconnect jobs also use a deprovisioned one). */
  allow?: readonly IntegrationStatus[];
  /** The integration and its partner, when the caller has just read them (saves the query). */
  grant?: Grant | undefined;
}

export interface MerchantConnector {
  /**
   * Calls `op` at the integration's partner with the merchant's access token, answering the
   * contract's 2xx body: `merchant.call(ctx, integrationId, posCreateOrder, { body, job })`.
   */
  call<O extends Operation>(
    ctx: AppContext,
    integrationId: string,
    op: O,
    ...input: OptionalInput<O, MerchantCallOptions>
  ): Promise<AnswerOf<O>>;
  /** Calls `use` with a valid access token of the integration (for calls that are not one operation). */
  withToken<T>(
    ctx: AppContext,
    integrationId: string,
    use: (token: string, target: PartnerTarget) => Promise<T>,
    options?: MerchantCallOptions,
  ): Promise<T>;
}

async function load(db: DbOrTx, id: string): Promise<Integration> {
  const [row] = await db.select().from(integrations).where(eq(integrations.id, id));
  if (!row) throw new ApiError('not_found', 'The integration no longer exists.');
  return row;
}

// The integration and its partner in one query: this runs before every merchant call.
const grantWithPartner = prepared('merchant_grant', (db, name) =>
  db
    .select({ row: integrations, partner: partners })
    .from(integrations)
    .innerJoin(partners, eq(partners.id, integrations.sourcePartnerId))
    .where(eq(integrations.id, sql.placeholder('integrationId')))
    .prepare(name),
);

const API_OF = { pos: 'become-a-pos', dsp: 'become-a-dsp' } as const;

export function merchantConnector(hooks: MerchantConnectorHooks): MerchantConnector {
  async function rejected(ctx: AppContext, row: Integration, reason: string): Promise<never> {
    await hooks.onGrantRejected(ctx, row, reason);
    throw needsReconnection(reason);
  }

  /**
   * Exchanges the refresh token. A concurrent refresh by another process is not a failure: when the
   * partner refuses ours but the stored tokens changed meanwhile, the new ones are used.
   */
  async function refresh(ctx: AppContext, target: PartnerTarget, row: Integration): Promise<string> {
    const key = ctx.config.encryptionKey;
    const used = row.refreshTokenEnc;
    if (!used) throw new ApiError('integration_not_active', 'The integration has no merchant grant.');
    let answer: RefreshAnswer;
    try {
      answer = await exchangeToken(ctx, target, { refreshToken: decrypt(key, used) });
    } catch (err) {
      if (err instanceof UnusableAnswerError) {
        return rejected(
          ctx,
          row,
          `token refresh at ${target.partner.slug} gave no usable tokens: ${err.message}`,
        );
      }
      if (!(err instanceof PartnerCallError)) throw err;
      if (err.reason === 'unavailable') throw partnerFailure(err);
      const now = await load(ctx.db, row.id);
      if (now.refreshTokenEnc !== used && now.accessTokenEnc) return decrypt(key, now.accessTokenEnc);
      return rejected(ctx, row, `token refresh rejected by ${target.partner.slug}: ${err.message}`);
    }
    // Compare-and-set on the refresh token used: a concurrent refresh that stored first wins. An
    // answer without a refresh token leaves the stored one (RFC 6749 section 6: keep using it).
    await ctx.db
      .update(integrations)
      .set(tokenColumns(key, answer, 'refresh'))
      .where(and(eq(integrations.id, row.id), eq(integrations.refreshTokenEnc, used)));
    return answer.access_token;
  }

  async function withToken<T>(
    ctx: AppContext,
    integrationId: string,
    use: (token: string, target: PartnerTarget) => Promise<T>,
    options: MerchantCallOptions = {},
  ): Promise<T> {
    const allow = options.allow ?? ['active'];
    const key = ctx.config.encryptionKey;
    const [found] = options.grant
      ? [options.grant]
      : await grantWithPartner(ctx.db).execute({ integrationId });
    if (!found) throw new ApiError('not_found', 'The integration no longer exists.');
    const { row } = found;
    if (row.status === 'needs_reconnection' && !allow.includes(row.status))
      throw needsReconnection(row.statusReason);
    if (!allow.includes(row.status) || !row.accessTokenEnc) {
      throw new ApiError(
        'integration_not_active',
        `The integration is ${row.status}; it needs an active merchant grant.`,
      );
    }
    const target: PartnerTarget = { partner: found.partner, type: row.type };
    const expiring = !row.expiresAt || row.expiresAt.getTime() - REFRESH_EARLY_MS <= Date.now();
    let token = expiring ? await refresh(ctx, target, row) : decrypt(key, row.accessTokenEnc);
    for (let attempt = 1; ; attempt++) {
      try {
        return await use(token, target);
      } catch (err) {
        if (!(err instanceof PartnerCallError) || err.reason !== 'unauthorized') throw err;
        if (attempt === 2) {
          return rejected(
            ctx,
            row,
            `${target.partner.slug} refused a freshly refreshed access token: ${err.message}`,
          );
        }
        token = await refresh(ctx, target, await load(ctx.db, row.id));
      }
    }
  }

  return {
    withToken,
    call<O extends Operation>(
      ctx: AppContext,
      integrationId: string,
      op: O,
      ...rest: OptionalInput<O, MerchantCallOptions>
    ): Promise<AnswerOf<O>> {
      const input = rest[0] as (CallInput<O> & MerchantCallOptions) | undefined;
      return withToken(
        ctx,
        integrationId,
        (token, target) => {
          if (op.api !== API_OF[target.type])
            throw new Error(`${op.operationId} is not an operation a ${target.type.toUpperCase()} builds`);
          return callOperation(ctx, target, op, input, token);
        },
        { allow: input?.allow, grant: input?.grant },
      );
    },
  };
}
