import { eq, sql } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import type { TestPlatform } from '../../test/platform.ts';
import { tokenFamilies } from '../db/schema/index.ts';
import { signAccessToken, type PartnerAuth } from './access-token.ts';
import { signingKeysFor } from './keys.ts';
import { startWithPartner, type TestPartner } from './testing.ts';

let platform: TestPlatform;
let partner: TestPartner;
let orgId: string;
beforeAll(async () => {
  ({ platform, partner } = await startWithPartner());
  orgId = await partner.org();
});
afterAll(() => platform?.stop());

const list = (headers: Record<string, string>) =>
  call('GET', `${platform.url}/tokens?org_id=${orgId}`, { headers });
const bearer = (token: string) => list({ authorization: `Bearer ${token}` });

/** The claims of a real token, to re-sign them differently. */
function authOfToken(token: string): PartnerAuth {
  const c = decodeJwt(token);
  return {
    partnerId: c.partner_id as string,
    clientId: c.sub!,
    orgId: null,
    scopes: (c.scope as string).split(' ') as PartnerAuth['scopes'],
    familyId: c.fam as string,
  };
}

describe('bearer security', () => {
  it('accepts a valid token, with any case of the scheme', async () => {
    expect((await bearer(partner.token)).status).toBe(200);
    expect((await list({ authorization: `bearer ${partner.token}` })).status).toBe(200);
  });

  it('answers 401 missing_token without a bearer header, with WWW-Authenticate', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer ' },
    ] as Record<string, string>[]) {
      const res = await list(headers);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('missing_token');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="partner-api"');
    }
  });

  it('answers 401 invalid_token for garbage, a tampered token or a foreign signature', async () => {
    const [h, p, s] = partner.token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, partner_id: 'ptr_other' })).toString('base64url')}.${s}`;
    const foreignKey = await generateKeyPair('ES256');
    const foreign = await signAccessToken(
      { kid: decodeProtectedHeader(partner.token).kid!, key: foreignKey.privateKey },
      platform.config.publicUrl,
      authOfToken(partner.token),
      600,
    );
    const keys = signingKeysFor(platform.app.ctx.db, platform.config.encryptionKey);
    const otherIssuer = await signAccessToken(
      await keys.current(),
      'https://evil.example',
      authOfToken(partner.token),
      600,
    );
    const unknownKid = await signAccessToken(
      { kid: 'key_unknown', key: foreignKey.privateKey },
      platform.config.publicUrl,
      authOfToken(partner.token),
      600,
    );
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const nulKid = `${b64({ alg: 'ES256', typ: 'at+jwt', kid: 'key_\u0000' })}.${p}.${s}`;
    for (const token of [
      nulKid,
      'not-a-jwt',
      'a.b.c',
      tampered,
      foreign,
      otherIssuer,
      unknownKid,
      `${partner.token}x`,
    ]) {
      const res = await bearer(token);
      expect(res.status, token).toBe(401);
      expect(res.body.error.code).toBe('invalid_token');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="partner-api", error="invalid_token"');
    }
  });

  it('answers 401 token_expired for an expired access token', async () => {
    const keys = signingKeysFor(platform.app.ctx.db, platform.config.encryptionKey);
    const twoHoursAgo = Math.floor(Date.now() / 1000) - 7200;
    const expired = await signAccessToken(
      await keys.current(),
      platform.config.publicUrl,
      authOfToken(partner.token),
      3600,
      twoHoursAgo,
    );
    const res = await bearer(expired);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('token_expired');
  });

  it('answers 401 invalid_token for a token whose family does not exist', async () => {
    const keys = signingKeysFor(platform.app.ctx.db, platform.config.encryptionKey);
    const orphan = await signAccessToken(
      await keys.current(),
      platform.config.publicUrl,
      {
        ...authOfToken(partner.token),
        familyId: 'fam_unknown',
      },
      600,
    );
    expect((await bearer(orphan)).body.error.code).toBe('invalid_token');
  });

  it('answers 403 insufficient_scope naming the missing scope', async () => {
    const res = await bearer(await partner.tokenWith(['billing', 'sso']));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('user');
  });

  it('answers 401 token_expired once a token it accepted before has expired', async () => {
    const keys = signingKeysFor(platform.app.ctx.db, platform.config.encryptionKey);
    const shortLived = await signAccessToken(
      await keys.current(),
      platform.config.publicUrl,
      authOfToken(partner.token),
      // `iat` is whole seconds (rounded down), so a 1-second token may be expired at once on a busy machine.
      3,
    );
    expect((await bearer(shortLived)).status).toBe(200);
    const { exp } = decodeJwt(shortLived);
    await new Promise((r) => setTimeout(r, exp! * 1000 - Date.now() + 50));
    const res = await bearer(shortLived);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('token_expired');
  });
});

describe('bearer security after a revocation', () => {
  const revokeFamilyOf = (token: string) =>
    platform.app.ctx.db
      .update(tokenFamilies)
      .set({ revokedAt: sql`now()` })
      .where(eq(tokenFamilies.id, decodeJwt(token).fam as string));

  it('refuses a token of a revoked family at once, whatever else is wrong with the request', async () => {
    const token = await partner.tokenWith(['user', 'sso']);
    const limited = await partner.tokenWith(['billing']);
    const other = await partner.org();
    expect((await bearer(token)).status).toBe(200);
    expect((await bearer(limited)).status).toBe(403);
    await revokeFamilyOf(token);
    await revokeFamilyOf(limited);
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });
    for (const [what, res] of [
      ['the list', await bearer(token)],
      ['another org', await call('GET', `${platform.url}/tokens?org_id=${other}`, { headers: auth(token) })],
      [
        'an unknown org',
        await call('GET', `${platform.url}/tokens?org_id=org_nope`, { headers: auth(token) }),
      ],
      ['no org_id', await call('GET', `${platform.url}/tokens`, { headers: auth(token) })],
      ['a missing scope', await bearer(limited)],
      [
        'a write',
        await call('POST', `${platform.url}/tokens`, {
          token,
          body: { org_id: orgId, token_name: 'x', scopes: ['user'] },
        }),
      ],
    ] as const) {
      expect(res.status, what).toBe(401);
      expect(res.body.error.code, what).toBe('invalid_token');
      expect(res.headers.get('www-authenticate'), what).toBe(
        'Bearer realm="partner-api", error="invalid_token"',
      );
    }
    // Other tokens of the same client are other families: untouched.
    expect((await bearer(partner.token)).status).toBe(200);
  });
});
