import { createHmac } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testDatabase } from '../../test/db.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/client.ts';
import { deliveryAttempts, jobs } from '../db/schema/index.ts';
import { deliver } from '../connectors/http.ts';
import { defineJobKind, PermanentJobError, type AnyJobKind } from './kinds.ts';
import { enqueue, InvalidJobPayloadError, runJobsHere, transaction } from './outbox.ts';
import { definePartnerCallKind, enqueuePartnerCall } from '../connectors/partner-http.ts';
import { startPartnerServer, waitFor, type PartnerServer } from './testing.ts';
import { startWorker } from './worker.ts';

const CallPayload = z.object({ url: z.string(), timeoutMs: z.number().optional() });
type CallPayload = z.infer<typeof CallPayload>;
const NotifyPayload = z.object({ url: z.string(), failed: z.string(), error: z.string() });

/** A test kind: one POST to `payload.url` through the delivery client. */
function callKind(kind: string, limits: { maxAttempts: number; deadlineMs?: number; baseMs?: number }) {
  return defineJobKind<CallPayload>({
    kind,
    payload: CallPayload,
    maxAttempts: limits.maxAttempts,
    deadlineMs: limits.deadlineMs ?? 60_000,
    backoff: { baseMs: limits.baseMs ?? 20, maxMs: 2_000 },
    handle: async (job, ctx) => {
      await deliver(ctx, {
        method: 'POST',
        url: job.payload.url,
        body: { job: job.id, attempt: job.attempt },
        job: { id: job.id, attempt: job.attempt },
        ...(job.payload.timeoutMs ? { timeoutMs: job.payload.timeoutMs } : {}),
      });
    },
    // Telling someone that the job failed is itself a job, written in the dead transition's transaction.
    onDead: (tx, job) =>
      enqueue(tx, {
        kind: notify,
        payload: { url: job.payload.url, failed: job.id, error: job.error },
      }).then(() => {}),
  });
}

const notify = defineJobKind<z.infer<typeof NotifyPayload>>({
  kind: 'test.notify',
  payload: NotifyPayload,
  maxAttempts: 5,
  deadlineMs: 60_000,
  backoff: { baseMs: 20, maxMs: 200 },
  handle: async (job, ctx) => {
    await deliver(ctx, { method: 'POST', url: `${job.payload.url}/notified`, body: job.payload });
  },
});
const flaky = callKind('test.flaky', { maxAttempts: 10, baseMs: 40 });
const doomed = callKind('test.doomed', { maxAttempts: 3 });
const shortLived = callKind('test.short-lived', { maxAttempts: 100, deadlineMs: 400, baseMs: 50 });
const once = callKind('test.once', { maxAttempts: 1 });
const permanent = defineJobKind({
  kind: 'test.permanent',
  payload: z.object({}),
  maxAttempts: 5,
  deadlineMs: 60_000,
  backoff: { baseMs: 20, maxMs: 200 },
  handle: async () => {
    throw new PermanentJobError('the order no longer exists');
  },
});

/** A partner call kind whose onDead tells someone (as "tell the DSP the order failed" will). */
let deadCalls: string[] = [];
const orderFailed = definePartnerCallKind({
  kind: 'test.order-failed',
  onDead: async (tx, job) => {
    deadCalls.push(job.error);
    await enqueue(tx, {
      kind: notify,
      payload: { url: `${server.url}/hook`, failed: job.id, error: job.error },
    });
  },
});
const TEST_KINDS: AnyJobKind[] = [notify, flaky, doomed, shortLived, once, permanent];

let platform: TestPlatform;
let server: PartnerServer;
/** Per path: how many requests fail with 503 before one succeeds (-1: always fail with 500). */
const failures = new Map<string, number>();

beforeAll(async () => {
  server = await startPartnerServer((req) => {
    const path = req.path.split('?')[0]!;
    if (path.startsWith('/hang')) return 'hang';
    if (path.endsWith('/notified')) return { status: 204 };
    const seen = server.received.filter((r) => r.path === req.path).length;
    const fail = failures.get(path) ?? 0;
    if (fail === -1) return { status: 500, body: 'always broken' };
    return seen <= fail ? { status: 503, body: `busy ${seen}` } : { status: 200, body: '{"ok":true}' };
  });
  platform = await startTestPlatform({}, { jobKinds: [...TEST_KINDS, orderFailed] });
});
afterAll(async () => {
  server?.release();
  await platform?.stop();
  await server?.close();
});

const jobRow = async (id: string) =>
  (await platform.app.ctx.db.select().from(jobs).where(eq(jobs.id, id)))[0]!;
const attemptsOf = (id: string) =>
  platform.app.ctx.db
    .select()
    .from(deliveryAttempts)
    .where(eq(deliveryAttempts.jobId, id))
    .orderBy(asc(deliveryAttempts.attempt));
const settled = (id: string) =>
  waitFor(
    async () => {
      const row = await jobRow(id);
      return row.status === 'succeeded' || row.status === 'dead' ? row : undefined;
    },
    20_000,
    `job ${id} to settle`,
  );

describe('outbox', () => {
  it('retries a failing endpoint with growing delays, then delivers exactly once', async () => {
    failures.set('/flaky', 3);
    const id = await platform.app.ctx.db.transaction((tx) =>
      enqueue(tx, { kind: flaky, payload: { url: `${server.url}/flaky` } }),
    );
    const job = await settled(id);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 4 });
    expect(job.finishedAt).toBeInstanceOf(Date);

    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.attempt, a.responseStatus, a.error])).toEqual([
      [1, 503, 'HTTP 503'],
      [2, 503, 'HTTP 503'],
      [3, 503, 'HTTP 503'],
      [4, 200, null],
    ]);
    expect(attempts[0]).toMatchObject({
      method: 'POST',
      url: `${server.url}/flaky`,
      responseExcerpt: 'busy 1',
    });
    expect(JSON.parse(attempts[0]!.requestBody!)).toEqual({ job: id, attempt: 1 });
    expect(attempts[3]!.responseExcerpt).toBe('{"ok":true}');

    // Attempt n+1 cannot start before the backoff after attempt n (at least baseMs * 2^(n-1) / 2):
    // lower bounds that double, whatever the machine's speed.
    const at = attempts.map((a) => a.createdAt.getTime());
    for (let n = 1; n < at.length; n++) {
      expect(at[n]! - at[n - 1]!, `gap after attempt ${n}`).toBeGreaterThanOrEqual(
        (40 * 2 ** (n - 1)) / 2 - 1,
      );
    }
    // Delivered once: the one 2xx is never followed by another call.
    await new Promise((r) => setTimeout(r, 200));
    expect(server.received.filter((r) => r.path === '/flaky')).toHaveLength(4);
  });

  it('writes nothing when the enqueuing transaction rolls back', async () => {
    let id = '';
    await expect(
      platform.app.ctx.db.transaction(async (tx) => {
        id = await enqueue(tx, { kind: flaky, payload: { url: `${server.url}/rolled-back` } });
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(await platform.app.ctx.db.select().from(jobs).where(eq(jobs.id, id))).toEqual([]);
  });

  it('answers the first job for a dedupe key again instead of enqueuing twice', async () => {
    failures.set('/dedupe', 0);
    const key = `order:${Date.now()}`;
    const first = await enqueue(platform.app.ctx.db, {
      kind: flaky,
      payload: { url: `${server.url}/dedupe` },
      dedupeKey: key,
    });
    const second = await enqueue(platform.app.ctx.db, {
      kind: flaky,
      payload: { url: `${server.url}/dedupe` },
      dedupeKey: key,
    });
    expect(second).toBe(first);
    await settled(first);
    expect(await platform.app.ctx.db.select().from(jobs).where(eq(jobs.dedupeKey, key))).toHaveLength(1);
  });

  it('goes dead after maxAttempts and runs onDead in the same transaction', async () => {
    failures.set('/doomed', -1);
    const id = await enqueue(platform.app.ctx.db, { kind: doomed, payload: { url: `${server.url}/doomed` } });
    const job = await settled(id);
    expect(job).toMatchObject({
      status: 'dead',
      attempts: 3,
      lastError: expect.stringContaining('HTTP 500'),
    });
    expect(job.finishedAt).toBeInstanceOf(Date);
    expect(await attemptsOf(id)).toHaveLength(3);

    // The hook's job exists and is delivered like any other.
    const hookJobs = await platform.app.ctx.db.select().from(jobs).where(eq(jobs.kind, notify.kind));
    expect(hookJobs.map((j) => j.payload)).toContainEqual(
      expect.objectContaining({ failed: id, error: expect.stringContaining('HTTP 500') }),
    );
    await waitFor(
      () => server.received.find((r) => r.path === '/doomed/notified'),
      10_000,
      'the dead hook call',
    );
  });

  it('goes dead when the next attempt would pass the deadline, attempts left or not', async () => {
    failures.set('/short-lived', -1);
    const id = await enqueue(platform.app.ctx.db, {
      kind: shortLived,
      payload: { url: `${server.url}/short-lived` },
    });
    const job = await settled(id);
    expect(job.status).toBe('dead');
    expect(job.attempts).toBeLessThan(100);
    expect(job.finishedAt!.getTime()).toBeLessThanOrEqual(job.deadlineAt.getTime() + 1000);
  });

  it('gives the dead hook the payload of a job whose deadline passed before it could be claimed', async () => {
    // Due two minutes ago with a one-minute deadline: the claim finds it expired and sends it dead.
    const id = await enqueue(platform.app.ctx.db, {
      kind: doomed,
      payload: { url: `${server.url}/expired` },
      runAt: new Date(Date.now() - 120_000),
    });
    const job = await settled(id);
    expect(job.status).toBe('dead');
    expect(job.lastError).toMatch(/deadline passed/);
    await waitFor(
      () => server.received.find((r) => r.path === '/expired/notified'),
      10_000,
      'the dead hook of the expired job',
    );
    expect(server.received.filter((r) => r.path === '/expired')).toHaveLength(0);
  });

  it('names the last attempt\'s error when the deadline passes before the next attempt', async () => {
    // As a job whose attempt failed and whose retry was due after its deadline: the claim sends it dead.
    const id = await platform.app.ctx.db.transaction(async (tx) => {
      const jobId = await enqueue(tx, { kind: doomed, payload: { url: `${server.url}/expired-after-a-try` }, runAt: new Date(Date.now() - 120_000) });
      await tx.update(jobs).set({ attempts: 1, lastError: 'HTTP 500 from the partner' }).where(eq(jobs.id, jobId));
      return jobId;
    });
    const job = await settled(id);
    expect(job.status).toBe('dead');
    expect(job.lastError).toBe('The deadline passed before another attempt could start; the last attempt: HTTP 500 from the partner');
  }); // prettier-ignore

  it("refuses a payload that does not match its kind's schema, writing nothing", async () => {
    const before = await platform.app.ctx.db.select().from(jobs);
    await expect(
      enqueue(platform.app.ctx.db, { kind: flaky, payload: { url: 42 } as unknown as CallPayload }),
    ).rejects.toThrow(InvalidJobPayloadError);
    await expect(enqueue(platform.app.ctx.db, { kind: flaky, payload: {} as CallPayload })).rejects.toThrow(
      /test\.flaky: the payload does not match its schema \(url:/,
    );
    expect(await platform.app.ctx.db.select().from(jobs)).toHaveLength(before.length);
  });

  it('goes dead at once on a PermanentJobError', async () => {
    const id = await enqueue(platform.app.ctx.db, { kind: permanent, payload: {} });
    expect(await settled(id)).toMatchObject({
      status: 'dead',
      attempts: 1,
      lastError: 'the order no longer exists',
    });
  });

  it('logs a timeout as an attempt with no status', async () => {
    const id = await enqueue(platform.app.ctx.db, {
      kind: once,
      payload: { url: `${server.url}/hang/timeout`, timeoutMs: 200 },
    });
    expect(await settled(id)).toMatchObject({ status: 'dead', attempts: 1 });
    const [attempt] = await attemptsOf(id);
    expect(attempt).toMatchObject({ responseStatus: null, responseExcerpt: null });
    expect(attempt!.error).toMatch(/^timeout/);
    expect(attempt!.latencyMs).toBeGreaterThanOrEqual(190);
  });
});

describe('partner.http', () => {
  it("signs the exact bytes with the partner's webhook secret and resolves its base URL", async () => {
    const partner = await platform.partner({ kind: 'events', baseUrl: `${server.url}/events-partner/` });
    const body = {
      type: 'order.confirmed',
      location_id: 'loc-1',
      reference_id: 'ref-1',
      order: { id: 'o-1' },
    };
    const id = await platform.app.ctx.db.transaction((tx) =>
      enqueuePartnerCall(tx, {
        partner_id: partner.partner_id,
        method: 'POST',
        url: '/event',
        body,
        signature_header: 'X-Stream-Signature',
      }),
    );
    expect(await settled(id)).toMatchObject({ status: 'succeeded', partnerId: partner.partner_id });
    const req = server.received.find((r) => r.path === '/events-partner/event')!;
    expect(JSON.parse(req.body.toString())).toEqual(body);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-stream-signature']).toBe(
      createHmac('sha256', partner.webhook_secret).update(req.body).digest('hex'),
    );
    const [attempt] = await attemptsOf(id);
    expect(attempt).toMatchObject({ partnerId: partner.partner_id, responseStatus: 200 });
  });

  it("runs its kind's onDead when the call is given up", async () => {
    const seen: string[] = [];
    deadCalls = seen;
    failures.set('/refuses', -1);
    const partner = await platform.partner({ kind: 'dsp' });
    const id = await enqueuePartnerCall(
      platform.app.ctx.db,
      {
        partner_id: partner.partner_id,
        method: 'POST',
        url: `${server.url}/refuses`,
        body: { type: 'location.order.accept' },
      },
      { maxAttempts: 1, kind: orderFailed },
    );
    expect(await settled(id)).toMatchObject({ status: 'dead', attempts: 1 });
    expect(seen).toEqual([expect.stringContaining('HTTP 500')]);
    await waitFor(() => server.received.find((r) => r.path === '/hook/notified'), 10_000, 'the hook job');
  });
});

describe('worker leases', () => {
  let database: Database;
  const ctx = (leaseMs: number, concurrency: number, extra: { drainMs?: number } = {}): AppContext => ({
    config: { ...platform.config, worker: { pollMs: 20, leaseMs, concurrency, ...extra } },
    database,
    db: database.db,
    log: pino({ level: 'silent' }),
  });
  const leased = defineJobKind<{ url: string }>({
    kind: 'test.leased',
    payload: z.object({ url: z.string() }),
    maxAttempts: 3,
    deadlineMs: 60_000,
    backoff: { baseMs: 20, maxMs: 200 },
    handle: async (job, c) => {
      await deliver(c, { method: 'POST', url: job.payload.url, job });
    },
  });
  const row = async (id: string) => (await database.db.select().from(jobs).where(eq(jobs.id, id)))[0]!;
  const until = (id: string, status: string) =>
    waitFor(async () => {
      const r = await row(id);
      return r.status === status ? r : undefined;
    });

  beforeAll(async () => {
    // Workers of their own on a database of their own, so the platform's worker stays out of it.
    database = await testDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('hands a job started at once what its enqueuer read (context, never stored); a claimed job reads for itself', async () => {
    const seen: { id: string; context: unknown }[] = [];
    const remember = defineJobKind<{ n: number }>({
      kind: 'test.context',
      payload: z.object({ n: z.number() }),
      maxAttempts: 1,
      deadlineMs: 60_000,
      backoff: { baseMs: 20, maxMs: 200 },
      handle: async (job) => void seen.push({ id: job.id, context: job.context }),
    });
    const c = ctx(5_000, 4);
    const w = startWorker(c, { id: 'worker-context', kinds: [remember] });
    runJobsHere(c, w);
    try {
      const here = await transaction(c, (tx) =>
        enqueue(tx, { kind: remember, payload: { n: 1 }, runHere: true, context: { grant: 'read' } }),
      );
      const later = await enqueue(c.db, { kind: remember, payload: { n: 2 }, context: { grant: 'read' } });
      await until(here, 'succeeded');
      await until(later, 'succeeded');
      expect(seen.find((s) => s.id === here)?.context).toEqual({ grant: 'read' });
      expect(seen.find((s) => s.id === later)?.context).toBeUndefined();
      expect(JSON.stringify(await row(here))).not.toContain('grant');
    } finally {
      await w.stop();
    }
  });

  it('renews the lease while the handler runs, so a call slower than the lease is never run twice', async () => {
    const slow = await startPartnerServer(() => 'hang');
    try {
      const a = startWorker(ctx(300, 1), { id: 'worker-a', kinds: [leased] });
      const id = await enqueue(database.db, { kind: leased, payload: { url: slow.url } });
      await waitFor(() => slow.received.length === 1, 10_000, 'worker A to start the job');
      const b = startWorker(ctx(300, 4), { id: 'worker-b', kinds: [leased] });
      // Five leases long: without a heartbeat B would have taken the job several times over.
      await new Promise((r) => setTimeout(r, 1_500));
      slow.release({ status: 200, body: 'ok' });
      expect(await until(id, 'succeeded')).toMatchObject({ lockedBy: 'worker-a', attempts: 1 });
      await Promise.all([a.stop(), b.stop()]);
      expect(slow.received).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it("fires the handler's signal when the lease is lost, and the late worker cannot overwrite", async () => {
    const hangs = await startPartnerServer(() => 'hang');
    try {
      const a = startWorker(ctx(300, 1), { id: 'worker-f', kinds: [leased] });
      const id = await enqueue(database.db, { kind: leased, payload: { url: hangs.url } });
      await waitFor(() => hangs.received.length === 1, 10_000, 'worker F to start the job');
      // Another worker took the job over (as after a pause longer than the lease), and holds its
      // lease as a live worker would (else, on a slow machine, the lease runs out and F recovers it).
      await database.db
        .update(jobs)
        .set({ lockedBy: 'thief', attempts: 2, leaseUntil: new Date(Date.now() + 60_000) })
        .where(eq(jobs.id, id));
      // The heartbeat notices, aborts the call: the partner sees the request cut.
      await waitFor(() => hangs.received[0]!.aborted(), 10_000, 'the call to be aborted');
      await a.stop();
      expect(await row(id)).toMatchObject({ status: 'running', lockedBy: 'thief', attempts: 2 });
    } finally {
      await hangs.close();
    }
  });

  it('sends a job dead when the worker of its last attempt died, and runs onDead', async () => {
    const told = await startPartnerServer(() => ({ status: 204 }));
    const lastChance = defineJobKind<{ url: string }>({
      ...leased,
      kind: 'test.last-chance',
      maxAttempts: 1,
      onDead: async (tx, job) => {
        await enqueue(tx, { kind: leased, payload: { url: `${told.url}/after-${job.id}` } });
      },
    });
    try {
      // The state a worker leaves when it dies during the last attempt: running, lease run out.
      const id = await enqueue(database.db, { kind: lastChance, payload: { url: told.url } });
      await database.db
        .update(jobs)
        .set({ status: 'running', attempts: 1, lockedBy: 'ghost', leaseUntil: new Date(Date.now() - 1000) })
        .where(eq(jobs.id, id));
      const b = startWorker(ctx(300, 4), { id: 'worker-e', kinds: [leased, lastChance] });
      const dead = await until(id, 'dead');
      // The reclaim started no attempt, so the count stays at the one that was lost.
      expect(dead).toMatchObject({ attempts: 1, lockedBy: 'worker-e' });
      expect(dead.lastError).toMatch(/stopped before finishing/);
      await waitFor(() => told.received.some((r) => r.path === `/after-${id}`), 10_000, 'the onDead job');
      await b.stop();
      expect(told.received.filter((r) => r.path === '/')).toHaveLength(0);
    } finally {
      await told.close();
    }
  });

  it('stop() stops claiming but waits for the job in flight', async () => {
    const server2 = await startPartnerServer(() => 'hang');
    try {
      const w = startWorker(ctx(10_000, 2), { id: 'worker-c', kinds: [leased] });
      const id = await enqueue(database.db, { kind: leased, payload: { url: server2.url } });
      await waitFor(() => server2.received.length === 1, 10_000, 'the job to start');
      let stopped = false;
      const stopping = w.stop().then(() => (stopped = true));
      const later = await enqueue(database.db, { kind: leased, payload: { url: server2.url } });
      await new Promise((r) => setTimeout(r, 150));
      expect(stopped).toBe(false);
      server2.release();
      await stopping;
      expect(await row(id)).toMatchObject({ status: 'succeeded' });
      expect(await row(later)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(server2.received).toHaveLength(1);
    } finally {
      await server2.close();
    }
  });

  it('past its grace, stop() aborts the call and hands the job back without counting the attempt', async () => {
    const hangs = await startPartnerServer(() => 'hang');
    try {
      const w = startWorker(ctx(10_000, 2, { drainMs: 100 }), { id: 'worker-g', kinds: [leased] });
      const id = await enqueue(database.db, { kind: leased, payload: { url: hangs.url } });
      await waitFor(() => hangs.received.length === 1, 10_000, 'the job to start');
      await w.stop();
      await waitFor(() => hangs.received[0]!.aborted(), 10_000, 'the partner to see the call cut');
      const back = await row(id);
      expect(back).toMatchObject({ status: 'pending', attempts: 0, leaseUntil: null });
      expect(back.lastError).toMatch(/^interrupted/);
      expect(back.runAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    } finally {
      await hangs.close();
    }
  });
});
