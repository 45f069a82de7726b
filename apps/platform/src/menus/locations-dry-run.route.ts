import type { FastifyInstance } from 'fastify';
import { dryRunMenus } from '@stream/contracts/apis/partner/menus';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { dryRun } from './read.ts';

/** POST /menus/locations/{location_id}/dry-run */
export function registerDryRunRoute(app: FastifyInstance): void {
  mount(app, dryRunMenus, async (req) => dryRun(app.ctx, authOf(req), req.params.location_id));
}
