import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { pendingMigrations } from '../db/migrate.ts';
import { errorBody } from './errors.ts';

/** /healthz: the process answers. /readyz: the database answers and every migration is applied. */
export function registerHealth(app: FastifyInstance): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (req, reply) => {
    try {
      await app.ctx.db.execute(sql`select 1`);
      const pending = await pendingMigrations(app.ctx.database);
      if (pending > 0) {
        return reply
          .status(503)
          .send(errorBody('not_ready', `${pending} migration(s) not applied yet.`, req.id));
      }
      return { status: 'ready', database: app.ctx.database.driver };
    } catch (err) {
      req.log.warn({ err }, 'readiness check failed');
      return reply.status(503).send(errorBody('not_ready', 'The database is not reachable.', req.id));
    }
  });
}
