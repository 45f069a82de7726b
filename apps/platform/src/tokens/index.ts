import { defineCapability } from '../http/api.ts';
import { registerTokensRoutes } from './tokens.route.ts';

/** `/tokens/*`: partner tokens (API clients limited to one org). */
export const tokens = defineCapability('/tokens', registerTokensRoutes);
