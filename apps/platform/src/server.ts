import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type Database } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { createHttpServer } from './http/app.ts';
import { registerHealth } from './http/health.ts';
import { registerApi } from './http/api.ts';
import { registerAuth } from './auth/index.ts';
import { oauth } from './oauth/index.ts';
import { wellKnown } from './well-known/index.ts';
import { tokens } from './tokens/index.ts';
import { onboarding } from './onboarding/index.ts';
import { whiteLabel } from './white-label/index.ts';
import { billing } from './billing/index.ts';
import { orders } from './orders/index.ts';
import { order } from './order/index.ts';
import { pos } from './pos/index.ts';
import { eventProvider } from './event-provider/index.ts';
import { menus } from './menus/index.ts';
import { certification } from './certification/index.ts';
import { menuFiles } from './menu-files/index.ts';
import { hostedMenusCapability } from './hosted/menus/index.ts';
import { menuDiscounts } from './hosted/menu-discounts/index.ts';
import { outOfStock } from './hosted/out-of-stock/index.ts';
import { hostedOrdersCapability } from './hosted/orders/index.ts';
import { priceOrderCapability } from './hosted/price-order/index.ts';
import { hostedStoresCapability } from './hosted/stores/index.ts';
import { ensureDemoCompany } from './hosted/demo.ts';
import { registerWebhookSignatures } from './webhooks/signature.ts';
import { checkJobKinds, startWorker, type Worker } from './jobs/worker.ts';
import type { AnyJobKind } from './jobs/kinds.ts';
import { startPruner } from './jobs/retention.ts';
import { runJobsHere } from './jobs/outbox.ts';
import { JOB_KINDS } from './job-kinds.ts';
import { registerAdmin } from './admin/index.ts';
import { mountSandbox } from './sandbox-mount.ts';
import { ensureSandboxPartners } from './sandbox-bootstrap.ts';
import { registerDocsSite } from './docs-site.ts';

/**
 * Builds the platform's HTTP app on an open database. Every API and its capabilities are registered
 * here; this is the one list of what the platform serves (`routes.test.ts` holds it to the contracts).
 */
export async function buildApp(
  config: Config,
  database: Database,
  logger: Logger,
  /** Extra routes (tests mount test-only operations); runs after every capability is registered. */
  register?: (app: FastifyInstance) => void | Promise<void>,
): Promise<FastifyInstance> {
  const app = createHttpServer({ logger, bodyLimit: config.bodyLimit, timeouts: config.http });
  const ctx: AppContext = { config, database, db: database.db, log: app.log };
  app.decorate('ctx', ctx);
  app.decorate('securityHandlers', new Map());

  registerHealth(app);
  // Security handlers first: `mount` looks them up.
  registerWebhookSignatures(app);
  await registerAuth(app);
  // One Fastify scope per API, with its error envelope; one child scope per capability (the first
  // path segment, also the folder of its route files).
  await registerApi(app, 'partner', [
    oauth,
    wellKnown,
    tokens,
    onboarding,
    whiteLabel,
    billing,
    orders,
    menus,
    certification,
  ]);
  await registerApi(app, 'become-a-dsp', [order, menuFiles]);
  await registerApi(app, 'become-a-pos', [pos]);
  await registerApi(app, 'integrate-with-events', [eventProvider]);
  // The hosted restaurant APIs: spec paths at the root (`/Menus`), handlers under `hosted/`.
  await registerApi(app, 'hr-menu', [hostedMenusCapability, menuDiscounts, outOfStock]);
  await registerApi(app, 'hr-orders', [hostedOrdersCapability, priceOrderCapability]);
  await registerApi(app, 'hr-stores', [hostedStoresCapability]);
  registerAdmin(app);
  if (config.sandbox) {
    await ensureSandboxPartners(ctx); // registers the sandbox partners the mount reads
    await ensureDemoCompany(ctx); // the hosted APIs' demo company, once
    await mountSandbox(app);
  }
  await register?.(app);
  // Last: the documentation site's GET wildcard sits under every API route.
  await registerDocsSite(app);
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
  opts: {
    database?: Database;
    logger?: Logger;
    register?: (app: FastifyInstance) => void | Promise<void>;
    /** Job kinds run besides `JOB_KINDS` (tests and benchmarks define their own). */
    jobKinds?: readonly AnyJobKind[];
  } = {},
): Promise<RunningPlatform> {
  const logger = opts.logger ?? createLogger(config);
  const database =
    opts.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
    }));
  try {
    await migrate(database);
    const app = await buildApp(config, database, logger, opts.register);
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
    const publicUrlKnown = Boolean(app.ctx.config.publicUrl);
    app.ctx.config.publicUrl ||= `http://localhost:${port}`;
    // PORT=0: the sandbox partners' base URLs could only be written now that the port is known.
    if (config.sandbox && !publicUrlKnown) await ensureSandboxPartners(app.ctx);
    const kinds = [...JOB_KINDS, ...(opts.jobKinds ?? [])];
    await checkJobKinds(database.db, kinds);
    const worker = startWorker(app.ctx, { kinds });
    runJobsHere(app.ctx, worker); // jobs a request enqueues with `runHere` start here once it commits
    const pruner = startPruner(app.ctx, worker.id);
    await app.ready();
    let stopping: Promise<void> | undefined;
    return {
      app,
      url,
      worker,
      stop: () =>
        (stopping ??= (async () => {
          await app.close();
          await Promise.all([worker.stop(), pruner.stop()]);
          if (!opts.database) await database.close();
        })()),
    };
  } catch (err) {
    if (!opts.database) await database.close();
    throw err;
  }
}
