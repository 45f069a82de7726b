import type { FastifyInstance } from 'fastify';
import { getLocationCatalog } from '@stream/contracts/apis/partner/menus';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { locationCatalog } from './read.ts';

/** GET /menus/locations/{location_id}/catalog */
export function registerCatalogRoute(app: FastifyInstance): void {
  mount(app, getLocationCatalog, async (req) =>
    locationCatalog(app.ctx, authOf(req), req.params.location_id),
  );
}
