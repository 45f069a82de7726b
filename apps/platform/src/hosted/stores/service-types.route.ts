import type { FastifyInstance } from 'fastify';
import { getStoreServiceTypes } from '@stream/contracts/apis/hr-stores/index';
import { ServiceType } from '@stream/contracts/hosted';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural } from '../answer.ts';
import { storeServiceTypes } from '../menus/store-menus.ts';

/** GET /Stores/{id}/ServiceTypes */
export function registerServiceTypesRoute(app: FastifyInstance): void {
  mount(app, getStoreServiceTypes, async (req) => {
    const store = await findGrantedStore(app.ctx.db, authOf(req), req.params.id);
    const served = await storeServiceTypes(app.ctx.db, store.id);
    // A menu serving None is every service type's default.
    const types = ServiceType.options.filter((t) => served.has('None') || served.has(t));
    return hostedAnswer(types, `${plural(types.length, 'service type')}.`);
  });
}
