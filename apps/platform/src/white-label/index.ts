import type { FastifyInstance } from 'fastify';
import { registerGenerateSessionRoute } from './generate-session.route.ts';
import { registerSsoRedeemRoute } from './sso-redeem.route.ts';

/** White-label single sign-on: issue a login token (partner), redeem it (the user's browser). */
export function registerWhiteLabel(app: FastifyInstance): void {
  registerGenerateSessionRoute(app);
  registerSsoRedeemRoute(app);
}
