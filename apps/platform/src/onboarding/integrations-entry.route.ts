import type { FastifyInstance } from 'fastify';
import { openIntegrationEntry } from '@stream/contracts/apis/partner/onboarding';
import { mount } from '../http/route.ts';
import { openEntry } from './integrations.ts';

/** GET /onboarding/integrations/{id}/entry: the merchant's browser starts OAuth here. */
export function registerIntegrationEntryRoute(app: FastifyInstance): void {
  mount(app, openIntegrationEntry, async (req, reply) => {
    const to = await openEntry(app.ctx, req.params.id, req.query.token);
    return reply
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .redirect(to, 302);
  });
}
