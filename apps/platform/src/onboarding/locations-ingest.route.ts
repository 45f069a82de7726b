import type { FastifyInstance } from 'fastify';
import { ingestLocations as ingestOp } from '@stream/contracts/apis/partner/onboarding-locations';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { ingestLocations } from './locations.ts';

/** POST /onboarding/locations/ingest */
export function registerLocationsIngestRoute(app: FastifyInstance): void {
  mount(app, ingestOp, async (req) => ingestLocations(app.ctx, authOf(req), req.body));
}
