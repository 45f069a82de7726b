import type { FastifyInstance } from 'fastify';
import { listOrgLocations as listOp } from '@stream/contracts/apis/partner/onboarding-locations';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { listOrgLocations } from './locations.ts';

/** GET /onboarding/org/{id}/locations?location_id */
export function registerOrgLocationsRoute(app: FastifyInstance): void {
  mount(app, listOp, async (req) =>
    listOrgLocations(app.ctx, authOf(req), req.params.id, req.query.location_id, req.query),
  );
}
