import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { ErrorCode } from '@stream/contracts/errors';
import type { Db } from '../db/client.ts';
import { apiClients, tokenFamilies } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import {
  AccessTokenError,
  VerifiedTokens,
  verifyAccessTokenCached,
  type PartnerAuth,
} from './access-token.ts';
import { signingKeysFor } from './keys.ts';
import { prepared } from './prepared.ts';

export type { PartnerAuth } from './access-token.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the `bearer` security handler on every Partner API route; read it with `authOf(req)`. */
    auth?: PartnerAuth;
  }
}

/** The caller of a route with bearer security (the security handler has run). */
export function authOf(req: FastifyRequest): PartnerAuth {
  if (!req.auth) throw new Error(`${req.method} ${req.url}: authOf() on a route without bearer security`);
  return req.auth;
}

const BEARER = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]+)[ \t]*$/i;

function unauthorized(reply: FastifyReply, code: ErrorCode, message: string): ApiError {
  // RFC 6750 section 3: tell the client which scheme and what went wrong.
  const error = code === 'missing_token' ? '' : `, error="invalid_token"`;
  reply.header('www-authenticate', `Bearer realm="partner-api"${error}`);
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
 * The `bearer` security handler: a valid, unrevoked Partner API JWT carrying every scope the
 * operation declares. 401 missing_token / invalid_token / token_expired, 403 insufficient_scope.
 */
export function registerBearer(app: FastifyInstance): void {
  const { ctx } = app;
  const keys = signingKeysFor(ctx.db, ctx.config.encryptionKey);
  const verified = new VerifiedTokens();
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
      if (await isRevoked(ctx.db, auth.familyId)) {
        throw unauthorized(reply, 'invalid_token', 'The access token was revoked; request a new one.');
      }
      const missing = required.filter((s) => !auth.scopes.includes(s));
      if (missing.length) {
        throw new ApiError(
          'insufficient_scope',
          `This endpoint needs the scope(s) ${missing.join(', ')}; the token has: ${auth.scopes.join(', ') || 'none'}.`,
        );
      }
      req.auth = auth;
    };
  });
}
