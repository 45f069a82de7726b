import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { eq } from 'drizzle-orm';
import { receiveCertificationWebhook } from '@stream/contracts/apis/partner/certification';
import { verifySignature } from '@stream/contracts/server/signature';
import { certificationRuns, certificationWebhooks, partners } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { mount } from '../http/route.ts';
import { webhookSecretOf } from '../partners/service.ts';
import { readBoundedBody, readWebhookBody, refusalMessage, type WebhookBytes } from './inbox.ts';

/**
 * POST /certification/runs/{run_id}/webhooks: a running certification's inbox. Every webhook is kept,
 * one the platform would refuse too (the check that waits for it says why it failed), then answered as
 * the platform would answer it: 415 for another Content-Type, 413 past the body limit (kept as by how
 * much, not its bytes), 400 for a body that is not JSON, 401 for a bad signature. So the route takes
 * any body as bytes (its own scope's parser, which counts past the limit rather than fail) and reads it
 * itself, as the CLI's inbox does (`readWebhookBody`): the common parsers would refuse it unkept.
 */
export function registerRunWebhooksRoute(app: FastifyInstance): void {
  const limitOf = (req: FastifyRequest) => req.routeOptions.bodyLimit ?? app.ctx.config.bodyLimit;
  void app.register(async (inbox) => {
    inbox.removeAllContentTypeParsers();
    // The parsed body is the bytes as read: the handler reads them as the platform would.
    inbox.addContentTypeParser('*', (req: FastifyRequest, payload: IncomingMessage) =>
      readBoundedBody(payload, limitOf(req), req.headers['content-length']),
    );
    mount(inbox, receiveCertificationWebhook, async (req) => {
      const { db, config } = app.ctx;
      const [found] = await db
        .select({ partner: partners, status: certificationRuns.status })
        .from(certificationRuns)
        .innerJoin(partners, eq(partners.id, certificationRuns.partnerId))
        .where(eq(certificationRuns.id, req.params.run_id));
      if (!found || (found.status !== 'running' && found.status !== 'queued')) {
        throw new ApiError('certification_run_not_found', `No running certification ${req.params.run_id}.`);
      }
      const bytes = (req.body as WebhookBytes | undefined) ?? {
        raw: Buffer.alloc(0),
        size: 0,
        limit: limitOf(req),
      };
      const { raw } = bytes;
      const { refused } = readWebhookBody(req.headers['content-type'], bytes);
      // A body past the limit is not kept, so its signature checks against none: the refusal is what the check reports.
      const problem = verifySignature(
        webhookSecretOf(config.encryptionKey, found.partner),
        raw,
        req.headers['stream-webhook-signature'],
      );
      await db.insert(certificationWebhooks).values({
        runId: req.params.run_id,
        receivedAt: new Date(),
        path: '/webhooks',
        // PostgreSQL text cannot hold NUL, which a refused body may carry: kept as U+FFFD.
        raw: raw.toString('utf8').replaceAll('\0', '\ufffd'),
        signature: problem ?? 'valid',
        refused: refused ?? null,
      });
      if (refused) throw new ApiError(refused.code, refusalMessage(refused));
      if (problem)
        throw new ApiError(
          problem,
          'Stream-Webhook-Signature is not the HMAC-SHA256 of this body with your webhook secret.',
        );
      return {};
    });
  });
}
