import type { FastifyInstance } from 'fastify';
import { registerOrgRoute } from './org.route.ts';
import { registerTokensRoutes } from './tokens.route.ts';

/** The Partner API routes: orgs and partner tokens. */
export function registerPartnerApi(app: FastifyInstance): void {
  registerOrgRoute(app);
  registerTokensRoutes(app);
}
