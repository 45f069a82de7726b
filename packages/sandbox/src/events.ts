import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { eventsReceiveEvent } from '@stream/contracts/apis/integrate-with-events/index';
import { SandboxError, parse, rawBodies, route } from './http.ts';
import type { Sim } from './sim.ts';

/** The simulated event provider: records each event and checks its signature when it knows the secret. */
export function registerEvents(app: FastifyInstance, sim: Sim): void {
  route(app, eventsReceiveEvent, async (req, reply) => {
    verifySignature(sim, req);
    parse(eventsReceiveEvent, req);
    if (sim.state.consume('event_failures')) {
      sim.note(req, 'failed_by_switch', true);
      throw new SandboxError(
        'internal_error',
        'Simulated outage (the sandbox event_failures switch).',
        undefined,
        503,
      );
    }
    return reply.status(204).send();
  });
}

/**
 * `X-Stream-Signature`: lower-case hex HMAC-SHA256 of the raw body with the webhook secret. The
 * outcome is noted on the received entry (`valid`, `missing`, `malformed`, `mismatch`, or
 * `unchecked` when the sandbox was given no secret); a bad one answers 401 as a real provider would.
 */
function verifySignature(sim: Sim, req: FastifyRequest): void {
  const secret = sim.opts.webhookSecret;
  if (!secret) return sim.note(req, 'signature', 'unchecked');
  const header = req.headers['x-stream-signature'];
  if (typeof header !== 'string' || header === '') {
    sim.note(req, 'signature', 'missing');
    throw new SandboxError('signature_missing', 'The `X-Stream-Signature` header is absent.');
  }
  if (!/^[0-9a-f]{64}$/.test(header)) {
    sim.note(req, 'signature', 'malformed');
    throw new SandboxError('signature_malformed', 'The signature is not 64 lower-case hex characters.');
  }
  const expected = createHmac('sha256', secret)
    .update(rawBodies.get(req) ?? Buffer.alloc(0))
    .digest('hex');
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(header))) {
    sim.note(req, 'signature', 'mismatch');
    throw new SandboxError(
      'signature_mismatch',
      'The signature does not match an HMAC-SHA256 of the raw body.',
    );
  }
  sim.note(req, 'signature', 'valid');
}
