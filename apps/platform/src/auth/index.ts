import type { FastifyInstance } from 'fastify';

/** POST /oauth/token, /.well-known/jwks.json and the `bearer` security handler. */
export async function registerAuth(_app: FastifyInstance): Promise<void> {}
