import type { FastifyInstance } from 'fastify';
import { dspSendWebhook } from '@stream/contracts/apis/become-a-dsp/index';
import { mount } from '../http/route.ts';
import { receiveDspWebhook } from '../orders/intake.ts';
import { signedPartner } from '../webhooks/signature.ts';

/** POST /order/{partner_id}: every DSP webhook, signed by the DSP it names. */
export function registerOrderRoute(app: FastifyInstance): void {
  mount(app, dspSendWebhook, async (req, reply) => {
    const { status, answer } = await receiveDspWebhook(app.ctx, signedPartner(req, 'dsp'), req.body);
    return reply.code(status).send(answer);
  });
}
