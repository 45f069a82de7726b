import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HostedMessage } from '@stream/contracts/envelopes';
import { getStoreEmail, sendStoreEmail } from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { mount, type OpRequest } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural, sendOnce } from '../answer.ts';
import { emailOutcome, findStoreEmail, queueEmails } from './email.ts';

/** The handler of `POST /Stores/{id}/Email` (and of its deprecated twin, with `notes` saying so). */
export const queueEmailsHandler =
  (app: FastifyInstance, notes: HostedMessage[] = []) =>
  async (req: OpRequest<typeof sendStoreEmail>, reply: FastifyReply) => {
    const auth = authOf(req);
    const store = await findGrantedStore(app.ctx.db, auth, req.params.id);
    return sendOnce(app.ctx, req, reply, { store: store.id, body: req.body }, async (tx) => {
      const rows = await queueEmails(tx, store.id, auth.partnerId, req.body.data);
      const message = `${plural(rows.length, 'message')} queued.`;
      return { status: 202, body: hostedAnswer(rows.map(emailOutcome), message, notes) };
    });
  };

/** POST /Stores/{id}/Email; GET /Stores/{id}/Email/{emailId} */
export function registerEmailRoute(app: FastifyInstance): void {
  mount(app, sendStoreEmail, queueEmailsHandler(app));
  mount(app, getStoreEmail, async (req) => {
    const auth = authOf(req);
    const store = await findGrantedStore(app.ctx.db, auth, req.params.id);
    const row = await findStoreEmail(app.ctx.db, store.id, auth.partnerId, req.params.emailId);
    return hostedAnswer(emailOutcome(row), `${row.status[0]!.toUpperCase()}${row.status.slice(1)}.`);
  });
}
