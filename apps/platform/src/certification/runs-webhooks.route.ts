import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { receiveCertificationWebhook } from '@stream/contracts/apis/partner/certification';
import { verifySignature } from '@stream/contracts/server/signature';
import { certificationRuns, certificationWebhooks, partners } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { mount } from '../http/route.ts';
import { webhookSecretOf } from '../partners/service.ts';

/**
 * POST /certification/runs/{run_id}/webhooks: a running certification's inbox. Every webhook is kept,
 * a badly signed one too (the check that waits for it says why it failed), then answered as the
 * platform would answer it: 401 for a bad signature.
 */
export function registerRunWebhooksRoute(app: FastifyInstance): void {
  mount(app, receiveCertificationWebhook, async (req) => {
    const { db, config } = app.ctx;
    const [found] = await db
      .select({ partner: partners, status: certificationRuns.status })
      .from(certificationRuns)
      .innerJoin(partners, eq(partners.id, certificationRuns.partnerId))
      .where(eq(certificationRuns.id, req.params.run_id));
    if (!found || (found.status !== 'running' && found.status !== 'queued')) {
      throw new ApiError('certification_run_not_found', `No running certification ${req.params.run_id}.`);
    }
    const raw = req.rawBody ?? Buffer.alloc(0);
    const problem = verifySignature(
      webhookSecretOf(config.encryptionKey, found.partner),
      raw,
      req.headers['stream-webhook-signature'],
    );
    await db.insert(certificationWebhooks).values({
      runId: req.params.run_id,
      receivedAt: new Date(),
      path: '/webhooks',
      raw: raw.toString('utf8'),
      signature: problem ?? 'valid',
    });
    if (problem)
      throw new ApiError(
        problem,
        'Stream-Webhook-Signature is not the HMAC-SHA256 of this body with your webhook secret.',
      );
    return {};
  });
}
