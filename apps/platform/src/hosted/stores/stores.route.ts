import type { FastifyInstance } from 'fastify';
import { getStore, searchStores as searchStoresOperation } from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { hostedAnswer, plural } from '../answer.ts';
import { findStoreForWire, searchStores } from './read.ts';

/** GET /Stores; GET /Stores/{id} */
export function registerStoresRoute(app: FastifyInstance): void {
  const { db } = app.ctx;
  mount(app, searchStoresOperation, async (req) => {
    const { Latitude: latitude, Longitude: longitude, Radius: miles } = req.query;
    const found = await searchStores(
      db,
      authOf(req),
      req.headers['x-company'],
      { latitude, longitude },
      miles,
    );
    return hostedAnswer(found, `${plural(found.length, 'store')} within ${plural(miles, 'mile')}.`);
  });
  mount(app, getStore, async (req) => {
    const store = await findStoreForWire(db, authOf(req), req.params.id);
    return hostedAnswer(store, `Store ${store.id}.`);
  });
}
