/** Test aids for onboarding: a platform with the mounted sandbox, partner tokens, the OAuth dance. Not used by the platform. */
import { createServer } from 'node:net';
import type { SQL } from 'drizzle-orm';
import { expect } from 'vitest';
import { sandboxControl, type SandboxControl } from '@stream/sandbox';
import { call, type TestResponse } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { requestAccessToken } from '../auth/testing.ts';
import { rowsOf } from '../db/sql.ts';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { integrations, orgLocations as orgLocationsTable } from '../db/schema/index.ts';
import { CONNECTION_BACKOFF } from './connection-jobs.ts';
import { sandboxControlClients } from '../sandbox-bootstrap.ts';

import { waitFor } from '../../test/wait.ts';

export interface OnboardingWorld {
  platform: TestPlatform;
  url: string;
  pos: SandboxControl;
  dsp: SandboxControl;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the sandbox base URLs need the public URL before listening). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A platform with the sandbox POS and DSP mounted, and connection retries made quick. */
export async function startOnboardingWorld(): Promise<OnboardingWorld> {
  Object.assign(CONNECTION_BACKOFF, { baseMs: 10, maxMs: 40 });
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const platform = await startTestPlatform({ sandbox: true, port, publicUrl });
  const { db, config } = platform.app.ctx;
  const control = async (kind: 'pos' | 'dsp') =>
    sandboxControl(
      `${platform.url}/sandbox/${kind}`,
      (await sandboxControlClients(db, config.encryptionKey, `sandbox-${kind}`))[0]!,
    );
  return {
    platform,
    url: platform.url,
    pos: await control('pos'),
    dsp: await control('dsp'),
    stop: () => platform.stop(),
  };
}

/** A white-label partner's access token (all scopes unless told). */
export async function partnerToken(
  world: OnboardingWorld,
  scopes?: string[],
): Promise<{ token: string; partnerId: string }> {
  const creds = await world.platform.partner();
  const { access_token } = await requestAccessToken(world.url, creds, scopes ? { scopes } : {});
  return { token: access_token, partnerId: creds.partner_id };
}

let orgs = 0;
export async function createOrg(world: OnboardingWorld, token: string): Promise<string> {
  const n = ++orgs;
  const res = await call('POST', `${world.url}/onboarding/org`, {
    token,
    body: {
      name: `Org ${n}`,
      provider_id: `org-${n}-${Date.now()}`,
      user: { email: `o${n}@example.com`, first_name: 'O', last_name: 'W' },
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.org_id as string;
}

export async function createIntegration(
  world: OnboardingWorld,
  token: string,
  orgId: string,
  type: 'pos' | 'dsp',
): Promise<{ _id: string; entry_url: string; status: string }> {
  const res = await call('POST', `${world.url}/onboarding/integrations`, {
    token,
    body: {
      org_id: orgId,
      source: `sandbox-${type}`,
      type,
      return_url: 'https://partner.example/done?from=test',
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.onboarding;
}

/** The sandbox's authorize step as a script would do it: answers the code it redirects with. */
export async function sandboxCode(
  world: OnboardingWorld,
  type: 'pos' | 'dsp',
  opts: { account?: string; redirectUri?: string } = {},
): Promise<string> {
  const base = `${world.url}/sandbox/${type}`;
  const info = await world[type].info();
  const url = new URL(`${base}/stream-${type}/v1/authorize`);
  url.searchParams.set('client_id', info.client_ids[0] ?? '');
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', opts.redirectUri ?? `${world.url}/onboarding/oauth/callback`);
  if (opts.account) url.searchParams.set('account', opts.account);
  const res = await call('GET', url.toString());
  expect(res.status, res.text).toBe(302);
  const code = new URL(res.headers.get('location')!).searchParams.get('code');
  expect(code).toBeTruthy();
  return code!;
}

/** An integration made active through the headless `PUT {code}`. */
export async function activeIntegration(
  world: OnboardingWorld,
  token: string,
  orgId: string,
  type: 'pos' | 'dsp',
  account?: string,
): Promise<string> {
  const { _id } = await createIntegration(world, token, orgId, type);
  const code = await sandboxCode(world, type, { account });
  const res = await call('PUT', `${world.url}/onboarding/integrations/${_id}`, { token, body: { code } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.onboarding.status).toBe('active');
  return _id;
}

export async function ingest(
  world: OnboardingWorld,
  token: string,
  onboardingId: string,
  providerIds: string[],
) {
  const res = await call('POST', `${world.url}/onboarding/locations/ingest`, {
    token,
    body: { onboarding_id: onboardingId, locations: providerIds.map((provider_id) => ({ provider_id })) },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.locations as { _id: string; provider_id: string }[];
}

export function bind(
  world: OnboardingWorld,
  token: string,
  dspOnboardingId: string,
  pairs: { pos_location_id: string; dsp_provider_id: string }[],
): Promise<TestResponse> {
  return call('POST', `${world.url}/onboarding/locations/bind`, {
    token,
    body: {
      onboarding_id: dspOnboardingId,
      locations: pairs.map((p) => ({ ...p, dsp_store_name: `Store ${p.dsp_provider_id}` })),
    },
  });
}

export async function orgLocations(
  world: OnboardingWorld,
  token: string,
  orgId: string,
  locationId?: string,
) {
  const q = locationId ? `?location_id=${locationId}` : '';
  const res = await call('GET', `${world.url}/onboarding/org/${orgId}/locations${q}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.locations as {
    _id: string;
    status: string;
    provider_id: string;
    dsps: { _id: string; status: string; reason: string | null; provider_id: string }[];
  }[];
}

/** Polls the org's locations until `check` holds for the one with `locationId`. */
export function waitForLocation(
  world: OnboardingWorld,
  token: string,
  orgId: string,
  locationId: string,
  check: (l: OrgLocationSeen) => boolean,
  what: string,
): Promise<OrgLocationSeen> {
  return waitFor(
    async () => {
      const [l] = await orgLocations(world, token, orgId, locationId);
      return l && check(l) ? l : undefined;
    },
    20_000,
    what,
  ) as Promise<OrgLocationSeen>;
}
type OrgLocationSeen = Awaited<ReturnType<typeof orgLocations>>[number];

/** Raw rows of a query on the platform's database. */
export async function query<T>(world: OnboardingWorld, text: SQL): Promise<T[]> {
  return rowsOf<T>(await world.platform.app.ctx.db.execute(text));
}

/** An active integration written straight to the database (no OAuth), for tests of what follows it. */
export async function integrationRow(
  db: DbOrTx,
  of: { partnerId: string; orgId: string; type: 'pos' | 'dsp'; sourcePartnerId: string },
): Promise<string> {
  const id = newId('int');
  await db
    .insert(integrations)
    .values({ id, ...of, status: 'active', returnUrl: 'https://partner.example/return' });
  return id;
}

/** An active POS location in an active POS integration, written straight to the database. */
export async function activeLocationRow(
  db: DbOrTx,
  of: { partnerId: string; orgId: string; posPartnerId: string; name: string; providerId?: string },
): Promise<string> {
  const { partnerId, orgId, posPartnerId, name, providerId = 'pos-1' } = of;
  const id = newId('loc');
  await db.insert(orgLocationsTable).values({
    id,
    partnerId,
    orgId,
    integrationId: await integrationRow(db, { partnerId, orgId, type: 'pos', sourcePartnerId: posPartnerId }),
    sourcePartnerId: posPartnerId,
    providerId,
    name,
    address: {
      formatted_address: '1 Main St, Springfield',
      address_line_1: '1 Main St',
      address_line_2: null,
      address_line_3: null,
      postal_code: null,
      locality: 'Springfield',
      administrative_district_level_1: null,
      country: 'US',
      latitude: null,
      longitude: null,
    },
    status: 'active',
  });
  return id;
}
