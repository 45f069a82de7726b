import type { FastifyInstance } from 'fastify';
import { createOrg as createOrgOp } from '@stream/contracts/apis/partner/index';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { createOrg } from './orgs.ts';

/** POST /onboarding/org */
export function registerOrgRoute(app: FastifyInstance): void {
  mount(app, createOrgOp, async (req, reply) => {
    reply.status(201);
    return createOrg(app.ctx.db, authOf(req), req.body);
  });
}
