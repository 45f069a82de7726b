import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ORDER_EVENT_EXAMPLES } from '@stream/contracts/apis/integrate-with-events/index';
import { EXAMPLE_MENU_FILE } from '@stream/contracts/apis/become-a-dsp/menu-file';
import { PosCatalog, posReceiveEvent } from '@stream/contracts/apis/become-a-pos/index';
import { DEMO_CATALOG } from './catalog.ts';
import type { FastifyInstance } from 'fastify';
import Fastify from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DspLocationList, DspTokenResponse } from '@stream/contracts/apis/become-a-dsp/index';
import {
  LocationConnection,
  PosLocationList,
  PosRefreshResponse,
  PosTokenResponse,
} from '@stream/contracts/apis/become-a-pos/index';
import { call } from '../../../apps/platform/test/http.ts';
import { buildSandbox, createSandboxServer, sandboxControl, type SandboxOptions } from './index.ts';
import { TokenSigner } from './tokens.ts';

const client = { client_id: 'platform', client_secret: 'sbxsec_test' };
const options: SandboxOptions = {
  clients: [client],
  tokenSecret: 'token-secret-for-tests',
  webhookSecret: 'whsec_test',
};
const redirect = 'http://127.0.0.1:9/callback?keep=1';
const basic = (c: { client_id: string; client_secret: string }) => ({
  authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
});

const servers: FastifyInstance[] = [];
async function start(kind: 'pos' | 'dsp' | 'events', opts: SandboxOptions = options): Promise<string> {
  const app = createSandboxServer(kind, opts);
  servers.push(app);
  return app.listen({ port: 0, host: '127.0.0.1' });
}
afterAll(() => Promise.all(servers.map((s) => s.close())));

/** Follows the authorize redirect the way a headless client does; answers the redirect URL. */
async function authorize(base: string, prefix: string, query: Record<string, string> = {}): Promise<URL> {
  const params = new URLSearchParams({
    client_id: client.client_id,
    response_type: 'code',
    redirect_uri: redirect,
    state: 'st-1',
    ...query,
  });
  const res = await call('GET', `${base}/${prefix}/v1/authorize?${params}`);
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

describe('sandbox POS', () => {
  let pos: string;
  const control = () => sandboxControl(pos, client);
  beforeAll(async () => {
    pos = await start('pos');
  });
  beforeEach(async () => {
    await control().resetSwitches();
  });

  async function login(): Promise<{ access_token: string; refresh_token: string }> {
    const code = (await authorize(pos, 'stream-pos')).searchParams.get('code')!;
    const res = await call('POST', `${pos}/stream-pos/v1/token`, {
      body: { ...client, grant_type: 'authorization_code', code, redirect_uri: redirect },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  it('redirects back with a code and the state, keeping the redirect_uri query', async () => {
    const back = await authorize(pos, 'stream-pos');
    expect(back.origin + back.pathname).toBe('http://127.0.0.1:9/callback');
    expect(back.searchParams.get('keep')).toBe('1');
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('code')).toMatch(/^sbx_ac\./);
  });

  it('shows browsers a login page that approves by itself, and approves on its form', async () => {
    const params = new URLSearchParams({
      client_id: 'platform',
      response_type: 'code',
      redirect_uri: redirect,
      state: 'st-2',
    });
    const page = await call('GET', `${pos}/stream-pos/v1/authorize?${params}`, {
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('Demo Tacos Group');
    expect(page.text).toContain('name="approve"');
    const approved = await call(
      'GET',
      `${pos}/stream-pos/v1/authorize?${params}&account=second-merchant&approve=1`,
      {
        headers: { accept: 'text/html' },
      },
    );
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    const tokens = await call('POST', `${pos}/stream-pos/v1/token`, {
      body: { ...client, grant_type: 'authorization_code', code },
    });
    expect(tokens.body.id).toBe('second-merchant');
  });

  it('declines with error=access_denied, by query or by switch', async () => {
    expect((await authorize(pos, 'stream-pos', { deny: '1' })).searchParams.get('error')).toBe(
      'access_denied',
    );
    await control().switches({ deny_authorize: true });
    const back = await authorize(pos, 'stream-pos');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.has('code')).toBe(false);
  });

  it('refuses an unknown client or a bad redirect_uri without redirecting', async () => {
    const unknown = await call(
      'GET',
      `${pos}/stream-pos/v1/authorize?client_id=nope&response_type=code&redirect_uri=${encodeURIComponent(redirect)}`,
    );
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_client');
    const bad = await call(
      'GET',
      `${pos}/stream-pos/v1/authorize?client_id=platform&response_type=code&redirect_uri=javascript:alert(1)`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.details[0].path).toBe('query.redirect_uri');
  });

  it('exchanges a code for tokens in the contract shape (201, sso_details)', async () => {
    const code = (await authorize(pos, 'stream-pos')).searchParams.get('code')!;
    const res = await call('POST', `${pos}/stream-pos/v1/token`, {
      body: { ...client, grant_type: 'authorization_code', code, redirect_uri: redirect },
    });
    expect(res.status).toBe(201);
    const tokens = PosTokenResponse.parse(res.body);
    expect(tokens.id).toBe('demo-merchant');
    expect(tokens.sso_details?.email).toBe('owner@demotacos.example');
    expect(tokens.expire_time).toBeGreaterThan(Date.now());
    expect(tokens.refresh_token_expire_time).toBeGreaterThan(tokens.expire_time);
  });

  it('answers 401 on a reused, unknown, expired or mismatched code, and on wrong client credentials', async () => {
    const exchange = (body: Record<string, unknown>) =>
      call('POST', `${pos}/stream-pos/v1/token`, {
        body: { ...client, grant_type: 'authorization_code', ...body },
      });
    const code = (await authorize(pos, 'stream-pos')).searchParams.get('code')!;
    expect((await exchange({ code, redirect_uri: 'http://elsewhere.example/cb' })).body.error.code).toBe(
      'grant_rejected',
    );
    expect((await exchange({ code })).status).toBe(201);
    const reused = await exchange({ code });
    expect([reused.status, reused.body.error.code]).toEqual([401, 'grant_rejected']);
    expect((await exchange({ code: 'sbx_ac.bogus.sig' })).status).toBe(401);
    const expired = new TokenSigner(options.tokenSecret, 'pos').issue('code', {
      account: 'demo-merchant',
      client: 'platform',
      ttlMs: -1,
    });
    const late = await exchange({ code: expired.token });
    expect([late.status, late.body.error.message]).toEqual([401, 'The authorization code is expired.']);
    const fresh = (await authorize(pos, 'stream-pos')).searchParams.get('code')!;
    const wrong = await exchange({ code: fresh, client_secret: 'wrong' });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_client']);
  });

  it('refreshes tokens, and fails refresh while fail_refresh is on', async () => {
    const { refresh_token } = await login();
    const refresh = () =>
      call('POST', `${pos}/stream-pos/v1/token`, {
        body: { ...client, grant_type: 'refresh_token', refresh_token },
      });
    const res = await refresh();
    expect(res.status).toBe(201);
    expect(
      (await call('GET', `${pos}/stream-pos/v1/locations`, { token: res.body.access_token })).status,
    ).toBe(200);
    await control().switches({ fail_refresh: true });
    const failed = await refresh();
    expect([failed.status, failed.body.error.code]).toEqual([401, 'grant_rejected']);
    const notRefresh = await call('POST', `${pos}/stream-pos/v1/token`, {
      body: { ...client, grant_type: 'refresh_token', refresh_token: 'x' },
    });
    expect(notRefresh.status).toBe(401);
  });

  it('answers a refresh without a refresh token while keep_refresh_token is on; the one sent keeps working', async () => {
    const { refresh_token } = await login();
    await control().switches({ keep_refresh_token: true });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await call('POST', `${pos}/stream-pos/v1/token`, {
          body: { ...client, grant_type: 'refresh_token', refresh_token },
        });
        expect(res.status, res.text).toBe(201);
        const tokens = PosRefreshResponse.parse(res.body);
        expect(tokens).not.toHaveProperty('refresh_token');
        expect(tokens).not.toHaveProperty('refresh_token_expire_time');
      }
    } finally {
      await control().switches({ keep_refresh_token: false });
    }
  });

  it('lists the locations of the token account, and 401s without a good token', async () => {
    const { access_token } = await login();
    const res = await call('GET', `${pos}/stream-pos/v1/locations`, { token: access_token });
    expect(res.status).toBe(200);
    const { locations } = PosLocationList.parse(res.body);
    expect(locations.map((l) => l.provider_id)).toEqual([
      'loc-mission',
      'loc-williamsburg',
      'loc-south-congress',
    ]);
    expect(locations[0]).toMatchObject({
      timezone: 'America/Los_Angeles',
      address: { state: 'CA', country: 'US' },
    });
    const none = await call('GET', `${pos}/stream-pos/v1/locations`);
    expect([none.status, none.body.error.code]).toEqual([401, 'missing_token']);
    const junk = await call('GET', `${pos}/stream-pos/v1/locations`, { token: 'junk' });
    expect([junk.status, junk.body.error.code]).toEqual([401, 'invalid_token']);
    const expired = new TokenSigner(options.tokenSecret, 'pos').issue('access', {
      account: 'demo-merchant',
      client: 'platform',
      ttlMs: -1,
    });
    const late = await call('GET', `${pos}/stream-pos/v1/locations`, { token: expired.token });
    expect([late.status, late.body.error.code]).toEqual([401, 'token_expired']);
    const dspToken = new TokenSigner(options.tokenSecret, 'dsp').issue('access', {
      account: 'demo-merchant',
      client: 'platform',
      ttlMs: 60_000,
    });
    expect(
      (await call('GET', `${pos}/stream-pos/v1/locations`, { token: dspToken.token })).body.error.code,
    ).toBe('invalid_token');
  });

  it('expire_tokens makes every access token expired; expire_issued_tokens only those issued so far', async () => {
    const { access_token, refresh_token } = await login();
    await control().switches({ expire_tokens: true });
    const res = await call('GET', `${pos}/stream-pos/v1/locations`, { token: access_token });
    expect([res.status, res.body.error.code]).toEqual([401, 'token_expired']);
    await control().switches({ expire_tokens: false, expire_issued_tokens: true });
    expect((await call('GET', `${pos}/stream-pos/v1/locations`, { token: access_token })).status).toBe(401);
    const renewed = await call('POST', `${pos}/stream-pos/v1/token`, {
      body: { ...client, grant_type: 'refresh_token', refresh_token },
    });
    expect(
      (await call('GET', `${pos}/stream-pos/v1/locations`, { token: renewed.body.access_token })).status,
    ).toBe(200);
  });

  it('keeps tokens valid across a restart with the same token secret', async () => {
    const { access_token } = await login();
    const again = await start('pos');
    expect((await call('GET', `${again}/stream-pos/v1/locations`, { token: access_token })).status).toBe(200);
    const otherSecret = await start('pos', { ...options, tokenSecret: 'another' });
    expect(
      (await call('GET', `${otherSecret}/stream-pos/v1/locations`, { token: access_token })).status,
    ).toBe(401);
  });

  it('connects and disconnects locations, failing on demand and for foreign locations', async () => {
    const { access_token } = await login();
    const connection = (method: string, location_id: string) =>
      call(method, `${pos}/stream-pos/v1/location/connection`, {
        token: access_token,
        body: { location_id },
      });
    await control().switches({ connection_failures: 1 });
    const failed = await connection('PUT', 'loc-mission');
    expect([failed.status, failed.body.error.code]).toEqual([400, 'connection_failed']);
    const ok = await connection('PUT', 'loc-mission');
    expect(ok.status).toBe(200);
    expect(LocationConnection.parse(ok.body)).toEqual({ location_id: 'loc-mission', connected: true });
    expect((await connection('PUT', 'loc-wicker-park')).status).toBe(400); // another account's location
    const listed = await call('GET', `${pos}/stream-pos/v1/locations`, { token: access_token });
    expect(listed.body.locations[0].connection_status).toBe('online');
    expect(await control().connections()).toEqual([
      expect.objectContaining({ account_id: 'demo-merchant', location_id: 'loc-mission' }),
    ]);
    expect((await connection('DELETE', 'loc-mission')).body).toEqual({
      location_id: 'loc-mission',
      connected: false,
    });
    expect(await control().connections()).toEqual([]);
    const noBody = await call('PUT', `${pos}/stream-pos/v1/location/connection`, {
      token: access_token,
      body: {},
    });
    expect([noBody.status, noBody.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('records what it received, secrets redacted, and clears on request', async () => {
    await control().clearReceived();
    const { access_token } = await login();
    await call('GET', `${pos}/stream-pos/v1/locations`, { token: access_token });
    const received = await control().received();
    expect(received.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'GET /stream-pos/v1/authorize 302',
      'POST /stream-pos/v1/token 201',
      'GET /stream-pos/v1/locations 200',
    ]);
    const token = received[1]!;
    expect(token.body).toMatchObject({
      client_id: 'platform',
      client_secret: '[redacted]',
      grant_type: 'authorization_code',
    });
    expect(received[2]!.headers.authorization).toBe('Bearer [redacted]');
    expect(await control().received({ path: '/stream-pos/v1/token' })).toHaveLength(1);
    await control().clearReceived();
    expect(await control().received()).toEqual([]);
  });

  it('answers bad input with 4xx error bodies, never 5xx', async () => {
    const url = `${pos}/stream-pos/v1/token`;
    const malformed = await call('POST', url, {
      body: '{"client_id":',
      headers: { 'content-type': 'application/json' },
    });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'invalid_json']);
    expect((await call('POST', url, { body: { ...client, grant_type: 'password' } })).status).toBe(400);
    expect((await call('POST', url, { body: 'a=b', headers: { 'content-type': 'text/plain' } })).status).toBe(
      415,
    );
    const huge = await call('POST', url, {
      body: { ...client, grant_type: 'refresh_token', refresh_token: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect([huge.status, huge.body.error.code]).toEqual([413, 'payload_too_large']);
    expect((await call('GET', `${pos}/no/such/route`)).body.error.code).toBe('not_found');
    const badSwitch = await call('POST', `${pos}/_sandbox/switches`, {
      body: { slow: 5 },
      headers: basic(client),
    });
    expect([badSwitch.status, badSwitch.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('accepts a form-encoded token request and still answers while slow_ms is set', async () => {
    const code = (await authorize(pos, 'stream-pos')).searchParams.get('code')!;
    await control().switches({ slow_ms: 20 });
    const form = new URLSearchParams({ ...client, grant_type: 'authorization_code', code }).toString();
    const res = await call('POST', `${pos}/stream-pos/v1/token`, {
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(201);
    expect((await control().switches({})).slow_ms).toBe(20);
  });
});

describe('sandbox control routes', () => {
  it('need the simulator client credentials as HTTP Basic: anything else is 401 and changes nothing', async () => {
    const pos = await start('pos');
    const other = await start('pos', {
      ...options,
      clients: [{ client_id: 'other', client_secret: 'sbxsec_other' }],
    });
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer sbxsec_test' },
      basic({ ...client, client_secret: 'sbxsec_wrong' }),
      basic({ client_id: 'other', client_secret: 'sbxsec_other' }), // another simulator's client
      { authorization: 'Basic not-base64!' },
    ];
    for (const headers of attempts) {
      for (const [method, path, body] of [
        ['GET', '/_sandbox', undefined],
        ['POST', '/_sandbox/switches', { fail_refresh: true }],
        ['DELETE', '/_sandbox/switches', undefined],
        ['GET', '/_sandbox/received', undefined],
        ['DELETE', '/_sandbox/connections', undefined],
      ] as const) {
        const res = await call(method, `${pos}${path}`, { headers, ...(body ? { body } : {}) });
        expect([path, headers.authorization, res.status, res.body.error.code]).toEqual([
          path,
          headers.authorization,
          401,
          'invalid_client',
        ]);
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      }
    }
    const control = sandboxControl(pos, client);
    expect((await control.info()).switches.fail_refresh).toBe(false); // no refused call got through
    await control.switches({ fail_refresh: true });
    expect((await control.info()).switches.fail_refresh).toBe(true);
    // Each simulator's log is its own: the other one saw none of this.
    await authorize(pos, 'stream-pos');
    expect((await control.received()).map((r) => r.path)).toEqual(['/stream-pos/v1/authorize']);
    expect(
      await sandboxControl(other, { client_id: 'other', client_secret: 'sbxsec_other' }).received(),
    ).toEqual([]);
  });
});

describe('sandbox control bodies', () => {
  it('are JSON: a form (curl -d without a Content-Type) is refused 415 saying so, and changes nothing', async () => {
    const pos = await start('pos');
    for (const [method, path] of [
      ['POST', '/_sandbox/switches'],
      ['PUT', '/_sandbox/catalog'],
      ['POST', '/_sandbox/webhook'],
    ] as const) {
      const res = await call(method, `${pos}${path}`, {
        headers: { ...basic(client), 'content-type': 'application/x-www-form-urlencoded' },
        body: '{"order_behavior": "reject_stock"}',
      });
      expect([path, res.status, res.body.error.code, res.body.error.message]).toEqual([
        path,
        415,
        'unsupported_media_type',
        expect.stringContaining('-H "Content-Type: application/json"'),
      ]);
    }
    const control = sandboxControl(pos, client);
    expect((await control.info()).switches.order_behavior).toBe('accept');
    const token = new TokenSigner(options.tokenSecret, 'pos').issue('access', {
      account: 'demo-merchant',
      client: 'platform',
      ttlMs: 60_000,
    }).token;
    expect((await call('GET', `${pos}/stream-pos/v1/catalog`, { token })).body).toEqual(DEMO_CATALOG);
  });
});

describe('sandbox DSP', () => {
  let dsp: string;
  beforeAll(async () => {
    dsp = await start('dsp');
  });

  it('runs the OAuth flow (200, no sso_details) and manages store connections', async () => {
    const code = (await authorize(dsp, 'stream-dsp')).searchParams.get('code')!;
    const res = await call('POST', `${dsp}/stream-dsp/v1/token`, {
      body: { ...client, grant_type: 'authorization_code', code },
    });
    expect(res.status).toBe(200);
    expect(res.body.sso_details).toBeUndefined();
    const { access_token } = DspTokenResponse.parse(res.body);
    const stores = DspLocationList.parse(
      (await call('GET', `${dsp}/stream-dsp/v1/locations`, { token: access_token })).body,
    );
    expect(stores.locations.map((l) => l.provider_id)).toEqual(['store-1001', 'store-1002', 'store-1003']);
    const url = `${dsp}/stream-dsp/v1/locations/connection`;
    const state = async () =>
      (await call('GET', `${url}?location_id=store-1001`, { token: access_token })).body;
    expect(await state()).toEqual({ location_id: 'store-1001', connected: false });
    expect(
      (await call('POST', url, { token: access_token, body: { location_id: 'store-1001' } })).body.connected,
    ).toBe(true);
    expect(await state()).toEqual({ location_id: 'store-1001', connected: true });
    await sandboxControl(dsp, client).switches({ connection_failures: 1 });
    expect(
      (await call('DELETE', url, { token: access_token, body: { location_id: 'store-1001' } })).status,
    ).toBe(400);
    expect(
      (await call('DELETE', url, { token: access_token, body: { location_id: 'store-1001' } })).body
        .connected,
    ).toBe(false);
    expect((await call('GET', `${url}?location_id=store-9999`, { token: access_token })).status).toBe(400);
    // A named refusal holds while the switch is set: the platform reports it as the menu failure code.
    await sandboxControl(dsp, client).switches({ connection_refusal: 'DSP_ACCOUNT_NOT_FOUND' });
    for (let i = 0; i < 2; i++) {
      const refused = await call('POST', url, { token: access_token, body: { location_id: 'store-1002' } });
      expect([refused.status, refused.body.error.message]).toEqual([
        400,
        expect.stringMatching(/^DSP_ACCOUNT_NOT_FOUND: /),
      ]);
    }
    await sandboxControl(dsp, client).switches({ connection_refusal: 'none' });
    expect(
      (await call('POST', url, { token: access_token, body: { location_id: 'store-1002' } })).body.connected,
    ).toBe(true);
  });

  it('does not accept POS codes', async () => {
    const posCode = new TokenSigner(options.tokenSecret, 'pos').issue('code', {
      account: 'demo-merchant',
      client: 'platform',
      ttlMs: 60_000,
    });
    const res = await call('POST', `${dsp}/stream-dsp/v1/token`, {
      body: { ...client, grant_type: 'authorization_code', code: posCode.token },
    });
    expect(res.status).toBe(401);
  });
});

describe('sandbox event provider', () => {
  let events: string;
  beforeAll(async () => {
    events = await start('events');
  });
  const event = JSON.stringify({ ...ORDER_EVENT_EXAMPLES.confirmed, reference_id: 'ord_1' });
  const sign = (body: string) => createHmac('sha256', 'whsec_test').update(body).digest('hex');
  const post = (signature?: string) =>
    call('POST', `${events}/event`, {
      body: event,
      headers: signature ? { 'x-stream-signature': signature } : {},
    });

  it('accepts signed events, rejects bad signatures, and records which it verified', async () => {
    expect((await post(sign(event))).status).toBe(204);
    const bad = await post(sign(event + ' '));
    expect([bad.status, bad.body.error.code]).toEqual([401, 'signature_mismatch']);
    expect((await post()).body.error.code).toBe('signature_missing');
    const received = await sandboxControl(events, client).received({ path: '/event' });
    expect(received.map((r) => [r.status, r.notes?.signature])).toEqual([
      [204, 'valid'],
      [401, 'mismatch'],
      [401, 'missing'],
    ]);
    expect(received[0]!.body).toMatchObject({ type: 'order.confirmed', reference_id: 'ord_1' });
    // Only the event it accepted is kept, with its verdict.
    expect(await sandboxControl(events, client).events({ order_id: 'ord_1' })).toEqual([
      { time: expect.any(String), signature: 'valid', body: JSON.parse(event) },
    ]);
  });

  it('sends the platform a driver and delivery statuses for an order it heard of, signed', async () => {
    // A platform written for this test: it checks the signature and keeps what it got.
    const got: { path: string; body: unknown; valid: boolean }[] = [];
    const platform = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const valid = req.headers['stream-webhook-signature'] === sign(raw);
        got.push({ path: req.url ?? '', body: JSON.parse(raw), valid });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true }));
      });
    });
    await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
      const provider = await start('events', { ...options, platformUrl: url, partnerRef: 'fleet' });
      const control = sandboxControl(provider, client);
      await call('POST', `${provider}/event`, {
        body: event,
        headers: { 'x-stream-signature': sign(event) },
      });
      expect(await control.assignDriver('ord_1')).toEqual({ status: 200, body: { ok: true } });
      await control.sendDeliveryStatus('ord_1', 'enroute_to_pickup', { location_id: 'loc_other' });
      expect(got).toEqual([
        {
          path: '/event-provider/fleet/webhook',
          valid: true,
          body: {
            type: 'order.assign.driver',
            object: {
              order_id: 'ord_1',
              location_id: ORDER_EVENT_EXAMPLES.confirmed.location_id,
              driver: { name: 'Sandy Driver', phone: { number: '+14155550188' } },
            },
          },
        },
        {
          path: '/event-provider/fleet/webhook',
          valid: true,
          body: {
            type: 'order.update.delivery.status',
            object: { order_id: 'ord_1', location_id: 'loc_other', status: 'enroute_to_pickup' },
          },
        },
      ]);
      // An order it never heard of needs its location; a status outside the contract is refused.
      await expect(control.assignDriver('ord_unknown')).rejects.toThrow(/400.*location_id/);
      await expect(control.sendDeliveryStatus('ord_1', 'returned' as 'completed')).rejects.toThrow(
        /400.*status/,
      );
      expect(got).toHaveLength(2);
    } finally {
      platform.close();
    }
  });

  it('fails the next n events on demand', async () => {
    await sandboxControl(events, client).switches({ event_failures: 1 });
    expect((await post(sign(event))).status).toBe(503);
    expect((await post(sign(event))).status).toBe(204);
  });

  it('records signatures as unchecked without a secret', async () => {
    const open = await start('events', { clients: [], tokenSecret: 't', controlClients: [client] });
    expect((await call('POST', `${open}/event`, { body: event })).status).toBe(204);
    expect((await sandboxControl(open, client).received())[0]!.notes).toEqual({ signature: 'unchecked' });
  });
});

describe('sandbox mounted under a prefix', () => {
  it('serves its paths under the prefix and logs them relative to it', async () => {
    const app = Fastify();
    servers.push(app);
    await app.register(buildSandbox('pos', options), { prefix: '/sandbox/pos' });
    const base = `${await app.listen({ port: 0, host: '127.0.0.1' })}/sandbox/pos`;
    const back = await authorize(base, 'stream-pos');
    expect(back.searchParams.get('code')).toBeTruthy();
    expect((await sandboxControl(base, client).received()).map((r) => r.path)).toEqual([
      '/stream-pos/v1/authorize',
    ]);
  });
});

describe('sandbox catalogs and menus', () => {
  /** A merchant access token of the simulator at `base` (`stream-pos` or `stream-dsp`). */
  async function tokenOf(base: string, prefix: 'stream-pos' | 'stream-dsp'): Promise<string> {
    const code = (await authorize(base, prefix)).searchParams.get('code')!;
    const res = await call('POST', `${base}/${prefix}/v1/token`, {
      body: { ...client, grant_type: 'authorization_code', code, redirect_uri: redirect },
    });
    return res.body.access_token as string;
  }

  it('the POS serves its demo catalog, a replaced one on command, and keeps the menu outcomes it is told', async () => {
    const pos = await start('pos');
    const token = await tokenOf(pos, 'stream-pos');
    const got = await call('GET', `${pos}/stream-pos/v1/catalog`, { token });
    expect(got.status).toBe(200);
    expect(PosCatalog.parse(got.body)).toEqual(DEMO_CATALOG);
    expect((await call('GET', `${pos}/stream-pos/v1/catalog`)).status).toBe(401);
    const control = sandboxControl(pos, client);
    await control.setCatalog({ tax: 'not a list' });
    expect((await call('GET', `${pos}/stream-pos/v1/catalog`, { token })).body).toEqual({
      tax: 'not a list',
    });
    await control.setCatalog(undefined);
    expect((await call('GET', `${pos}/stream-pos/v1/catalog`, { token })).body).toEqual(DEMO_CATALOG);
    const event = posReceiveEvent.request.example;
    expect((await call('POST', `${pos}/stream-pos/v1/events`, { token, body: event })).status).toBe(200);
    expect((await control.events()).map((e) => e.body)).toEqual([event]);
  });

  it('a DSP started again remembers the menus published to it before (publishedMenus), and serves them', async () => {
    const dsp = await start('dsp', {
      ...options,
      publishedMenus: async () => [
        { location_id: 'store-1001', download_url: 'http://x/f', time: '2026-11-27T00:00:00.000Z', menu_file: EXAMPLE_MENU_FILE },
      ],
    });
    const token = await tokenOf(dsp, 'stream-dsp');
    expect((await sandboxControl(dsp, client).menus()).map((m) => [m.location_id, m.valid])).toEqual([['store-1001', true]]);
    const served = await call('GET', `${dsp}/stream-dsp/v1/menuFileS3Url?location_id=store-1001`, { token });
    expect(served.body).toEqual(EXAMPLE_MENU_FILE);
  }); // prettier-ignore

  it('a DSP started again keeps reading the menus recorded since (published through another process), the newer per store winning', async () => {
    const at = (minutes: number) => new Date(Date.now() - 60 * 60_000 + minutes * 60_000).toISOString(); // before any download here
    const named = (name: string) => ({ ...structuredClone(EXAMPLE_MENU_FILE), menus: EXAMPLE_MENU_FILE.menus.map((m) => ({ ...m, name })) });
    const recorded = [{ location_id: 'store-1001', download_url: 'http://x/1', time: at(0), menu_file: named('First') }];
    const files = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(named('Taken here'))));
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    try {
      const dsp = await start('dsp', { ...options, publishedMenus: async () => recorded });
      const token = await tokenOf(dsp, 'stream-dsp');
      const control = sandboxControl(dsp, client);
      const served = async (store: string) => (await call('GET', `${dsp}/stream-dsp/v1/menuFileS3Url?location_id=${store}`, { token })).body;
      expect(await served('store-1001')).toEqual(named('First'));
      // Published through another process of the platform: this simulator never received it.
      recorded.splice(0, 1, { location_id: 'store-1001', download_url: 'http://x/2', time: at(5), menu_file: named('Second') });
      recorded.push({ location_id: 'store-1002', download_url: 'http://x/3', time: at(5), menu_file: named('Other store') });
      expect(await served('store-1001')).toEqual(named('Second'));
      expect((await control.menus()).map((m) => [m.location_id, m.download_url])).toEqual([['store-1001', 'http://x/2'], ['store-1002', 'http://x/3']]);
      // A publish this simulator takes itself is newer than every recorded one: it is what it serves.
      const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
      const published = await call('POST', `${dsp}/stream-dsp/v1/event`, { token, body: { type: 'location.publish', location_id: 'store-1001', download_url: `${base}/taken.json` } });
      expect(published.status).toBe(200);
      expect(await served('store-1001')).toEqual(named('Taken here'));
      expect(await served('store-1002')).toEqual(named('Other store'));
    } finally {
      files.close();
    }
  }); // prettier-ignore

  it('the DSP downloads a published file, checks it, serves it back, and refuses publishes on command', async () => {
    const files = createServer((req, res) => {
      const valid = req.url === '/good.json';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(valid ? EXAMPLE_MENU_FILE : { menus: 'nope' }));
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
      const dsp = await start('dsp');
      const token = await tokenOf(dsp, 'stream-dsp');
      const control = sandboxControl(dsp, client);
      const publish = (location_id: string, file: string) =>
        call('POST', `${dsp}/stream-dsp/v1/event`, {
          token,
          body: { type: 'location.publish', location_id, download_url: `${base}/${file}` },
        });
      expect((await publish('store-1001', 'good.json')).status).toBe(200);
      expect((await publish('store-1002', 'bad.json')).status).toBe(200);
      const menus = await control.menus();
      expect(menus.map((m) => [m.location_id, m.valid])).toEqual([
        ['store-1001', true],
        ['store-1002', false],
      ]);
      expect(menus[1]!.issues[0]).toMatchObject({ path: expect.any(String), message: expect.any(String) });
      const served = await call('GET', `${dsp}/stream-dsp/v1/menuFileS3Url?location_id=store-1001`, {
        token,
      });
      expect(served.body).toEqual(EXAMPLE_MENU_FILE);
      expect(
        (await call('GET', `${dsp}/stream-dsp/v1/menuFileS3Url?location_id=store-1003`, { token })).status,
      ).toBe(404);
      for (const [behavior, status] of [
        ['forbidden', 403],
        ['throttled', 429],
        ['content_issue', 400],
        ['already_processing', 409],
      ] as const) {
        await control.switches({ menu_publish: behavior });
        const refused = await publish('store-1001', 'good.json');
        expect(refused.status, behavior).toBe(status);
        if (behavior === 'throttled') expect(refused.headers.get('retry-after')).toBe('1');
      }
    } finally {
      files.close();
    }
  });
});
