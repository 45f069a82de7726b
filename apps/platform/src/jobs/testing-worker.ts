/**
 * A worker process for the multi-process outbox tests: `node --import tsx testing-worker.ts` with
 * DATABASE_URL, TEST_WORKER_ID and TEST_LEASE_MS. Prints `ready` once it polls; SIGTERM stops it
 * cleanly. Importing this file only defines the test job kind (so the test can enqueue it).
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { deliver } from './http-client.ts';
import { defineJobKind } from './kinds.ts';
import { startWorker } from './worker.ts';

/** POSTs `{job, key?, n?}` to `url`, saying which worker process sent it. */
export const postJob = defineJobKind({
  kind: 'test.post',
  payload: z.object({ url: z.string(), key: z.string().optional(), n: z.number().optional() }),
  maxAttempts: 5,
  deadlineMs: 120_000,
  backoff: { baseMs: 50, maxMs: 500 },
  handle: async (job, ctx) => {
    await deliver(ctx, {
      method: 'POST',
      url: job.payload.url,
      body: { job: job.id, key: job.payload.key, n: job.payload.n },
      headers: { 'x-worker': process.env.TEST_WORKER_ID ?? 'parent' },
      job,
      signal: job.signal,
    });
  },
});

export const WORKER_SCRIPT = fileURLToPath(import.meta.url);

async function main() {
  const env = process.env;
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL, poolSize: 4 });
  const config = {
    ...loadConfig({ DATA_DIR: tmpdir(), ENCRYPTION_KEY: randomBytes(32).toString('base64') }),
    worker: { pollMs: 20, leaseMs: Number(env.TEST_LEASE_MS ?? 5_000), concurrency: 8 },
  };
  const log = pino({ level: env.TEST_LOG_LEVEL ?? 'silent' });
  const worker = startWorker(
    { config, database, db: database.db, log },
    { id: env.TEST_WORKER_ID, kinds: [postJob] },
  );
  process.once('SIGTERM', async () => {
    await worker.stop();
    await database.close();
    process.exit(0);
  });
  process.stdout.write('ready\n');
}

if (process.argv[1] === WORKER_SCRIPT) await main();
