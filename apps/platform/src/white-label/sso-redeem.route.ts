import type { FastifyInstance } from 'fastify';
import { redeemSsoToken, type SsoRole } from '@stream/contracts/apis/partner/sso';
import { mount } from '../http/route.ts';
import { fullNameOf, redeemLoginToken } from './sso-tokens.ts';
import { noStore } from '../http/no-store.ts';

/**
 * The user's browser redeems the token from the partner's site, another origin: CORS for any
 * origin, with no cookies or credentials (the single-use token in the body is the credential).
 */
const CORS = { 'access-control-allow-origin': '*' };

/** POST /white-label/sso/redeem (open: the single-use token is the credential), and its CORS preflight */
export function registerSsoRedeemRoute(app: FastifyInstance): void {
  app.options('/sso/redeem', async (_req, reply) =>
    reply
      .code(204)
      .headers({
        ...CORS,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type',
        'access-control-max-age': '600',
      })
      .send(),
  );
  // Every answer of the route, errors included, so the page can read why a token was refused.
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.url === `${app.prefix}/sso/redeem`) reply.headers(CORS);
  });
  mount(app, redeemSsoToken, async (req, reply) => {
    const { session, user } = await redeemLoginToken(app.ctx.db, req.body.sso_login_token);
    noStore(reply); // a session token
    return {
      session: { session_token: session.token, expires_at: session.expiresAt.toISOString() },
      user: {
        _id: user.id,
        org_id: user.orgId,
        email: user.email,
        full_name: fullNameOf(user),
        phone_number: user.phoneNumber,
        role: user.role as SsoRole,
      },
    };
  });
}
