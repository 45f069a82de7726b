import type { FastifyInstance } from 'fastify';
import {
  connectIntegration,
  createIntegration as createIntegrationOp,
  deleteIntegration as deleteIntegrationOp,
  getIntegration,
} from '@stream/contracts/apis/partner/onboarding';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import {
  connectWithCode,
  createIntegration,
  deleteIntegration,
  findVisibleIntegration,
  present,
} from './integrations.ts';
import { noStore } from '../http/no-store.ts';

/** POST /onboarding/integrations, GET, PUT and DELETE /onboarding/integrations/{id} */
export function registerIntegrationsRoutes(app: FastifyInstance): void {
  const { ctx } = app;
  mount(app, createIntegrationOp, async (req, reply) => {
    const id = await createIntegration(ctx, authOf(req), req.body);
    noStore(reply.status(201)); // entry_url is a secret link
    return present(ctx, id);
  });
  mount(app, getIntegration, async (req, reply) => {
    const row = await findVisibleIntegration(ctx.db, authOf(req), req.params.id);
    noStore(reply);
    return present(ctx, row.id);
  });
  mount(app, connectIntegration, async (req, reply) => {
    const row = await findVisibleIntegration(ctx.db, authOf(req), req.params.id);
    await connectWithCode(ctx, row, req.body.code);
    noStore(reply);
    return present(ctx, row.id);
  });
  mount(app, deleteIntegrationOp, async (req, reply) => {
    const row = await findVisibleIntegration(ctx.db, authOf(req), req.params.id);
    await deleteIntegration(ctx, row);
    noStore(reply);
    return present(ctx, row.id);
  });
}
