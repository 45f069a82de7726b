import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { check, SandboxError } from './http.ts';
import type { SandboxClient } from './options.ts';
import type { Sim } from './sim.ts';
import { SwitchesPatch } from './state.ts';
import { registerEventsControl } from './events.ts';
import { registerOrderControl } from './orders.ts';

/** Where a sandbox's own control routes live, beside the partner paths. */
export const CONTROL_PREFIX = '/_sandbox';

const ReceivedQuery = z.object({ method: z.string().optional(), path: z.string().optional() });

/** `Authorization: Basic base64(client_id:client_secret)`, or undefined. */
export function basicCredentials(req: FastifyRequest): SandboxClient | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { client_id: decoded.slice(0, colon), client_secret: decoded.slice(colon + 1) };
}

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Constant-time on the secret (digests of equal length); the client id is no secret. */
const matches = (given: SandboxClient, known: SandboxClient) =>
  given.client_id === known.client_id &&
  timingSafeEqual(digest(given.client_secret), digest(known.client_secret));

/**
 * The routes a test (or a developer) uses to steer and inspect a simulator. Not part of any
 * contract, and not open: they can break every integration using this simulator and show what it
 * received, so they need the simulator's own credentials (`controlClients`, by default the OAuth
 * clients it issued) as HTTP Basic, as a real sandbox's test helpers need the account's key.
 * Anything else is 401 `invalid_client`.
 */
export function registerControl(app: FastifyInstance, sim: Sim): void {
  const { state } = sim;
  void app.register(async (control) => {
    // Every control body is JSON: a form (`curl -d` without a Content-Type) is refused 415 saying so,
    // as the platform refuses one, rather than read as a single misnamed field.
    control.addHook('onRoute', (opts) => {
      opts.config = { ...(opts.config as object), jsonOnly: true } as typeof opts.config;
    });
    control.addHook('onRequest', async (req, reply) => {
      const given = basicCredentials(req);
      const known = given ? await sim.opts.controlClients() : [];
      if (given && known.some((k) => matches(given, k))) return;
      reply.header('www-authenticate', 'Basic realm="sandbox control", charset="UTF-8"');
      throw new SandboxError(
        'invalid_client',
        `The sandbox control routes need this simulator's client credentials as HTTP Basic ` +
          '(`Authorization: Basic base64(client_id:client_secret)`, `curl -u`).',
      );
    });
    control.get(CONTROL_PREFIX, async () => ({
      kind: sim.kind,
      client_ids: sim.opts.clients.map((c) => c.client_id),
      platform_url: sim.opts.platformUrl() ?? null,
      partner_ref: sim.opts.partnerRef() ?? null,
      accounts: sim.opts.accounts,
      switches: state.switches,
    }));
    control.get(`${CONTROL_PREFIX}/switches`, async () => state.switches);
    control.post(`${CONTROL_PREFIX}/switches`, async (req) =>
      state.applySwitches(check(SwitchesPatch, req.body ?? {}, 'body') as SwitchesPatch),
    );
    control.delete(`${CONTROL_PREFIX}/switches`, async () => state.resetSwitches());
    control.get(`${CONTROL_PREFIX}/received`, async (req) => ({
      received: state.listReceived(check(ReceivedQuery, req.query, 'query') as z.infer<typeof ReceivedQuery>),
    }));
    control.delete(`${CONTROL_PREFIX}/received`, async (_req, reply) => {
      state.clearReceived();
      return reply.status(204).send();
    });
    control.get(`${CONTROL_PREFIX}/connections`, async () => ({ connections: state.listConnections() }));
    control.delete(`${CONTROL_PREFIX}/connections`, async (_req, reply) => {
      state.clearConnections();
      return reply.status(204).send();
    });
    registerOrderControl(control, sim, CONTROL_PREFIX);
    if (sim.kind === 'events') registerEventsControl(control, sim, CONTROL_PREFIX);
  });
}
