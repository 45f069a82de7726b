/**
 * The world the endpoint fuzz test (`src/fuzz.test.ts`) points its calls at: a platform with the
 * sandbox POS, DSP and event provider mounted, a white-label partner granted the hosted demo company,
 * an org with both integrations active, a location bound to a DSP store with its menu published, an
 * order placed through it, and one of nearly everything else an operation can name (an integration
 * still pending, an OAuth state, an SSO token, a certification run and a menu file of it). `real` answers the ids, so that
 * a path parameter, query value or body field names something that exists.
 */
import { DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { HR_ORDER_OPERATIONS } from '@stream/contracts/apis/hr-orders/index';
import { HR_STORE_OPERATIONS } from '@stream/contracts/apis/hr-stores/index';
import type { Operation } from '@stream/contracts/operation';
import { sql } from 'drizzle-orm';
import { call } from './http.ts';
import type { TestPlatform } from './platform.ts';
import { waitFor } from './wait.ts';
import { requestAccessToken } from '../src/auth/testing.ts';
import { dbInbox } from '../src/certification/db-inbox.ts';
import { hostedWorld } from '../src/hosted/testing.ts';
import {
  activeIntegration,
  bind,
  createIntegration,
  ingest,
  sandboxCode,
  startOnboardingWorld,
  waitForLocation,
} from '../src/onboarding/testing.ts';
import { findPartner, webhookSecretOf } from '../src/partners/service.ts';

export interface FuzzWorld {
  platform: TestPlatform;
  /** The white-label partner's root token: every scope, the demo company granted. */
  token: string;
  /** Another caller's token, by the first path segment of the operations that need it. */
  tokens: Record<string, string>;
  /** Webhook secrets by what names their signer in a path: a sandbox partner's slug or id, a certification run. */
  secrets: Map<string, string>;
  /**
   * Real values by `operationId:name`, or by `segment:name` (the path's first segment) for every
   * operation under it; `name` is a path parameter, query parameter or body field.
   */
  known: Map<string, string>;
  stop(): Promise<void>;
}

const example = (ops: readonly Operation[], id: string) =>
  ops.find((op) => op.operationId === id)!.request!.example;

export async function startFuzzWorld(): Promise<FuzzWorld> {
  const ow = await startOnboardingWorld();
  try {
    return await populate(ow);
  } catch (err) {
    await ow.stop();
    throw err;
  }
}

async function populate(ow: Awaited<ReturnType<typeof startOnboardingWorld>>): Promise<FuzzWorld> {
  const { platform } = ow;
  const { db, config } = platform.app.ctx;
  const hosted = await hostedWorld(platform);
  const { partner } = hosted;
  const token = partner.token;
  const orgProvider = `fuzz-org-${Date.now()}`;
  const orgId = await partner.org(orgProvider);
  const { id: tokenId } = await partner.orgToken(orgId, ['user']);

  // Both integrations active, a POS location bound to a DSP store, its menu published.
  const posInt = await activeIntegration(ow, token, orgId, 'pos');
  const dspInt = await activeIntegration(ow, token, orgId, 'dsp');
  const [posInfo, dspInfo] = [await ow.pos.info(), await ow.dsp.info()];
  const [posLocation, otherPosLocation] = posInfo.accounts[0]!.locations.map((l) => l.provider_id);
  const store = dspInfo.accounts[0]!.locations[0]!.provider_id;
  // Two locations: the second is the one the event-provider switches turn on and off.
  const [location, other] = await ingest(ow, token, posInt, [posLocation!, otherPosLocation!]);
  const locationId = location!._id;
  const bound = await bind(ow, token, dspInt, [{ pos_location_id: locationId, dsp_provider_id: store }]);
  if (bound.status !== 200) throw new Error(`bind: ${bound.status} ${bound.text}`);
  await waitForLocation(ow, token, orgId, locationId, (l) => l.dsps[0]?.status === 'APPROVED', 'APPROVED');
  const menu = await waitFor(
    async () => (await ow.dsp.menus()).find((m) => m.location_id === store),
    20_000,
    'the menu published to the DSP',
  );
  const menuFile = new URL(menu.download_url);
  const enabled = await call(
    'PUT',
    `${ow.url}/onboarding/org/${orgId}/locations/${locationId}/event-providers/sandbox-events`,
    { token },
  );
  if (enabled.status >= 300) throw new Error(`event provider: ${enabled.status} ${enabled.text}`);

  // An order from the DSP, held by the POS.
  const sent = await ow.dsp.send({ type: 'new_order', location_id: store, order: {} });
  if (sent.status !== 202) throw new Error(`order: ${sent.status} ${JSON.stringify(sent.body)}`);
  const orderId = (sent.body as { order_id: string }).order_id;
  const dspOrderId = (sent.sent as { order: { id: string } }).order.id;
  const held = await waitFor(
    async () => (await ow.pos.orders()).find((o) => o.idempotency_key === orderId),
    20_000,
    'the order at the POS',
  );

  // Integrations still pending, one per operation that spends one: one to open (its entry token),
  // one opened (the OAuth state it issued; opening it again would issue another), one to connect
  // with a code (headless), one to delete.
  const pending = await createIntegration(ow, token, orgId, 'pos');
  const entry = new URL(pending.entry_url);
  const toAuthorize = await createIntegration(ow, token, orgId, 'pos');
  const opened = await call('GET', toAuthorize.entry_url);
  const state = new URL(opened.headers.get('location') ?? '', ow.url).searchParams.get('state') ?? '';
  const code = await sandboxCode(ow, 'pos');
  const toConnect = await createIntegration(ow, token, orgId, 'pos');
  const connectCode = await sandboxCode(ow, 'pos');
  const spare = await createIntegration(ow, token, orgId, 'dsp');

  const sso = await call('POST', `${ow.url}/white-label/generate-session`, {
    token,
    body: {
      email: 'fuzz@example.com',
      full_name: 'Fuzz',
      phone_number: '+14155550123',
      role: 'manager',
      provider_org_id: orgProvider,
    },
  });
  // A hosted order and e-mail of the demo store.
  const placed = await hosted.hosted('POST', '/Orders', {
    serviceType: 'DoorDash',
    body: example(HR_ORDER_OPERATIONS, 'createOrder'),
  });
  const email = await hosted.hosted('POST', `/Stores/${DEMO_STORE_ID}/Email`, {
    body: example(HR_STORE_OPERATIONS, 'sendStoreEmail'),
  });

  // A certifiable POS (its base URL refuses connections, so its run ends at once).
  const certifiable = await platform.partner({
    kind: 'pos',
    baseUrl: 'http://127.0.0.1:9',
    oauthClientId: 'fuzz',
    oauthClientSecret: 'fuzz',
  });
  const certToken = (await requestAccessToken(ow.url, certifiable)).access_token;
  const run = await call('POST', `${ow.url}/certification/runs`, { token: certToken, body: {} });
  const runId = run.body?.run?._id as string | undefined;
  // Its webhooks are taken only while it runs: once it has failed, it is made to run again.
  await waitFor(
    async () => {
      const got = await call('GET', `${ow.url}/certification/runs/${runId}`, { token: certToken });
      return ['passed', 'failed'].includes(got.body?.run?.status) || undefined;
    },
    20_000,
    'the certification run to end',
  );
  await db.execute(sql`update certification_runs set status = 'running' where id = ${runId}`);
  // A menu file of the run, as a DSP run serves its DSP one.
  const menuFileUrl = (await dbInbox(platform.app.ctx, runId!).serveFile({ fuzz: true })).url;

  const secrets = new Map([[runId!, certifiable.webhook_secret]]);
  const sandbox: Record<string, { id: string; slug: string }> = {};
  for (const slug of ['sandbox-pos', 'sandbox-dsp', 'sandbox-events']) {
    const p = (await findPartner(db, slug))!;
    sandbox[slug] = { id: p.id, slug };
    secrets.set(p.id, webhookSecretOf(config.encryptionKey, p)).set(p.slug, secrets.get(p.id)!);
  }

  const month = new Date().toISOString().slice(0, 7);
  const entries: [string, string | undefined][] = [
    ['oauth:client_id', partner.client_id],
    ['oauth:client_secret', partner.client_secret],
    ['tokens:token_id', tokenId],
    ['tokens:org_id', orgId],
    ['onboarding:id', orgId],
    ['onboarding:org_id', orgId],
    ['onboarding:location_id', locationId],
    ['onboarding:provider', 'sandbox-events'],
    ['enableLocationEventProvider:location_id', other!._id],
    ['disableLocationEventProvider:location_id', other!._id],
    ['getIntegration:id', posInt],
    ['connectIntegration:id', toConnect._id],
    ['connectIntegration:code', connectCode],
    ['deleteIntegration:id', spare._id],
    ['openIntegrationEntry:id', pending._id],
    ['openIntegrationEntry:token', entry.searchParams.get('token') ?? undefined],
    ['oauthCallback:state', state],
    ['oauthCallback:code', code],
    ['listOnboardingLocations:onboarding_id', posInt],
    ['ingestLocations:onboarding_id', posInt],
    ['ingestLocations:provider_id', otherPosLocation],
    ['bindLocations:onboarding_id', dspInt],
    ['bindLocations:pos_location_id', locationId],
    ['bindLocations:dsp_provider_id', store],
    ['white-label:provider_org_id', orgProvider],
    ['white-label:sso_login_token', sso.body?.sso_login_token],
    ['billing:file_name', month],
    ['billing:partner_id', partner.partner_id],
    ['orders:order_id', orderId],
    ['menus:location_id', locationId],
    ['certification:run_id', runId],
    ['certification:file_id', menuFileUrl.split('/').at(-1)],
    ['pos:partner_slug', sandbox['sandbox-pos']!.slug],
    ['pos:location_id', posLocation],
    ['pos:provider_id', held.provider_id],
    ['order:partner_id', sandbox['sandbox-dsp']!.id],
    ['order:location_id', store],
    ['order:order_id', dspOrderId],
    ['event-provider:partner_slug', sandbox['sandbox-events']!.slug],
    ['event-provider:order_id', orderId],
    ['event-provider:location_id', locationId],
    ['menu-files:publication_id', menuFile.pathname.split('/').at(-1)],
    ['menu-files:expires', menuFile.searchParams.get('expires') ?? undefined],
    ['menu-files:signature', menuFile.searchParams.get('signature') ?? undefined],
    ['Orders:id', placed.body?.data?.id === undefined ? undefined : String(placed.body.data.id)],
    ['Stores:emailId', email.body?.data?.[0]?.id === undefined ? undefined : String(email.body.data[0].id)],
    ['Stores:id', String(DEMO_STORE_ID)],
  ];
  const missing = entries.filter(([, v]) => !v).map(([k]) => k);
  if (missing.length > 0) throw new Error(`the fuzz world has no ${missing.join(', ')} (SSO: ${sso.text})`);
  return {
    platform,
    token,
    tokens: { certification: certToken },
    secrets,
    known: new Map(entries as [string, string][]),
    stop: () => ow.stop(),
  };
}
