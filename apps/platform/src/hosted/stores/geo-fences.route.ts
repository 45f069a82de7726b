import type { FastifyInstance } from 'fastify';
import { listGeoFences } from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural } from '../answer.ts';

/** GET /Stores/{id}/GeoFences */
export function registerGeoFencesRoute(app: FastifyInstance): void {
  mount(app, listGeoFences, async (req) => {
    const store = await findGrantedStore(app.ctx.db, authOf(req), req.params.id);
    return hostedAnswer(store.geoFences, `${plural(store.geoFences.length, 'zone')}.`);
  });
}
