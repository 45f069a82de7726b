import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { LocalRunner } from './jobs/outbox.ts';

/** What every capability needs: configuration, the database and a logger. No other shared state. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  log: FastifyBaseLogger;
  /** This process's outbox worker, once started: `transaction` hands it the jobs it may start at once. */
  runner?: LocalRunner;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
