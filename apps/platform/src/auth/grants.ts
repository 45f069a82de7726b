import { and, eq, isNull, sql } from 'drizzle-orm';
import { ALL_SCOPES, isHostedScope, isWhiteLabelScope, type Scope } from '@stream/contracts/common';
import {
  ACCESS_TOKEN_MAX_SECONDS,
  GRANT_TYPES,
  REFRESH_TOKEN_SECONDS,
  type GrantType,
  type OAuthTokenRequest,
  type OAuthTokenResponse,
} from '@stream/contracts/apis/partner/index';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { apiClients, refreshTokens, tokenFamilies } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { newSecret, safeEqual, sha256Hex } from '../http/secrets.ts';
import { signAccessToken, type PartnerAuth } from './access-token.ts';
import { signingKeysFor } from './keys.ts';
import { prepared } from '../db/prepared.ts';

type ApiClient = typeof apiClients.$inferSelect;

/** A token request after the checks that need no database. */
export interface TokenRequest {
  grant: GrantType;
  clientId: string;
  clientSecret: string;
  lifetime: number;
  /** Undefined: every scope the client (or the original grant) has. */
  scopes: Scope[] | undefined;
  refreshToken: string | undefined;
}

export function parseGrantType(raw: string): GrantType {
  if ((GRANT_TYPES as readonly string[]).includes(raw)) return raw as GrantType;
  throw new ApiError(
    'unsupported_grant_type',
    `grant_type must be one of ${GRANT_TYPES.join(', ')}; got "${raw.slice(0, 50)}".`,
  );
}

/** From here on a whole `exp` is a time (epoch seconds, 2001 or later), not a lifetime. */
const EPOCH_SECONDS_FROM = 1_000_000_000;
/** A caller's clock may run this far ahead of ours when it asks for "now + 1 hour". */
const EXP_CLOCK_SKEW_SECONDS = 60;

/**
 * `exp`, as a number or (form bodies) a string, read both ways the spec ("seconds; at most 1 hour
 * after issue") allows: the wanted lifetime, a whole number 1..3600; or the expiry time itself in
 * epoch seconds, at most an hour ahead (the JWT `exp` sense). Answers the lifetime in seconds.
 */
export function parseExp(raw: number | string | undefined, nowMs = Date.now()): number {
  if (raw === undefined) return ACCESS_TOKEN_MAX_SECONDS;
  const n = typeof raw === 'number' ? raw : /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (Number.isInteger(n) && n >= 1 && n <= ACCESS_TOKEN_MAX_SECONDS) return n;
  if (Number.isInteger(n) && n >= EPOCH_SECONDS_FROM) {
    const left = n - Math.floor(nowMs / 1000);
    if (left >= 1 && left <= ACCESS_TOKEN_MAX_SECONDS + EXP_CLOCK_SKEW_SECONDS)
      return Math.min(left, ACCESS_TOKEN_MAX_SECONDS);
  }
  throw new ApiError(
    'invalid_exp',
    `exp must be a lifetime in whole seconds from 1 to ${ACCESS_TOKEN_MAX_SECONDS}, or an expiry time in epoch seconds at most 1 hour from now; got ${JSON.stringify(raw)}.`,
  );
}

/**
 * Scopes as an array or a space-separated string; absent means every scope the client has, and so
 * does a blank string (OAuth client libraries send `scope=` for "no preference"). A list naming
 * none (`[]`) asks for a token with no scope: invalid_scope, as `POST /tokens` refuses it, rather
 * than a token with every scope. An unknown name: invalid_scope.
 */
export function parseScopes(raw: readonly string[] | string | undefined): Scope[] | undefined {
  const names = typeof raw === 'string' ? raw.split(/\s+/) : (raw ?? []);
  const wanted = new Set(names.map((s) => s.trim()).filter(Boolean));
  if (!wanted.size) {
    if (!Array.isArray(raw)) return undefined;
    throw new ApiError(
      'invalid_scope',
      'scopes names no scope; leave it out for every scope of the client, or name at least one.',
    );
  }
  const unknown = [...wanted].filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
  if (unknown.length) {
    throw new ApiError(
      'invalid_scope',
      `Unknown scope(s) ${unknown.join(', ')}; scopes are ${ALL_SCOPES.join(', ')}.`,
    );
  }
  return ALL_SCOPES.filter((s) => wanted.has(s));
}

/** A token request whose client credentials were found (in the body or HTTP Basic: `clientCredentials`). */
export type AuthenticatedTokenRequest = OAuthTokenRequest & { client_id: string; client_secret: string };

export function parseTokenRequest(body: AuthenticatedTokenRequest): TokenRequest {
  const grant = parseGrantType(body.grant_type);
  if (grant === 'refresh_token' && !body.refresh_token) {
    throw new ApiError('validation_failed', 'body.refresh_token: required with grant_type=refresh_token.', [
      { path: 'body.refresh_token', message: 'required with grant_type=refresh_token' },
    ]);
  }
  return {
    grant,
    clientId: body.client_id,
    clientSecret: body.client_secret,
    lifetime: parseExp(body.exp),
    scopes: parseScopes(body.scopes ?? body.scope),
    refreshToken: body.refresh_token,
  };
}

/** What to do about scopes a client asked for and does not have: where each kind of scope comes from. */
function missingScopesAdvice(extra: readonly Scope[]): string {
  const advice: string[] = [];
  if (extra.some(isWhiteLabelScope)) {
    advice.push(
      "The scopes user, onboarding, legacy_onboarding, sso and billing are for white-label partners; a POS, DSP or event provider's calls (orders, timelines, menus, certification) need no scope, so leave scopes out, or ask Stream to grant them if your partnership includes white-label work.",
    );
  }
  if (extra.some(isHostedScope)) {
    advice.push('The scopes menu, orders and stores come when Stream grants your partner a company.');
  }
  return advice.length ? ` ${advice.join(' ')}` : '';
}

/** Scopes asked for, checked against what may be granted. */
function grantScopes(
  wanted: Scope[] | undefined,
  allowed: readonly string[],
  of: string,
  advise: (extra: Scope[]) => string = () => '',
): Scope[] {
  const granted = wanted ?? ALL_SCOPES.filter((s) => allowed.includes(s));
  const extra = granted.filter((s) => !allowed.includes(s));
  if (extra.length) {
    const advice = advise(extra);
    throw new ApiError(
      'invalid_scope',
      `${of} was not granted the scope(s) ${extra.join(', ')}; it has: ${allowed.join(', ') || 'none'}.${advice}`,
    );
  }
  return granted;
}

const clientById = prepared('auth_client', (db, name) =>
  db
    .select()
    .from(apiClients)
    .where(eq(apiClients.id, sql.placeholder('clientId')))
    .prepare(name),
);

/** The client whose id and secret these are (revoked or not), else 401 invalid_client. */
async function authenticateClient(db: DbOrTx, clientId: string, secret: string): Promise<ApiClient> {
  const hash = sha256Hex(secret);
  const [client] = await clientById(db).execute({ clientId });
  if (!client || !safeEqual(client.secretHash, hash)) {
    throw new ApiError('invalid_client', 'Unknown client_id or wrong client_secret.');
  }
  return client;
}

async function revokeFamily(db: DbOrTx, familyId: string, reason: string): Promise<void> {
  await db
    .update(tokenFamilies)
    .set({ revokedAt: sql`now()`, revokedReason: reason })
    .where(and(eq(tokenFamilies.id, familyId), isNull(tokenFamilies.revokedAt)));
}

/** A new refresh token's row values (the token itself is only returned, never stored). */
function newRefreshToken() {
  const token = newSecret('rt');
  return {
    token,
    id: newId('rtk'),
    hash: sha256Hex(token),
    expiresAt: sql.param(new Date(Date.now() + REFRESH_TOKEN_SECONDS * 1000), refreshTokens.expiresAt),
  };
}

/**
 * A new token family and its first refresh token, in one statement (atomic on its own, one round
 * trip instead of a four-statement transaction).
 */
async function startFamily(db: DbOrTx, familyId: string, clientId: string, scopes: Scope[]): Promise<string> {
  const rt = newRefreshToken();
  await db.execute(sql`
    with family as (
      insert into token_families (id, client_id, scopes)
      values (${familyId}, ${clientId}, ${sql.param(scopes, tokenFamilies.scopes)})
      returning id
    )
    insert into refresh_tokens (id, family_id, token_hash, expires_at)
    select ${rt.id}, family.id, ${rt.hash}, ${rt.expiresAt} from family`);
  return rt.token;
}

/**
 * Claims a refresh token (one conditional UPDATE, so of two racing exchanges one wins) and adds
 * its successor in the same statement. Undefined when the token was already used.
 */
async function rotateRefreshToken(db: DbOrTx, tokenId: string): Promise<string | undefined> {
  const rt = newRefreshToken();
  // The app's clock, as expires_at: the reuse grace compares used_at with Date.now().
  const usedAt = sql.param(new Date(), refreshTokens.usedAt);
  const result = await db.execute(sql`
    with claimed as (
      update refresh_tokens set used_at = ${usedAt}
      where id = ${tokenId} and used_at is null
      returning family_id
    )
    insert into refresh_tokens (id, family_id, token_hash, expires_at)
    select ${rt.id}, claimed.family_id, ${rt.hash}, ${rt.expiresAt} from claimed
    returning id`);
  // Both drivers answer { rows }.
  return (result as { rows: unknown[] }).rows.length ? rt.token : undefined;
}

const invalidGrant = (why: string) => new ApiError('invalid_grant', why);

/**
 * How long after its exchange a refresh token presented again is only refused, not taken for a
 * theft: racing exchanges of one token (a retry after a timeout, two workers) must not revoke the
 * pair the winner received. Later, reuse revokes the family (RFC 9700 section 4.14.2).
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;

/** `POST /oauth/token`: both grants. Answers the wire response (201). */
export async function exchangeToken(
  ctx: AppContext,
  body: AuthenticatedTokenRequest,
): Promise<OAuthTokenResponse> {
  const req = parseTokenRequest(body);
  const client = await authenticateClient(ctx.db, req.clientId, req.clientSecret);
  // Fetched before any transaction: it may read the outer db.
  const signer = await signingKeysFor(ctx.db, ctx.config.encryptionKey).current();

  let auth: PartnerAuth;
  let refreshToken: string;
  if (req.grant === 'client_credentials') {
    if (client.revokedAt) throw new ApiError('invalid_client', 'This client was revoked.');
    const scopes = grantScopes(req.scopes, client.scopes, 'This client', (extra) =>
      client.orgId
        ? ' A partner token keeps the scopes it was created with: create one with the scopes you need (POST /tokens).'
        : missingScopesAdvice(extra),
    );
    const familyId = newId('fam');
    refreshToken = await startFamily(ctx.db, familyId, client.id, scopes);
    auth = { partnerId: client.partnerId, clientId: client.id, orgId: client.orgId, scopes, familyId };
  } else {
    const [found] = await ctx.db
      .select({ token: refreshTokens, family: tokenFamilies })
      .from(refreshTokens)
      .innerJoin(tokenFamilies, eq(tokenFamilies.id, refreshTokens.familyId))
      .where(eq(refreshTokens.tokenHash, sha256Hex(req.refreshToken!)));
    if (!found || found.family.clientId !== client.id) throw invalidGrant('Unknown refresh token.');
    const { token, family } = found;
    // Committed before answering: the error must not roll the revocation back.
    const reused = async (): Promise<never> => {
      await revokeFamily(ctx.db, family.id, 'refresh_token_reused');
      ctx.log.warn({ familyId: family.id, clientId: client.id }, 'refresh token reused; family revoked');
      throw new ApiError(
        'refresh_token_reused',
        'This refresh token was already used; every token of its family is now revoked. Request a new token with your client credentials.',
      );
    };
    // Presented again moments after its exchange (a retry, or two workers sharing it): refused
    // without revoking, so the pair that exchange answered keeps working.
    const justExchanged = () =>
      invalidGrant(
        `This refresh token was exchanged moments ago by another request; use the pair that request received (presented again after ${REFRESH_REUSE_GRACE_MS / 1000} s, it revokes its whole family).`,
      );
    if (token.usedAt && Date.now() - token.usedAt.getTime() < REFRESH_REUSE_GRACE_MS) throw justExchanged();
    if (token.usedAt) return reused();
    if (family.revokedAt) throw invalidGrant('This refresh token was revoked.');
    if (client.revokedAt) throw invalidGrant('The client this refresh token was issued to was revoked.');
    if (token.expiresAt.getTime() <= Date.now()) throw invalidGrant('This refresh token has expired.');
    const scopes = grantScopes(req.scopes, family.scopes, 'The original grant');
    const next = await rotateRefreshToken(ctx.db, token.id);
    if (!next) throw justExchanged(); // a concurrent exchange won the claim just now
    refreshToken = next;
    auth = {
      partnerId: client.partnerId,
      clientId: client.id,
      orgId: client.orgId,
      scopes,
      familyId: family.id,
    };
  }

  return {
    access_token: await signAccessToken(signer, ctx.config.publicUrl, auth, req.lifetime),
    token_type: 'bearer',
    refresh_token: refreshToken,
    expires_in: req.lifetime,
    refresh_token_expires_in: REFRESH_TOKEN_SECONDS,
    scopes: auth.scopes,
  };
}
