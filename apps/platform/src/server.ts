import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type Database } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { createHttpServer } from './http/app.ts';
import { registerHealth } from './http/health.ts';
import { registerAuth } from './auth/index.ts';
import { registerPartnerApi } from './partner-api/index.ts';
import { registerWebhookSignatures } from './webhooks/signature.ts';
import { startWorker, type Worker } from './jobs/worker.ts';
import { registerAdmin } from './admin/index.ts';
import { mountSandbox } from './sandbox-mount.ts';

/**
 * Builds the platform's HTTP app on an open database. Every capability registers its routes here;
 * this is the one list of what the platform serves.
 */
export async function buildApp(config: Config, database: Database, logger: Logger): Promise<FastifyInstance> {
  const app = createHttpServer({ logger, bodyLimit: config.bodyLimit });
  const ctx: AppContext = { config, database, db: database.db, log: app.log };
  app.decorate('ctx', ctx);
  app.decorate('securityHandlers', new Map());

  registerHealth(app);
  registerWebhookSignatures(app);
  await registerAuth(app);
  registerPartnerApi(app);
  registerAdmin(app);
  if (config.sandbox) await mountSandbox(app);
  return app;
}

export interface RunningPlatform {
  app: FastifyInstance;
  url: string;
  worker: Worker;
  /** Stops taking requests, drains in-flight requests and jobs, closes the database. */
  stop(): Promise<void>;
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: 'stream-platform' } });
}

/** Opens (and migrates) the database, serves HTTP and runs the outbox worker. */
export async function startPlatform(
  config: Config,
  opts: { database?: Database; logger?: Logger } = {},
): Promise<RunningPlatform> {
  const logger = opts.logger ?? createLogger(config);
  const database =
    opts.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  try {
    await migrate(database);
    const app = await buildApp(config, database, logger);
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
    app.ctx.config.publicUrl ||= `http://localhost:${port}`;
    const worker = startWorker(app.ctx);
    await app.ready();
    let stopping: Promise<void> | undefined;
    return {
      app,
      url,
      worker,
      stop: () =>
        (stopping ??= (async () => {
          await app.close();
          await worker.stop();
          if (!opts.database) await database.close();
        })()),
    };
  } catch (err) {
    if (!opts.database) await database.close();
    throw err;
  }
}
