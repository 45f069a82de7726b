import type { FastifyInstance } from 'fastify';
import { getJwks } from '@stream/contracts/apis/partner/index';
import { mount } from '../http/route.ts';
import { publishedKeys } from '../auth/keys.ts';

/** GET /.well-known/jwks.json */
export function registerJwksRoute(app: FastifyInstance): void {
  mount(app, getJwks, async (_req, reply) => {
    // Short: after a rotation verifiers see the new key soon (and refetch on an unknown kid anyway).
    reply.header('cache-control', 'public, max-age=60');
    return { keys: await publishedKeys(app.ctx.db) };
  });
}
