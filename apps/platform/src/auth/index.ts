import type { FastifyInstance } from 'fastify';
import { registerBearer } from './bearer.ts';
import { registerJwksRoute } from './jwks.route.ts';
import { ensureSigningKey } from './keys.ts';
import { registerOAuthTokenRoute } from './oauth-token.route.ts';

/** POST /oauth/token, /.well-known/jwks.json and the `bearer` security handler. */
export async function registerAuth(app: FastifyInstance): Promise<void> {
  await ensureSigningKey(app.ctx.db, app.ctx.config.encryptionKey);
  registerBearer(app);
  registerOAuthTokenRoute(app);
  registerJwksRoute(app);
}
