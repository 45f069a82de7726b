import { defineCapability } from '../http/api.ts';
import { registerOAuthTokenRoute } from './token.route.ts';

/** `/oauth/*`: the token endpoint (grants in `auth/grants.ts`). */
export const oauth = defineCapability('/oauth', registerOAuthTokenRoute);
