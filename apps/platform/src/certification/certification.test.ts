import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CERTIFICATION_TRIGGER_PATH,
  type CertificationKind,
  type CertificationReport,
} from '@stream/contracts/certification';
import { dspSendWebhook } from '@stream/contracts/apis/become-a-dsp/index';
import { hmacHex } from '@stream/contracts/server/signature';
import { createSandboxServer, sandboxControl } from '@stream/sandbox';
import { faultyPartner, type Fault } from './faulty-partner.ts';
import { listenInbox, type Inbox } from './inbox.ts';
import { toJUnit } from './report.ts';
import { checksFor, runCertification, summarise, type RunOptions } from './runner.ts';

const client = { client_id: 'platform', client_secret: 'sbxsec_test' };
const secret = 'whsec_certification';
const servers: FastifyInstance[] = [];
const base = {} as Record<CertificationKind, string>;
const inboxes = {} as Record<CertificationKind, Inbox>;
const prompts: string[] = [];

beforeAll(async () => {
  for (const kind of ['pos', 'dsp', 'events'] as const) {
    const app = createSandboxServer(kind, {
      clients: [client],
      tokenSecret: 'tokens',
      webhookSecret: secret,
    });
    servers.push(app);
    base[kind] = await app.listen({ port: 0, host: '127.0.0.1' });
  }
  for (const kind of ['pos', 'dsp', 'events'] as const) inboxes[kind] = await listenInbox({ kind, secret });
});
afterAll(async () => {
  await Promise.all(Object.values(inboxes).map((i) => i.close()));
  await Promise.all(servers.map((s) => s.close()));
});

const run = (kind: CertificationKind, baseUrl = base[kind], more: Partial<RunOptions> = {}) =>
  runCertification({
    kind,
    baseUrl,
    client,
    webhookSecret: secret,
    timeoutMs: 2000,
    webhookWaitMs: 1500,
    inbox: inboxes[kind],
    prompt: (line) => prompts.push(line),
    ...more,
  });

const ids = (report: CertificationReport, status: 'failed' | 'skipped') =>
  report.checks.filter((c) => c.status === status).map((c) => c.id);

describe('the sandbox simulators certify green', () => {
  it.each(['pos', 'events'] as const)('%s: every required check passes', async (kind) => {
    const report = await run(kind);
    expect(report.checks.filter((c) => c.required && c.status !== 'passed')).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.finished_at).not.toBeNull();
  });

  it('pos: the optional refusal check passes: the sandbox refuses an unknown item with posValidation', async () => {
    const report = await run('pos');
    expect(report.checks.find((c) => c.id === 'pos.orders.reject')).toMatchObject({ status: 'passed', required: false });
    expect(report.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(report.passed).toBe(true);
  }); // prettier-ignore

  it('pos: a sandbox taking orders asynchronously confirms them when the kit asks, and certifies', async () => {
    const control = sandboxControl(base.pos, client);
    await control.switches({ order_behavior: 'accept_async' });
    try {
      const report = await run('pos');
      expect(report.checks.filter((c) => c.required && c.status !== 'passed').map((c) => [c.id, c.fix])).toEqual([]);
    } finally {
      await control.switches({ order_behavior: 'accept' });
    }
  }); // prettier-ignore

  it('dsp: passes with the v2 menu too, and the simulator found both files valid', async () => {
    const report = await run('dsp', base.dsp, { menuV2: true });
    expect(ids(report, 'failed')).toEqual([]);
    expect(report.checks.map((c) => c.id)).toEqual(expect.arrayContaining(['dsp.menu.v1', 'dsp.menu.v2']));
    const menus = await sandboxControl(base.dsp, client).menus();
    expect(menus.length).toBeGreaterThan(0);
    expect(menus.every((m) => m.valid)).toBe(true);
  });

  it('keeps credentials out of the report: client secret, codes and tokens are redacted', async () => {
    const report = await run('pos');
    const text = JSON.stringify(report);
    expect(text).not.toContain(client.client_secret);
    const exchange = report.checks.find((c) => c.id === 'pos.oauth.token')!.exchanges[0]!;
    expect(exchange.request_body).toMatchObject({ client_secret: '[redacted]', code: '[redacted]', grant_type: 'authorization_code' });
    expect(exchange.response_body).toMatchObject({ access_token: '[redacted]', refresh_token: '[redacted]' });
    expect(text).not.toMatch(/"(access_token|refresh_token|client_secret)":"(?!\[redacted\])/);
    expect(text).not.toMatch(/"grant_type":"authorization_code","code":"(?!\[redacted\])/);
  }); // prettier-ignore

  it('records what was sent and what came back, and what the partner sent', async () => {
    const report = await run('events');
    const received = report.checks.find((c) => c.id === 'events.webhooks.assign-driver')!;
    expect(received.exchanges.map((e) => e.direction)).toEqual(['sent', 'received']);
    expect(received.exchanges[0]).toMatchObject({ method: 'POST', status: 202 });
    expect(received.exchanges[1]!.request_body).toMatchObject({ type: 'order.assign.driver' });
    const confirmed = report.checks.find((c) => c.id === 'events.receive.confirmed')!;
    expect(confirmed.exchanges).toEqual([
      expect.objectContaining({
        url: `${base.events}/event`,
        status: 204,
        request_body: expect.objectContaining({ type: 'order.confirmed' }),
      }),
    ]);
  });
});

/** The sandbox's order answers turned into async acceptances (`{order: {provider_id, async_acceptance}}`). */
const asyncAnswer = (b: { order?: { provider_id: string } }) =>
  b.order ? { order: { provider_id: b.order.provider_id, async_acceptance: true } } : b;

/** Each fault a partner's implementation might have, and exactly the checks it must fail. */
const FAULTS: { name: string; kind: CertificationKind; fault: Fault; fails: string[]; says: RegExp }[] = [
  {
    name: 'wrong status code: an unknown code answered 400',
    kind: 'pos',
    fault: { method: 'POST', path: '/stream-pos/v1/token', status: (s) => (s === 401 ? 400 : s) },
    fails: ['pos.oauth.bad-code'],
    says: /must answer 401; it answered 400/,
  },
  {
    name: 'missing field: locations without provider_id',
    kind: 'pos',
    fault: {
      path: '/stream-pos/v1/locations',
      answer: (b) => ({
        ...b,
        locations: b.locations?.map(({ provider_id: _, ...l }: Record<string, unknown>) => l),
      }),
    },
    fails: ['pos.locations'],
    says: /locations\[0\]\.provider_id/,
  },
  {
    name: 'slow answer past the timeout',
    kind: 'pos',
    fault: { path: '/stream-pos/v1/events', delayMs: 2500 },
    fails: ['pos.events.publish'],
    says: /no answer within 2000 ms/,
  },
  {
    name: 'bad signature on a webhook it sends',
    kind: 'events',
    fault: { webhook: { type: 'order.assign.driver', badSignature: true } },
    fails: ['events.webhooks.assign-driver'],
    says: /Stream-Webhook-Signature failed \(signature_mismatch\)/,
  },
  {
    name: 'signatures of events not checked',
    kind: 'events',
    fault: { path: '/event', resign: secret },
    fails: ['events.signature.refused'],
    says: /must be refused with a 4xx \(401 is usual; not 408, 425 or 429, which ask for a retry\); it answered 204/,
  },
  {
    name: 'a bad signature refused with 429, which asks for a retry',
    kind: 'events',
    fault: { path: '/event', status: (s) => (s === 401 ? 429 : s) },
    fails: ['events.signature.refused'],
    says: /it answered 429/,
  },
  {
    name: 'wrong currency case in a new order',
    kind: 'dsp',
    fault: {
      webhook: { type: 'new_order', body: (b) => ({ ...b, order: { ...b.order, currency: 'USD' } }) },
    },
    fails: ['dsp.webhooks.new-order'],
    says: /order\.currency/,
  },
  {
    name: 'a webhook naming another order: the POS status of an order it did not take',
    kind: 'pos',
    fault: {
      webhook: {
        type: 'order.status.updated',
        body: (b) => ({ ...b, object: { ...b.object, provider_id: 'ord_platform_id_not_mine' } }),
      },
    },
    fails: ['pos.webhooks.order-status'],
    says: /names object\.provider_id "ord_platform_id_not_mine"; the trigger asked about "sbx-ord-[^"]+" \(the provider_id you answered to order\.created\)/,
  },
  {
    name: 'a webhook naming another location',
    kind: 'pos',
    fault: {
      webhook: {
        type: 'location.status.updated',
        body: (b) => ({ ...b, object: { ...b.object, location_id: 'loc-unknown' } }),
      },
    },
    fails: ['pos.webhooks.location-status'],
    says: /names object\.location_id "loc-unknown"; the trigger asked about "loc-[^"]+"/,
  },
  {
    name: 'a DSP new order for a store that is not the one connected',
    kind: 'dsp',
    fault: { webhook: { type: 'new_order', body: (b) => ({ ...b, location_id: 'store-not-connected' }) } },
    fails: ['dsp.webhooks.new-order'],
    says: /names location_id "store-not-connected"; the trigger asked about/,
  },
  {
    name: 'a DSP cancel_order for an order it never sent',
    kind: 'dsp',
    fault: { webhook: { type: 'cancel_order', body: (b) => ({ ...b, order_id: 'order-never-sent' }) } },
    fails: ['dsp.webhooks.cancel-order'],
    says: /names order_id "order-never-sent"; the trigger asked about "[^"]+" \(the order\.id of your new_order\)/,
  },
  {
    name: 'a driver assigned to another order',
    kind: 'events',
    fault: {
      webhook: {
        type: 'order.assign.driver',
        body: (b) => ({ ...b, object: { ...b.object, order_id: 'ord_some_other_order' } }),
      },
    },
    fails: ['events.webhooks.assign-driver'],
    says: /names object\.order_id "ord_some_other_order"; the trigger asked about "ord_cert\w+"/,
  },
  {
    name: 'async_acceptance answered, but what the POS sends is not the accepted confirmation',
    kind: 'pos',
    fault: {
      path: '/stream-pos/v1/orders',
      answer: asyncAnswer,
      webhook: {
        type: 'order.status.updated',
        body: (b) => ({ ...b, object: { ...b.object, status: 'ready_for_pickup' } }),
      },
    },
    fails: ['pos.orders.accept'],
    says: /confirming order sbx-ord-\S+ carried status ready_for_pickup; it must carry accepted\. .*confirmation_timeout/,
  },
  {
    name: 'a catalog item priced 4.5: an error of the catalog rules, named as production names it',
    kind: 'pos',
    fault: {
      path: '/stream-pos/v1/catalog',
      answer: (b) => ({
        ...b,
        item: b.item.map((i: object, n: number) => (n ? i : { ...i, price_amount: 4.5 })),
      }),
    },
    fails: ['pos.catalog'],
    says: /^The catalog has 1 error\(s\), each left out of menus: item \S+ \(price_amount\): price_amount: must be a whole number, not 4\.5.*; the item is left out\.$/,
  },
  {
    name: 'authorize redirecting with no Location header',
    kind: 'pos',
    fault: { path: '/stream-pos/v1/authorize', short: { status: 302, body: '' } },
    fails: ['pos.oauth.authorize'],
    says: /^GET \/stream-pos\/v1\/authorize answered 302 with no Location header: redirect to redirect_uri http:\/\/127\.0\.0\.1:\d+\/oauth\/callback with code and state\.$/,
  },
  {
    name: 'authorize redirecting to a Location that is not a URL',
    kind: 'pos',
    fault: {
      path: '/stream-pos/v1/authorize',
      short: { status: 302, body: '', headers: { location: 'http://[bad' } },
    },
    fails: ['pos.oauth.authorize'],
    says: /^The redirect's Location "http:\/\/\[bad" is not a URL: redirect to redirect_uri /,
  },
  {
    name: 'authorize redirecting with an OAuth error instead of a code',
    kind: 'pos',
    fault: {
      path: '/stream-pos/v1/authorize',
      short: {
        status: 302,
        body: '',
        headers: { location: '/oauth/callback?error=access_denied&error_description=Login+required' },
      },
    },
    fails: ['pos.oauth.authorize'],
    says: /^The redirect carried error=access_denied \(Login required\) instead of a code: certification needs a test merchant that approves/,
  },
  {
    name: 'authorize refusing the redirect_uri (not registered): the fix quotes it and names the redirect_uri',
    kind: 'pos',
    fault: {
      path: '/stream-pos/v1/authorize',
      short: { status: 400, body: { error: 'redirect_uri is not registered' } },
    },
    fails: ['pos.oauth.authorize'],
    says: /with redirect_uri http:\/\/127\.0\.0\.1:\d+\/oauth\/callback answered 400 "{\\"error\\":\\"redirect_uri is not registered\\"}"\. If you refuse a redirect_uri you did not register: the kit listens on a random port unless run with --listen HOST:PORT \(and --public-url\)/,
  },
  {
    name: 'a webhook sent as text/plain: refused 415 as production refuses it, and the fix says so',
    kind: 'pos',
    fault: { webhook: { type: 'location.status.updated', contentType: 'text/plain' } },
    fails: ['pos.webhooks.location-status'],
    says: /The location\.status\.updated webhook reached http:\/\/127\.0\.0\.1:\d+\/webhooks and was refused 415, as the platform refuses it: Content-Type text\/plain: send the body as application\/json\./,
  },
  {
    name: 'a webhook sent with another type than asked: the fix names what came instead, and why it was refused',
    kind: 'pos',
    fault: {
      webhook: { type: 'location.status.updated', body: (b) => ({ ...b, type: 'location.status.update' }) },
    },
    fails: ['pos.webhooks.location-status'],
    says: /^No location\.status\.updated webhook reached http:\/\/127\.0\.0\.1:\d+\/webhooks within 2 s; what came instead: a "location\.status\.update" webhook, refused 400: body\.type: .+\. Send it there, signed/,
  },
  {
    name: 'a webhook whose body is not JSON: refused 400, and the fix says so',
    kind: 'events',
    fault: { webhook: { type: 'order.assign.driver', raw: '{"type":"order.assign.driver",' } },
    fails: ['events.webhooks.assign-driver'],
    says: /was refused 400, as the platform refuses it: the body is not valid JSON: send the JSON you sign, as it is\./,
  },
  {
    name: 'a DSP order naming its own SKU, not a stream_id of the menu it downloaded',
    kind: 'dsp',
    fault: {
      webhook: {
        type: 'new_order',
        body: (b) => ({
          ...b,
          order: {
            ...b.order,
            items: b.order.items.map((i: object, n: number) => (n ? i : { ...i, id: 'my-sku-123' })),
          },
        }),
      },
    },
    fails: ['dsp.webhooks.new-order'],
    says: /The order names my-sku-123, which the menu file you downloaded does not have: name an item by its variation's stream_id .*pos_missing_items/,
  },
  {
    name: 'a route moved behind a redirect (production does not follow it)',
    kind: 'pos',
    fault: {
      path: '/stream-pos/v1/events',
      short: { status: 308, body: '', headers: { location: '/api/stream-pos/v1/events' } },
    },
    fails: ['pos.events.publish'],
    says: /answered 308, a redirect to \/api\/stream-pos\/v1\/events, which the platform does not follow/,
  },
  {
    name: 'an answer larger than production reads',
    kind: 'pos',
    fault: {
      path: '/stream-pos/v1/events',
      short: { status: 200, body: `"${'x'.repeat(10 * 1024 * 1024)}"` },
    },
    fails: ['pos.events.publish'],
    says: /answer larger than 10485760 bytes/,
  },
  {
    name: 'menu file never downloaded',
    kind: 'dsp',
    fault: { path: '/stream-dsp/v1/event', short: { status: 200, body: {} } },
    fails: ['dsp.menu.v1'],
    says: /never downloaded/,
  },
  {
    name: 'a code answered without a refresh token (only a refresh may leave it out)',
    kind: 'pos',
    fault: {
      method: 'POST',
      path: '/stream-pos/v1/token',
      answer: ({ refresh_token: _, ...rest }) => rest,
    },
    fails: ['pos.oauth.token'],
    says: /refresh_token: required in the answer to an authorization code/,
  },
];

describe('a broken implementation fails exactly the checks it breaks', () => {
  it.each(FAULTS)('$name', async ({ kind, fault, fails, says }) => {
    // A short-circuited event endpoint answers every event, so only the menu check can notice.
    const proxy = await faultyPartner(base[kind], fault, secret);
    try {
      const report = await run(kind, proxy.url);
      const failed = report.checks.filter((c) => c.status === 'failed' && c.required).map((c) => c.id);
      expect(failed).toEqual(fails);
      const first = report.checks.find((c) => c.id === fails[0])!;
      expect(first.fix).toMatch(says);
      expect(first.fix).not.toMatch(/\.\.$/); // one full stop, after the last sentence
      expect(first.guide).toMatch(/^\/docs\//);
      expect(report.passed).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});

describe('reports and edges', () => {
  it('an unreachable partner ends quickly with a clear message, never a hang', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const report = await run('pos', `http://127.0.0.1:${port}`);
    expect(report.passed).toBe(false);
    expect(report.checks[0]!.fix).toMatch(/got no answer \(ECONNREFUSED\)/);
    expect(report.checks.every((c) => c.status !== 'passed')).toBe(true);
    // What needed a token is skipped with the check that should have made it, not failed again.
    expect(report.checks.find((c) => c.id === 'pos.locations')!.fix).toBe(
      'Skipped: needs pos.oauth.token, which did not pass.',
    );
  });

  it('without OAuth credentials (a token given) the OAuth checks are skipped and the run cannot certify', async () => {
    const report = await run('events', base.events, { client: undefined, token: 'unused' });
    expect(report.passed).toBe(true); // events have no OAuth
    const pos = await run('dsp', base.dsp, { client: undefined, token: 'not-a-token' });
    expect(ids(pos, 'skipped')).toEqual(
      expect.arrayContaining(['dsp.oauth.authorize', 'dsp.oauth.token', 'dsp.oauth.refresh']),
    );
    expect(pos.passed).toBe(false);
  });

  it('a POS answering async_acceptance is asked for order.status.updated accepted, and certifies when it comes', async () => {
    const proxy = await faultyPartner(
      base.pos,
      {
        path: '/stream-pos/v1/orders',
        answer: asyncAnswer,
        webhook: {
          type: 'order.status.updated',
          body: (b) => ({ ...b, object: { ...b.object, status: 'accepted' } }),
        },
      },
      secret,
    );
    try {
      const report = await run('pos', proxy.url);
      expect(report.passed).toBe(true);
      const accept = report.checks.find((c) => c.id === 'pos.orders.accept')!;
      const provider = accept.exchanges[0]!.response_body as { order: { provider_id: string } };
      expect(accept.exchanges[1]).toMatchObject({
        url: `${proxy.url}/stream-certification/v1/webhooks`,
        request_body: {
          type: 'order.status.updated',
          status: 'accepted',
          order_id: provider.order.provider_id,
        },
      });
      expect(accept.exchanges[2]).toMatchObject({
        direction: 'received',
        request_body: { object: { status: 'accepted', provider_id: provider.order.provider_id } },
      });
    } finally {
      await proxy.close();
    }
  });

  it('a POS answering async_acceptance without a trigger is asked for accepted by hand, and fails when none comes', async () => {
    const proxy = await faultyPartner(
      base.pos,
      { path: '/stream-pos/v1/orders', answer: asyncAnswer },
      secret,
    );
    const noTrigger = await faultyPartner(
      proxy.url,
      { path: '/stream-certification/v1/webhooks', short: { status: 404, body: {} } },
      secret,
    );
    try {
      prompts.length = 0;
      const report = await run('pos', noTrigger.url, { webhookWaitMs: 300 });
      expect(prompts[0]).toMatch(
        /^Send a signed order\.status\.updated webhook with status accepted for order sbx-ord-/,
      );
      expect(report.checks.find((c) => c.id === 'pos.orders.accept')!.fix).toMatch(
        /No order\.status\.updated webhook reached .* async_acceptance: true: production fails the order \(confirmation_timeout\)/,
      );
      expect(report.passed).toBe(false);
    } finally {
      await noTrigger.close();
      await proxy.close();
    }
  });

  it.each(['pos', 'events'] as const)(
    '%s: a partner refusing webhooks for a cancelled order certifies (they are asked for before the cancellation)',
    async (kind) => {
      const proxy = await faultyPartner(
        base[kind],
        {
          path: '/stream-certification/v1/webhooks',
          after: 'order.canceled',
          type: /^order\.(status|assign|update)/,
          short: { status: 409, body: { error: 'invalid_transition', message: 'The order is cancelled.' } },
        },
        secret,
      );
      try {
        const report = await run(kind, proxy.url);
        expect(report.checks.filter((c) => c.required && c.status !== 'passed')).toEqual([]);
        const ids = report.checks.map((c) => c.id);
        const canceled = ids.indexOf(`${kind}.${kind === 'pos' ? 'orders' : 'receive'}.canceled`);
        const asked =
          kind === 'pos'
            ? ['pos.webhooks.order-status']
            : ['events.webhooks.assign-driver', 'events.webhooks.delivery-status'];
        for (const id of asked) expect(ids.indexOf(id)).toBeLessThan(canceled);
      } finally {
        await proxy.close();
      }
    },
  );

  it('a catalog priced on item families, item: [], certifies: a priced family is ordered as itself', async () => {
    type Family = { provider_id: string; price_amount?: number };
    type Category = { item_family_ids: string[] };
    const familyPriced = (b: { item_family: Family[]; category: Category[] }) => {
      const families = b.item_family.filter((f) => f.price_amount !== undefined);
      const ids = new Set(families.map((f) => f.provider_id));
      const category = b.category.map((c) => ({
        ...c,
        item_family_ids: c.item_family_ids.filter((i) => ids.has(i)),
      }));
      return { ...b, item: [], item_family: families, category };
    };
    const proxy = await faultyPartner(
      base.pos,
      { path: '/stream-pos/v1/catalog', answer: familyPriced },
      secret,
    );
    try {
      const report = await run('pos', proxy.url);
      expect(report.checks.filter((c) => c.required && c.status !== 'passed')).toEqual([]);
      const accept = report.checks.find((c) => c.id === 'pos.orders.accept')!;
      expect(accept.exchanges[0]!.request_body).toMatchObject({
        object: {
          line_items: [
            { provider_id: 'fam-veggie', item_family_provider_id: 'fam-veggie', price_amount: 400 },
          ],
        },
      });
    } finally {
      await proxy.close();
    }
  });

  it('a catalog sending optional fields as null certifies: production reads null as absent', async () => {
    const proxy = await faultyPartner(
      base.pos,
      {
        path: '/stream-pos/v1/catalog',
        answer: (b) => ({
          ...b,
          item: b.item.map((i: object) => ({ ...i, sku: null, upc: null, description: null })),
          item_family: b.item_family.map((f: object) => ({ ...f, description: null, sku: null })),
        }),
      },
      secret,
    );
    try {
      const report = await run('pos', proxy.url);
      const catalog = report.checks.find((c) => c.id === 'pos.catalog')!;
      expect([catalog.status, catalog.fix]).toEqual(['passed', undefined]);
      expect(report.passed).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('a catalog whose menus have no opening hours fails pos.catalog: production refuses every publication of it', async () => {
    const noHours = (b: { menu: object[] }) => ({ ...b, menu: b.menu.map((m) => ({ ...m, schedule: {} })) });
    const proxy = await faultyPartner(base.pos, { path: '/stream-pos/v1/catalog', answer: noHours }, secret);
    try {
      const report = await run('pos', proxy.url);
      const catalog = report.checks.find((c) => c.id === 'pos.catalog')!;
      expect(catalog.status).toBe('failed');
      expect(catalog.fix).toContain('MENU_SCHEDULE_MISSING');
      expect(report.passed).toBe(false);
    } finally {
      await proxy.close();
    }
  });

  it('a POS requiring X-Provider-Merchant-Id (the token answer id) on the catalog pull certifies', async () => {
    const seen: string[] = [];
    const proxy = await faultyPartner(
      base.pos,
      {
        path: '/stream-pos/v1/catalog',
        needsHeader: 'x-provider-merchant-id',
        request: (b, h) => (seen.push(h['x-provider-merchant-id']!), b),
      },
      secret,
    );
    try {
      const report = await run('pos', proxy.url);
      expect(report.checks.filter((c) => c.required && c.status !== 'passed')).toEqual([]);
      const token = report.checks.find((c) => c.id === 'pos.oauth.refresh')!.exchanges[0]!.response_body;
      expect(seen).toEqual([(token as { id: string }).id]);
    } finally {
      await proxy.close();
    }
  });

  it('a POS that does not rotate refresh tokens (a refresh answers no refresh_token) certifies', async () => {
    let grant: unknown;
    const proxy = await faultyPartner(
      base.pos,
      {
        method: 'POST',
        path: '/stream-pos/v1/token',
        request: (b) => ((grant = b.grant_type), b),
        answer: (b) => {
          if (grant !== 'refresh_token') return b;
          const { refresh_token: _, refresh_token_expire_time: __, ...kept } = b;
          return kept;
        },
      },
      secret,
    );
    try {
      const report = await run('pos', proxy.url);
      expect(report.checks.filter((c) => c.required && c.status !== 'passed').map((c) => [c.id, c.fix])).toEqual([]);
      const refresh = report.checks.find((c) => c.id === 'pos.oauth.refresh')!;
      expect(refresh.status).toBe('passed');
      expect(refresh.exchanges[0]!.response_body).not.toHaveProperty('refresh_token');
      expect(refresh.notes).toEqual([expect.stringMatching(/has no refresh_token: the platform keeps refreshing with the one it sent/)]);
    } finally {
      await proxy.close();
    }
  }); // prettier-ignore

  it('a POS deduplicating orders on the Idempotency-Key header certifies: the retry carries the same header', async () => {
    const proxy = await faultyPartner(
      base.pos,
      {
        path: '/stream-pos/v1/orders',
        request: (b, h) =>
          b.type === 'order.created'
            ? {
                ...b,
                object: { ...b.object, idempotency_key: h['idempotency-key'] ?? `none-${Math.random()}` },
              }
            : b,
      },
      secret,
    );
    try {
      const report = await run('pos', proxy.url);
      expect(report.checks.find((c) => c.id === 'pos.orders.accept')).toMatchObject({ status: 'passed' });
      expect(report.passed).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('dsp: a DSP refusing events without an Idempotency-Key (production sends one with each) certifies, each event with a key of its own', async () => {
    const keys: string[] = [];
    const proxy = await faultyPartner(
      base.dsp,
      {
        path: '/stream-dsp/v1/event',
        needsHeader: 'idempotency-key',
        request: (b, h) => (keys.push(h['idempotency-key']!), b),
      },
      secret,
    );
    try {
      const report = await run('dsp', proxy.url);
      expect(report.checks.filter((c) => c.required && c.status !== 'passed').map((c) => [c.id, c.fix])).toEqual([]);
      expect(keys.length).toBe(8); // the publish and the seven event checks
      expect(new Set(keys).size).toBe(keys.length);
    } finally {
      await proxy.close();
    }
  }); // prettier-ignore

  it('dsp: when no new_order passed, the checks about its order are skipped naming it, not failed for a DSP refusing an order it does not know', async () => {
    const known = new Set<string>();
    const proxy = await faultyPartner(
      base.dsp,
      {
        // The order breaks the order rules (upper-case currency), so dsp.webhooks.new-order fails.
        webhook: { type: 'new_order', body: (b) => (known.add(b.order.id), { ...b, order: { ...b.order, currency: 'USD' } }) },
        decide: (path, body) =>
          (path === '/stream-dsp/v1/event' || path === CERTIFICATION_TRIGGER_PATH) && body?.order_id && !known.has(body.order_id)
            ? { status: 404, body: { error: `No order ${body.order_id}.` } }
            : undefined,
      },
      secret,
    );
    try {
      const report = await run('dsp', proxy.url);
      expect(ids(report, 'failed')).toEqual(['dsp.webhooks.new-order']);
      const about = ['dsp.events.accept', 'dsp.events.status', 'dsp.webhooks.delivery-status', 'dsp.webhooks.cancel-order'];
      expect(report.checks.filter((c) => about.includes(c.id)).map((c) => [c.id, c.status, c.fix])).toEqual(
        about.map((id) => [id, 'skipped', 'Skipped: needs dsp.webhooks.new-order, which did not pass.']),
      );
    } finally {
      await proxy.close();
    }
  }); // prettier-ignore

  /* eslint-disable @typescript-eslint/no-explicit-any -- a partner's JSON, rewritten */
  it.each([
    ['dsp', 'new_order', (b: any) => ({ ...b, order: { ...b.order, special_instructions: null, items: b.order.items.map((i: object) => ({ ...i, special_instructions: null })) } })],
    ['dsp', 'cancel_order', (b: any) => ({ ...b, cancel_reason: null, cancel_source: null })],
    ['pos', 'order.created', (b: any) => ({ ...b, object: { ...b.object, special_instructions: null } })],
  ] as const)('%s: a %s webhook with optional fields null (production reads null as absent) passes', async (kind, type, body) => {
    const proxy = await faultyPartner(base[kind], { webhook: { type, body } }, secret);
    try {
      const report = await run(kind, proxy.url);
      expect(report.checks.filter((c) => c.required && c.status !== 'passed').map((c) => [c.id, c.fix])).toEqual([]);
      expect(report.checks.filter((c) => c.status === 'failed').map((c) => [c.id, c.fix])).toEqual([]);
    } finally {
      await proxy.close();
    }
  }); // prettier-ignore
  /* eslint-enable @typescript-eslint/no-explicit-any */

  it.each([403, 400])('events: a bad signature refused with %i certifies', async (status) => {
    const proxy = await faultyPartner(
      base.events,
      { path: '/event', status: (s) => (s === 401 ? status : s) },
      secret,
    );
    try {
      const report = await run('events', proxy.url);
      expect(report.checks.find((c) => c.id === 'events.signature.refused')).toMatchObject({
        status: 'passed',
      });
      expect(report.passed).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it.each([307, 308])('authorize redirecting with %i to redirect_uri certifies', async (status) => {
    const proxy = await faultyPartner(
      base.pos,
      { path: '/stream-pos/v1/authorize', status: (s) => (s === 302 ? status : s) },
      secret,
    );
    try {
      const report = await run('pos', proxy.url);
      const authorize = report.checks.find((c) => c.id === 'pos.oauth.authorize')!;
      expect(authorize).toMatchObject({ status: 'passed', exchanges: [{ status }] });
      expect(report.passed).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('dsp: a DSP refusing any event or webhook about an ended order (409) certifies: each ending has an order of its own', async () => {
    const ended = new Set<string>();
    const letters = new Map<string, string>(); // order ids as A, B, C in the order they first appear
    const calls: string[] = [];
    const proxy = await faultyPartner(
      base.dsp,
      {
        decide(path, body) {
          const trigger = path === CERTIFICATION_TRIGGER_PATH;
          if ((!trigger && path !== '/stream-dsp/v1/event') || (!trigger && !body?.order_id)) return undefined;
          const order: string | undefined = body?.order_id;
          if (order && !letters.has(order)) letters.set(order, 'ABCDEFGH'[letters.size]!);
          calls.push(`${trigger ? 'ask ' : ''}${body.type}${order ? ` ${letters.get(order)}` : ''}`);
          if (order && ended.has(order)) {
            return { status: 409, body: { error: 'invalid_transition', message: `Order ${order} has ended.` } };
          }
          if (['location.order.fail', 'location.order.cancel', 'cancel_order'].includes(body.type) && order) ended.add(order);
          return undefined;
        },
      },
      secret,
    );
    try {
      const report = await run('dsp', proxy.url);
      expect(report.checks.filter((c) => c.required && c.status !== 'passed').map((c) => [c.id, c.fix])).toEqual([]);
      expect(report.passed).toBe(true);
      // On the wire, in the order the guide lists: the run's order A stays open until the DSP cancels
      // it, then the kit fails order B and cancels order C, each a new_order asked for first.
      expect(calls).toEqual([
        'ask new_order',
        'location.order.accept A',
        'location.order.notify_status_change A',
        'ask delivery_status_update A',
        'ask cancel_order A',
        'ask new_order',
        'location.order.fail B',
        'ask new_order',
        'location.order.cancel C',
        'ask store_status_update',
      ]);
      expect(report.checks.find((c) => c.id === 'dsp.events.fail')!.exchanges.map((e) => e.direction)).toEqual(['sent', 'received', 'sent']);
    } finally {
      await proxy.close();
    }
  }); // prettier-ignore

  it('dsp: a DSP sending the same order.id again when asked for a new order fails the ending check, saying why', async () => {
    let first: string | undefined;
    const proxy = await faultyPartner(
      base.dsp,
      { webhook: { type: 'new_order', body: (b) => ({ ...b, order: { ...b.order, id: (first ??= b.order.id) } }) } },
      secret,
    );
    try {
      const report = await run('dsp', proxy.url);
      expect(ids(report, 'failed')).toEqual(['dsp.events.fail', 'dsp.events.cancel']);
      expect(report.checks.find((c) => c.id === 'dsp.events.fail')!.fix).toBe(
        `The new_order names order.id "${first}", an order you sent before, which may have ended: send a new order, with an id of its own, each time the kit asks for one.`,
      );
    } finally {
      await proxy.close();
    }
  }); // prettier-ignore

  it("the CLI's inbox answers a webhook over the 1 MiB limit 413 and keeps by how much, sent with or without Content-Length", async () => {
    const limit = 1024 * 1024;
    const since = Date.now();
    const inbox = inboxes.pos;
    const body = Buffer.alloc(limit + 10, 'x');
    const sent = [
      await fetch(inbox.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(body) }),
      // Chunked: no Content-Length, so the inbox counts what comes.
      await fetch(inbox.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(body)), c.enqueue(new Uint8Array(5)), c.close()) }),
        duplex: 'half',
      } as RequestInit),
    ];
    expect(await Promise.all(sent.map(async (r) => [r.status, ((await r.json()) as { error: { code: string } }).error.code]))).toEqual([
      [413, 'payload_too_large'],
      [413, 'payload_too_large'],
    ]);
    const kept = new Set<string | undefined>(); // what the inbox holds since, as a check reads it
    await inbox.next((w) => (kept.add(w.refused?.reason), false), since, 100);
    expect([...kept]).toEqual([
      `the body is 10 bytes over the ${limit}-byte limit: send at most ${limit} bytes`,
      `the body is 15 bytes over the ${limit}-byte limit: send at most ${limit} bytes`,
    ]);
  }); // prettier-ignore

  it("the CLI's inbox answers each webhook as production's route of its kind: status and body", async () => {
    const post = async (kind: CertificationKind, body: unknown) => {
      const raw = JSON.stringify(body);
      const res = await fetch(inboxes[kind].webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stream-webhook-signature': hmacHex(secret, raw) },
        body: raw,
      });
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    };
    const json = (r: { text: string }) => JSON.parse(r.text);
    // POS: POST /pos/{partner_slug}/webhook answers 204, no body.
    const pos = await post('pos', { type: 'location.connection.offline', object: { location_id: 'loc-1' } });
    expect(pos).toEqual({ status: 204, type: null, text: '' });
    // DSP: POST /order/{partner_id} answers a new order 202, what applies 200, one ord_ id per order.
    const newOrder = dspSendWebhook.request.example; // { type: 'new_order', location_id: 'store-1001', order: { id: 'dsp-order-8812', … } }
    const created = await post('dsp', newOrder);
    expect(created.status, created.text).toBe(202);
    expect(json(created)).toEqual({ event_id: expect.stringMatching(/^evt_[0-9a-f]{24}$/), order_id: expect.stringMatching(/^ord_[0-9a-f]{24}$/), status: 'received' });
    const delivery = await post('dsp', { type: 'delivery_status_update', location_id: 'store-1001', order_id: 'dsp-order-8812', delivery_status: 'enroute_to_pickup', driver_details: null });
    expect([delivery.status, json(delivery)]).toEqual([200, { event_id: expect.stringMatching(/^evt_/), order_id: json(created).order_id, status: 'accepted' }]);
    const cancel = await post('dsp', { type: 'cancel_order', location_id: 'store-1001', order_id: 'dsp-order-8812' });
    expect([cancel.status, json(cancel)]).toEqual([200, { event_id: expect.stringMatching(/^evt_/), order_id: json(created).order_id, status: 'dsp_canceled' }]);
    const store = await post('dsp', { type: 'store_status_update', location_id: 'store-1', status_update: { status: 'online' } });
    expect([store.status, json(store)]).toEqual([200, { event_id: expect.stringMatching(/^evt_/) }]);
    // Events: POST /event-provider/{partner_slug}/webhook answers 200 with the delivery as it stands.
    const ref = { order_id: 'ord_cert_answer', location_id: 'loc_cert_answer' };
    const driver = { name: 'Dana Cruz', phone: { number: '+14155550199', code: null } };
    const assigned = await post('events', { type: 'order.assign.driver', object: { ...ref, driver } });
    expect([assigned.status, json(assigned)]).toEqual([200, { event_id: expect.stringMatching(/^evt_/), order_id: ref.order_id, delivery_status: 'driver_assigned', driver: { name: 'Dana Cruz', phone: { number: '+14155550199' } } }]);
    const moved = await post('events', { type: 'order.update.delivery.status', object: { ...ref, status: 'enroute_to_pickup' } });
    expect([moved.status, json(moved)]).toEqual([200, { event_id: expect.stringMatching(/^evt_/), order_id: ref.order_id, delivery_status: 'enroute_to_pickup', driver: { name: 'Dana Cruz', phone: { number: '+14155550199' } } }]);
    // A body the production route refuses is its 400, naming the field; a type of another kind's route too.
    const bad = await post('events', { type: 'order.update.delivery.status', object: { ...ref, status: 'lost' } });
    expect([bad.status, json(bad).error.code, json(bad).error.message]).toEqual([400, 'validation_failed', expect.stringMatching(/^body\.object\.status: must be one of "enroute_to_pickup"/)]);
    const other = await post('pos', newOrder);
    expect([other.status, json(other).error.message]).toEqual([400, expect.stringMatching(/^body\.type: /)]);
  }); // prettier-ignore

  it("the CLI's inbox refuses what the platform's parser refuses in the platform's words: the field, its details, a byte order mark named", async () => {
    const post = async (raw: Buffer) => {
      const res = await fetch(inboxes.pos.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stream-webhook-signature': hmacHex(secret, raw) },
        body: new Uint8Array(raw),
      });
      return [res.status, ((await res.json()) as { error: unknown }).error];
    };
    const nul = Buffer.from('{"type":"location.catalog.updated","object":{"location_id":"a\\u0000"}}');
    const why = 'must not contain the NUL character (\\u0000)';
    expect(await post(nul)).toEqual([400, { code: 'validation_failed', message: `body.object.location_id: ${why}`, details: [{ path: 'body.object.location_id', message: why }] }]);
    const deep = Buffer.from(`${'['.repeat(200)}${']'.repeat(200)}`);
    expect(await post(deep)).toEqual([400, { code: 'validation_failed', message: 'body: nests deeper than 128 levels', details: [{ path: 'body', message: 'nests deeper than 128 levels' }] }]);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"type":"location.catalog.updated"}')]);
    const [status, error] = await post(bom);
    expect([status, (error as { message: string }).message]).toEqual([400, 'The body starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow: send (and sign) the JSON without it.']);
    // The check that waits for it says the same, as a clause.
    const since = Date.now() - 5_000;
    const kept = await inboxes.pos.next((w) => w.raw === bom.toString('utf8'), since, 0);
    expect(kept?.refused?.reason).toBe('the body starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow: send (and sign) the JSON without it');
  }); // prettier-ignore

  it('a large webhook is cut in the report as every body is (its first 4 KiB and its size), not kept whole', async () => {
    const padding = 'x'.repeat(40_000);
    const proxy = await faultyPartner(
      base.events,
      { webhook: { type: 'order.assign.driver', body: (b) => ({ ...b, padding }) } },
      secret,
    );
    try {
      const report = await run('events', proxy.url);
      const check = report.checks.find((c) => c.id === 'events.webhooks.assign-driver')!;
      expect(check.status).toBe('passed');
      const received = check.exchanges.find((e) => e.direction === 'received')!;
      expect(received.request_body).toEqual(expect.stringMatching(/^\{"type":"order\.assign\.driver".{4000,4096}… \(\d{5} bytes\)$/s));
      expect(JSON.stringify(report).length).toBeLessThan(30_000);
    } finally {
      await proxy.close();
    }
  }); // prettier-ignore

  it('passed, as CertificationReport describes it: every required check passed, optional ones never block, and the run finished', () => {
    const check = (id: string, required: boolean, status: 'passed' | 'failed' | 'skipped') => ({ id, title: id, required, status, guide: '/docs', exchanges: [], duration_ms: 0 });
    const base = { kind: 'pos' as const, base_url: 'http://x', started_at: new Date().toISOString() };
    expect(summarise(base, [check('a', true, 'passed'), check('b', false, 'skipped'), check('c', false, 'failed')], true).passed).toBe(true);
    expect(summarise(base, [check('a', true, 'passed'), check('b', true, 'skipped')], true).passed).toBe(false);
    expect(summarise(base, [check('a', true, 'passed')], false).passed).toBe(false);
  }); // prettier-ignore

  it('a partner without the trigger is asked to send the webhook by hand, and the check waits', async () => {
    const proxy = await faultyPartner(
      base.events,
      { path: '/stream-certification/v1/webhooks', short: { status: 404, body: {} } },
      secret,
    );
    try {
      prompts.length = 0;
      const report = await run('events', proxy.url, { webhookWaitMs: 300 });
      expect(prompts[0]).toMatch(
        /^Send a signed order\.assign\.driver webhook for order ord_cert\w+ of location loc_cert\w+ to http:\/\/127\.0\.0\.1:\d+\/webhooks \(waiting 0 s\)/,
      );
      expect(report.checks.find((c) => c.id === 'events.webhooks.assign-driver')!.fix).toMatch(
        /No order\.assign\.driver webhook reached/,
      );
    } finally {
      await proxy.close();
    }
  });

  it('the JUnit report parses, one testcase per check, failures and skips counted', async () => {
    const proxy = await faultyPartner(base.pos, FAULTS[1]!.fault, secret);
    const report = await run('pos', proxy.url).finally(() => proxy.close());
    const xml = toJUnit(report, 'http://localhost:8080');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const suite = parsed.testsuites.testsuite;
    expect(suite.testcase).toHaveLength(report.checks.length);
    expect(Number(suite.failures)).toBe(1);
    expect(report.summary.skipped).toBeGreaterThan(5); // everything after the locations needs one
    expect(Number(suite.skipped)).toBe(report.summary.skipped);
    const failure = suite.testcase.find((c: { failure?: unknown }) => c.failure).failure;
    expect(failure.message).toMatch(/provider_id/);
    expect(failure['#text']).toContain(
      'http://localhost:8080/docs/become-a-stream-integration/integrate-with-stream-as-a-pos/integration-steps/location-management',
    );
  });
});

describe('the certification guide', () => {
  const docs = fileURLToPath(new URL('../../../docs/docs/', import.meta.url));
  const guide = readFileSync(join(docs, 'become-a-stream-integration/certification.mdx'), 'utf8');
  const all = (['pos', 'dsp', 'events'] as const).flatMap((kind) => checksFor(kind, { menuV2: true }));

  it('lists every check by its id', () => {
    expect(all.map((c) => c.id).filter((id) => !guide.includes(`\`${id}\``))).toEqual([]);
  });

  it.each(['pos', 'dsp', 'events'] as const)('lists the %s checks in the order they run', (kind) => {
    const heading = { pos: '### POS', dsp: '### DSP', events: '### Event provider' }[kind];
    const rest = guide.slice(guide.indexOf(heading) + heading.length);
    const section = rest.slice(0, rest.search(/\n##+ /));
    const places = checksFor(kind, { menuV2: true }).map((c) => [c.id, section.indexOf(`\`${c.id}\``)] as const);
    expect(places.filter(([, at]) => at < 0)).toEqual([]);
    const sorted = [...places].sort((a, b) => a[1] - b[1]);
    expect(sorted.map(([id]) => id)).toEqual(places.map(([id]) => id));
  }); // prettier-ignore

  it('links every check to a page that exists, and marks the optional ones', () => {
    const page = (path: string) => join(docs, path.replace(/^\/docs\//, '').replace(/#.*$/, ''));
    const missing = all.filter(
      (c) => !['.md', '.mdx', '/index.mdx'].some((ext) => existsSync(page(c.guide) + ext)),
    );
    expect(missing.map((c) => `${c.id}: ${c.guide}`)).toEqual([]);
    for (const c of all.filter((c) => c.required === false)) {
      expect(guide).toMatch(new RegExp(`\`${c.id.replaceAll('.', '\\.')}\`[^|]*\\(_optional_\\)`));
    }
  });
});
