import type { FastifyInstance } from 'fastify';
import { oauthCallback } from '@stream/contracts/apis/partner/onboarding';
import { mount } from '../http/route.ts';
import { completeCallback } from './integrations.ts';

/** GET /onboarding/oauth/callback: the POS or DSP sends the merchant back here with a code. */
export function registerOAuthCallbackRoute(app: FastifyInstance): void {
  mount(app, oauthCallback, async (req, reply) => {
    const to = await completeCallback(app.ctx, req.query);
    // The code is in this URL: keep it out of caches and of the next site's Referer.
    return reply
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .redirect(to, 302);
  });
}
