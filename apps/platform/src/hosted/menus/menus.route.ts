import type { FastifyInstance } from 'fastify';
import { createMenu, getMenu, listMenus, patchMenu } from '@stream/contracts/apis/hr-menu/index';
import { authOf } from '../../auth/bearer.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer, plural } from '../answer.ts';
import { ignoredFields } from '../ignored-fields.ts';
import {
  createStoreMenu,
  findStoreMenu,
  listStoreMenus,
  menuOf,
  patchStoreMenu,
  shadowedServiceTypes,
} from './store-menus.ts';

/** GET, POST /Menus; GET, PATCH /Menus/{menuName} */
export function registerMenusRoute(app: FastifyInstance): void {
  const { db } = app.ctx;
  mount(app, listMenus, async (req) => {
    const store = await findGrantedStore(db, authOf(req), req.headers['x-store']);
    const menus = await listStoreMenus(db, store.id, req.query.serviceType);
    return hostedAnswer(menus.map(menuOf), `${plural(menus.length, 'menu')}.`);
  });
  mount(app, createMenu, async (req, reply) => {
    const store = await findGrantedStore(db, authOf(req), req.headers['x-store']);
    const row = await createStoreMenu(db, store.id, req.body.data);
    const warnings = [
      ...ignoredFields(req, 'a menu'),
      ...(await shadowedServiceTypes(db, row, 'body.data.serviceTypes')),
    ];
    return reply.code(201).send(hostedAnswer(menuOf(row), `Menu ${row.name} created.`, warnings));
  });
  mount(app, getMenu, async (req) => {
    const store = await findGrantedStore(db, authOf(req), req.headers['x-store']);
    const row = await findStoreMenu(db, store.id, req.params.menuName);
    return hostedAnswer(menuOf(row), `Menu ${row.name} of store ${store.id}.`);
  });
  mount(app, patchMenu, async (req) => {
    const store = await findGrantedStore(db, authOf(req), req.headers['x-store']);
    const row = await patchStoreMenu(db, store.id, req.params.menuName, req.body, app.ctx.config.bodyLimit);
    return hostedAnswer(
      menuOf(row),
      `Menu ${row.name} patched: ${plural(req.body.length, 'operation')} applied.`,
      await shadowedServiceTypes(db, row, 'serviceTypes'),
    );
  });
}
