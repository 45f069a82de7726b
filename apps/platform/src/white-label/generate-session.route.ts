import type { FastifyInstance } from 'fastify';
import { generateSession } from '@stream/contracts/apis/partner/sso';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { assertOwnPartner, findOwnedOrg } from './partner-scope.ts';
import { issueLoginToken } from './sso-tokens.ts';
import { noStore } from '../http/no-store.ts';

/** POST /white-label/generate-session */
export function registerGenerateSessionRoute(app: FastifyInstance): void {
  mount(app, generateSession, async (req, reply) => {
    const auth = authOf(req);
    assertOwnPartner(auth, req.query.partner_id);
    const { email, full_name, phone_number, role, provider_org_id } = req.body;
    const org = await findOwnedOrg(app.ctx.db, auth, provider_org_id);
    const now = new Date();
    const { token, expiresAt } = await issueLoginToken(
      app.ctx.db,
      {
        partnerId: auth.partnerId,
        orgId: org.id,
        clientId: auth.clientId,
        email,
        fullName: full_name,
        phoneNumber: phone_number,
        role,
      },
      now,
    );
    reply.status(201);
    noStore(reply); // a login token
    return {
      sso_login_token: token,
      expires_at: expiresAt.toISOString(),
      expires_in: Math.round((expiresAt.getTime() - now.getTime()) / 1000),
    };
  });
}
