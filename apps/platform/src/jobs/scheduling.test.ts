import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../../test/db.ts';
import { loadConfig } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/client.ts';
import { deliveryAttempts, jobs } from '../db/schema/index.ts';
import { postJob } from './testing-worker.ts';
import { enqueue } from './outbox.ts';
import { startPartnerServer, waitFor, type PartnerServer } from './testing.ts';
import { checkJobKinds, startWorker, type Worker } from './worker.ts';

/** One POST of `{job, key, n}` to the URL; the partner decides how it goes. */
const post = postJob;

let database: Database;
const workers: Worker[] = [];
const ctx = (worker: Partial<AppContext['config']['worker']> = {}): AppContext => ({
  config: {
    ...loadConfig({ DATA_DIR: '/nonexistent', ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }),
    worker: { pollMs: 20, leaseMs: 5_000, concurrency: 8, ...worker },
  },
  database,
  db: database.db,
  log: pino({ level: 'silent' }),
});
const run = (worker: Partial<AppContext['config']['worker']> = {}) => {
  const w = startWorker(ctx(worker), { kinds: [post] });
  workers.push(w);
  return w;
};
const bodies = (s: PartnerServer) =>
  s.received.map((r) => JSON.parse(r.body.toString()) as { key?: string; n: number });

beforeAll(async () => {
  database = await testDatabase();
});
// Each test's workers stop with it, and its leftover jobs go, so the next starts from a clean outbox.
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop({ graceMs: 0 })));
  await database.db.delete(deliveryAttempts);
  await database.db.delete(jobs);
});
afterAll(async () => {
  await database?.close();
});

describe('ordering keys', () => {
  it('runs the jobs of a key one at a time in enqueue order; a failing head holds back the rest', async () => {
    // Key "a"'s first job fails twice before it succeeds; key "b" flows meanwhile.
    let headFailures = 2;
    const inFlight = new Map<string, number>();
    let overlap = false;
    const server = await startPartnerServer(async (req) => {
      const { key, n } = JSON.parse(req.body.toString()) as { key: string; n: number };
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      if (inFlight.get(key)! > 1) overlap = true;
      await new Promise((r) => setTimeout(r, 5));
      inFlight.set(key, inFlight.get(key)! - 1);
      if (key === 'a' && n === 0 && headFailures-- > 0) return { status: 503, body: 'not yet' };
      return { status: 200, body: 'ok' };
    });
    try {
      for (let n = 0; n < 10; n++)
        for (const key of ['a', 'b'])
          await enqueue(database.db, { kind: post, payload: { url: server.url, key, n }, orderingKey: key });
      run();
      await waitFor(
        () => bodies(server).filter((b) => b.n === 9).length === 2,
        20_000,
        'both keys to finish',
      );

      expect(overlap).toBe(false);
      const of = (key: string) =>
        bodies(server)
          .filter((b) => b.key === key)
          .map((b) => b.n);
      // The head of "a" was tried three times before anything behind it went.
      expect(of('a')).toEqual([0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(of('b')).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await server.close();
    }
  });

  it('lets the jobs behind a dead head go, and leaves jobs without a key unordered', async () => {
    const server = await startPartnerServer((req) => {
      const { n } = JSON.parse(req.body.toString()) as { n: number };
      return n === 0 ? { status: 500, body: 'never' } : { status: 200, body: 'ok' };
    });
    try {
      const head = await enqueue(database.db, {
        kind: post,
        payload: { url: server.url, key: 'c', n: 0 },
        orderingKey: 'c',
        maxAttempts: 2,
      });
      await enqueue(database.db, {
        kind: post,
        payload: { url: server.url, key: 'c', n: 1 },
        orderingKey: 'c',
      });
      run();
      await waitFor(() => bodies(server).some((b) => b.n === 1), 20_000, 'the job behind the dead head');
      const [row] = await database.db.select().from(jobs).where(eq(jobs.id, head));
      expect(row).toMatchObject({ status: 'dead', attempts: 2 });
      expect(bodies(server).map((b) => b.n)).toEqual([0, 0, 1]);
    } finally {
      await server.close();
    }
  });
});

describe('fairness', () => {
  it("keeps a hung partner to its share of the worker's slots, so other partners' jobs flow", async () => {
    let hanging = true;
    const hung = await startPartnerServer(() => (hanging ? 'hang' : { status: 200, body: 'ok' }));
    const healthy = await startPartnerServer(() => ({ status: 200, body: 'ok' }));
    try {
      for (let n = 0; n < 10; n++) {
        await enqueue(database.db, { kind: post, payload: { url: hung.url, n }, partnerId: 'ptr_hung' });
      }
      for (let n = 0; n < 20; n++) {
        await enqueue(database.db, { kind: post, payload: { url: healthy.url, n }, partnerId: 'ptr_ok' });
      }
      run({ concurrency: 4, partnerConcurrency: 2 });
      await waitFor(() => healthy.received.length === 20, 20_000, "the healthy partner's jobs");
      // The hung partner holds at most its two slots; the other two carried all 20 jobs.
      expect(hung.received).toHaveLength(2);
      hanging = false;
      hung.release({ status: 200, body: 'ok' });
      await waitFor(() => hung.received.length === 10, 20_000, "the hung partner's jobs once it answers");
    } finally {
      hung.release();
      await Promise.all([hung.close(), healthy.close()]);
    }
  });
});

describe('job kinds and payloads', () => {
  it('refuses to start while jobs of a kind the worker does not run are waiting', async () => {
    await database.db.execute(
      sql`insert into jobs (id, kind, payload, max_attempts, deadline_at) values ('job_orphan', 'test.forgotten', '{}', 1, now() + interval '1 hour')`,
    );
    await expect(checkJobKinds(database.db, [post])).rejects.toThrow(
      /jobs of kind test\.forgotten are waiting.*add it to JOB_KINDS/,
    );
    await database.db.delete(jobs).where(eq(jobs.id, 'job_orphan'));
    await expect(checkJobKinds(database.db, [post])).resolves.toBeUndefined();
  });

  it('sends a job whose stored payload no longer matches its schema dead, with the reason', async () => {
    const server = await startPartnerServer(() => ({ status: 200, body: 'ok' }));
    try {
      const id = await enqueue(database.db, { kind: post, payload: { url: server.url, n: 1 } });
      await database.db
        .update(jobs)
        .set({ payload: { url: server.url, n: 'one' } })
        .where(eq(jobs.id, id));
      run();
      const row = await waitFor(async () => {
        const [r] = await database.db.select().from(jobs).where(eq(jobs.id, id));
        return r!.status === 'dead' ? r : undefined;
      });
      expect(row!.lastError).toMatch(/stored payload does not match the test\.post schema \(n:/);
      expect(server.received).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
