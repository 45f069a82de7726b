import type { FastifyInstance } from 'fastify';
import { registerBearer } from './bearer.ts';
import { ensureSigningKey } from './keys.ts';

/**
 * The signing key and the `bearer` security handler every Partner API route uses. The routes of
 * authentication live with their paths: `oauth/` (`POST /oauth/token`), `well-known/` (JWKS).
 */
export async function registerAuth(app: FastifyInstance): Promise<void> {
  await ensureSigningKey(app.ctx.db, app.ctx.config.encryptionKey);
  registerBearer(app);
}
