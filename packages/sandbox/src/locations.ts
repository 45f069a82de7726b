import type { FastifyRequest } from 'fastify';
import type {
  LocationConnection,
  LocationConnectionRequest,
} from '@stream/contracts/apis/become-a-pos/index';
import type { Operation } from '@stream/contracts/operation';
import { SandboxError, parse } from './http.ts';
import type { SandboxAccount, SandboxLocation } from './options.ts';
import type { Sim } from './sim.ts';

/** The location of the token's account named by `location_id`, or 400 connection_failed. */
export function locationOf(account: SandboxAccount, locationId: string): SandboxLocation {
  const location = account.locations.find((l) => l.provider_id === locationId);
  if (!location) {
    throw new SandboxError(
      'connection_failed',
      `"${locationId}" is not a location of the account "${account.id}".`,
    );
  }
  return location;
}

/** Connect or disconnect (POS and DSP alike): bearer, body `{location_id}`, the failure switch, then the change. */
export function changeConnection(
  sim: Sim,
  req: FastifyRequest,
  op: Operation & { request: { body: typeof LocationConnectionRequest } },
  connect: boolean,
): LocationConnection {
  const account = sim.authenticate(req);
  const { location_id } = parse(op, req).body;
  if (sim.state.consume('connection_failures')) {
    sim.note(req, 'failed_by_switch', true);
    throw new SandboxError(
      'connection_failed',
      'The location could not be changed (the sandbox connection_failures switch).',
    );
  }
  const refusal = sim.kind === 'dsp' && connect ? sim.state.switches.connection_refusal : 'none';
  if (refusal !== 'none') {
    sim.note(req, 'failed_by_switch', true);
    throw new SandboxError(
      'connection_failed',
      `${refusal}: the store cannot be connected (the sandbox connection_refusal switch).`,
    );
  }
  locationOf(account, location_id);
  if (connect) sim.state.connect(account.id, location_id);
  else sim.state.disconnect(account.id, location_id);
  return { location_id, connected: connect };
}
