import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@stream/contracts/errors';
import { ALL_OPERATIONS } from '@stream/contracts/apis/index';
import { fastifyPath, type Operation } from '@stream/contracts/operation';
import { call } from '../../test/http.ts';
import {
  activeIntegration,
  createIntegration,
  createOrg,
  ingest,
  partnerToken,
  startOnboardingWorld,
  type OnboardingWorld,
} from './testing.ts';

let world: OnboardingWorld;
let owner: { token: string; partnerId: string };
let stranger: { token: string; partnerId: string };
let orgId: string;
let posId: string;
let dspId: string;
let locationId: string;

beforeAll(async () => {
  world = await startOnboardingWorld();
  owner = await partnerToken(world);
  stranger = await partnerToken(world);
  orgId = await createOrg(world, owner.token);
  posId = await activeIntegration(world, owner.token, orgId, 'pos');
  dspId = await activeIntegration(world, owner.token, orgId, 'dsp');
  locationId = (await ingest(world, owner.token, posId, ['loc-mission']))[0]!._id;
});
afterAll(() => world?.stop());

/** The operations the running server mounts under /onboarding (its `onRoute` record, not a list). */
const mountedOps = (): Operation[] =>
  ALL_OPERATIONS.filter((op) =>
    world.platform.app.mountedRoutes.some(
      (r) => r.method === op.method && r.url === fastifyPath(op.path) && r.url.startsWith('/onboarding/'),
    ),
  );

/** Whether a concrete path (query string allowed) is an instance of an operation's path template. */
const isPathOf = (op: Operation, path: string) =>
  new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`).test(path);

/** Bearer operations the routes below leave out on purpose, and why. */
const NOT_EXERCISED: Record<string, string> = {
  createOrg: 'names no existing object to hide; org.route.test.ts covers its 401, 403 and scope',
};

/** Every bearer route of onboarding, called with ids and bodies of the owner's objects. */
const routes = () => [
  {
    method: 'POST',
    path: '/onboarding/integrations',
    body: { org_id: orgId, source: 'sandbox-pos', type: 'pos', return_url: 'https://x.example/' },
  },
  { method: 'GET', path: `/onboarding/integrations/${posId}` },
  { method: 'PUT', path: `/onboarding/integrations/${posId}`, body: { code: 'whatever' } },
  { method: 'DELETE', path: `/onboarding/integrations/${posId}` },
  { method: 'GET', path: `/onboarding/locations?onboarding_id=${posId}` },
  {
    method: 'POST',
    path: '/onboarding/locations/ingest',
    body: { onboarding_id: posId, locations: [{ provider_id: 'loc-mission' }] },
  },
  {
    method: 'POST',
    path: '/onboarding/locations/bind',
    body: {
      onboarding_id: dspId,
      locations: [{ pos_location_id: locationId, dsp_provider_id: 'store-1001', dsp_store_name: 'S' }],
    },
  },
  { method: 'GET', path: `/onboarding/org/${orgId}/locations` },
  { method: 'GET', path: `/onboarding/org/${orgId}/locations?location_id=${locationId}` },
  { method: 'GET', path: `/onboarding/org/${orgId}/locations/${locationId}/event-providers` },
  { method: 'PUT', path: `/onboarding/org/${orgId}/locations/${locationId}/event-providers/sandbox-events` },
  {
    method: 'DELETE',
    path: `/onboarding/org/${orgId}/locations/${locationId}/event-providers/sandbox-events`,
  },
];

describe('onboarding access control', () => {
  it('covers every bearer operation mounted under /onboarding', () => {
    const bearer = mountedOps().filter((op) => op.security.kind === 'bearer');
    for (const op of bearer)
      expect(op.security, op.operationId).toEqual({ kind: 'bearer', scopes: ['onboarding'] });
    const exercised = new Set(
      routes().flatMap((r) =>
        bearer.filter((op) => op.method === r.method && isPathOf(op, r.path)).map((op) => op.operationId),
      ),
    );
    const expected = bearer.map((op) => op.operationId).filter((id) => !(id in NOT_EXERCISED));
    expect([...exercised].sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(0);
  });

  it("answers 404 to another partner's token on every route, and changes nothing", async () => {
    for (const r of routes()) {
      const res = await call(r.method, `${world.url}${r.path}`, { token: stranger.token, body: r.body });
      expect(res.status, `${r.method} ${r.path}: ${res.text}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const still = await call('GET', `${world.url}/onboarding/integrations/${posId}`, { token: owner.token });
    expect(still.body.onboarding.status).toBe('active');
  });

  it('answers 404 to a token limited to another org of the same partner', async () => {
    const otherOrg = await createOrg(world, owner.token);
    const made = await call('POST', `${world.url}/tokens`, {
      token: owner.token,
      body: { org_id: otherOrg, token_name: 'other org', scopes: ['onboarding'] },
    });
    expect(made.status, made.text).toBe(201);
    const limited = await call('POST', `${world.url}/oauth/token`, {
      body: {
        grant_type: 'client_credentials',
        client_id: made.body.token._id,
        client_secret: made.body.secret,
      },
    });
    expect(limited.status, limited.text).toBe(201);
    for (const r of routes()) {
      const res = await call(r.method, `${world.url}${r.path}`, {
        token: limited.body.access_token,
        body: r.body,
      });
      expect(res.status, `${r.method} ${r.path}: ${res.text}`).toBe(404);
    }
    // ...while its own org works.
    const own = await call('GET', `${world.url}/onboarding/org/${otherOrg}/locations`, {
      token: limited.body.access_token,
    });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ locations: [], has_more: false, next_cursor: null });
  });

  it('answers 403 insufficient_scope to a token without the onboarding scope', async () => {
    const noScope = await call('POST', `${world.url}/oauth/token`, {
      body: { grant_type: 'client_credentials', ...(await rootClient()), scopes: ['sso', 'billing'] },
    });
    expect(noScope.status, noScope.text).toBe(201);
    for (const r of routes()) {
      const res = await call(r.method, `${world.url}${r.path}`, {
        token: noScope.body.access_token,
        body: r.body,
      });
      expect(res.status, `${r.method} ${r.path}`).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
    }
    for (const r of routes()) {
      const res = await call(r.method, `${world.url}${r.path}`, { body: r.body });
      expect(res.status, `${r.method} ${r.path}`).toBe(401);
    }
  });
});

let root: { client_id: string; client_secret: string } | undefined;
async function rootClient() {
  if (!root) {
    const creds = await world.platform.partner();
    root = { client_id: creds.client_id, client_secret: creds.client_secret };
  }
  return root;
}

describe('onboarding input validation', () => {
  const bad: [string, string, unknown, number, string][] = [
    ['POST', '/onboarding/integrations', '{"org_id":', 400, 'invalid_json'],
    ['POST', '/onboarding/integrations', {}, 400, 'validation_failed'],
    ['POST', '/onboarding/integrations', [], 400, 'validation_failed'],
    ['POST', '/onboarding/integrations', 'null', 400, 'validation_failed'],
    [
      'POST',
      '/onboarding/integrations',
      { org_id: 1, source: [], type: 'pos', return_url: 'x' },
      400,
      'validation_failed',
    ],
    [
      'POST',
      '/onboarding/integrations',
      { org_id: 'o', source: 'sandbox-pos', type: 'kiosk', return_url: 'https://x.example' },
      400,
      'validation_failed',
    ],
    [
      'POST',
      '/onboarding/integrations',
      { org_id: 'o', source: 'sandbox-pos', type: 'pos', return_url: 'javascript:alert(1)' },
      400,
      'validation_failed',
    ],
    [
      'POST',
      '/onboarding/integrations',
      { org_id: 'o', source: 'sandbox-pos', type: 'pos' },
      400,
      'validation_failed',
    ],
    ['POST', '/onboarding/integrations', 'x'.repeat(2 * 1024 * 1024), 413, 'payload_too_large'],
    ['PUT', '/onboarding/integrations/onb_x', {}, 400, 'validation_failed'],
    ['PUT', '/onboarding/integrations/onb_x', { code: '' }, 400, 'validation_failed'],
    ['PUT', '/onboarding/integrations/onb_x', { code: 42 }, 400, 'validation_failed'],
    ['GET', '/onboarding/locations', undefined, 400, 'validation_failed'],
    [
      'POST',
      '/onboarding/locations/ingest',
      { onboarding_id: 'onb_x', locations: [] },
      400,
      'validation_failed',
    ],
    [
      'POST',
      '/onboarding/locations/ingest',
      { onboarding_id: 'onb_x', locations: [{}] },
      400,
      'validation_failed',
    ],
    [
      'POST',
      '/onboarding/locations/ingest',
      { onboarding_id: 'onb_x', locations: 'loc' },
      400,
      'validation_failed',
    ],
    [
      'POST',
      '/onboarding/locations/bind',
      { onboarding_id: 'onb_x', locations: [{ pos_location_id: 'l' }] },
      400,
      'validation_failed',
    ],
    [
      'POST',
      '/onboarding/locations/bind',
      {
        onboarding_id: 'onb_x',
        locations: [{ pos_location_id: 'l', dsp_provider_id: 's', dsp_store_name: '  ' }],
      },
      400,
      'validation_failed',
    ],
  ];
  it.each(bad)('%s %s with %j answers %i %s', async (method, path, body, status, code) => {
    const res = await call(method, `${world.url}${path}`, { token: owner.token, body });
    expect(res.status, res.text).toBe(status);
    expect(res.body.error.code).toBe(code);
  });

  it('answers an organisation, location or integration id that cannot be one 400, naming the field (not 404)', async () => {
    const cases: [string, string, unknown, string][] = [
      ['GET', '/onboarding/integrations/%20x', undefined, 'params.id'],
      ['GET', '/onboarding/org/%20x/locations', undefined, 'params.id'],
      ['GET', '/onboarding/org/org_x/locations?location_id=a.b', undefined, 'querystring.location_id'],
      ['GET', '/onboarding/org/org_x/locations/%20x/event-providers', undefined, 'params.location_id'],
      ['GET', '/onboarding/locations?onboarding_id=a%2Fb', undefined, 'querystring.onboarding_id'],
      [
        'POST',
        '/onboarding/integrations',
        { org_id: 'org x', source: 'sandbox-pos', type: 'pos', return_url: 'https://x.example' },
        'body.org_id',
      ],
      [
        'POST',
        '/onboarding/locations/ingest',
        { onboarding_id: 'onb x', locations: [{ provider_id: 'p' }] },
        'body.onboarding_id',
      ],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await call(method, `${world.url}${path}`, { token: owner.token, body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'validation_failed',
        details: [
          { path: field, message: 'must be an id as the platform gave it: 1 to 64 letters, digits, _ or -' },
        ],
      });
    }
  });

  it('says what a return_url must be', async () => {
    for (const [returnUrl, message] of [
      ['javascript:alert(1)', 'must be an absolute http or https URL'],
      ['ftp://partner.example/done', 'must be an absolute http or https URL'],
      ['/onboarding/done', 'must be an absolute http or https URL'],
      [`https://partner.example/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
    ]) {
      const res = await call('POST', `${world.url}/onboarding/integrations`, {
        token: owner.token,
        body: { org_id: 'o', source: 'sandbox-pos', type: 'pos', return_url: returnUrl },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details).toEqual([{ path: 'body.return_url', message }]);
    }
  });

  it('answers the specific 4xx codes of onboarding, never a 5xx', async () => {
    const expectError = async (method: string, path: string, body: unknown, status: number, code: string) => {
      const res = await call(method, `${world.url}${path}`, { token: owner.token, body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
      expect(res.body.error.code).toBe(code);
      return res;
    };
    await expectError(
      'POST',
      '/onboarding/integrations',
      { org_id: orgId, source: 'nope', type: 'pos', return_url: 'https://x.example' },
      400,
      'unknown_source',
    );
    await expectError(
      'POST',
      '/onboarding/integrations',
      { org_id: orgId, source: 'sandbox-dsp', type: 'pos', return_url: 'https://x.example' },
      400,
      'unknown_source',
    );
    await expectError(
      'POST',
      '/onboarding/integrations',
      { org_id: 'org_nope', source: 'sandbox-pos', type: 'pos', return_url: 'https://x.example' },
      404,
      'not_found',
    );
    await expectError('GET', '/onboarding/integrations/onb_nope', undefined, 404, 'not_found');
    await expectError(
      'POST',
      '/onboarding/locations/ingest',
      { onboarding_id: dspId, locations: [{ provider_id: 'store-1001' }] },
      400,
      'integration_type_mismatch',
    );
    const unknown = await expectError(
      'POST',
      '/onboarding/locations/ingest',
      { onboarding_id: posId, locations: [{ provider_id: 'loc-mission' }, { provider_id: 'loc-nowhere' }] },
      400,
      'unknown_location',
    );
    expect(unknown.body.error.details).toEqual([
      { path: 'body.locations[1].provider_id', message: 'not a location the POS lists for this merchant' },
    ]);
    const pair = (p: Record<string, string>) => ({
      onboarding_id: dspId,
      locations: [{ pos_location_id: locationId, dsp_provider_id: 'store-1001', dsp_store_name: 'S', ...p }],
    });
    await expectError(
      'POST',
      '/onboarding/locations/bind',
      { ...pair({}), onboarding_id: posId },
      400,
      'integration_type_mismatch',
    );
    await expectError(
      'POST',
      '/onboarding/locations/bind',
      pair({ dsp_provider_id: 'store-9999' }),
      400,
      'unknown_location',
    );
    await expectError(
      'POST',
      '/onboarding/locations/bind',
      pair({ pos_location_id: 'loc_nope' }),
      400,
      'unknown_location',
    );
    const dup = pair({});
    dup.locations.push({ ...dup.locations[0]!, dsp_provider_id: 'store-1002' });
    await expectError('POST', '/onboarding/locations/bind', dup, 409, 'location_already_bound');
    await expectError(
      'GET',
      `/onboarding/org/${orgId}/locations?location_id=loc_nope`,
      undefined,
      404,
      'not_found',
    );
    const pending = await createIntegration(world, owner.token, orgId, 'pos');
    await expectError(
      'GET',
      `/onboarding/locations?onboarding_id=${pending._id}`,
      undefined,
      409,
      'integration_not_active',
    );
    await expectError(
      'PUT',
      `/onboarding/integrations/${pending._id}`,
      { code: 'not-a-code' },
      400,
      'oauth_exchange_failed',
    );
    const still = await call('GET', `${world.url}/onboarding/integrations/${pending._id}`, {
      token: owner.token,
    });
    expect(still.body.onboarding.status).toBe('pending');
  });

  it('rejects a wrong entry token and a forged or missing OAuth state', async () => {
    const { _id, entry_url } = await createIntegration(world, owner.token, orgId, 'pos');
    const wrong = await call('GET', entry_url.replace(/token=[^&]+/, 'token=forged'));
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('invalid_entry_token');
    const missing = await call('GET', `${world.url}/onboarding/integrations/${_id}/entry`);
    expect(missing.status).toBe(400);
    const forged = await call(
      'GET',
      `${world.url}/onboarding/oauth/callback?code=abc&state=${_id}.nonce.forged`,
    );
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('invalid_oauth_state');
    expect((await call('GET', `${world.url}/onboarding/oauth/callback?code=abc`)).status).toBe(400);
    // A merchant who declines comes back to return_url with the reason.
    const authorize = new URL((await call('GET', entry_url)).headers.get('location')!);
    authorize.searchParams.set('deny', '1');
    const callback = (await call('GET', authorize.toString())).headers.get('location')!;
    const back = new URL((await call('GET', callback)).headers.get('location')!);
    expect(back.searchParams.get('status')).toBe('error');
    expect(back.searchParams.get('error')).toBe('oauth_denied');
    // ...and the integration says so to whoever reads it, still waiting for the merchant.
    const declined = await call('GET', `${world.url}/onboarding/integrations/${_id}`, { token: owner.token });
    expect(declined.body.onboarding).toMatchObject({
      status: 'waiting_for_oauth',
      status_reason: 'The merchant did not authorize at the partner (error=access_denied).',
    });
    // A state this platform signed but that is spent or superseded (the entry URL opened in two
    // tabs, the callback page reloaded) sends the browser back to return_url, changing nothing.
    const first = (await call('GET', entry_url)).headers.get('location')!;
    const second = (await call('GET', entry_url)).headers.get('location')!;
    const stale = new URL((await call('GET', first)).headers.get('location')!);
    const staleBack = await call('GET', stale.toString());
    expect(staleBack.status, staleBack.text).toBe(302);
    const staleTo = new URL(staleBack.headers.get('location')!);
    expect(`${staleTo.origin}${staleTo.pathname}`).toBe('https://partner.example/done');
    expect(Object.fromEntries(staleTo.searchParams)).toMatchObject({
      onboarding_id: _id,
      status: 'error',
      error: 'invalid_oauth_state',
    });
    const still = await call('GET', `${world.url}/onboarding/integrations/${_id}`, { token: owner.token });
    expect(still.body.onboarding.status).toBe('waiting_for_oauth');
    // The tab opened last still works.
    const fresh = new URL((await call('GET', second)).headers.get('location')!);
    const done = new URL((await call('GET', fresh.toString())).headers.get('location')!);
    expect(done.searchParams.get('status')).toBe('active');
    // An active integration's entry URL sends the browser back with invalid_transition.
    const active = await call('GET', `${world.url}/onboarding/integrations/${posId}`, { token: owner.token });
    const again = new URL((await call('GET', active.body.onboarding.entry_url)).headers.get('location')!);
    expect(again.searchParams.get('error')).toBe('invalid_transition');
  });
});

describe('error codes are part of the contract', () => {
  it('lists every code the onboarding code can answer in ERROR_CODES and in its operations', () => {
    const dir = new URL('.', import.meta.url);
    const used = new Set<string>(['not_found']);
    for (const file of readdirSync(dir).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'testing.ts',
    )) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const m of text.matchAll(/new ApiError\(\s*'([a-z_]+)'/g)) used.add(m[1]!);
    }
    const documented = new Set(mountedOps().flatMap((op) => op.errors as readonly string[]));
    for (const code of used) {
      expect(ERROR_CODES, code).toHaveProperty(code);
      expect(documented.has(code), `${code} is not in any onboarding operation's errors`).toBe(true);
    }
  });
});
