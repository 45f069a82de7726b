import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { testPartner, type TestPartner } from '../auth/testing.ts';
import { newId } from '../db/ids.ts';
import { orgs, ssoLoginTokens, userSessions, users } from '../db/schema/index.ts';
import { sha256Hex } from '../http/secrets.ts';

let platform: TestPlatform;
let a: TestPartner;
let b: TestPartner;
let orgA: string;
let orgA2: string;
let orgB: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  [a, b] = await Promise.all([testPartner(platform), testPartner(platform)]);
  orgA = await a.org('sso-acme');
  orgA2 = await a.org('sso-acme-2');
  orgB = await b.org('sso-other');
});
afterAll(() => platform?.stop());

const person = { email: 'Ana.Lima@Example.com', full_name: 'Ana  Maria Lima', phone_number: '+14155550123' };

const generate = (token: string, body: unknown, query = '') =>
  call('POST', `${platform.url}/white-label/generate-session${query}`, { token, body });
const redeem = (sso_login_token: unknown) =>
  call('POST', `${platform.url}/white-label/sso/redeem`, { body: { sso_login_token } });

async function loginToken(body: Record<string, unknown>, token = a.token): Promise<string> {
  const res = await generate(token, body);
  expect(res.status, res.text).toBe(201);
  return res.body.sso_login_token;
}

describe('POST /white-label/generate-session', () => {
  it('answers a single-use token that lives 5 minutes, stored only as its hash', async () => {
    const res = await generate(a.token, { ...person, role: 'manager', provider_org_id: 'sso-acme' });
    expect(res.status).toBe(201);
    expect([res.headers.get('cache-control'), res.headers.get('pragma')]).toEqual(['no-store', 'no-cache']);
    expect(res.body.sso_login_token).toMatch(/^sso_[A-Za-z0-9_-]{43}$/);
    expect(res.body.expires_in).toBe(300);
    const [row] = await platform.app.ctx.db
      .select()
      .from(ssoLoginTokens)
      .where(eq(ssoLoginTokens.tokenHash, sha256Hex(res.body.sso_login_token)));
    expect(row).toMatchObject({ orgId: orgA, partnerId: a.partner_id, role: 'manager', redeemedAt: null });
    expect(row!.expiresAt.toISOString()).toBe(res.body.expires_at);
    expect(JSON.stringify(row)).not.toContain(res.body.sso_login_token);
  });

  it('names the org by provider_id or platform id, accepts provider_org_name and its own partner_id', async () => {
    expect((await generate(a.token, { ...person, provider_org_id: orgA })).status).toBe(201);
    const named = await generate(a.token, {
      ...person,
      provider_org_id: 'sso-acme',
      provider_org_name: 'Acme',
    });
    expect(named.status).toBe(201);
    expect(
      (await generate(a.token, { ...person, provider_org_id: orgA }, `?partner_id=${a.partner_id}`)).status,
    ).toBe(201);
  });

  it("answers 404 for another partner's org, or another partner_id", async () => {
    for (const [token, body, query] of [
      [a.token, { ...person, provider_org_id: 'sso-other' }, ''],
      [a.token, { ...person, provider_org_id: orgB }, ''],
      [b.token, { ...person, provider_org_id: orgA }, ''],
      [a.token, { ...person, provider_org_id: 'no-such-org' }, ''],
      [a.token, { ...person, provider_org_id: orgA }, `?partner_id=${b.partner_id}`],
    ] as const) {
      const res = await generate(token, body, query);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('answers 400 validation_failed naming partner_id when it is not an id', async () => {
    const res = await generate(a.token, { ...person, provider_org_id: orgA }, '?partner_id=ptr%20nope');
    expect([res.status, res.body.error.code]).toEqual([400, 'validation_failed']);
    expect(res.body.error.details).toEqual([{ path: 'querystring.partner_id', message: expect.any(String) }]);
  });

  it('answers 403 insufficient_scope to a token without sso, 401 without a token', async () => {
    const res = await generate(await a.tokenWith(['billing', 'onboarding']), {
      ...person,
      provider_org_id: orgA,
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    const anonymous = await call('POST', `${platform.url}/white-label/generate-session`, { body: person });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'missing_token']);
  });

  it('lets a token limited to one org omit provider_org_id, and see no other org', async () => {
    const { access_token } = (await a.orgToken(orgA2, ['sso'], 'sso only')).grant;
    const own = await generate(access_token, person);
    expect(own.status).toBe(201);
    const [row] = await platform.app.ctx.db
      .select({ orgId: ssoLoginTokens.orgId })
      .from(ssoLoginTokens)
      .where(eq(ssoLoginTokens.tokenHash, sha256Hex(own.body.sso_login_token)));
    expect(row!.orgId).toBe(orgA2);
    expect((await generate(access_token, { ...person, provider_org_id: 'sso-acme' })).status).toBe(404);
    // The root client is not limited to one org: it must say which.
    const unnamed = await generate(a.token, person);
    expect([unnamed.status, unnamed.body.error.code]).toEqual([400, 'validation_failed']);
    expect(unnamed.body.error.details[0].path).toBe('body.provider_org_id');
  });

  it("an org stored before provider_ids were checked, whose provider_id is another org's id: that id means the other org, for every token", async () => {
    const { db } = platform.app.ctx;
    const legacy = newId('org');
    await db.insert(orgs).values({ id: legacy, partnerId: a.partner_id, name: 'Legacy', providerId: orgA });
    const orgOf = async (token: string, body: Record<string, unknown>) => {
      const [row] = await db.select({ orgId: ssoLoginTokens.orgId }).from(ssoLoginTokens).where(eq(ssoLoginTokens.tokenHash, sha256Hex(await loginToken(body, token))));
      return row!.orgId;
    };
    for (let i = 0; i < 3; i++) expect(await orgOf(a.token, { ...person, provider_org_id: orgA })).toBe(orgA);
    // A token limited to the legacy org finds no other meaning for the id: it is orgA's, not visible to it.
    const { access_token } = (await a.orgToken(legacy, ['sso'], 'legacy')).grant;
    expect((await generate(access_token, { ...person, provider_org_id: orgA })).status).toBe(404);
    expect(await orgOf(access_token, person)).toBe(legacy);
    expect(await orgOf(a.token, { ...person, provider_org_id: legacy })).toBe(legacy);
  }); // prettier-ignore

  it('answers malformed bodies with 4xx and the error body, never 5xx', async () => {
    const base = { ...person, provider_org_id: orgA };
    const cases: [unknown, number, string][] = [
      ['{"email":', 400, 'invalid_json'],
      ['[]', 400, 'validation_failed'],
      ['null', 400, 'validation_failed'],
      [{}, 400, 'validation_failed'],
      [{ ...base, email: 'not-an-email' }, 400, 'validation_failed'],
      [{ ...base, phone_number: '4155550123' }, 400, 'validation_failed'],
      [{ ...base, phone_number: '+0155550123' }, 400, 'validation_failed'],
      [{ ...base, full_name: '   ' }, 400, 'validation_failed'],
      [{ ...base, full_name: 42 }, 400, 'validation_failed'],
      [{ ...base, role: 'superuser' }, 400, 'validation_failed'],
      [{ ...base, provider_org_id: ['x'] }, 400, 'validation_failed'],
      [{ ...base, full_name: 'x'.repeat(2_000_000) }, 413, 'payload_too_large'],
    ];
    for (const [body, status, code] of cases) {
      const res = await generate(a.token, body);
      expect(res.status, `${String(JSON.stringify(body)).slice(0, 80)}`).toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    const form = await call('POST', `${platform.url}/white-label/generate-session`, {
      token: a.token,
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect([form.status, form.body.error.code]).toEqual([415, 'unsupported_media_type']);
  });
});

describe('POST /white-label/sso/redeem', () => {
  it('creates the user with its role and opens a session; the second use fails', async () => {
    const token = await loginToken({ ...person, role: 'team_member', provider_org_id: 'sso-acme' });
    const res = await redeem(token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store'); // a session token
    expect(res.body.user).toEqual({
      _id: expect.stringMatching(/^usr_/),
      org_id: orgA,
      email: 'Ana.Lima@Example.com',
      full_name: 'Ana Maria Lima',
      phone_number: '+14155550123',
      role: 'team_member',
    });
    expect(res.body.session.session_token).toMatch(/^uss_/);
    const ttl = Date.parse(res.body.session.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(11 * 3600_000);
    expect(ttl).toBeLessThanOrEqual(12 * 3600_000);
    const [session] = await platform.app.ctx.db
      .select()
      .from(userSessions)
      .where(eq(userSessions.tokenHash, sha256Hex(res.body.session.session_token)));
    expect(session).toMatchObject({ userId: res.body.user._id, orgId: orgA });

    const again = await redeem(token);
    expect([again.status, again.body.error.code]).toEqual([400, 'sso_token_redeemed']);
  });

  it("can be called by the user's browser from the partner's site (CORS, any origin, no credentials)", async () => {
    const origin = 'https://partner.example.com';
    const preflight = await fetch(`${platform.url}/white-label/sso/redeem`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(preflight.status).toBe(204);
    expect(['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers'].map((h) => preflight.headers.get(h))).toEqual(['*', 'POST', 'content-type']);
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const token = await loginToken({ ...person, provider_org_id: 'sso-acme' });
    for (const body of [{ sso_login_token: token }, { sso_login_token: token }, {}]) {
      const res = await fetch(`${platform.url}/white-label/sso/redeem`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect([res.status >= 200, res.headers.get('access-control-allow-origin')]).toEqual([true, '*']); // a refusal too: the page reads why
    }
    const other = await generate(a.token, { ...person, provider_org_id: 'sso-acme' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull(); // a back-end call: no CORS
  }); // prettier-ignore

  it('refuses a login token whose partner token was revoked since: revoking stops its logins too', async () => {
    const { id, grant } = await a.orgToken(orgA2, ['sso'], 'leaked');
    const token = await loginToken(person, grant.access_token);
    const revoked = await call('DELETE', `${platform.url}/tokens/${id}`, { token: a.token });
    expect(revoked.status).toBe(200);
    const res = await redeem(token);
    expect([res.status, res.body.error.code]).toEqual([400, 'sso_token_invalid']);
    expect(res.body.error.message).toContain('was revoked');
    // Still unused: a login token of a live client redeems as before.
    expect((await redeem(await loginToken({ ...person, provider_org_id: orgA2 }))).status).toBe(200);
  });

  it('updates an existing user of the org, matched by email in any case, and defaults the role to owner', async () => {
    const first = await redeem(await loginToken({ ...person, role: 'admin', provider_org_id: orgA }));
    const second = await redeem(
      await loginToken({
        email: 'ana.lima@example.com',
        full_name: 'Ana Lima',
        phone_number: '+442071838750',
        provider_org_id: orgA,
      }),
    );
    expect(second.status).toBe(200);
    expect(second.body.user).toMatchObject({
      _id: first.body.user._id,
      full_name: 'Ana Lima',
      phone_number: '+442071838750',
      role: 'owner',
    });
    const rows = await platform.app.ctx.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.orgId, orgA), eq(users.phoneNumber, '+442071838750')));
    expect(rows).toHaveLength(1);
  });

  it('refuses an expired token with sso_token_expired', async () => {
    const token = await loginToken({ ...person, provider_org_id: orgA });
    await platform.app.ctx.db
      .update(ssoLoginTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(ssoLoginTokens.tokenHash, sha256Hex(token)));
    const res = await redeem(token);
    expect([res.status, res.body.error.code]).toEqual([400, 'sso_token_expired']);
  });

  it('refuses unknown and malformed tokens with sso_token_invalid, bad bodies with 4xx', async () => {
    for (const token of [`sso_${'A'.repeat(43)}`, 'sso_short', 'x'.repeat(200)]) {
      const res = await redeem(token);
      expect([res.status, res.body.error.code]).toEqual([400, 'sso_token_invalid']);
    }
    for (const body of [42, null, '', 'x'.repeat(201)]) {
      const res = await redeem(body);
      expect([res.status, res.body.error.code]).toEqual([400, 'validation_failed']);
    }
    const broken = await call('POST', `${platform.url}/white-label/sso/redeem`, { body: '{' });
    expect([broken.status, broken.body.error.code]).toEqual([400, 'invalid_json']);
  });

  it('lets exactly one of several concurrent redemptions win', async () => {
    const token = await loginToken({ ...person, provider_org_id: orgA });
    const results = await Promise.all(Array.from({ length: 5 }, () => redeem(token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.error?.code === 'sso_token_redeemed')).toHaveLength(4);
  });
});
