import type { FastifyInstance } from 'fastify';
import { getStoreEmail, sendStoreEmail } from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural } from '../answer.ts';
import { emailOutcome, findStoreEmail, queueEmails } from './email.ts';

/** POST /Stores/{id}/Email; GET /Stores/{id}/Email/{emailId} */
export function registerEmailRoute(app: FastifyInstance): void {
  mount(app, sendStoreEmail, async (req, reply) => {
    const auth = authOf(req);
    const store = await findGrantedStore(app.ctx.db, auth, req.params.id);
    const rows = await queueEmails(app.ctx, store.id, auth.partnerId, req.body.data);
    return reply
      .code(202)
      .send(hostedAnswer(rows.map(emailOutcome), `${plural(rows.length, 'message')} queued.`));
  });
  mount(app, getStoreEmail, async (req) => {
    const auth = authOf(req);
    const store = await findGrantedStore(app.ctx.db, auth, req.params.id);
    const row = await findStoreEmail(app.ctx.db, store.id, auth.partnerId, req.params.emailId);
    return hostedAnswer(emailOutcome(row), `${row.status[0]!.toUpperCase()}${row.status.slice(1)}.`);
  });
}
