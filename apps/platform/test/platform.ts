import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig, type Config } from '../src/config.ts';
import type { AnyJobKind } from '../src/jobs/kinds.ts';
import { startPlatform, type RunningPlatform } from '../src/server.ts';
import { createPartner, type CreatePartnerInput } from '../src/partners/service.ts';
import { testDatabase } from './db.ts';

export interface TestPlatform extends RunningPlatform {
  config: Config;
  /** Creates a partner straight in the database; answers its one-time credentials. */
  partner(input?: Partial<CreatePartnerInput>): ReturnType<typeof createPartner>;
}

/**
 * A real platform on 127.0.0.1 and a port of its own, over a cloned migrated database.
 * `overrides` tune the configuration (sandbox is off unless asked for).
 */
export async function startTestPlatform(
  overrides: Partial<Config> = {},
  /** `register` adds test-only routes before the server listens. */
  hooks: {
    register?: (app: FastifyInstance) => void | Promise<void>;
    /** Test job kinds the worker runs besides the platform's. */
    jobKinds?: readonly AnyJobKind[];
  } = {},
): Promise<TestPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stream-platform-'));
  const base = loadConfig({ DATA_DIR: dataDir, ENCRYPTION_KEY: randomBytes(32).toString('base64') });
  const config: Config = {
    ...base,
    port: 0,
    host: '127.0.0.1',
    publicUrl: '', // filled in with the real port once listening
    sandbox: false,
    logLevel: 'silent',
    // Jobs enqueued or retried in this process wake the worker themselves; a fast poll would only
    // take PGlite's one connection away from the requests under test.
    worker: { pollMs: 200, leaseMs: 5_000, concurrency: 8 },
    ...overrides,
  };
  const database = await testDatabase();
  const platform = await startPlatform(config, {
    database,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    register: hooks.register,
    jobKinds: hooks.jobKinds,
  });
  let n = 0;
  return {
    ...platform,
    config: platform.app.ctx.config,
    partner: (input = {}) =>
      createPartner(platform.app.ctx.db, config.encryptionKey, {
        kind: 'white_label',
        slug: `partner-${++n}-${randomBytes(3).toString('hex')}`,
        name: 'Test partner',
        ...input,
      }),
    stop: async () => {
      await platform.stop();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
