import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { check } from './http.ts';
import type { Sim } from './sim.ts';
import { SwitchesPatch } from './state.ts';

/** Where a sandbox's own control routes live, beside the partner paths. */
export const CONTROL_PREFIX = '/_sandbox';

const ReceivedQuery = z.object({ method: z.string().optional(), path: z.string().optional() });

/**
 * The routes a test (or a curious developer) uses to steer and inspect a simulator. They are not
 * part of any contract and carry no auth: the sandbox is for development machines and CI only.
 */
export function registerControl(app: FastifyInstance, sim: Sim): void {
  const { state } = sim;
  app.get(CONTROL_PREFIX, async () => ({
    kind: sim.kind,
    client_ids: sim.opts.clients.map((c) => c.client_id),
    platform_url: sim.opts.platformUrl() ?? null,
    accounts: sim.opts.accounts,
    switches: state.switches,
  }));
  app.get(`${CONTROL_PREFIX}/switches`, async () => state.switches);
  app.post(`${CONTROL_PREFIX}/switches`, async (req) =>
    state.applySwitches(check(SwitchesPatch, req.body ?? {}, 'body') as SwitchesPatch),
  );
  app.delete(`${CONTROL_PREFIX}/switches`, async () => state.resetSwitches());
  app.get(`${CONTROL_PREFIX}/received`, async (req) => ({
    received: state.listReceived(check(ReceivedQuery, req.query, 'query') as z.infer<typeof ReceivedQuery>),
  }));
  app.delete(`${CONTROL_PREFIX}/received`, async (_req, reply) => {
    state.clearReceived();
    return reply.status(204).send();
  });
  app.get(`${CONTROL_PREFIX}/connections`, async () => ({ connections: state.listConnections() }));
  app.delete(`${CONTROL_PREFIX}/connections`, async (_req, reply) => {
    state.clearConnections();
    return reply.status(204).send();
  });
}
