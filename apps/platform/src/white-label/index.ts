import { defineCapability } from '../http/api.ts';
import { registerGenerateSessionRoute } from './generate-session.route.ts';
import { registerSsoRedeemRoute } from './sso-redeem.route.ts';

/** `/white-label/*`: single sign-on: issue a login token (partner), redeem it (the user's browser). */
export const whiteLabel = defineCapability('/white-label', (scope) => {
  registerGenerateSessionRoute(scope);
  registerSsoRedeemRoute(scope);
});
