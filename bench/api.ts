/**
 * `npm run bench`: throughput and latency of POST /oauth/token, an authenticated GET /tokens and
 * POST /PriceOrder (10 lines with modifiers, 2 discounts, on the demo menu) and GET /Stores (a radius
 * search over 100,000 stores), against bare Fastify routes as baselines (a JSON route, the same
 * asking the database once, one taking PriceOrder's body and answering its bytes, and that one
 * asking the database once too), all on
 * 127.0.0.1, in one run. Prints a table
 * and the ratios to the baseline, with the load average before and after (the figures depend on
 * the machine and on what else runs on it: compare runs on the same one, and read the load).
 * Runs on PGlite; with DATABASE_URL on that PostgreSQL server, in a scratch database the bench
 * creates there and drops at the end (BENCH_DATABASE=reuse: in DATABASE_URL's database itself).
 * BENCH_CONNECTIONS (default 16) and BENCH_SECONDS (default 10) tune the load; BENCH_ONLY (a
 * regular expression) measures only the routes it matches, besides the baseline; BENCH_PROFILE (a
 * folder) writes a CPU profile of each route measured there.
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../apps/platform/src/config.ts';
import { createPartner } from '../apps/platform/src/partners/service.ts';
import { startPlatform } from '../apps/platform/src/server.ts';
import { grantCompany, importCompany } from '../apps/platform/src/hosted/companies.ts';
import { DEMO_COMPANY, DEMO_STORE_ID } from '../packages/contracts/src/apis/hr-menu/demo.ts';
import { startProfile } from './profile.ts';
import { scratchDatabase } from './scratch-db.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time of this process (server and load generator) per request, µs: steadier than req/s on a shared machine. */
  cpuUs: number;
}

const ONLY = new RegExp(process.env.BENCH_ONLY ?? '');
/** BENCH_PROFILE=dir: a CPU profile of each measured route (not the baselines), written there. */
const PROFILE_DIR = process.env.BENCH_PROFILE;

async function measure(name: string, opts: autocannon.Options): Promise<Row | undefined> {
  if (!ONLY.test(name) && !name.startsWith('bare')) return undefined;
  // A short warm-up so JIT and connection set-up do not count.
  await autocannon({ ...opts, duration: 2, connections: CONNECTIONS });
  const profile = PROFILE_DIR && !name.startsWith('bare') ? await startProfile() : undefined;
  const cpu = process.cpuUsage();
  const r = await autocannon({ ...opts, duration: DURATION, connections: CONNECTIONS });
  const used = process.cpuUsage(cpu);
  await profile?.(join(PROFILE_DIR!, `${name.replace(/[^A-Za-z0-9]+/g, '-')}.cpuprofile`));
  const errors = r.errors + r.timeouts + r.non2xx;
  const cpuUs = (used.user + used.system) / Math.max(1, r.requests.total);
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors, cpuUs };
}

/** 10 lines of the demo menu, with modifiers (halves, nested quantities) and 2 discounts. */
const pizza = (id: string, toppings: string[]) => ({
  id,
  qty: 1,
  price: 0,
  orderModifiers: [{ id: 'thick', quantity: 1 }, ...toppings.map((t) => ({ id: t, quantity: 1 }))],
});
const PRICE_ORDER = {
  orderType: 'Pickup',
  deferDue: '2030-12-03T18:30:00-05:00',
  items: [
    pizza('margherita-lg', ['pepperoni', 'mushrooms']),
    pizza('pepperoni-lg', ['extra-cheese']),
    pizza('veggie-lg', ['mushrooms', 'extra-cheese']),
    { ...pizza('margherita-lg', []), leftHalfItemId: 'pepperoni-lg', rightHalfItemId: 'veggie-lg' },
    pizza('margherita-lg', ['pepperoni']),
    { id: 'garlic-knots', qty: 2, price: 0, orderModifiers: [{ id: 'marinara', quantity: 2 }] },
    { id: 'garlic-knots', qty: 3, price: 0, orderModifiers: [{ id: 'ranch', quantity: 1 }] },
    { id: 'caesar', qty: 1, price: 0 },
    { id: 'soda', qty: 4, price: 0 },
    { id: 'lager', qty: 2, price: 0 },
  ],
  discounts: [{ sourceDiscount: 'weekday-pizza' }, { sourceDiscount: 'knots-bogo' }],
};

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main() {
  const scratch = await scratchDatabase(process.env.DATABASE_URL);
  try {
    await run(scratch?.url);
  } finally {
    await scratch?.drop();
  }
}

async function run(databaseUrl: string | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'stream-bench-'));
  const loadBefore = load();
  const config = {
    ...loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      ENCRYPTION_KEY: process.env.ENCRYPTION_KEY,
      DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE,
    }),
    port: 0,
    host: '127.0.0.1',
    publicUrl: '',
    sandbox: false,
    logLevel: 'silent',
  };
  const platform = await startPlatform(config, { logger: pino({ level: 'silent' }) });
  const baseline = Fastify();
  baseline.get('/json', async () => ({ hello: 'world' }));
  // The least any route that asks the database once can cost: the same pool, one `select 1`.
  baseline.get('/query', async () => {
    await platform.app.ctx.db.execute(sql`select 1`);
    return { hello: 'world' };
  });
  // The HTTP a priced order rides on: the same request body parsed, an answer of the same bytes.
  let pricedAnswer = '';
  baseline.post('/priced', async (_req, reply) => reply.type('application/json').send(pricedAnswer));
  // ... and the one question PriceOrder asks the database (token live, store, menu revision): the
  // ceiling of PriceOrder's ratio while it asks the database at all.
  baseline.post('/priced-query', async (_req, reply) => {
    await platform.app.ctx.db.execute(sql`select 1`);
    return reply.type('application/json').send(pricedAnswer);
  });
  await baseline.listen({ port: 0, host: '127.0.0.1' });
  const baselineUrl = `http://127.0.0.1:${(baseline.server.address() as { port: number }).port}`;
  try {
    const creds = await createPartner(platform.app.ctx.db, config.encryptionKey, {
      kind: 'white_label',
      slug: `bench-${Date.now()}`,
      name: 'Bench partner',
    });
    const tokenBody = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
    });
    const post = (url: string, body: unknown, token?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      }).then(async (r) => {
        if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
        return r.json() as Promise<Record<string, string>>;
      });
    await importCompany(platform.app.ctx.db, config.encryptionKey, DEMO_COMPANY);
    await grantCompany(platform.app.ctx.db, DEMO_COMPANY.company.id, creds.partner_id);
    const { access_token } = await post(`${platform.url}/oauth/token`, JSON.parse(tokenBody));
    const { org_id } = await post(
      `${platform.url}/onboarding/org`,
      {
        name: 'Bench org',
        provider_id: 'bench-1',
        user: { email: 'o@example.com', first_name: 'O', last_name: 'B' },
      },
      access_token,
    );
    await post(`${platform.url}/tokens`, { org_id, token_name: 'bench', scopes: ['user'] }, access_token);

    // 100,000 stores of one company spread over the continental US, for the radius search.
    await platform.app.ctx.db.execute(sql`
      insert into companies (id, name) values (500, 'Bench stores') on conflict do nothing;
    `);
    await platform.app.ctx.db.execute(sql`
      insert into stores (id, company_id, name, time_zone, latitude, longitude)
      select 5000000 + g, 500, 'Store ' || g, 'Central Standard Time',
             25 + ((g::bigint * 7919) % 10007) / 10007.0 * 24, -124 + ((g::bigint * 104729) % 10009) / 10009.0 * 57
      from generate_series(1, 100000) g
      on conflict do nothing`);
    await grantCompany(platform.app.ctx.db, 500, creds.partner_id);
    const priceBody = JSON.stringify({ applyDefaultModifiers: true, data: PRICE_ORDER });
    const priceHeaders = {
      'content-type': 'application/json',
      authorization: `Bearer ${access_token}`,
      'x-store': String(DEMO_STORE_ID),
      'x-service-type': 'DoorDash',
    };
    const priced = await fetch(`${platform.url}/PriceOrder`, {
      method: 'POST',
      headers: priceHeaders,
      body: priceBody,
    });
    pricedAnswer = await priced.text();
    if (priced.status !== 200) throw new Error(`the PriceOrder bench body does not price: ${pricedAnswer}`);
    const measured = [
      await measure('bare Fastify JSON route (baseline)', { url: `${baselineUrl}/json` }),
      await measure('bare Fastify route + one database query', { url: `${baselineUrl}/query` }),
      await measure('POST /oauth/token', {
        url: `${platform.url}/oauth/token`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: tokenBody,
      }),
      await measure('GET /tokens (authenticated)', {
        url: `${platform.url}/tokens?org_id=${org_id}`,
        headers: { authorization: `Bearer ${access_token}` },
      }),
      await measure('GET /Stores radius 25 mi (100,000 stores)', {
        url: `${platform.url}/Stores?Latitude=39.1&Longitude=-94.6&Radius=25`,
        headers: { authorization: `Bearer ${access_token}`, 'x-company': '500' },
      }),
      await measure('bare Fastify route, same POST body and answer as /PriceOrder', {
        url: `${baselineUrl}/priced`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: priceBody,
      }),
      await measure('POST /PriceOrder (10 lines, 2 discounts)', {
        url: `${platform.url}/PriceOrder`,
        method: 'POST',
        headers: priceHeaders,
        body: priceBody,
      }),
      // After PriceOrder, so PriceOrder runs after as many measurements as it always has (a route
      // measured later in one process runs a little slower: compare like with like).
      await measure('bare Fastify route, same POST body and answer + one database query', {
        url: `${baselineUrl}/priced-query`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: priceBody,
      }),
    ];
    const rows = measured.filter((r) => r !== undefined);
    const base = rows[0]!;
    console.log(
      `\n${CONNECTIONS} connections, ${DURATION} s each, driver ${platform.app.ctx.database.driver}, ` +
        `load average (1, 5, 15 min) ${loadBefore} before, ${load()} after, ${availableParallelism()} cores\n`,
    );
    const withQuery = rows.find((r) => r.name.includes('one database query'));
    console.log(
      '| route | req/s | p50 ms | p99 ms | errors | CPU µs/request | throughput vs baseline | vs baseline + one query |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      const ratio = (r.rps / base.rps).toFixed(3);
      const toQuery = withQuery ? (r.rps / withQuery.rps).toFixed(3) : '-';
      console.log(
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.cpuUs.toFixed(0)} | ${ratio} | ${toQuery} |`,
      );
    }
    const twin = rows.find((r) => r.name.endsWith('same POST body and answer as /PriceOrder'));
    const priceOrder = rows.find((r) => r.name.startsWith('POST /PriceOrder'));
    const ceiling = rows.find((r) => r.name.endsWith('same POST body and answer + one database query'));
    if (twin && priceOrder) {
      console.log(
        `\nPOST /PriceOrder vs the bare route with the same body and answer: ${(priceOrder.rps / twin.rps).toFixed(3)}`,
      );
    }
    if (ceiling && priceOrder) {
      console.log(
        `POST /PriceOrder vs the same + one database query (its ceiling while it asks the database): ${(priceOrder.rps / ceiling.rps).toFixed(3)}`,
      );
    }
  } finally {
    await baseline.close();
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
