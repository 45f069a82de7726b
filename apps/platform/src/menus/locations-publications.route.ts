import type { FastifyInstance } from 'fastify';
import { listMenuPublications } from '@stream/contracts/apis/partner/menus';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { publicationsOf } from './read.ts';

/** GET /menus/locations/{location_id}/publications */
export function registerPublicationsRoute(app: FastifyInstance): void {
  mount(app, listMenuPublications, async (req) =>
    publicationsOf(app.ctx, authOf(req), req.params.location_id, req.query),
  );
}
