import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, testDatabase } from '../../test/db.ts';
import type { Database } from '../db/client.ts';
import { jobs } from '../db/schema/index.ts';
import { enqueue } from './outbox.ts';
import { startPartnerServer, waitFor, type PartnerServer } from './testing.ts';
import { postJob, WORKER_SCRIPT } from './testing-worker.ts';

// Several processes can share a PostgreSQL server, not a PGlite folder: these run on PostgreSQL only.
describe.skipIf(!onPostgres)('outbox workers in separate processes', () => {
  let database: Database & { url?: string };
  const children: ChildProcess[] = [];

  async function spawnWorker(id: string, leaseMs: number): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER_SCRIPT], {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: database.url, TEST_WORKER_ID: id, TEST_LEASE_MS: String(leaseMs) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    child.stdout!.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('ready\n')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`worker ${id} exited (${code}) before it was ready`)));
    });
    return child;
  }

  async function stopWorker(child: ChildProcess) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  const count = async (where: ReturnType<typeof and>) =>
    (
      await database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(jobs)
        .where(where)
    )[0]!.n;

  beforeAll(async () => {
    database = await testDatabase();
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database?.close();
  });

  it('two processes deliver 1,000 jobs, each exactly once', { timeout: 90_000 }, async () => {
    const perJob = new Map<string, number>();
    const byWorker = new Map<string, number>();
    const server: PartnerServer = await startPartnerServer((req) => {
      const { job } = JSON.parse(req.body.toString()) as { job: string };
      perJob.set(job, (perJob.get(job) ?? 0) + 1);
      const worker = String(req.headers['x-worker']);
      byWorker.set(worker, (byWorker.get(worker) ?? 0) + 1);
      return { status: 200, body: 'ok' };
    });
    try {
      const [one, two] = await Promise.all([spawnWorker('proc-1', 5_000), spawnWorker('proc-2', 5_000)]);
      // Enqueued 50 at a time while the workers already deliver, as on a busy platform.
      const ids: string[] = [];
      for (let i = 0; i < 1000; i += 50) {
        const batch = Array.from({ length: 50 }, () =>
          enqueue(database.db, { kind: postJob, payload: { url: server.url } }),
        );
        ids.push(...(await Promise.all(batch)));
      }
      await waitFor(
        async () => (await count(and(eq(jobs.kind, postJob.kind), eq(jobs.status, 'succeeded')))) === 1000,
        60_000,
        'all 1,000 jobs to succeed',
      );
      await Promise.all([stopWorker(one!), stopWorker(two!)]);

      expect(perJob.size).toBe(1000);
      expect(new Set(ids)).toEqual(new Set(perJob.keys()));
      expect([...perJob.values()].every((n) => n === 1)).toBe(true);
      // Both processes took part.
      expect([...byWorker.keys()].sort()).toEqual(['proc-1', 'proc-2']);
      const lockedBy = await database.db
        .selectDistinct({ by: jobs.lockedBy })
        .from(jobs)
        .where(eq(jobs.kind, postJob.kind));
      expect(lockedBy.map((r) => r.by).sort()).toEqual(['proc-1', 'proc-2']);
    } finally {
      await server.close();
    }
  });

  it(
    "a killed worker's job is completed by the other once its lease expires",
    { timeout: 60_000 },
    async () => {
      const server = await startPartnerServer((_req, n) => (n === 0 ? 'hang' : { status: 200, body: 'ok' }));
      try {
        const doomed = await spawnWorker('doomed', 1_000);
        const id = await enqueue(database.db, { kind: postJob, payload: { url: server.url } });
        await waitFor(() => server.received.length === 1, 20_000, 'the first worker to start the job');
        expect(server.received[0]!.headers['x-worker']).toBe('doomed');
        doomed.kill('SIGKILL'); // mid-request: no chance to record anything
        await once(doomed, 'exit');

        const survivor = await spawnWorker('survivor', 1_000);
        const row = await waitFor(
          async () => {
            const [r] = await database.db.select().from(jobs).where(eq(jobs.id, id));
            return r!.status === 'succeeded' ? r : undefined;
          },
          30_000,
          'the survivor to complete the job',
        );
        await stopWorker(survivor);

        expect(row).toMatchObject({ lockedBy: 'survivor', attempts: 2 });
        expect(server.received.map((r) => r.headers['x-worker'])).toEqual(['doomed', 'survivor']);
      } finally {
        server.release();
        await server.close();
      }
    },
  );
  it(
    'a handler slower than the lease is never run twice at once, across processes',
    { timeout: 60_000 },
    async () => {
      const server = await startPartnerServer(() => 'hang');
      try {
        const [one, two] = await Promise.all([spawnWorker('slow-1', 1_000), spawnWorker('slow-2', 1_000)]);
        const id = await enqueue(database.db, { kind: postJob, payload: { url: server.url } });
        await waitFor(() => server.received.length === 1, 20_000, 'a worker to start the job');
        // Four leases long: the holder's heartbeat keeps the other process off the job.
        await new Promise((r) => setTimeout(r, 4_000));
        server.release({ status: 200, body: 'ok' });
        const [row] = await waitFor(async () => {
          const rows = await database.db.select().from(jobs).where(eq(jobs.id, id));
          return rows[0]!.status === 'succeeded' ? rows : undefined;
        });
        await Promise.all([stopWorker(one!), stopWorker(two!)]);
        expect(server.received).toHaveLength(1);
        expect(row).toMatchObject({ attempts: 1, lockedBy: server.received[0]!.headers['x-worker'] });
      } finally {
        await server.close();
      }
    },
  );

  it(
    '1,000 jobs over 20 ordering keys arrive in per-key order, none lost or doubled, while a process is SIGKILLed',
    { timeout: 120_000 },
    async () => {
      // The partner keeps the first delivery of each job and drops repeats, as the Idempotency-Key
      // (one per job) lets a real partner do; a repeat can only be the call a killed process had in flight.
      const firstSeen: { key: string; n: number }[] = [];
      const seen = new Map<string, unknown>(); // job id -> its Idempotency-Key
      let repeats = 0;
      const server = await startPartnerServer((req) => {
        const { job, key, n } = JSON.parse(req.body.toString()) as { job: string; key: string; n: number };
        const idempotencyKey = req.headers['idempotency-key'];
        if (seen.has(job)) {
          repeats++;
          expect(idempotencyKey).toBe(seen.get(job)); // what lets the partner drop it
        } else {
          seen.set(job, idempotencyKey);
          firstSeen.push({ key, n });
        }
        // A little latency, so jobs are in flight when the kill comes.
        return new Promise((r) => setTimeout(() => r({ status: 200, body: 'ok' }), 2));
      });
      try {
        const [victim, survivor] = await Promise.all([
          spawnWorker('victim', 1_000),
          spawnWorker('survivor', 1_000),
        ]);
        const keys = Array.from({ length: 20 }, (_, k) => `order-${k}`);
        for (let n = 0; n < 50; n++) {
          await Promise.all(
            keys.map((key) =>
              enqueue(database.db, { kind: postJob, payload: { url: server.url, key, n }, orderingKey: key }),
            ),
          );
        }
        await waitFor(() => seen.size >= 300, 60_000, 'a third of the jobs to arrive');
        victim!.kill('SIGKILL');
        await once(victim!, 'exit');
        // Done means committed, not merely delivered: a job the victim delivered last is only
        // finished by the survivor once the victim's lease has expired.
        await waitFor(
          async () => (await count(and(isNotNull(jobs.orderingKey), eq(jobs.status, 'succeeded')))) === 1000,
          90_000,
          'every job to succeed',
        );
        await stopWorker(survivor!);

        for (const key of keys) {
          const order = firstSeen.filter((e) => e.key === key).map((e) => e.n);
          expect(order, key).toEqual(Array.from({ length: 50 }, (_, n) => n));
        }
        expect(repeats).toBeLessThanOrEqual(8); // at most the victim's jobs in flight
        expect(new Set(seen.values()).size).toBe(1000); // one key per job
        expect(await count(and(isNotNull(jobs.orderingKey), eq(jobs.status, 'succeeded')))).toBe(1000);
      } finally {
        await server.close();
      }
    },
  );
});
