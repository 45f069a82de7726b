import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { posAuthorize, posToken } from '@stream/contracts/apis/become-a-pos/index';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import {
  activeIntegration,
  bind,
  createIntegration,
  createOrg,
  ingest,
  orgLocations,
  partnerToken,
  query,
  sandboxCode,
  startOnboardingWorld,
  waitForLocation,
  type OnboardingWorld,
} from './testing.ts';
import { CONNECTION_BACKOFF } from './connection-jobs.ts';

let world: OnboardingWorld;
let token: string;
beforeAll(async () => {
  world = await startOnboardingWorld();
  ({ token } = await partnerToken(world));
});
afterAll(() => world?.stop());

/** GET with manual redirects; answers the Location. */
async function redirectOf(url: string): Promise<URL> {
  const res = await call('GET', url);
  expect(res.status, res.text).toBe(302);
  return new URL(res.headers.get('location')!, url);
}

const lifecycle = (subjectId: string) =>
  query<{ event: string }>(
    world,
    sql`select event from lifecycle_events where subject_id = ${subjectId} order by at, id`,
  );

describe('onboarding journey over real HTTP against the sandbox partners', () => {
  it('takes a merchant from nothing to an APPROVED binding and back to deprovisioned', async () => {
    const orgId = await createOrg(world, token);

    // POS integration through the browser flow: entry -> authorize -> callback -> return_url.
    const created = await call('POST', `${world.url}/onboarding/integrations`, {
      token,
      body: {
        org_id: orgId,
        source: 'sandbox-pos',
        type: 'pos',
        return_url: 'https://partner.example/done?x=1',
      },
    });
    expect(created.status).toBe(201);
    const pos = created.body.onboarding;
    expect(pos).toMatchObject({
      status: 'pending',
      type: 'pos',
      source: 'sandbox-pos',
      org_id: orgId,
      merchant_id: null,
    });
    expect(pos._id).toMatch(/^onb_/);
    expect(pos.entry_url).toMatch(
      new RegExp(`^${world.url}/onboarding/integrations/${pos._id}/entry\\?token=`),
    );

    const authorize = await redirectOf(pos.entry_url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(
      `${world.url}/sandbox/pos/stream-pos/v1/authorize`,
    );
    expect(authorize.searchParams.get('response_type')).toBe('code');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${world.url}/onboarding/oauth/callback`);
    // The POS reference shows this same redirect_uri: a POS allow-lists what the examples show.
    for (const example of [
      posAuthorize.request.example.redirect_uri,
      posToken.request.example.redirect_uri,
    ]) {
      expect(new URL(String(example)).pathname).toBe('/onboarding/oauth/callback');
    }
    expect(authorize.searchParams.get('client_id')).toBeTruthy();
    expect(authorize.searchParams.get('state')).toBeTruthy();
    const waiting = await call('GET', `${world.url}/onboarding/integrations/${pos._id}`, { token });
    expect(waiting.body.onboarding.status).toBe('waiting_for_oauth');

    const callback = await redirectOf(authorize.toString());
    expect(callback.pathname).toBe('/onboarding/oauth/callback');
    const back = await redirectOf(callback.toString());
    expect(`${back.origin}${back.pathname}`).toBe('https://partner.example/done');
    expect(Object.fromEntries(back.searchParams)).toEqual({
      x: '1',
      onboarding_id: pos._id,
      status: 'active',
    });
    // The state was spent: reloading the callback is not applied again (the code is not exchanged
    // twice, which the POS would refuse); the merchant is sent back to the same outcome.
    const replay = await redirectOf(callback.toString());
    expect(Object.fromEntries(replay.searchParams)).toEqual(Object.fromEntries(back.searchParams));

    const active = await call('GET', `${world.url}/onboarding/integrations/${pos._id}`, { token });
    expect(active.body.onboarding).toMatchObject({ status: 'active', merchant_id: 'demo-merchant' });

    // The merchant's POS locations, with normalised addresses, by provider_id (the order pages keep).
    const listed = await call('GET', `${world.url}/onboarding/locations?onboarding_id=${pos._id}`, { token });
    expect(listed.status).toBe(200);
    expect(listed.body.locations.map((l: { provider_id: string }) => l.provider_id)).toEqual([
      'loc-mission',
      'loc-south-congress',
      'loc-williamsburg',
    ]);
    expect(listed.body.locations[0]).toEqual({
      provider_id: 'loc-mission',
      name: 'Demo Tacos Mission',
      source: 'sandbox-pos',
      timezone: 'America/Los_Angeles',
      address: {
        formatted_address: '2299 Mission St, San Francisco, CA 94110, US',
        address_line_1: '2299 Mission St',
        address_line_2: null,
        address_line_3: null,
        postal_code: '94110',
        locality: 'San Francisco',
        administrative_district_level_1: 'US-CA',
        country: 'US',
        latitude: null,
        longitude: null,
      },
    });

    const ingested = await ingest(world, token, pos._id, ['loc-mission', 'loc-williamsburg']);
    expect(ingested.map((l) => l.provider_id)).toEqual(['loc-mission', 'loc-williamsburg']);
    expect(await ingest(world, token, pos._id, ['loc-mission'])).toEqual([ingested[0]]); // idempotent
    const missionId = ingested[0]!._id;

    // DSP integration through the headless PUT.
    const dsp = await createIntegration(world, token, orgId, 'dsp');
    const code = await sandboxCode(world, 'dsp', { redirectUri: 'https://partner.example/dsp-done' });
    const put = await call('PUT', `${world.url}/onboarding/integrations/${dsp._id}`, {
      token,
      body: { code },
    });
    expect(put.status).toBe(200);
    expect(put.body.onboarding).toMatchObject({
      _id: dsp._id,
      status: 'active',
      merchant_id: 'demo-merchant',
    });
    const again = await call('PUT', `${world.url}/onboarding/integrations/${dsp._id}`, {
      token,
      body: { code },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_transition');
    // The refusal names the moves the contracts' machine allows from the current state.
    expect(again.body.error.message).toBe(
      'The integration is active; it cannot become active, only needs_reconnection, deprovisioned.',
    );
    expect(again.body.error.details).toEqual([
      { path: 'status', message: 'allowed from active: needs_reconnection, deprovisioned' },
    ]);

    // Bind, then watch the two connection calls turn the binding APPROVED.
    const bound = await bind(world, token, dsp._id, [
      { pos_location_id: missionId, dsp_provider_id: 'store-1001' },
    ]);
    expect(bound.status, bound.text).toBe(200);
    expect(bound.body.locations).toEqual([
      {
        _id: expect.stringMatching(/^bnd_/),
        pos_location_id: missionId,
        dsp_provider_id: 'store-1001',
        dsp_store_name: 'Store store-1001',
        status: 'pending',
      },
    ]);
    const approved = await waitForLocation(
      world,
      token,
      orgId,
      missionId,
      (l) => l.dsps[0]?.status === 'APPROVED',
      'APPROVED',
    );
    expect(approved).toMatchObject({ status: 'active', provider_id: 'loc-mission' });
    expect(approved.dsps).toEqual([
      {
        _id: bound.body.locations[0]._id,
        name: 'Store store-1001',
        source: 'sandbox-dsp',
        provider_id: 'store-1001',
        status: 'APPROVED',
        reason: null,
        change_time: expect.any(String),
        store_status: null,
        last_undelivered: null,
      },
    ]);
    expect((await world.pos.connections()).map((c) => c.location_id)).toEqual(['loc-mission']);
    expect((await world.dsp.connections()).map((c) => c.location_id)).toEqual(['store-1001']);
    expect(await lifecycle(missionId)).toEqual([{ event: 'location_activated' }]);
    expect(await lifecycle(pos._id)).toEqual([{ event: 'integration_activated' }]);

    // Binding the same location, or the same store, twice: 409.
    const twice = await bind(world, token, dsp._id, [
      { pos_location_id: missionId, dsp_provider_id: 'store-1002' },
    ]);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('location_already_bound');
    expect(twice.body.error.details).toEqual([{ path: 'body.locations[0]', message: 'already bound' }]);
    const sameStore = await bind(world, token, dsp._id, [
      { pos_location_id: ingested[1]!._id, dsp_provider_id: 'store-1001' },
    ]);
    expect(sameStore.status).toBe(409);
    expect(sameStore.body.error.code).toBe('location_already_bound');
    expect(sameStore.body.error.details).toEqual([{ path: 'body.locations[0]', message: 'already bound' }]);

    // Disconnect the POS: deprovisioned at once, connections deleted at both partners, then deprovisioned.
    const deleted = await call('DELETE', `${world.url}/onboarding/integrations/${pos._id}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.onboarding.status).toBe('deprovisioned');
    const gone = await waitForLocation(
      world,
      token,
      orgId,
      missionId,
      (l) => l.status === 'deprovisioned' && l.dsps[0]?.status === 'deprovisioned',
      'deprovisioned',
    );
    expect(gone.dsps[0]!.reason).toBeNull();
    expect(await world.pos.connections()).toEqual([]);
    expect(await world.dsp.connections()).toEqual([]);
    expect(await lifecycle(missionId)).toEqual([
      { event: 'location_activated' },
      { event: 'location_deactivated' },
    ]);
    expect(await lifecycle(pos._id)).toEqual([
      { event: 'integration_activated' },
      { event: 'integration_deprovisioned' },
    ]);
    const twiceDeleted = await call('DELETE', `${world.url}/onboarding/integrations/${pos._id}`, { token });
    expect(twiceDeleted.status).toBe(409);
    expect(twiceDeleted.body.error.code).toBe('invalid_transition');
    // A deprovisioned integration cannot be used to list or ingest.
    const stale = await call('GET', `${world.url}/onboarding/locations?onboarding_id=${pos._id}`, { token });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('integration_not_active');
    // Deleting is final: the answer says to create a new integration, not to finish an OAuth step.
    expect(stale.body.error.message).toBe(
      'The integration is deprovisioned, which is final; create a new integration to connect the merchant again.',
    );
  });

  it('answers every integration with Cache-Control: no-store (its entry_url is a secret link)', async () => {
    const orgId = await createOrg(world, token);
    const created = await call('POST', `${world.url}/onboarding/integrations`, {
      token,
      body: { org_id: orgId, source: 'sandbox-pos', type: 'pos', return_url: 'https://partner.example/done' },
    });
    const url = `${world.url}/onboarding/integrations/${created.body.onboarding._id}`;
    const read = await call('GET', url, { token });
    const connected = await call('PUT', url, { token, body: { code: await sandboxCode(world, 'pos') } });
    const deleted = await call('DELETE', url, { token });
    for (const res of [created, read, connected, deleted]) {
      expect(res.status, res.text).toBeLessThan(300);
      expect(res.body.onboarding.entry_url).toBeTruthy();
      expect([res.headers.get('cache-control'), res.headers.get('pragma')]).toEqual(['no-store', 'no-cache']);
    }
  });

  it('retries a connection call that fails three times, then APPROVED, with every attempt logged', async () => {
    const orgId = await createOrg(world, token);
    const pos = await activeIntegration(world, token, orgId, 'pos');
    const dsp = await activeIntegration(world, token, orgId, 'dsp');
    const [loc] = await ingest(world, token, pos, ['loc-williamsburg']);
    await world.dsp.switches({ connection_failures: 3 });
    const bound = await bind(world, token, dsp, [
      { pos_location_id: loc!._id, dsp_provider_id: 'store-1002' },
    ]);
    expect(bound.status, bound.text).toBe(200);
    await waitForLocation(world, token, orgId, loc!._id, (l) => l.dsps[0]?.status === 'APPROVED', 'APPROVED');
    const attempts = await query<{ attempt: number; response_status: number; url: string }>(
      world,
      sql`select a.attempt, a.response_status, a.url from delivery_attempts a join jobs j on j.id = a.job_id
          where j.kind = 'onboarding.connect' and j.payload->>'binding_id' = ${bound.body.locations[0]._id}
            and j.payload->>'side' = 'dsp' order by a.attempt`,
    );
    expect(attempts.map((a) => [a.attempt, a.response_status])).toEqual([
      [1, 400],
      [2, 400],
      [3, 400],
      [4, 200],
    ]);
    expect(attempts[0]!.url).toBe(`${world.url}/sandbox/dsp/stream-dsp/v1/locations/connection`);
  });

  it('ends in needs_reconnection with the reason when a connection call keeps failing', async () => {
    const orgId = await createOrg(world, token);
    const pos = await activeIntegration(world, token, orgId, 'pos');
    const dsp = await activeIntegration(world, token, orgId, 'dsp');
    const [loc] = await ingest(world, token, pos, ['loc-south-congress']);
    await world.pos.switches({ connection_failures: 1000 });
    try {
      const bound = await bind(world, token, dsp, [
        { pos_location_id: loc!._id, dsp_provider_id: 'store-1003' },
      ]);
      expect(bound.status).toBe(200);
      const failed = await waitForLocation(
        world,
        token,
        orgId,
        loc!._id,
        (l) => l.dsps[0]?.status === 'needs_reconnection',
        'needs_reconnection',
      );
      expect(failed.status).toBe('pending');
      expect(failed.dsps[0]!.reason).toMatch(/POS did not accept the connection after 8 attempt\(s\).*400/);
    } finally {
      await world.pos.resetSwitches();
    }
    // Binding the pair again starts a new round, which now succeeds.
    const rebound = await bind(world, token, dsp, [
      { pos_location_id: loc!._id, dsp_provider_id: 'store-1003' },
    ]);
    expect(rebound.status, rebound.text).toBe(200);
    expect(rebound.body.locations[0].status).toBe('pending');
    await waitForLocation(
      world,
      token,
      orgId,
      loc!._id,
      (l) => l.dsps[0]?.status === 'APPROVED',
      'APPROVED again',
    );
  });

  it('moves a location ingested again through a second POS integration to it: deleting the first keeps it', async () => {
    const own = await partnerToken(world);
    const orgId = await createOrg(world, own.token);
    const first = await activeIntegration(world, own.token, orgId, 'pos');
    const [loc] = await ingest(world, own.token, first, ['loc-mission']);
    const second = await activeIntegration(world, own.token, orgId, 'pos');
    const [again] = await ingest(world, own.token, second, ['loc-mission']);
    expect(again!._id).toBe(loc!._id);
    const del = await call('DELETE', `${world.url}/onboarding/integrations/${first}`, { token: own.token });
    expect(del.status, del.text).toBe(200);
    const [after] = await orgLocations(world, own.token, orgId, loc!._id);
    expect(after).toMatchObject({ onboarding_id: second });
    expect(after!.status).not.toMatch(/deprovision/);
  }); // prettier-ignore

  it('connects a store bound anew only after the disconnect of its deleted binding, whatever that one retries', async () => {
    const own = await partnerToken(world);
    const orgId = await createOrg(world, own.token);
    const pos = await activeIntegration(world, own.token, orgId, 'pos');
    const first = await activeIntegration(world, own.token, orgId, 'dsp');
    const [loc] = await ingest(world, own.token, pos, ['loc-williamsburg']);
    const bound = await bind(world, own.token, first, [{ pos_location_id: loc!._id, dsp_provider_id: 'store-1001' }]);
    expect(bound.status, bound.text).toBe(200);
    await waitForLocation(world, own.token, orgId, loc!._id, (l) => l.dsps[0]?.status === 'APPROVED', 'the first binding');
    const held = async () => (await world.dsp.connections()).some((c) => c.location_id === 'store-1001');
    expect(await held()).toBe(true);
    // The first disconnect fails once and retries a second later; the store is bound again meanwhile.
    Object.assign(CONNECTION_BACKOFF, { baseMs: 1_000, maxMs: 1_000 });
    try {
      await world.dsp.switches({ connection_failures: 1 });
      expect((await call('DELETE', `${world.url}/onboarding/integrations/${first}`, { token: own.token })).status).toBe(200);
      const second = await activeIntegration(world, own.token, orgId, 'dsp');
      const rebound = await bind(world, own.token, second, [{ pos_location_id: loc!._id, dsp_provider_id: 'store-1001' }]);
      expect(rebound.status, rebound.text).toBe(200);
      await waitForLocation(world, own.token, orgId, loc!._id, (l) => l.dsps.some((d) => d.status === 'APPROVED'), 'the new binding');
      await waitFor(async () => (await query<{ n: number }>(world, sql`select count(*)::int as n from jobs where kind like 'onboarding.%' and status in ('pending', 'running')`))[0]!.n === 0, 20_000, 'every connection call done');
      expect(await held()).toBe(true);
      // Free the store for the tests after this one.
      expect((await call('DELETE', `${world.url}/onboarding/integrations/${second}`, { token: own.token })).status).toBe(200);
    } finally {
      Object.assign(CONNECTION_BACKOFF, { baseMs: 10, maxMs: 40 });
      await world.dsp.resetSwitches();
    }
    await waitFor(async () => !(await held()), 10_000, 'the store disconnected');
  }); // prettier-ignore

  it('answers 409 store_held_by_another_org for a store another org has bound', async () => {
    const other = await partnerToken(world);
    const orgId = await createOrg(world, other.token);
    const pos = await activeIntegration(world, other.token, orgId, 'pos');
    const dsp = await activeIntegration(world, other.token, orgId, 'dsp');
    const [loc] = await ingest(world, other.token, pos, ['loc-williamsburg']);
    const res = await bind(world, other.token, dsp, [
      { pos_location_id: loc!._id, dsp_provider_id: 'store-1002' },
    ]);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('store_held_by_another_org');
    expect(res.body.error.details).toEqual([
      { path: 'body.locations[0].dsp_provider_id', message: 'bound by another organisation' },
    ]);
  });
});

describe('merchant tokens', () => {
  it('refreshes transparently on a 401 and shortly before expire_time', async () => {
    const orgId = await createOrg(world, token);
    const pos = await activeIntegration(world, token, orgId, 'pos');
    const list = () => call('GET', `${world.url}/onboarding/locations?onboarding_id=${pos}`, { token });

    // The partner says the token expired: one refresh, one retry, the caller sees a 200.
    await world.pos.clearReceived();
    await world.pos.switches({ expire_issued_tokens: true });
    expect((await list()).status).toBe(200);
    const seen = (await world.pos.received()).map((r) => `${r.method} ${r.path} ${r.status}`);
    expect(seen).toEqual([
      'GET /stream-pos/v1/locations 401',
      'POST /stream-pos/v1/token 201',
      'GET /stream-pos/v1/locations 200',
    ]);
    const [refresh] = await world.pos.received({ path: '/stream-pos/v1/token' });
    expect(refresh!.body).toMatchObject({ grant_type: 'refresh_token' });

    // Past expire_time (minus a margin): refreshed before the call, no 401 at all.
    await world.platform.app.ctx.db.execute(
      sql`update integrations set expires_at = now() + interval '10 seconds' where id = ${pos}`,
    );
    await world.pos.clearReceived();
    expect((await list()).status).toBe(200);
    expect((await world.pos.received()).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /stream-pos/v1/token 201',
      'GET /stream-pos/v1/locations 200',
    ]);
  });

  it('marks the integration and its bound locations needs_reconnection when the refresh is rejected, and recovers on a new code', async () => {
    const orgId = await createOrg(world, token);
    const pos = await activeIntegration(world, token, orgId, 'pos', 'second-merchant');
    const dsp = await activeIntegration(world, token, orgId, 'dsp', 'second-merchant');
    const [loc] = await ingest(world, token, pos, ['loc-wicker-park']);
    expect(
      (await bind(world, token, dsp, [{ pos_location_id: loc!._id, dsp_provider_id: 'store-1004' }])).status,
    ).toBe(200);
    await waitForLocation(world, token, orgId, loc!._id, (l) => l.dsps[0]?.status === 'APPROVED', 'APPROVED');

    await world.dsp.switches({ expire_issued_tokens: true, fail_refresh: true });
    try {
      const res = await call('GET', `${world.url}/onboarding/locations?onboarding_id=${dsp}`, { token });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('integration_needs_reconnection');
    } finally {
      await world.dsp.resetSwitches();
    }
    const integration = (await call('GET', `${world.url}/onboarding/integrations/${dsp}`, { token })).body
      .onboarding;
    expect(integration.status).toBe('needs_reconnection');
    expect(integration.status_reason).toMatch(/refresh rejected by sandbox-dsp/);
    const [l] = await orgLocations(world, token, orgId, loc!._id);
    expect(l!.status).toBe('pending');
    expect(l!.dsps[0]).toMatchObject({
      status: 'needs_reconnection',
      reason: expect.stringMatching(/refresh rejected/),
    });
    expect(await lifecycle(loc!._id)).toEqual([
      { event: 'location_activated' },
      { event: 'location_deactivated' },
    ]);
    // Still usable by nobody until reconnected.
    const listed = await call('GET', `${world.url}/onboarding/locations?onboarding_id=${dsp}`, { token });
    expect(listed.body.error.code).toBe('integration_needs_reconnection');
    // Every such answer says how to reconnect, not only the call that found the grant rejected.
    expect(listed.body.error.message).toBe(
      `The merchant must reconnect this integration (${integration.status_reason}): open its entry_url again or PUT a new code.`,
    );

    // Reconnecting with a new code re-drives the binding, once the other side is connected too: with
    // the POS grant broken as well, the DSP's new code leaves it waiting for the POS's.
    await query(world, sql`update integrations set status = 'needs_reconnection' where id = ${pos}`);
    const connects = async () =>
      (
        await query<{ n: number }>(
          world,
          sql`select count(*)::int as n from jobs where kind = 'onboarding.connect'`,
        )
      )[0]!.n;
    const before = await connects();
    const code = await sandboxCode(world, 'dsp', { account: 'second-merchant' });
    const put = await call('PUT', `${world.url}/onboarding/integrations/${dsp}`, { token, body: { code } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.onboarding).toMatchObject({ status: 'active', status_reason: null });
    expect((await orgLocations(world, token, orgId, loc!._id))[0]!.dsps[0]!.status).toBe(
      'needs_reconnection',
    );
    expect(await connects()).toBe(before); // no connection call that could only fail
    const posCode = await sandboxCode(world, 'pos', { account: 'second-merchant' });
    const posPut = await call('PUT', `${world.url}/onboarding/integrations/${pos}`, {
      token,
      body: { code: posCode },
    });
    expect(posPut.status, posPut.text).toBe(200);
    await waitForLocation(
      world,
      token,
      orgId,
      loc!._id,
      (x) => x.dsps[0]?.status === 'APPROVED',
      'APPROVED again',
    );
    await waitFor(async () => (await lifecycle(loc!._id)).length === 3, 5_000, 'second activation');
  });
});
