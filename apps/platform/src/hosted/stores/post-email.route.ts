import type { FastifyInstance } from 'fastify';
import { postStoreEmail } from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural } from '../answer.ts';
import { emailOutcome, queueEmails } from './email.ts';

/** POST /Stores/{id}/PostEmail: deprecated, the same as POST /Stores/{id}/Email, and says so. */
export function registerPostEmailRoute(app: FastifyInstance): void {
  mount(app, postStoreEmail, async (req, reply) => {
    const auth = authOf(req);
    const store = await findGrantedStore(app.ctx.db, auth, req.params.id);
    const rows = await queueEmails(app.ctx, store.id, auth.partnerId, req.body.data);
    reply
      .header('deprecation', 'true')
      .header('link', `</Stores/${store.id}/Email>; rel="successor-version"`);
    return reply.code(202).send(
      hostedAnswer(rows.map(emailOutcome), `${plural(rows.length, 'message')} queued.`, [
        {
          id: 'deprecated',
          message: 'PostEmail is deprecated: use POST /Stores/{id}/Email.',
          messageType: 'WARNING',
        },
      ]),
    );
  });
}
