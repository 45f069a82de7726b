import { eq } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, isHostedScope } from '@stream/contracts/common';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { refreshTokens, tokenFamilies } from '../db/schema/index.ts';
import { sha256Hex } from '../http/secrets.ts';
import {
  refreshTokensUsedAMinuteAgo,
  requestAccessToken,
  testPartner,
  type ClientCredentials,
} from '../auth/testing.ts';

let platform: TestPlatform;
let creds: Awaited<ReturnType<TestPlatform['partner']>>;
beforeAll(async () => {
  platform = await startTestPlatform();
  creds = await platform.partner();
});
afterAll(() => platform?.stop());

const tokenUrl = () => `${platform.url}/oauth/token`;
const PARTNER_SCOPES = ALL_SCOPES.filter((s) => !isHostedScope(s));
const grant = (body: Record<string, unknown>) =>
  call('POST', tokenUrl(), {
    body: {
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
      ...body,
    },
  });
const refresh = (refresh_token: string, extra: Record<string, unknown> = {}) =>
  grant({ grant_type: 'refresh_token', refresh_token, ...extra });
/** Any bearer route: 200 proves the access token is accepted. */
const useToken = (token: string) => call('GET', `${platform.url}/tokens?org_id=org_none`, { token });

describe('POST /oauth/token, client_credentials', () => {
  it('answers 201 with the token pair, not cacheable, and a JWT carrying the documented claims', async () => {
    const res = await grant({});
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      refresh_token: expect.stringMatching(/^rt_/),
      expires_in: 3600,
      refresh_token_expires_in: 30 * 24 * 3600,
      scopes: PARTNER_SCOPES, // the hosted APIs' scopes come with a company grant
    });
    const header = decodeProtectedHeader(res.body.access_token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.stringMatching(/^key_/) });
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({
      iss: platform.config.publicUrl,
      sub: creds.client_id,
      partner_id: creds.partner_id,
      scope: PARTNER_SCOPES.join(' '),
      fam: expect.stringMatching(/^fam_/),
      jti: expect.any(String),
    });
    expect(claims.org_id).toBeUndefined();
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('accepts a form-urlencoded body with space-separated scopes and exp as a string', async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
      scopes: 'user billing',
      exp: '600',
    });
    const res = await call('POST', tokenUrl(), {
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(201);
    expect(res.body.scopes).toEqual(['user', 'billing']);
    expect(res.body.expires_in).toBe(600);
    const claims = decodeJwt(res.body.access_token);
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(claims.scope).toBe('user billing');
  });

  it('refuses a form field sent twice (RFC 6749 3.1), naming it, rather than keeping the last', async () => {
    const res = await call('POST', tokenUrl(), {
      body: `grant_type=client_credentials&client_id=${creds.client_id}&client_secret=${creds.client_secret}&scopes=sso&scopes=billing`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([res.status, res.body.error.code, res.body.error.details[0].path]).toEqual([400, 'validation_failed', 'body.scopes']);
  }); // prettier-ignore

  it('takes scopes as an array, and `scope` (RFC 6749 spelling) as a string', async () => {
    expect((await grant({ scopes: ['sso'] })).body.scopes).toEqual(['sso']);
    expect((await grant({ scope: 'billing sso' })).body.scopes).toEqual(['sso', 'billing']);
  });

  it('accepts exp = 3600 and rejects 3601 and other non-lifetimes with invalid_exp', async () => {
    expect((await grant({ exp: 3600 })).status).toBe(201);
    expect((await grant({ exp: 1 })).status).toBe(201);
    for (const exp of [3601, 0, -5, 1.5, 'abc', '3601', 1e12]) {
      const res = await grant({ exp });
      expect(res.status, `exp=${exp}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_exp');
    }
    // Not a number or text at all: the shape is wrong, and the answer still says what exp must be.
    for (const exp of [null, true, { seconds: 600 }]) {
      const res = await grant({ exp });
      expect(res.status, `exp=${JSON.stringify(exp)}`).toBe(400);
      expect(res.body.error.details).toEqual([
        {
          path: 'body.exp',
          message:
            'must be a number: a lifetime in whole seconds from 1 to 3600, or an expiry time in epoch seconds',
        },
      ]);
    }
  });

  it('also takes exp as the expiry time itself (epoch seconds, at most 1 hour ahead), as the spec can be read', async () => {
    const now = Math.floor(Date.now() / 1000);
    const res = await grant({ exp: now + 600 });
    expect(res.status, res.text).toBe(201);
    // The lifetime left until that time: 600 s, less the time the request took.
    expect(res.body.expires_in).toBeGreaterThan(500);
    expect(res.body.expires_in).toBeLessThanOrEqual(600);
    expect(decodeJwt(res.body.access_token).exp).toBeGreaterThan(now + 500);
    expect(decodeJwt(res.body.access_token).exp).toBeLessThanOrEqual(now + 600);
    for (const exp of [now - 60, now + 7200, String(now + 7200), (now + 600) * 1000]) {
      const refused = await grant({ exp });
      expect(refused.status, `exp=${exp}`).toBe(400);
      expect(refused.body.error.code).toBe('invalid_exp');
    }
  });

  it('answers 401 invalid_client for a wrong secret or an unknown client', async () => {
    for (const body of [
      { client_secret: `${creds.client_secret}x` },
      { client_secret: 'sk_wrong' },
      { client_id: 'cli_unknown' },
    ]) {
      const res = await grant(body);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_client');
      expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    }
  });

  it('takes the client credentials as HTTP Basic (RFC 6749 2.3.1), form-urlencoded, never in both places', async () => {
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    const form = (body: Record<string, string>, authorization: string) =>
      fetch(tokenUrl(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization }, body: new URLSearchParams(body) });
    const ok = await form({ grant_type: 'client_credentials' }, basic(creds.client_id, creds.client_secret));
    expect(ok.status).toBe(201);
    expect(decodeJwt(((await ok.json()) as { access_token: string }).access_token).sub).toBe(creds.client_id);
    // Each part form-urlencoded first: a `+` or `%3A` in a secret arrives decoded.
    const encoded = await form({ grant_type: 'client_credentials' }, basic(encodeURIComponent(creds.client_id), encodeURIComponent(creds.client_secret)));
    expect(encoded.status).toBe(201);
    const wrong = await form({ grant_type: 'client_credentials' }, basic(creds.client_id, 'sk_wrong'));
    expect([wrong.status, ((await wrong.json()) as { error: { code: string } }).error.code]).toEqual([401, 'invalid_client']);
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="stream", charset="UTF-8"'); // RFC 6749 5.2
    expect(ok.headers.get('www-authenticate')).toBeNull();
    for (const bad of ['Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from(':secret').toString('base64')}`]) {
      const res = await form({ grant_type: 'client_credentials' }, bad);
      expect([bad, res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([bad, 401, 'invalid_client']);
    }
    const both = await form({ grant_type: 'client_credentials', ...pick(creds) }, basic(creds.client_id, creds.client_secret));
    const error = ((await both.json()) as { error: { code: string; details: { path: string }[] } }).error;
    expect([both.status, error.code, error.details[0]!.path]).toEqual([400, 'validation_failed', 'headers.authorization']);
  }); // prettier-ignore

  it('answers 400 invalid_scope for a scope the client was not granted, or an unknown one', async () => {
    const limited = await platform.partner({ scopes: ['user', 'onboarding'] });
    const ok = await requestAccessToken(platform.url, limited);
    expect(ok.scopes).toEqual(['user', 'onboarding']);
    for (const scopes of [['user', 'billing'], ['sso'], 'user admin']) {
      const res = await call('POST', tokenUrl(), {
        body: { grant_type: 'client_credentials', ...pick(limited), scopes },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_scope');
    }
    // An empty list asks for no scope: refused, not answered with every scope; a blank string, as OAuth
    // libraries send `scope=` for "no preference", is the default.
    const none = await call('POST', tokenUrl(), { body: { grant_type: 'client_credentials', ...pick(limited), scopes: [] } });
    expect([none.status, none.body.error?.code, none.body.error?.message]).toEqual([400, 'invalid_scope', 'scopes names no scope; leave it out for every scope of the client, or name at least one.']);
    const blank = await call('POST', tokenUrl(), { body: { grant_type: 'client_credentials', ...pick(limited), scope: '' } });
    expect([blank.status, blank.body.scopes]).toEqual([201, ['user', 'onboarding']]);
  }); // prettier-ignore

  it('answers 400 unsupported_grant_type and validation_failed for missing fields', async () => {
    const unknown = await grant({ grant_type: 'password' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('unsupported_grant_type');
    for (const missing of ['grant_type', 'client_id', 'client_secret']) {
      const body: Record<string, unknown> = { grant_type: 'client_credentials', ...pick(creds) };
      delete body[missing];
      const res = await call('POST', tokenUrl(), { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'validation_failed',
        details: [{ path: `body.${missing}` }],
      });
    }
    const noRefresh = await grant({ grant_type: 'refresh_token' });
    expect(noRefresh.status).toBe(400);
    expect(noRefresh.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'body.refresh_token' }],
    });
  });
});

describe('POST /oauth/token, refresh_token', () => {
  it('exchanges a refresh token once for a new pair of the same family', async () => {
    const first = (await grant({ scopes: ['user', 'sso'] })).body;
    const res = await refresh(first.refresh_token, { exp: 120 });
    expect(res.status).toBe(201);
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    expect(res.body.scopes).toEqual(['user', 'sso']);
    expect(res.body.expires_in).toBe(120);
    expect(decodeJwt(res.body.access_token).fam).toBe(decodeJwt(first.access_token).fam);
    expect((await useToken(res.body.access_token)).status).toBe(404); // authenticated; the org does not exist
  });

  it('may narrow the scopes of the original grant, never widen them', async () => {
    const first = (await grant({ scopes: ['user', 'sso'] })).body;
    const wider = await refresh(first.refresh_token, { scopes: ['user', 'billing'] });
    expect(wider.status).toBe(400);
    expect(wider.body.error.code).toBe('invalid_scope');
    const narrower = await refresh(first.refresh_token, { scopes: 'sso' });
    expect(narrower.status).toBe(201);
    expect(narrower.body.scopes).toEqual(['sso']);
    // the family keeps its original scopes
    expect((await refresh(narrower.body.refresh_token)).body.scopes).toEqual(['user', 'sso']);
  });

  it('revokes the whole family when a refresh token is reused', async () => {
    const first = (await grant({})).body;
    const second = (await refresh(first.refresh_token)).body;
    const third = (await refresh(second.refresh_token)).body;
    expect((await useToken(third.access_token)).status).toBe(404);

    await refreshTokensUsedAMinuteAgo(platform); // past the grace of a racing exchange
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error.code).toBe('refresh_token_reused');

    // every refresh and access token of the family is dead, including the newest
    const latest = await refresh(third.refresh_token);
    expect(latest.status).toBe(400);
    expect(latest.body.error.code).toBe('invalid_grant');
    for (const t of [first, second, third]) {
      const res = await useToken(t.access_token);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_token');
    }
    const fam = decodeJwt(first.access_token).fam as string;
    const [family] = await platform.app.ctx.db.select().from(tokenFamilies).where(eq(tokenFamilies.id, fam));
    expect(family!.revokedAt).toBeInstanceOf(Date);
    expect(family!.revokedReason).toBe('refresh_token_reused');

    // other families of the same client are untouched
    const other = (await grant({})).body;
    expect((await useToken(other.access_token)).status).toBe(404);
  });

  it('answers invalid_grant for an unknown, expired or foreign refresh token', async () => {
    const unknown = await refresh('rt_not_a_token');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('invalid_grant');

    const mine = (await grant({})).body;
    const stranger = await platform.partner();
    const foreign = await call('POST', tokenUrl(), {
      body: { grant_type: 'refresh_token', ...pick(stranger), refresh_token: mine.refresh_token },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('invalid_grant');
    expect((await refresh(mine.refresh_token)).status).toBe(201); // the foreign attempt did not burn it

    const old = (await grant({})).body;
    await platform.app.ctx.db
      .update(refreshTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(refreshTokens.tokenHash, sha256Hex(old.refresh_token)));
    const expired = await refresh(old.refresh_token);
    expect(expired.status).toBe(400);
    expect(expired.body.error.code).toBe('invalid_grant');
  });

  it('still authenticates the client: a wrong secret is 401 invalid_client', async () => {
    const first = (await grant({})).body;
    const res = await refresh(first.refresh_token, { client_secret: 'sk_wrong' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_client');
  });

  it('lets one of concurrent exchanges of one refresh token win, and its pair keep working', async () => {
    const first = (await grant({})).body;
    const results = await Promise.all([1, 2, 3].map(() => refresh(first.refresh_token)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const lost of results.filter((r) => r.status === 400)) expect(lost.body.error.code).toBe('invalid_grant');
    const won = results.find((r) => r.status === 201)!.body;
    expect((await useToken(won.access_token)).status).toBe(404); // still live: the race revoked nothing
    expect((await refresh(won.refresh_token)).status).toBe(201);
    // A retry moments later is refused the same way, and revokes nothing either.
    const retry = await refresh(first.refresh_token);
    expect([retry.status, retry.body.error.code]).toEqual([400, 'invalid_grant']);
    expect(retry.body.error.message).toContain('exchanged moments ago');
  }); // prettier-ignore
});

describe('testPartner helper', () => {
  it('gives a working root-client token', async () => {
    const p = await testPartner(platform);
    expect((await useToken(p.token)).status).toBe(404);
  });
});

function pick(c: ClientCredentials): ClientCredentials {
  return { client_id: c.client_id, client_secret: c.client_secret };
}
