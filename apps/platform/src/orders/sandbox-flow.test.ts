import { execFile } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CATALOG, sandboxControl } from '@stream/sandbox';
import { mountSandbox } from '../sandbox-mount.ts';
import { findPartner } from '../partners/service.ts';
import { ensureSandboxPartners, sandboxControlClients, sandboxCredentials } from '../sandbox-bootstrap.ts';
import { startPlatform } from '../server.ts';
import { rowsOf } from '../db/sql.ts';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import {
  activeIntegration,
  bind,
  createOrg,
  ingest,
  partnerToken,
  startOnboardingWorld,
  waitForLocation,
  type OnboardingWorld,
} from '../onboarding/testing.ts';

/**
 * The whole order flow as a partner tries it from the docs: the mounted sandbox DSP posts a signed
 * order through its control route, the platform routes it to the sandbox POS, and the DSP receives
 * the outcome, for each behaviour the POS can be switched to.
 */

let world: OnboardingWorld;
let posLocation: string;
let store: string;
beforeAll(async () => {
  world = await startOnboardingWorld();
  const { token } = await partnerToken(world);
  const orgId = await createOrg(world, token);
  const pos = await activeIntegration(world, token, orgId, 'pos');
  const dsp = await activeIntegration(world, token, orgId, 'dsp');
  const [posInfo, dspInfo] = [await world.pos.info(), await world.dsp.info()];
  posLocation = posInfo.accounts[0]!.locations[0]!.provider_id;
  store = dspInfo.accounts[0]!.locations[0]!.provider_id;
  const [location] = await ingest(world, token, pos, [posLocation]);
  expect(
    (await bind(world, token, dsp, [{ pos_location_id: location!._id, dsp_provider_id: store }])).status,
  ).toBe(200);
  await waitForLocation(
    world,
    token,
    orgId,
    location!._id,
    (l) => l.dsps[0]?.status === 'APPROVED',
    'APPROVED',
  );
  // The binding publishes the sandbox POS's menu; from then on the DSP orders by its stream_ids.
  await waitFor(
    async () => (await world.dsp.menus()).find((m) => m.location_id === store),
    20_000,
    'the menu',
  );
  // The DSP has the file before the platform records the publication (once the DSP answered): a
  // sandbox DSP started again reads the recorded ones.
  const { db } = world.platform.app.ctx;
  await waitFor(
    async () =>
      rowsOf(
        await db.execute(sql`
          select 1 from menu_publications p join location_bindings b on b.id = p.binding_id
          where b.dsp_provider_id = ${store} and p.status = 'published'`),
      ).length > 0,
    20_000,
    'the publication recorded',
  );
});
afterAll(() => world?.stop());

async function sendOrder() {
  const sent = await world.dsp.send({ type: 'new_order', location_id: store, order: {} });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  return sent.body as { order_id: string; status: string };
}
const eventsOf = async (orderId: string) => {
  const orders = await world.dsp.events();
  return orders.filter((e) => e.body.order_id === orderId);
};

describe('the sandbox DSP started again', () => {
  it('remembers the menus published to it (read from the database), and those published through another process since, so its demo orders still order real items', async () => {
    // A second mount over the same database: what a restarted platform mounts.
    const app = Fastify();
    app.decorate('ctx', world.platform.app.ctx);
    await mountSandbox(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { db, config } = world.platform.app.ctx;
      const creds = (await sandboxControlClients(db, config.encryptionKey, 'sandbox-dsp'))[0]!;
      const restarted = sandboxControl(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/sandbox/dsp`, creds);
      const before = (await world.dsp.menus()).find((m) => m.location_id === store)!;
      const after = (await restarted.menus()).find((m) => m.location_id === store);
      expect(after).toMatchObject({ valid: true, menu_file: before.menu_file });
      expect(after!.download_url).toMatch(/\/menu-files\/\w+\?expires=\d+&signature=[0-9a-f]{64}$/);

      // A menu published afterwards through the other mount (another process over the same database):
      // the restarted DSP serves it too, not only what it read on its first request.
      const renamed = structuredClone(DEMO_CATALOG);
      renamed.category![0]!.name = 'Renamed after the restart';
      const shows = (name: string) => async (dsp: typeof restarted) =>
        JSON.stringify((await dsp.menus()).find((m) => m.location_id === store)?.menu_file ?? null).includes(name);
      try {
        await world.pos.setCatalog(renamed);
        await waitFor(() => shows('Renamed after the restart')(world.dsp), 20_000, 'the new menu at the DSP that took it');
        await waitFor(() => shows('Renamed after the restart')(restarted), 20_000, 'the new menu at the restarted DSP');
      } finally {
        await world.pos.setCatalog(undefined);
        await waitFor(async () => !(await shows('Renamed after the restart')(restarted)), 20_000, 'the demo menu back');
      }
    } finally {
      await app.close();
    }
  }); // prettier-ignore
});

describe('the sandbox DSP of a platform started on PORT=0', () => {
  it('recalls the menus published to it with absolute download_urls, on the address the platform listens on', async () => {
    const { database, config } = world.platform.app.ctx;
    // No PUBLIC_URL and a port the system picks: the platform learns its address only once it listens.
    const second = await startPlatform(
      { ...config, port: 0, publicUrl: '' },
      { database, logger: pino({ level: 'silent' }) },
    );
    try {
      const creds = (await sandboxControlClients(database.db, config.encryptionKey, 'sandbox-dsp'))[0]!;
      const [menu] = (await sandboxControl(`${second.url}/sandbox/dsp`, creds).menus()).filter(
        (m) => m.location_id === store,
      );
      const { port } = new URL(second.url);
      expect(menu!.download_url).toMatch(new RegExp(`^http://localhost:${port}/menu-files/\\w+\\?expires=`));
      // And it is the file: the platform serves it at that path.
      const { pathname, search } = new URL(menu!.download_url);
      const file = await call('GET', `${second.url}${pathname}${search}`);
      expect([file.status, file.body]).toEqual([200, menu!.menu_file]);
    } finally {
      await second.stop();
      // The second start pointed the sandbox partners' base URLs at itself: back to the first platform.
      await ensureSandboxPartners(world.platform.app.ctx);
    }
  });
});

describe('the sandbox order flow', () => {
  it('accepts by default: the DSP hears location.order.accept', async () => {
    await world.pos.switches({ order_behavior: 'accept' });
    const sent = await world.dsp.send({ type: 'new_order', location_id: store, order: { id: 'sbx-flow-1' } });
    expect(sent.body.status).toBe('received');
    await waitFor(
      async () => (await eventsOf('sbx-flow-1')).find((e) => e.body.type === 'location.order.accept'),
      20_000,
      'accept',
    );
    const held = await world.pos.orders();
    expect(held.find((o) => o.idempotency_key === sent.body.order_id)).toMatchObject({ status: 'accepted' });
  });

  it('refuses out of stock: the DSP hears items_unavailable with its item id', async () => {
    await world.pos.switches({ order_behavior: 'reject_stock' });
    const sent = await world.dsp.send({ type: 'new_order', location_id: store, order: { id: 'sbx-flow-2' } });
    const fail = await waitFor(
      async () => (await eventsOf('sbx-flow-2')).find((e) => e.body.type === 'location.order.fail'),
      20_000,
      'fail',
    );
    // The DSP hears its own id of the item: the stream_id of the menu it downloaded.
    const [menu] = await world.dsp.menus();
    const ordered = (
      menu!.menu_file as { menus: { categories: { items: { variations: { stream_id: string }[] }[] }[] }[] }
    ).menus[0]!.categories[0]!.items[0]!.variations[0]!.stream_id;
    expect(fail.body).toMatchObject({
      failure_reason: 'items_unavailable',
      failure_details: { invalid_item_ids: [ordered] },
    });
    expect(sent.status).toBe(202);
  });

  it('accepts asynchronously and confirms by signed webhook; status updates on command reach the DSP', async () => {
    await world.pos.switches({ order_behavior: 'accept_async', order_confirm_ms: 100 });
    await world.dsp.send({ type: 'new_order', location_id: store, order: { id: 'sbx-flow-3' } });
    await waitFor(
      async () => (await eventsOf('sbx-flow-3')).find((e) => e.body.type === 'location.order.accept'),
      20_000,
      'accept',
    );
    const held = (await world.pos.orders()).find((o) => o.status === 'accepted' && o.provider_id);
    const ready = await world.pos.sendOrderStatus(held!.provider_id, 'ready_for_pickup');
    expect(ready.status).toBe(204);
    await waitFor(
      async () =>
        (await world.dsp.events({ type: 'location.order.notify_status_change' })).length > 0 || undefined,
      20_000,
      'ready',
    );
  });

  it('pauses every bound store when the POS location goes inactive', async () => {
    const res = await world.pos.sendLocationStatus(posLocation, 'inactive', Date.now() + 3_600_000);
    expect(res.status).toBe(204);
    await waitFor(async () => (await world.dsp.events({ type: 'location.pause' }))[0], 20_000, 'pause');
    const refused = await sendOrder();
    expect(refused.status).toBe('failed');
    expect((await world.pos.sendLocationStatus(posLocation, 'active')).status).toBe(204);
    await waitFor(async () => (await world.dsp.events({ type: 'location.resume' }))[0], 20_000, 'resume');
  });

  it('stream-sandbox dsp send-order posts one signed order from the command line', async () => {
    const { db, config } = world.platform.app.ctx;
    const creds = await sandboxCredentials(db, config.encryptionKey, (await findPartner(db, 'sandbox-dsp'))!);
    const file = join(mkdtempSync(join(tmpdir(), 'send-order-')), 'order.json');
    writeFileSync(file, JSON.stringify({ id: 'sbx-cli-1', special_instructions: 'From the CLI' }));
    const bin = fileURLToPath(new URL('../../../../packages/sandbox/bin/stream-sandbox.js', import.meta.url));
    const args = ['dsp', 'send-order', '--platform', world.url, '--partner', creds!.partner_id];
    const { stdout } = await promisify(execFile)(process.execPath, [
      bin,
      ...args,
      '--secret',
      creds!.webhook_secret,
      '--location',
      store,
      '--file',
      file,
      // The sandbox DSP's credentials: the order is made from the menu published to the store.
      '--client-id',
      creds!.client_id,
      '--client-secret',
      creds!.client_secret,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({
      status: 202,
      body: { order_id: expect.stringMatching(/^ord_/), status: 'received' },
    });
    await world.pos.switches({ order_behavior: 'accept' });
    await waitFor(
      async () => (await eventsOf('sbx-cli-1')).find((e) => e.body.type === 'location.order.accept'),
      20_000,
      'the POS to accept the order sent from the command line',
    );
    const wrong = promisify(execFile)(process.execPath, [
      bin,
      ...args,
      '--secret',
      'wrong',
      '--location',
      store,
      '--client-id',
      creds!.client_id,
      '--client-secret',
      creds!.client_secret,
    ]);
    await expect(wrong).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('signature_mismatch'),
    });
  });
});

describe('the sandbox POS catalog', () => {
  const published = async (text: string) =>
    JSON.stringify((await world.dsp.menus()).find((m) => m.location_id === store)?.menu_file).includes(text);

  it('a catalog replaced on command reaches the DSP: the POS sends location.catalog.updated, the platform pulls and publishes', async () => {
    const renamed = structuredClone(DEMO_CATALOG);
    renamed.item_family![0]!.name = 'Carnitas tacos (new recipe)';
    const changed = await world.pos.setCatalog(renamed);
    expect(changed.catalog_updated).toContainEqual({ merchant_id: 'demo-merchant', status: 204, body: null });
    try {
      await waitFor(() => published('Carnitas tacos (new recipe)'), 20_000, 'the new catalog on the DSP');
    } finally {
      // Back to the demo catalog, published again, for whatever runs next.
      await world.pos.setCatalog(undefined);
      await waitFor(async () => !(await published('new recipe')), 20_000, 'the demo catalog on the DSP');
    }
  });
});

// Each command starts node and tsx: a generous ceiling for a busy machine (no timing is asserted).
describe('stream-sandbox control commands against the platform', { timeout: 180_000 }, () => {
  const bin = fileURLToPath(new URL('../../../../packages/sandbox/bin/stream-sandbox.js', import.meta.url));
  /** The guide's shell: SANDBOX_<KIND>_URL, _CLIENT_ID and _CLIENT_SECRET, from `partners list`. */
  let env: Record<string, string>;
  beforeAll(async () => {
    const { db, config } = world.platform.app.ctx;
    env = { PATH: process.env.PATH ?? '' };
    for (const kind of ['pos', 'dsp'] as const) {
      const creds = (await sandboxCredentials(
        db,
        config.encryptionKey,
        (await findPartner(db, `sandbox-${kind}`))!,
      ))!;
      const K = kind.toUpperCase();
      Object.assign(env, {
        [`SANDBOX_${K}_URL`]: creds.base_url!,
        [`SANDBOX_${K}_CLIENT_ID`]: creds.client_id,
        [`SANDBOX_${K}_CLIENT_SECRET`]: creds.client_secret,
      });
    }
  });
  const run = (args: string[], extraEnv: Record<string, string> = {}) =>
    promisify(execFile)(process.execPath, [bin, ...args], { env: { ...env, ...extraEnv } }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it('set the POS order behaviour, send an order status, pause and resume a location, and list what the DSP was told', async () => {
    const behavior = await run(['pos', 'order-behavior', 'accept']);
    expect([behavior.code, JSON.parse(behavior.stdout).order_behavior]).toEqual([0, 'accept']);
    expect((await world.pos.info()).switches.order_behavior).toBe('accept');
    const sent = await world.dsp.send({
      type: 'new_order',
      location_id: store,
      order: { id: 'sbx-cli-ctl-1' },
    });
    await waitFor(
      async () => (await eventsOf('sbx-cli-ctl-1')).find((e) => e.body.type === 'location.order.accept'),
      20_000,
      'accept',
    );
    const held = (await world.pos.orders()).find((o) => o.idempotency_key === sent.body.order_id)!;
    const ready = await run(['pos', 'order-status', held.provider_id, 'ready_for_pickup']);
    expect([ready.code, JSON.parse(ready.stdout)]).toEqual([0, { status: 204, body: null }]);
    await waitFor(
      async () =>
        (await eventsOf('sbx-cli-ctl-1')).find(
          (e) =>
            e.body.type === 'location.order.notify_status_change' &&
            e.body.order_status_update === 'ready_for_pickup',
        ),
      20_000,
      'ready',
    );

    await world.dsp.clearEvents();
    const pause = await run(['pos', 'pause', posLocation, '--minutes', '60']);
    expect([pause.code, JSON.parse(pause.stdout).status]).toEqual([0, 204]);
    await waitFor(async () => (await world.dsp.events({ type: 'location.pause' }))[0], 20_000, 'pause');
    expect((await run(['pos', 'resume', posLocation])).code).toBe(0);
    await waitFor(async () => (await world.dsp.events({ type: 'location.resume' }))[0], 20_000, 'resume');
    // The flags instead of the environment: the platform the DSP is mounted on, and its credentials.
    const { SANDBOX_DSP_URL: _, ...noDspUrl } = env;
    const events = await promisify(execFile)(
      process.execPath,
      [bin, 'dsp', 'events', '--type', 'location.pause', '--platform', world.url],
      { env: noDspUrl },
    );
    expect(JSON.parse(events.stdout)).toEqual([
      expect.objectContaining({
        body: expect.objectContaining({ type: 'location.pause', location_id: store }),
      }),
    ]);
  });

  it('says what is wrong in one line: exit 2 for what the route refuses as invalid, 1 for a refusal or an unknown order, with the platform answer', async () => {
    const oneLine = (res: { stderr: string }) => res.stderr.trimEnd().split('\n');
    const bad = await run(['pos', 'order-behavior', 'sometimes']);
    expect([bad.code, oneLine(bad)]).toEqual([
      2,
      [
        expect.stringMatching(
          /^stream-sandbox: the sandbox POS at \S+ answered 400 validation_failed: body\.order_behavior: /,
        ),
      ],
    ]);
    const wrong = await run(['pos', 'resume', posLocation], { SANDBOX_POS_CLIENT_SECRET: 'wrong' });
    expect([wrong.code, oneLine(wrong)]).toEqual([
      1,
      [expect.stringMatching(/answered 401 invalid_client: /)],
    ]);
    const unknown = await run(['pos', 'order-status', 'sbx-ord-none', 'completed']);
    expect([unknown.code, oneLine(unknown)]).toEqual([
      1,
      [expect.stringMatching(/answered 404 not_found: The sandbox POS holds no order sbx-ord-none\.$/)],
    ]);
    // A location the platform does not have: sent, and Stream's refusal printed, exit 1.
    const elsewhere = await run(['pos', 'pause', 'loc-south-congress']);
    expect([elsewhere.code, JSON.parse(elsewhere.stdout)]).toEqual([
      1,
      { status: 404, body: { error: expect.objectContaining({ code: 'location_not_found' }) } },
    ]);
    const noCredentials = await run(['dsp', 'events'], { SANDBOX_DSP_CLIENT_ID: '' });
    expect([noCredentials.code, oneLine(noCredentials)]).toEqual([
      2,
      [expect.stringContaining('--client-id and --client-secret are required')],
    ]);
  });
});
