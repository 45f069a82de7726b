import type { FastifyInstance } from 'fastify';
import { POST_EMAIL_DEPRECATED, postStoreEmail } from '@stream/contracts/apis/hr-stores/index';
import { mount } from '../../http/route.ts';
import { queueEmailsHandler } from './email.route.ts';

/** POST /Stores/{id}/PostEmail: deprecated, the same as POST /Stores/{id}/Email, and says so. */
export function registerPostEmailRoute(app: FastifyInstance): void {
  const handler = queueEmailsHandler(app, [POST_EMAIL_DEPRECATED]);
  mount(app, postStoreEmail, async (req, reply) => {
    reply
      .header('deprecation', 'true')
      .header('link', `</Stores/${req.params.id}/Email>; rel="successor-version"`);
    return handler(req, reply);
  });
}
