import type { FastifyInstance } from 'fastify';
import { bindLocations as bindOp } from '@stream/contracts/apis/partner/onboarding-locations';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { bindLocations } from './locations.ts';

/** POST /onboarding/locations/bind */
export function registerLocationsBindRoute(app: FastifyInstance): void {
  mount(app, bindOp, async (req) => bindLocations(app.ctx, authOf(req), req.body));
}
