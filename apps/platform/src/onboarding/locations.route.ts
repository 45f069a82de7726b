import type { FastifyInstance } from 'fastify';
import { listOnboardingLocations as listOp } from '@stream/contracts/apis/partner/onboarding-locations';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { listOnboardingLocations } from './locations.ts';

/** GET /onboarding/locations?onboarding_id */
export function registerLocationsRoute(app: FastifyInstance): void {
  mount(app, listOp, async (req) =>
    listOnboardingLocations(app.ctx, authOf(req), req.query.onboarding_id, req.query),
  );
}
