import type { FastifyInstance } from 'fastify';
import { dspSendWebhook } from '@stream/contracts/apis/become-a-dsp/index';
import { ApiError } from '../http/errors.ts';
import { mount } from '../http/route.ts';
import { receiveDspWebhook } from '../orders/intake.ts';

/** POST /order/{partner_id}: every DSP webhook (signed; the partner is checked by the security handler). */
export function registerOrderRoute(app: FastifyInstance): void {
  mount(app, dspSendWebhook, async (req, reply) => {
    const partner = req.partner!;
    if (partner.kind !== 'dsp') {
      throw new ApiError(
        'unknown_partner',
        `Partner ${req.params.partner_id} is not a DSP; send DSP webhooks with a DSP's id.`,
      );
    }
    const { status, answer } = await receiveDspWebhook(app.ctx, partner, req.body);
    return reply.code(status).send(answer);
  });
}
