import type { FastifyInstance } from 'fastify';
import { redeemSsoToken, type SsoRole } from '@stream/contracts/apis/partner/sso';
import { mount } from '../http/route.ts';
import { fullNameOf, redeemLoginToken } from './sso-tokens.ts';
import { noStore } from '../http/no-store.ts';

/** POST /white-label/sso/redeem (open: the single-use token is the credential) */
export function registerSsoRedeemRoute(app: FastifyInstance): void {
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
