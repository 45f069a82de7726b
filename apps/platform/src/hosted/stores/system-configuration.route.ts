import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { getSystemConfiguration, patchSystemConfiguration } from '@stream/contracts/apis/hr-stores/index';
import { authOf } from '../../auth/bearer.ts';
import { stores } from '../../db/schema/index.ts';
import { mount } from '../../http/route.ts';
import { findGrantedStore } from '../access.ts';
import { hostedAnswer } from '../answer.ts';

/** GET, PATCH /Stores/{id}/SystemConfiguration */
export function registerSystemConfigurationRoute(app: FastifyInstance): void {
  const { db } = app.ctx;
  mount(app, getSystemConfiguration, async (req) => {
    const store = await findGrantedStore(db, authOf(req), req.params.id);
    return hostedAnswer({ message: store.systemMessage }, `System configuration of store ${store.id}.`);
  });
  mount(app, patchSystemConfiguration, async (req) => {
    const store = await findGrantedStore(db, authOf(req), req.params.id);
    const { message } = req.body.data;
    await db
      .update(stores)
      .set({ systemMessage: message, updatedAt: sql`now()` })
      .where(eq(stores.id, store.id));
    return hostedAnswer(
      { message },
      `System message of store ${store.id} ${message === null ? 'cleared' : 'set'}.`,
    );
  });
}
