import type { FastifyInstance } from 'fastify';

/** Loopback-only admin endpoint the CLI uses while a server holds the data folder. */
export function registerAdmin(_app: FastifyInstance): void {}
