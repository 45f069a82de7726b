/**
 * `npm run bench`, end to end: a load generator posts signed new orders to `POST /order/{partner_id}`,
 * a POS accepts them, a DSP receives `location.order.accept`. Prints sustained orders/s and p50/p99
 * from the DSP's post to the DSP's accept, at concurrency 8 and 64, and in the same run the same for a
 * bare forwarder (signature check, the same three HTTP hops, no persistence) and durable forwarders
 * (the same, committing each order in one INSERT before its 202; also its POS outcome; both with
 * group commit), with the ratios. Every
 * order is committed before it is acknowledged (no `synchronous_commit=off`). Run with DATABASE_URL:
 * the bench makes a scratch database on that server (see scratch-db.ts); without it, on PGlite.
 * BENCH_SECONDS (default 10) per measurement; BENCH_CONCURRENCY (default `8,64`) the DSPs posting at once;
 * BENCH_PROFILE (a folder) writes a CPU profile of each platform measurement there.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { Agent, request } from 'undici';
import { loadConfig } from '../apps/platform/src/config.ts';
import { newId } from '../apps/platform/src/db/ids.ts';
import { run, statement } from '../apps/platform/src/db/raw.ts';
import { integrations, locationBindings, orgLocations, orgs } from '../apps/platform/src/db/schema/index.ts';
import { encrypt, hmacHex, safeEqual } from '../apps/platform/src/http/secrets.ts';
import { createPartner } from '../apps/platform/src/partners/service.ts';
import { startPlatform } from '../apps/platform/src/server.ts';
import { startProfile } from './profile.ts';
import { scratchDatabase } from './scratch-db.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10) * 1000;
/** BENCH_PROFILE=dir: a CPU profile of each platform measurement (not the forwarders), written there. */
const PROFILE_DIR = process.env.BENCH_PROFILE;
const agent = new Agent({ connections: 256, pipelining: 1 });

/** Resolves an order's latency when the DSP hears its accept. */
const waiting = new Map<string, (at: number) => void>();

async function readBody(req: IncomingMessage): Promise<string> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  return raw;
}

/** The POS and the DSP in one server: the POS accepts every order, the DSP resolves the waiting post. */
function startPartners() {
  let n = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/stream-pos/v1/orders')
      return res.end(JSON.stringify({ order: { provider_id: `p${++n}`, prep_time_minutes: 15 } }));
    if (req.url === '/stream-dsp/v1/event') {
      if (body.type === 'location.order.accept') waiting.get(body.order_id as string)?.(performance.now());
      return res.end('{}');
    }
    res.statusCode = 404;
    res.end('{}');
  });
  return new Promise<{ url: string; close: () => Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
      }),
    ),
  );
}

/**
 * The bare forwarder: checks the signature, answers 202, then makes the POS call and the DSP call.
 * With `persist`, it first commits the order (the durable forwarder: the least a platform that
 * commits every order before its 202 can do, so the ceiling of any ratio the platform can reach).
 */
async function startForwarder(
  secret: string,
  partners: string,
  persist?: (id: string, raw: Buffer) => Promise<void>,
  persistOutcome?: (id: string, answer: string) => Promise<void>,
) {
  const app = Fastify();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post('/order', async (req, reply) => {
    const raw = req.body as Buffer;
    if (!safeEqual(hmacHex(secret, raw), String(req.headers['stream-webhook-signature'])))
      return reply.code(401).send();
    const { location_id, order } = JSON.parse(raw.toString()) as {
      location_id: string;
      order: { id: string };
    };
    if (persist) await persist(order.id, raw);
    void (async () => {
      const pos = await request(`${partners}/stream-pos/v1/orders`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'order.created', object: order }),
      });
      const answer = await pos.body.text();
      if (persistOutcome) await persistOutcome(order.id, answer);
      const dsp = await request(`${partners}/stream-dsp/v1/event`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'location.order.accept',
          location_id,
          order_id: order.id,
          estimated_ready_at_ms: Date.now(),
        }),
      });
      await dsp.body.text();
    })();
    return reply.code(202).send({ received: true });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}/order`,
    close: () => app.close(),
  };
}

/**
 * Group commit: what is queued while a batch is in flight goes to the database together in the next
 * one (one statement, one commit, for every order in it), the most batching can save of two commits.
 */
function groupCommit<T>(runBatch: (items: T[]) => Promise<void>) {
  let queue: { item: T; done: () => void; fail: (err: unknown) => void }[] = [];
  let busy = false;
  const flush = () => {
    if (busy || queue.length === 0) return;
    const batch = queue;
    queue = [];
    busy = true;
    const settle = (err?: unknown) => {
      busy = false;
      for (const b of batch) {
        if (err === undefined) b.done();
        else b.fail(err);
      }
      flush();
    };
    runBatch(batch.map((b) => b.item)).then(() => settle(), settle);
  };
  return (item: T) =>
    new Promise<void>((done, fail) => {
      queue.push({ item, done, fail });
      flush();
    });
}

interface Row {
  name: string;
  concurrency: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** p50 of the webhook's own answer (the 202 the DSP waits for before it posts the next order). */
  ackP50: number;
  errors: number;
  /** CPU time of this process (platform, partners and load generator) per second of the run. */
  cpu: number;
}

let seq = 0;
const order = () => ({
  type: 'new_order',
  location_id: 'store-1',
  order: {
    id: `bench-${process.pid}-${++seq}`,
    customers: [{ id: 'c', name: 'Bench', phone: '+14155550123' }],
    items: [{ id: 'v1', name: 'Taco', quantity: 1, price: 450, currency: 'usd' }],
    subtotal: 450,
    tax: 40,
    fulfillment_type: 'pickup',
  },
});

/** `concurrency` DSPs, each posting an order and waiting for its accept before the next. */
async function measure(
  name: string,
  url: string,
  secret: string,
  concurrency: number,
  ms = DURATION,
): Promise<Row> {
  const latencies: number[] = [];
  const acks: number[] = [];
  let errors = 0;
  const end = performance.now() + ms;
  const loop = async () => {
    while (performance.now() < end) {
      const body = order();
      const raw = JSON.stringify(body);
      const accepted = new Promise<number>((resolve) => waiting.set(body.order.id, resolve));
      const started = performance.now();
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'stream-webhook-signature': createHmac('sha256', secret).update(raw).digest('hex'),
        },
        body: raw,
      });
      await res.body.text();
      acks.push(performance.now() - started);
      if (res.statusCode !== 202) {
        errors++;
        waiting.delete(body.order.id);
        continue;
      }
      latencies.push((await accepted) - started);
      waiting.delete(body.order.id);
    }
  };
  const profile = PROFILE_DIR && name === 'platform' ? await startProfile() : undefined;
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const cpu = process.cpuUsage(cpu0);
  await profile?.(join(PROFILE_DIR!, `orders-platform-${concurrency}.cpuprofile`));
  latencies.sort((a, b) => a - b);
  acks.sort((a, b) => a - b);
  const quantile = (list: number[], q: number) =>
    list[Math.min(list.length - 1, Math.floor(q * list.length))] ?? NaN;
  const at = (q: number) => quantile(latencies, q);
  return {
    name,
    concurrency,
    perSecond: latencies.length / (ms / 1000),
    p50: at(0.5),
    p99: at(0.99),
    ackP50: quantile(acks, 0.5),
    errors,
    cpu: (cpu.user + cpu.system) / 1000 / ms,
  };
}

async function main() {
  const scratch = await scratchDatabase(process.env.DATABASE_URL);
  const dataDir = mkdtempSync(join(tmpdir(), 'stream-bench-orders-'));
  const loadBefore = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const partners = await startPartners();
  const config = {
    ...loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: scratch?.url,
      ENCRYPTION_KEY: process.env.ENCRYPTION_KEY,
    }),
    port: 0,
    host: '127.0.0.1',
    publicUrl: '',
    sandbox: false,
    logLevel: 'silent' as const,
  };
  const platform = await startPlatform(config, { logger: pino({ level: 'silent' }) });
  try {
    const { db } = platform.app.ctx;
    const key = config.encryptionKey;
    const make = (kind: 'pos' | 'dsp' | 'white_label') =>
      createPartner(db, key, {
        kind,
        slug: `bench-${kind.replace('_', '-')}-${Date.now()}`,
        name: kind,
        baseUrl: partners.url,
        oauthClientId: 'bench',
        oauthClientSecret: 'bench',
      });
    const [pos, dsp, wl] = [await make('pos'), await make('dsp'), await make('white_label')];
    // A bound pair written directly: the bench measures orders, not onboarding.
    const orgId = newId('org');
    await db.insert(orgs).values({ id: orgId, partnerId: wl.partner_id, name: 'Bench', providerId: 'bench' });
    const integration = (type: 'pos' | 'dsp', source: string) => ({
      id: newId('onb'),
      partnerId: wl.partner_id,
      orgId,
      type,
      sourcePartnerId: source,
      status: 'active' as const,
      returnUrl: 'https://example.com',
      accessTokenEnc: encrypt(key, 'at'),
      refreshTokenEnc: encrypt(key, 'rt'),
      expiresAt: new Date(Date.now() + 24 * 3_600_000),
    });
    const [posInt, dspInt] = [integration('pos', pos.partner_id), integration('dsp', dsp.partner_id)];
    await db.insert(integrations).values([posInt, dspInt]);
    const locationId = newId('loc');
    await db.insert(orgLocations).values({
      id: locationId,
      partnerId: wl.partner_id,
      orgId,
      integrationId: posInt.id,
      sourcePartnerId: pos.partner_id,
      providerId: 'loc-1',
      name: 'Bench location',
      address: { formatted_address: null } as never,
      prepTimeMinutes: 15,
      status: 'active',
    });
    await db.insert(locationBindings).values({
      id: newId('bnd'),
      partnerId: wl.partner_id,
      orgId,
      locationId,
      dspIntegrationId: dspInt.id,
      dspPartnerId: dsp.partner_id,
      dspProviderId: 'store-1',
      dspStoreName: 'Bench store',
      status: 'APPROVED',
      posConnected: true,
      dspConnected: true,
    });
    const forwarder = await startForwarder(dsp.webhook_secret, partners.url);
    await db.execute(
      sql`create table bench_orders (id text primary key, body jsonb not null, outcome jsonb)`,
    );
    const insert = statement(
      'bench_order_insert',
      'insert into bench_orders (id, body) values ($1, $2::jsonb)',
    );
    const durable = await startForwarder(dsp.webhook_secret, partners.url, async (id, raw) => {
      await run(db, insert, [id, raw.toString()]);
    });
    const outcome = statement(
      'bench_order_outcome',
      'update bench_orders set outcome = $2::jsonb where id = $1',
    );
    const twoCommits = await startForwarder(
      dsp.webhook_secret,
      partners.url,
      async (id, raw) => {
        await run(db, insert, [id, raw.toString()]);
      },
      async (id, answer) => {
        await run(db, outcome, [id, answer]);
      },
    );
    const insertMany = statement(
      'bench_order_insert_many',
      'insert into bench_orders (id, body) select * from unnest($1::text[], $2::jsonb[])',
    );
    const outcomeMany = statement(
      'bench_order_outcome_many',
      'update bench_orders b set outcome = u.o from unnest($1::text[], $2::jsonb[]) u(id, o) where b.id = u.id',
    );
    const batched = (st: typeof insertMany) =>
      groupCommit<[string, string]>(async (rows) => {
        await run(db, st, [rows.map((r) => r[0]), rows.map((r) => r[1])]);
      });
    const [inserts, outcomes] = [batched(insertMany), batched(outcomeMany)];
    const grouped = await startForwarder(
      dsp.webhook_secret,
      partners.url,
      (id, raw) => inserts([id, raw.toString()]),
      (id, answer) => outcomes([id, answer]),
    );
    const platformUrl = `${platform.url}/order/${dsp.partner_id}`;
    const paths: [string, string][] = [
      ['bare forwarder', forwarder.url],
      ['durable forwarder (+1 insert)', durable.url],
      ['durable forwarder, outcome committed too (+1 insert, +1 update)', twoCommits.url],
      ['the same, each commit shared by the orders waiting for it (group commit)', grouped.url],
      ['platform', platformUrl],
    ];
    // Warm-up: JIT, connections, prepared plans.
    for (const [, url] of paths) await measure('warm-up', url, dsp.webhook_secret, 8, 2_000);
    const rows: [Row, Row, ...Row[]][] = [];
    for (const c of (process.env.BENCH_CONCURRENCY ?? '8,64').split(',').map(Number)) {
      const measured: Row[] = [];
      for (const [name, url] of paths) measured.push(await measure(name, url, dsp.webhook_secret, c));
      rows.push(measured as [Row, Row, ...Row[]]);
    }
    await Promise.all([forwarder.close(), durable.close(), twoCommits.close(), grouped.close()]);
    await db.execute(sql`drop table bench_orders`);
    console.log(
      `\nDSP post -> POS accept -> DSP accept, ${DURATION / 1000} s each, driver ${platform.app.ctx.database.driver}, ` +
        `load average ${loadBefore} before, ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} after, ${availableParallelism()} cores\n`,
    );
    console.log(
      '| concurrency | path | orders/s | p50 ms | p99 ms | 202 p50 ms | errors | CPU of the process | orders/s vs forwarder | p50 - forwarder p50 | orders/s vs durable forwarder |',
    );
    console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [bare, durable, ...others] of rows) {
      for (const r of [bare, durable, ...others]) {
        const ratio = (r.perSecond / bare.perSecond).toFixed(3);
        const delta = r === bare ? '-' : `${(r.p50 - bare.p50).toFixed(1)} ms`;
        const vsDurable = r === bare ? '-' : (r.perSecond / durable.perSecond).toFixed(3);
        console.log(
          `| ${r.concurrency} | ${r.name} | ${r.perSecond.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.ackP50.toFixed(1)} | ${r.errors} | ${(r.cpu * 100).toFixed(0)} % | ${ratio} | ${delta} | ${vsDurable} |`,
        );
      }
    }
  } finally {
    await platform.stop();
    await partners.close();
    await agent.close();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
