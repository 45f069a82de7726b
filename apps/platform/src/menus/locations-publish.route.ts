import type { FastifyInstance } from 'fastify';
import { publishMenus } from '@stream/contracts/apis/partner/menus';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { publishNow } from './read.ts';

/** POST /menus/locations/{location_id}/publish */
export function registerPublishRoute(app: FastifyInstance): void {
  mount(app, publishMenus, async (req, reply) =>
    reply.code(202).send(await publishNow(app.ctx, authOf(req), req.params.location_id)),
  );
}
