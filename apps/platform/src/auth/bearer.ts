import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { and, eq, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { listPartnerTokens } from '@stream/contracts/apis/partner/index';
import { priceOrder as priceOrderOperation } from '@stream/contracts/apis/hr-orders/index';
import type { ErrorCode } from '@stream/contracts/errors';
import { isHostedScope, isWhiteLabelScope, WHITE_LABEL_SCOPES } from '@stream/contracts/common';
import { fastifyPath } from '@stream/contracts/operation';
import { envelopeBody } from '@stream/contracts/envelopes';
import type { Db } from '../db/client.ts';
import { apiClients, partners, tokenFamilies } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import {
  AccessTokenError,
  VerifiedTokens,
  verifyAccessTokenCached,
  type PartnerAuth,
  type PendingRevocation,
} from './access-token.ts';
import { signingKeysFor } from './keys.ts';
import { prepared } from '../db/prepared.ts';

export type { PartnerAuth } from './access-token.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the `bearer` security handler on every Partner API route; read it with `authOf(req)`. */
    auth?: PartnerAuth;
    /** Set by the bearer hooks (see registerBearer): this request's answer passes through them. */
    bearerHooks?: boolean;
  }
}

/** The caller of a route with bearer security (the security handler has run). */
export function authOf(req: FastifyRequest): PartnerAuth {
  if (!req.auth) throw new Error(`${req.method} ${req.url}: authOf() on a route without bearer security`);
  return req.auth;
}

const BEARER = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]+)[ \t]*$/i;
const REVOKED_MESSAGE = 'The access token was revoked; request a new one.';

function challenge(reply: FastifyReply, code: ErrorCode): void {
  // RFC 6750 section 3: tell the client which scheme and what went wrong.
  const error = code === 'missing_token' ? '' : `, error="invalid_token"`;
  reply.header('www-authenticate', `Bearer realm="partner-api"${error}`);
}

function unauthorized(reply: FastifyReply, code: ErrorCode, message: string): ApiError {
  challenge(reply, code);
  return new ApiError(code, message);
}

const liveFamily = prepared('auth_live_family', (db, name) =>
  db
    .select({ id: tokenFamilies.id })
    .from(tokenFamilies)
    .innerJoin(apiClients, eq(apiClients.id, tokenFamilies.clientId))
    .where(
      and(
        eq(tokenFamilies.id, sql.placeholder('familyId')),
        isNull(tokenFamilies.revokedAt),
        isNull(apiClients.revokedAt),
      ),
    )
    .prepare(name),
);

/**
 * One indexed query, asked on every request (never cached, so a revocation holds at once in
 * every process): is the token's family, or the client it was issued to, revoked?
 */
export async function isRevoked(db: Db, familyId: string): Promise<boolean> {
  const rows = await liveFamily(db).execute({ familyId });
  return rows.length === 0;
}

/**
 * The same question as `isRevoked`, as a boolean SQL expression (true: live) a service puts in
 * its own query, so an authenticated read costs one round trip instead of two.
 */
export function tokenLiveSql(familyId: Placeholder | string): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${tokenFamilies} join ${apiClients} on ${apiClients.id} = ${tokenFamilies.clientId} where ${tokenFamilies.id} = ${familyId} and ${tokenFamilies.revokedAt} is null and ${apiClients.revokedAt} is null)`;
}

/**
 * Read-only operations whose service asks `tokenLiveSql` in its own query and reports the answer
 * with `settleRevocation`; for them the bearer handler does not query. Whatever the service does,
 * no answer leaves before the check is made: the onSend hook asks the database itself when the
 * service did not (an error thrown before its query, a validation error, a 403).
 */
const FOLDED_REVOCATION = new Set([
  `GET ${fastifyPath(listPartnerTokens.path)}`,
  `POST ${fastifyPath(priceOrderOperation.path)}`,
]);

/**
 * Called by a service whose query carried `tokenLiveSql` for `auth`: throws 401 invalid_token
 * when the token was revoked. Does nothing for a request the bearer handler already checked.
 */
export function settleRevocation(auth: PartnerAuth, live: boolean): void {
  if (!auth.revocation) return;
  auth.revocation.state = live ? 'live' : 'revoked';
  if (!live) throw new ApiError('invalid_token', REVOKED_MESSAGE);
}

const partnerKindOf = prepared('bearer_partner_kind', (db, name) =>
  db
    .select({ kind: partners.kind })
    .from(partners)
    .where(eq(partners.id, sql.placeholder('partnerId')))
    .prepare(name),
);

/** What each white-label scope opens, as the refusal below names it (a record: a new scope must say). */
const WHITE_LABEL_USES: Record<(typeof WHITE_LABEL_SCOPES)[number], string> = {
  user: 'partner tokens',
  onboarding: 'organisations and their onboarding',
  legacy_onboarding: 'no endpoint yet',
  sso: 'SSO',
  billing: 'billing reports',
};
const WHITE_LABEL_SCOPE_LIST = WHITE_LABEL_SCOPES.map((s) => `${s} (${WHITE_LABEL_USES[s]})`).join(', ');

/**
 * 403 insufficient_scope, saying what to do. The white-label scopes are not given to a POS, DSP or
 * event provider by default: its token is told the endpoint is for white-label partners rather
 * than to ask for a scope its client cannot have.
 * Looked up on this error path only: the token carries the partner, not its kind.
 */
async function insufficientScope(db: Db, auth: PartnerAuth, missing: string[]): Promise<ApiError> {
  const has = `the token has: ${auth.scopes.join(', ') || 'none'}`;
  const needs = `This endpoint needs the scope(s) ${missing.join(', ')}`;
  if (missing.some(isWhiteLabelScope)) {
    const [partner] = await partnerKindOf(db).execute({ partnerId: auth.partnerId });
    if (partner && partner.kind !== 'white_label') {
      return new ApiError(
        'insufficient_scope',
        `${needs}; ${has}. This endpoint is for white-label partners: the scopes ${WHITE_LABEL_SCOPE_LIST} are not granted to a ${KIND_NAMES[partner.kind]} unless its partnership with Stream includes white-label work; ask Stream if it does.`,
      );
    }
  }
  return new ApiError('insufficient_scope', `${needs}; ${has}.`);
}

const KIND_NAMES: Record<string, string> = { pos: 'POS', dsp: 'DSP', events: 'event provider' };

/**
 * The `bearer` security handler: a valid, unrevoked Partner API JWT carrying every scope the
 * operation declares. 401 missing_token / invalid_token / token_expired, 403 insufficient_scope.
 */
export function registerBearer(app: FastifyInstance): void {
  const { ctx } = app;
  const keys = signingKeysFor(ctx.db, ctx.config.encryptionKey);
  const verified = new VerifiedTokens();

  // The two hooks are added together, so a route that sees the first sees the second: a request
  // marked by `onRequest` is one whose answer `onSend` will hold until its token is known live.
  // A route outside their reach is never deferred (the handler then checks by itself).
  app.addHook('onRequest', (req, _reply, done) => {
    req.bearerHooks = true;
    done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    const pending = req.auth?.revocation;
    if (!pending || pending.state === 'live') return done(null, payload);
    const answer = () => {
      if (pending.state === 'live') return done(null, payload);
      challenge(reply, 'invalid_token');
      reply.status(401).header('content-type', 'application/json; charset=utf-8');
      // In the route's envelope: the hosted APIs answer `{data, message, messagesDetails}`.
      const envelope = req.routeOptions.config?.envelope ?? 'stream';
      done(
        null,
        JSON.stringify(
          envelopeBody(envelope, { code: 'invalid_token', message: REVOKED_MESSAGE, requestId: req.id }),
        ),
      );
    };
    if (pending.state !== 'unknown') return answer();
    isRevoked(ctx.db, req.auth!.familyId).then((revoked) => {
      pending.state = revoked ? 'revoked' : 'live';
      answer();
    }, done);
  });

  app.securityHandlers.set('bearer', (security) => {
    if (security.kind !== 'bearer') return undefined;
    const required = security.scopes;
    return async (req, reply) => {
      const header = req.headers.authorization;
      if (!header || !/^Bearer[ \t]+\S/i.test(header)) {
        throw unauthorized(
          reply,
          'missing_token',
          'Send `Authorization: Bearer <access_token>`; get a token at POST /oauth/token.',
        );
      }
      const token = BEARER.exec(header)?.[1];
      if (!token) throw unauthorized(reply, 'invalid_token', 'The bearer token is malformed.');
      let auth: PartnerAuth;
      try {
        auth = await verifyAccessTokenCached(verified, keys, ctx.config.publicUrl, token);
      } catch (err) {
        if (!(err instanceof AccessTokenError)) throw err;
        throw unauthorized(reply, err.reason === 'expired' ? 'token_expired' : 'invalid_token', err.message);
      }
      if (req.bearerHooks && FOLDED_REVOCATION.has(`${req.method} ${req.routeOptions.url}`)) {
        // A per-request copy: the verified claims are shared by every request with this token.
        const revocation: PendingRevocation = { state: 'unknown' };
        auth = { ...auth, revocation };
        req.auth = auth;
      } else if (await isRevoked(ctx.db, auth.familyId)) {
        throw unauthorized(reply, 'invalid_token', REVOKED_MESSAGE);
      }
      // A partner token made before hosted scopes were refused to one still cannot use them.
      if (auth.orgId && required.some(isHostedScope)) {
        throw new ApiError(
          'insufficient_scope',
          'The hosted APIs answer your own API client, not a partner token limited to one organisation: companies are granted to your partner.',
        );
      }
      const missing = required.filter((s) => !auth.scopes.includes(s));
      if (missing.length) throw await insufficientScope(ctx.db, auth, missing);
      req.auth = auth;
    };
  });
}
