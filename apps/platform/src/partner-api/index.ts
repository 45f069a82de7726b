import type { FastifyInstance } from 'fastify';

/** The Partner API routes: orgs and partner tokens. */
export function registerPartnerApi(_app: FastifyInstance): void {}
