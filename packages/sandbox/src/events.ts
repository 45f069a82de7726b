import type { FastifyInstance, FastifyRequest } from 'fastify';
import { eventsReceiveEvent } from '@stream/contracts/apis/integrate-with-events/index';
import { verifySignature as check } from '@stream/contracts/server/signature';
import { SandboxError, parse, route } from './http.ts';
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

const PROBLEMS = {
  signature_missing: ['missing', 'The `X-Stream-Signature` header is absent.'],
  signature_malformed: ['malformed', 'The signature is not 64 hex characters.'],
  signature_mismatch: ['mismatch', 'The signature does not match an HMAC-SHA256 of the raw body.'],
} as const;

/**
 * `X-Stream-Signature`: hex HMAC-SHA256 of the raw body with the webhook secret, checked by the same
 * code as the platform's inbound webhook signatures. The outcome is noted on the received entry
 * (`valid`, `missing`, `malformed`, `mismatch`, or `unchecked` when the sandbox was given no secret);
 * a bad one answers 401 as a real provider would.
 */
function verifySignature(sim: Sim, req: FastifyRequest): void {
  const secret = sim.opts.webhookSecret;
  if (!secret) return sim.note(req, 'signature', 'unchecked');
  const problem = check(secret, req.rawBody ?? Buffer.alloc(0), req.headers['x-stream-signature']);
  if (problem) {
    const [note, message] = PROBLEMS[problem];
    sim.note(req, 'signature', note);
    throw new SandboxError(problem, message);
  }
  sim.note(req, 'signature', 'valid');
}
