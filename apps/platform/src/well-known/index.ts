import { defineCapability } from '../http/api.ts';
import { registerJwksRoute } from './jwks.route.ts';

/** `/.well-known/*`: the public keys of the access tokens (keys in `auth/keys.ts`). */
export const wellKnown = defineCapability('/.well-known', registerJwksRoute);
