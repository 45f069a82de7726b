import type { FastifyInstance } from 'fastify';
import { getCertificationRun, startCertificationRun } from '@stream/contracts/apis/partner/certification';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { findRun, runToWire, startRun } from './runs.ts';

/** POST /certification/runs, GET /certification/runs/{run_id} */
export function registerRunsRoutes(app: FastifyInstance): void {
  mount(app, startCertificationRun, async (req, reply) => {
    reply.status(202);
    return { run: await startRun(app.ctx, authOf(req), req.body?.menu_form) };
  });
  mount(app, getCertificationRun, async (req) => ({
    run: runToWire(await findRun(app.ctx.db, authOf(req).partnerId, req.params.run_id)),
  }));
}
