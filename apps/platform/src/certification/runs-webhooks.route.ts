import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { receiveCertificationWebhook } from '@stream/contracts/apis/partner/certification';
import { parseJsonBody } from '@stream/contracts/server/input';
import { verifySignature } from '@stream/contracts/server/signature';
import { certificationRuns, certificationWebhooks, partners } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { mount } from '../http/route.ts';
import { webhookSecretOf } from '../partners/service.ts';
import { acceptedAnswer } from './answer.ts';
import {
  readBoundedBody,
  readWebhookBody,
  refusalMessage,
  schemaRefusal,
  type WebhookBytes,
} from './inbox.ts';

/**
 * POST /certification/runs/{run_id}/webhooks: a running certification's inbox. Every webhook is kept,
 * one the platform would refuse too (the check that waits for it says why it failed), then answered as
 * the platform would answer it: 415 for another Content-Type, 413 past the body limit (kept as by how
 * much, not its bytes), 400 for a body that is not JSON, 401 for a bad signature, 400 for a body the
 * production route of the run's kind refuses; one it takes is answered as that route answers it
 * (`answer.ts`: POS 204, DSP 202 or 200, events 200, with the contract's body). So the route takes
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
    /** The bodies the run's inbox took before, oldest first (an event provider's answer names its driver). */
    const acceptedBodies = async (runId: string) => {
      const rows = await app.ctx.db
        .select({ raw: certificationWebhooks.raw })
        .from(certificationWebhooks)
        .where(
          and(
            eq(certificationWebhooks.runId, runId),
            eq(certificationWebhooks.signature, 'valid'),
            isNull(certificationWebhooks.refused),
          ),
        )
        .orderBy(asc(certificationWebhooks.id));
      return rows.map((r) => parseJsonBody(Buffer.from(r.raw)));
    };
    mount(inbox, receiveCertificationWebhook, async (req, reply) => {
      const { db, config } = app.ctx;
      const [found] = await db
        .select({ partner: partners, status: certificationRuns.status, kind: certificationRuns.kind })
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
      const read = readWebhookBody(req.headers['content-type'], bytes);
      // A body past the limit is not kept, so its signature checks against none: the refusal is what the check reports.
      const problem = verifySignature(
        webhookSecretOf(config.encryptionKey, found.partner),
        raw,
        req.headers['stream-webhook-signature'],
      );
      // As production: the signature is checked before the body against its route's schema.
      const refused = read.refused ?? (problem ? undefined : schemaRefusal(found.kind, read.body));
      const earlier =
        found.kind === 'events' && !refused && !problem ? await acceptedBodies(req.params.run_id) : [];
      await db.insert(certificationWebhooks).values({
        runId: req.params.run_id,
        receivedAt: new Date(),
        path: '/webhooks',
        // PostgreSQL text cannot hold NUL, which a refused body may carry: kept as U+FFFD.
        raw: raw.toString('utf8').replaceAll('\0', '\ufffd'),
        signature: problem ?? 'valid',
        refused: refused ?? null,
      });
      if (refused) throw new ApiError(refused.code, refusalMessage(refused), refused.details);
      if (problem)
        throw new ApiError(
          problem,
          'Stream-Webhook-Signature is not the HMAC-SHA256 of this body with your webhook secret.',
        );
      const answer = acceptedAnswer(found.kind, read.body, { salt: req.params.run_id, earlier });
      return reply.code(answer.status).send(answer.body);
    });
  });
}
