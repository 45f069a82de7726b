import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import { decrypt } from '../http/secrets.ts';
import {
  bind,
  createOrg,
  ingest,
  orgLocations,
  partnerToken,
  query,
  startOnboardingWorld,
  waitForLocation,
  type OnboardingWorld,
} from './testing.ts';

/**
 * The onboarding journey against a POS and a DSP written from the spec, independently of the
 * sandbox: plain node:http servers that answer the connection calls the ways the spec allows
 * (200 `{}`, 201 with fields of their own, 204 with no body), that fail once with 503, and whose
 * token endpoint can answer garbage, or not rotate refresh tokens.
 */

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** What the token endpoint answered. */
  answer?: { access_token?: string; refresh_token?: string };
}

interface FakePartner {
  url: string;
  seen: Seen[];
  /** `ok`: tokens; `garbage`: 200 with a body that has no tokens; `no-refresh-token`: an access token only. */
  tokenMode: 'ok' | 'garbage' | 'no-refresh-token';
  /** `expire_time` of the tokens it issues, relative to now (negative: already expired). */
  tokenLifetimeMs: number;
  /** The merchant account id it names in a code exchange's answer (never in a refresh's, as RFC 6749 allows). */
  accountId?: string | number;
  /**
   * False: a refresh answers no refresh token (RFC 6749 section 6: the old one stays in use), and a
   * refresh token it did not issue at a login is refused 401; its logins name the refresh token's expiry.
   */
  rotates: boolean;
  server: Server;
}

/** `refresh_token_expire_time` a non-rotating partner names at login. */
const LOGIN_REFRESH_EXPIRY = Date.UTC(2031, 0, 1);

let issued = 0;

async function fakePartner(type: 'pos' | 'dsp'): Promise<FakePartner> {
  const p: FakePartner = {
    url: '',
    seen: [],
    tokenMode: 'ok',
    tokenLifetimeMs: 3_600_000,
    rotates: true,
    server: null!,
  };
  const failedOnce = new Set<string>();
  const loginRefreshTokens = new Set<string>();
  p.server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const seen: Seen = { method: req.method ?? '', path: url.pathname, headers: req.headers, body };
      p.seen.push(seen);
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (url.pathname === `/stream-${type}/v1/token`) {
        if (p.tokenMode === 'garbage') return json(200, { hello: 'world', access_token: 42 });
        if (p.tokenMode === 'no-refresh-token')
          return json(200, { access_token: 'fake_at_alone', expire_time: Date.now() + p.tokenLifetimeMs });
        const n = ++issued;
        const request = JSON.parse(body || '{}') as { grant_type?: string; refresh_token?: string };
        const login = request.grant_type === 'authorization_code';
        if (!p.rotates && !login && !loginRefreshTokens.has(request.refresh_token ?? '')) {
          return json(401, { error: 'unknown refresh token' });
        }
        // Only what the platform needs: an id only when told; a refresh token at every login, and at
        // a refresh only when rotating; refresh_token_expire_time only at a non-rotating login.
        seen.answer = {
          access_token: `fake_at_${n}`,
          ...(login || p.rotates ? { refresh_token: `fake_rt_${n}` } : {}),
        };
        if (login && !p.rotates) loginRefreshTokens.add(`fake_rt_${n}`);
        return json(type === 'pos' ? 201 : 200, {
          ...seen.answer,
          expire_time: Date.now() + p.tokenLifetimeMs,
          ...(login && !p.rotates ? { refresh_token_expire_time: LOGIN_REFRESH_EXPIRY } : {}),
          ...(p.accountId && login ? { id: p.accountId } : {}),
        });
      }
      if (url.pathname === `/stream-${type}/v1/locations`) {
        // Only provider_id and name: no address, time zone or preparation time; one location numbered.
        return json(200, {
          locations: [
            ...['200', '201', '204', '503', 'refresh', 'keep'].map((s) => ({
              provider_id: `${type}-${s}`,
              name: `${type} ${s}`,
            })),
            { provider_id: 7001, name: `${type} numbered` },
          ],
        });
      }
      if (
        url.pathname ===
        (type === 'pos' ? '/stream-pos/v1/location/connection' : '/stream-dsp/v1/locations/connection')
      ) {
        const id = (JSON.parse(body || '{}') as { location_id?: string }).location_id ?? '';
        if (id.endsWith('-503') && !failedOnce.has(id)) {
          failedOnce.add(id);
          return json(503, { error: 'busy' });
        }
        if (id.endsWith('-201')) return json(201, { ok: true, connection: { id: 'c-1', at: Date.now() } });
        if (id.endsWith('-204')) {
          res.writeHead(204);
          return res.end();
        }
        return json(200, {});
      }
      json(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
  p.url = `http://127.0.0.1:${(p.server.address() as AddressInfo).port}`;
  return p;
}

let world: OnboardingWorld;
let token: string;
let pos: FakePartner;
let dsp: FakePartner;
const slugs = { pos: `indie-pos-${Date.now()}`, dsp: `indie-dsp-${Date.now()}` };

beforeAll(async () => {
  world = await startOnboardingWorld();
  ({ token } = await partnerToken(world));
  pos = await fakePartner('pos');
  dsp = await fakePartner('dsp');
  for (const [type, p] of [
    ['pos', pos],
    ['dsp', dsp],
  ] as const) {
    await world.platform.partner({
      kind: type,
      slug: slugs[type],
      name: `Independent ${type}`,
      baseUrl: p.url,
      oauthClientId: `platform-at-${type}`,
      oauthClientSecret: `cs_${type}_independent`,
    });
  }
});
afterAll(async () => {
  await world?.stop();
  for (const p of [pos, dsp]) await new Promise((r) => p?.server.close(r));
});

async function connect(orgId: string, type: 'pos' | 'dsp', code = 'any-code') {
  const created = await call('POST', `${world.url}/onboarding/integrations`, {
    token,
    body: { org_id: orgId, source: slugs[type], type, return_url: 'https://partner.example/done' },
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.onboarding._id as string;
  const res = await call('PUT', `${world.url}/onboarding/integrations/${id}`, { token, body: { code } });
  return { id, res };
}

describe('partners written from the spec, not the sandbox', () => {
  it('binds to APPROVED when the connection calls answer 200 {}, 201 with extra fields or 204 with no body', async () => {
    const orgId = await createOrg(world, token);
    const posInt = await connect(orgId, 'pos');
    expect(posInt.res.status, posInt.res.text).toBe(200);
    const dspInt = await connect(orgId, 'dsp');
    expect(dspInt.res.status, dspInt.res.text).toBe(200);

    const ingested = await call('POST', `${world.url}/onboarding/locations/ingest`, {
      token,
      body: {
        onboarding_id: posInt.id,
        locations: ['200', '201', '204'].map((s) => ({ provider_id: `pos-${s}` })),
      },
    });
    expect(ingested.status, ingested.text).toBe(200);
    const locations = ingested.body.locations as { _id: string; provider_id: string }[];
    const bound = await call('POST', `${world.url}/onboarding/locations/bind`, {
      token,
      body: {
        onboarding_id: dspInt.id,
        locations: locations.map((l) => ({
          pos_location_id: l._id,
          dsp_provider_id: l.provider_id.replace('pos-', 'dsp-'),
          dsp_store_name: `Store ${l.provider_id}`,
        })),
      },
    });
    expect(bound.status, bound.text).toBe(200);

    for (const l of locations) {
      const seen = await waitForLocation(
        world,
        token,
        orgId,
        l._id,
        (x) => x.dsps[0]?.status === 'APPROVED',
        `${l.provider_id} APPROVED`,
      );
      expect(seen.status).toBe('active');
    }
    // Each connection call was made once: a 2xx is success at the first attempt.
    for (const [p, path] of [
      [pos, '/stream-pos/v1/location/connection'],
      [dsp, '/stream-dsp/v1/locations/connection'],
    ] as const) {
      expect(p.seen.filter((s) => s.path === path).length).toBe(3);
    }
    // On the wire: PUT at the POS (singular path), POST at the DSP (plural), each with `{location_id}`,
    // the partner's own id of the location or store.
    const connection = (p: FakePartner, path: string, id: string) =>
      p.seen.filter((s) => s.path === path && JSON.parse(s.body || '{}').location_id === id);
    for (const l of locations) {
      const [posCall] = connection(pos, '/stream-pos/v1/location/connection', l.provider_id);
      expect([posCall!.method, JSON.parse(posCall!.body)]).toEqual(['PUT', { location_id: l.provider_id }]);
      const store = l.provider_id.replace('pos-', 'dsp-');
      const [dspCall] = connection(dsp, '/stream-dsp/v1/locations/connection', store);
      expect([dspCall!.method, JSON.parse(dspCall!.body)]).toEqual(['POST', { location_id: store }]);
      expect(dspCall!.headers.authorization).toMatch(/^Bearer fake_at_/);
    }
  });

  it('exchanges a code as the wire notes show it: a JSON body, redirect_uri at the POS only', async () => {
    const orgId = await createOrg(world, token);
    for (const [type, p] of [
      ['pos', pos],
      ['dsp', dsp],
    ] as const) {
      const before = p.seen.length;
      const { res } = await connect(orgId, type, `code-${type}`);
      expect(res.status, res.text).toBe(200);
      const [exchange, ...more] = p.seen.slice(before).filter((s) => s.path === `/stream-${type}/v1/token`);
      expect(more).toEqual([]);
      expect(exchange!.method).toBe('POST');
      expect(exchange!.headers['content-type']).toMatch(/^application\/json/);
      expect(exchange!.headers.authorization).toBeUndefined();
      expect(JSON.parse(exchange!.body)).toEqual({
        client_id: `platform-at-${type}`,
        client_secret: `cs_${type}_independent`,
        grant_type: 'authorization_code',
        code: `code-${type}`,
        // The DSP token request has no redirect_uri.
        ...(type === 'pos' ? { redirect_uri: `${world.url}/onboarding/oauth/callback` } : {}),
      });
    }
  });

  it('sends the same Idempotency-Key, the job id, on every attempt of a job', async () => {
    const orgId = await createOrg(world, token);
    const posInt = await connect(orgId, 'pos');
    const dspInt = await connect(orgId, 'dsp');
    const ingested = await call('POST', `${world.url}/onboarding/locations/ingest`, {
      token,
      body: { onboarding_id: posInt.id, locations: [{ provider_id: 'pos-503' }] },
    });
    const [location] = ingested.body.locations as { _id: string }[];
    const bound = await call('POST', `${world.url}/onboarding/locations/bind`, {
      token,
      body: {
        onboarding_id: dspInt.id,
        locations: [{ pos_location_id: location!._id, dsp_provider_id: 'dsp-503', dsp_store_name: 'S' }],
      },
    });
    expect(bound.status, bound.text).toBe(200);
    await waitForLocation(
      world,
      token,
      orgId,
      location!._id,
      (x) => x.dsps[0]?.status === 'APPROVED',
      'APPROVED',
    );

    const bindingId = bound.body.locations[0]._id as string;
    const jobs = await query<{ id: string; side: string }>(
      world,
      sql`select id, payload->>'side' as side from jobs where kind = 'onboarding.connect' and payload->>'binding_id' = ${bindingId}`,
    );
    expect(jobs).toHaveLength(2);
    for (const [p, side, path] of [
      [pos, 'pos', '/stream-pos/v1/location/connection'],
      [dsp, 'dsp', '/stream-dsp/v1/locations/connection'],
    ] as const) {
      const attempts = p.seen.filter((s) => s.path === path && s.body.includes('-503'));
      expect(attempts).toHaveLength(2); // 503, then accepted
      const keys = attempts.map((a) => a.headers['idempotency-key']);
      expect(keys[0]).toBe(jobs.find((j) => j.side === side)!.id);
      expect(keys[1]).toBe(keys[0]);
    }
    // Token exchanges carry none: an OAuth answer must never come from an idempotency cache.
    expect(
      pos.seen.filter((s) => s.path === '/stream-pos/v1/token').every((s) => !s.headers['idempotency-key']),
    ).toBe(true);
  });

  it("keeps the merchant's account id when a token refresh answers without one", async () => {
    const orgId = await createOrg(world, token);
    // Tokens always due for a refresh, and an id named at login only.
    Object.assign(pos, { tokenLifetimeMs: -1_000, accountId: 'acct-4821' });
    try {
      const posInt = await connect(orgId, 'pos');
      expect(posInt.res.status, posInt.res.text).toBe(200);
      expect(posInt.res.body.onboarding.merchant_id).toBe('acct-4821');
      const refreshes = pos.seen.filter((s) => s.path === '/stream-pos/v1/token').length;
      const listed = await call('GET', `${world.url}/onboarding/locations?onboarding_id=${posInt.id}`, {
        token,
      });
      expect(listed.status, listed.text).toBe(200);
      expect(pos.seen.filter((s) => s.path === '/stream-pos/v1/token').length).toBe(refreshes + 1);
      const got = await call('GET', `${world.url}/onboarding/integrations/${posInt.id}`, { token });
      expect(got.body.onboarding.merchant_id).toBe('acct-4821');
    } finally {
      Object.assign(pos, { tokenLifetimeMs: 3_600_000, accountId: undefined });
    }
  });

  it('keeps the refresh token when a refresh answers without one, and refreshes with it again', async () => {
    const orgId = await createOrg(world, token);
    // Tokens always due for a refresh, so every call as the merchant refreshes first; no rotation.
    Object.assign(pos, { tokenLifetimeMs: -1_000, rotates: false });
    const before = pos.seen.length;
    try {
      const posInt = await connect(orgId, 'pos');
      expect(posInt.res.status, posInt.res.text).toBe(200);
      const start = pos.seen.length;
      const login = pos.seen.findLast((s) => s.path === '/stream-pos/v1/token')!;
      const loginRefreshToken = login.answer!.refresh_token!;

      // A binding: the POS connection call refreshes first, gets no refresh token, and still connects.
      const dspInt = await connect(orgId, 'dsp');
      const [location] = await ingest(world, token, posInt.id, ['pos-keep']);
      const bound = await bind(world, token, dspInt.id, [
        { pos_location_id: location!._id, dsp_provider_id: 'dsp-keep' },
      ]);
      expect(bound.status, bound.text).toBe(200);
      const seen = await waitForLocation(
        world,
        token,
        orgId,
        location!._id,
        (x) => x.dsps[0]?.status === 'APPROVED',
        'APPROVED',
      );
      expect(seen.status).toBe('active');
      // Two more calls as the merchant, each after a refresh with the same, first refresh token.
      for (let i = 0; i < 2; i++) {
        const listed = await call('GET', `${world.url}/onboarding/locations?onboarding_id=${posInt.id}`, {
          token,
        });
        expect(listed.status, listed.text).toBe(200);
      }

      const traffic = pos.seen.slice(start);
      const refreshes = traffic.filter((s) => s.path === '/stream-pos/v1/token');
      expect(refreshes.length).toBeGreaterThanOrEqual(3);
      for (const r of refreshes) {
        expect(JSON.parse(r.body)).toEqual({
          client_id: 'platform-at-pos',
          client_secret: 'cs_pos_independent',
          grant_type: 'refresh_token',
          refresh_token: loginRefreshToken,
        });
        expect(r.answer?.refresh_token).toBeUndefined();
      }
      // Every call (ingest's listing, the connection, the catalog pull, the two listings) carries an
      // access token a refresh answered before it, never the login's.
      // The earlier tests' integrations may still call this POS meanwhile (a job's retry), with the
      // tokens it issued them before this test: those calls are theirs.
      const theirs = new Set(
        pos.seen
          .slice(0, before)
          .filter((s) => s.path === '/stream-pos/v1/token')
          .map((s) => `Bearer ${s.answer?.access_token}`),
      );
      const calls = traffic.filter(
        (s) => s.path !== '/stream-pos/v1/token' && !theirs.has(String(s.headers.authorization)),
      );
      expect(calls.filter((c) => c.path === '/stream-pos/v1/location/connection')).toHaveLength(1);
      expect(calls.filter((c) => c.path === '/stream-pos/v1/locations').length).toBeGreaterThanOrEqual(2);
      for (const c of calls) {
        const issuedBefore = refreshes
          .filter((r) => traffic.indexOf(r) < traffic.indexOf(c))
          .map((r) => `Bearer ${r.answer!.access_token}`);
        expect(issuedBefore).toContain(c.headers.authorization);
      }

      const got = await call('GET', `${world.url}/onboarding/integrations/${posInt.id}`, { token });
      expect(got.body.onboarding).toMatchObject({ status: 'active', status_reason: null });
      const [row] = await query<{ refresh_token_enc: string; refresh_expires_at: Date | string }>(
        world,
        sql`select refresh_token_enc, refresh_expires_at from integrations where id = ${posInt.id}`,
      );
      expect(decrypt(world.platform.config.encryptionKey, row!.refresh_token_enc)).toBe(loginRefreshToken);
      expect(new Date(row!.refresh_expires_at).getTime()).toBe(LOGIN_REFRESH_EXPIRY);
    } finally {
      Object.assign(pos, { tokenLifetimeMs: 3_600_000, rotates: true });
    }
  });

  it('takes a numeric account id in the token answer, as its decimal string', async () => {
    const orgId = await createOrg(world, token);
    pos.accountId = 48210017;
    try {
      const { res } = await connect(orgId, 'pos');
      expect(res.status, res.text).toBe(200);
      expect(res.body.onboarding).toMatchObject({ status: 'active', merchant_id: '48210017' });
    } finally {
      pos.accountId = undefined;
    }
  });

  it('takes numbered locations and stores, as their decimal strings, and connects them by those', async () => {
    const orgId = await createOrg(world, token);
    const ints = { pos: await connect(orgId, 'pos'), dsp: await connect(orgId, 'dsp') };
    for (const int of Object.values(ints)) {
      const listed = await call('GET', `${world.url}/onboarding/locations?onboarding_id=${int.id}`, {
        token,
      });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.locations).toContainEqual(expect.objectContaining({ provider_id: '7001' }));
    }
    const ingested = await call('POST', `${world.url}/onboarding/locations/ingest`, {
      token,
      body: { onboarding_id: ints.pos.id, locations: [{ provider_id: '7001' }] },
    });
    expect(ingested.status, ingested.text).toBe(200);
    const bound = await call('POST', `${world.url}/onboarding/locations/bind`, {
      token,
      body: {
        onboarding_id: ints.dsp.id,
        locations: [
          { pos_location_id: ingested.body.locations[0]._id, dsp_provider_id: '7001', dsp_store_name: 'N' },
        ],
      },
    });
    expect(bound.status, bound.text).toBe(200);
    // Both connection calls name the location as the string the platform keeps.
    for (const [p, path] of [
      [pos, '/stream-pos/v1/location/connection'],
      [dsp, '/stream-dsp/v1/locations/connection'],
    ] as const) {
      const body = await waitFor(
        () => p.seen.find((c) => c.path === path && c.body.includes('7001'))?.body,
        20_000,
        `${path} for 7001`,
      );
      expect(JSON.parse(body)).toEqual({ location_id: '7001' });
    }
  });

  it('fails a code exchange answered 200 with garbage at once, with the reason on the integration and in the log', async () => {
    const orgId = await createOrg(world, token);
    pos.tokenMode = 'garbage';
    try {
      const { id, res } = await connect(orgId, 'pos');
      expect(res.status, res.text).toBe(502);
      expect(res.body.error.code).toBe('partner_unreachable');
      expect(res.body.error.message).toMatch(/access_token/);
      const got = await call('GET', `${world.url}/onboarding/integrations/${id}`, { token });
      expect(got.body.onboarding.status).toBe('pending');
      expect(got.body.onboarding.status_reason).toMatch(/no usable tokens.*access_token/);
    } finally {
      pos.tokenMode = 'ok';
    }
    const [attempt] = await query<{ error: string | null; response_status: number; finished_at: unknown }>(
      world,
      sql`select error, response_status, finished_at from delivery_attempts where url = ${`${pos.url}/stream-pos/v1/token`} and error is not null order by created_at desc limit 1`,
    );
    expect(attempt?.response_status).toBe(200);
    expect(attempt?.error).toMatch(/^unusable answer: .*access_token/);
    expect(attempt?.finished_at).not.toBeNull();
  });

  it('refuses a code exchange whose expire_time is no date the platform can keep: 502 naming it, never a 500', async () => {
    // Past what a JS Date holds, past year 9999, before 1970: each was a 500 when stored.
    for (const lifetime of [1e20, 8.64e15 - Date.now(), -1e16]) {
      const orgId = await createOrg(world, token);
      pos.tokenLifetimeMs = lifetime;
      try {
        const { id, res } = await connect(orgId, 'pos');
        expect(res.status, `${lifetime}: ${res.text}`).toBe(502);
        expect(res.body.error.code).toBe('partner_unreachable');
        expect(res.body.error.message).toMatch(/expire_time: must be epoch milliseconds from 1970 to 9999/);
        const got = await call('GET', `${world.url}/onboarding/integrations/${id}`, { token });
        expect(got.body.onboarding.status).toBe('pending');
      } finally {
        pos.tokenLifetimeMs = 3_600_000;
      }
    }
  });

  it('refuses a code exchange answered without a refresh token: the connection would end at expire_time', async () => {
    const orgId = await createOrg(world, token);
    pos.tokenMode = 'no-refresh-token';
    try {
      const { id, res } = await connect(orgId, 'pos');
      expect(res.status, res.text).toBe(502);
      expect(res.body.error.code).toBe('partner_unreachable');
      expect(res.body.error.message).toMatch(
        /refresh_token: required in the answer to an authorization code/,
      );
      const got = await call('GET', `${world.url}/onboarding/integrations/${id}`, { token });
      expect(got.body.onboarding.status).toBe('pending');
    } finally {
      pos.tokenMode = 'ok';
    }
  });

  it('fails a connection job at once when the token refresh answers garbage, with the reason on the binding', async () => {
    const orgId = await createOrg(world, token);
    // Tokens that are always due for a refresh: every call as the merchant refreshes first.
    pos.tokenLifetimeMs = -1_000;
    try {
      const posInt = await connect(orgId, 'pos');
      expect(posInt.res.status, posInt.res.text).toBe(200);
      const dspInt = await connect(orgId, 'dsp');
      const ingested = await call('POST', `${world.url}/onboarding/locations/ingest`, {
        token,
        body: { onboarding_id: posInt.id, locations: [{ provider_id: 'pos-refresh' }] },
      });
      expect(ingested.status, ingested.text).toBe(200);
      const [location] = ingested.body.locations as { _id: string }[];
      pos.tokenMode = 'garbage';
      const bound = await call('POST', `${world.url}/onboarding/locations/bind`, {
        token,
        body: {
          onboarding_id: dspInt.id,
          locations: [
            { pos_location_id: location!._id, dsp_provider_id: 'dsp-refresh', dsp_store_name: 'S' },
          ],
        },
      });
      expect(bound.status, bound.text).toBe(200);
      const seen = await waitForLocation(
        world,
        token,
        orgId,
        location!._id,
        (x) => x.dsps[0]?.status === 'needs_reconnection',
        'needs_reconnection',
      );
      expect(seen.dsps[0]!.reason).toMatch(/no usable tokens.*access_token/);
      const bindingId = bound.body.locations[0]._id as string;
      const job = await waitFor(async () => {
        const rows = await query<{ status: string; attempts: number }>(
          world,
          sql`select status, attempts from jobs where kind = 'onboarding.connect' and payload->>'binding_id' = ${bindingId} and payload->>'side' = 'pos'`,
        );
        return rows[0]?.status === 'dead' ? rows[0] : undefined;
      });
      expect(job!.attempts).toBe(1); // permanent at once, not retried
      const got = await call('GET', `${world.url}/onboarding/integrations/${posInt.id}`, { token });
      expect(got.body.onboarding.status).toBe('needs_reconnection');
      expect(got.body.onboarding.status_reason).toMatch(/no usable tokens/);
      const logged = await query<{ error: string }>(
        world,
        sql`select error from delivery_attempts where url = ${`${pos.url}/stream-pos/v1/token`} and error like 'unusable answer:%'`,
      );
      expect(logged.length).toBeGreaterThan(0);
    } finally {
      pos.tokenMode = 'ok';
      pos.tokenLifetimeMs = 3_600_000;
    }
    expect((await orgLocations(world, token, orgId))[0]!.status).toBe('pending');
  });
});
