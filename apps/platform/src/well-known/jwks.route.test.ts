import { eq, sql } from 'drizzle-orm';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import type { TestPlatform } from '../../test/platform.ts';
import { signingKeys } from '../db/schema/index.ts';
import { ensureSigningKey, rotateSigningKey } from '../auth/keys.ts';
import { requestAccessToken, startWithPartner, type TestPartner } from '../auth/testing.ts';

let platform: TestPlatform;
let partner: TestPartner;
beforeAll(async () => {
  ({ platform, partner } = await startWithPartner());
});
afterAll(() => platform?.stop());

const jwksUrl = () => `${platform.url}/.well-known/jwks.json`;
const newToken = async () => (await requestAccessToken(platform.url, partner)).access_token;
const kidOf = (token: string) => decodeProtectedHeader(token).kid;

describe('GET /.well-known/jwks.json', () => {
  it('publishes public keys only, with kid, alg and use', async () => {
    const res = await call('GET', jwksUrl());
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of res.body.keys) {
      expect(key).toEqual({
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: expect.any(String),
        alg: 'ES256',
        use: 'sig',
      });
    }
    expect(res.text).not.toContain('"d"');
  });

  it('verifies an issued token with jose createRemoteJWKSet', async () => {
    const token = await newToken();
    const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUrl())), {
      issuer: platform.config.publicUrl,
      algorithms: ['ES256'],
    });
    expect(payload.partner_id).toBe(partner.partner_id);
    expect(protectedHeader.kid).toBe(kidOf(token));
  });

  it('keeps one active key when the start-up check runs again (several processes starting)', async () => {
    const { db } = platform.app.ctx;
    const active = sql`${signingKeys.retiredAt} is null`;
    const before = await db.select().from(signingKeys).where(active);
    await Promise.all([
      ensureSigningKey(db, platform.config.encryptionKey),
      ensureSigningKey(db, platform.config.encryptionKey),
    ]);
    expect(await db.select().from(signingKeys).where(active)).toHaveLength(before.length);
    expect(before).toHaveLength(1);
    expect(before[0]!.privateJwkEnc).toMatch(/^v1\./); // the private key is stored encrypted
  });
});

describe('signing key rotation', () => {
  it('signs new tokens with the new key while old tokens keep verifying', async () => {
    const oldToken = await newToken();
    const oldKid = kidOf(oldToken);
    const { kid: newKid, retired } = await rotateSigningKey(
      platform.app.ctx.db,
      platform.config.encryptionKey,
    );
    expect(retired).toEqual([oldKid]);

    const newToken_ = await newToken();
    expect(kidOf(newToken_)).toBe(newKid);

    const jwks = await call('GET', jwksUrl());
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual([newKid, oldKid]);
    const keySet = createLocalJWKSet(jwks.body);
    for (const token of [oldToken, newToken_]) {
      await expect(jwtVerify(token, keySet, { issuer: platform.config.publicUrl })).resolves.toBeTruthy();
      expect((await call('GET', `${platform.url}/tokens?org_id=org_none`, { token })).status).toBe(404); // accepted
    }
  });

  it('drops a retired key from the JWKS once no token it signed can be valid', async () => {
    const { kid } = await rotateSigningKey(platform.app.ctx.db, platform.config.encryptionKey);
    await rotateSigningKey(platform.app.ctx.db, platform.config.encryptionKey);
    const listed = async () => (await call('GET', jwksUrl())).body.keys.map((k: { kid: string }) => k.kid);
    expect(await listed()).toContain(kid);
    await platform.app.ctx.db
      .update(signingKeys)
      .set({ retiredAt: new Date(Date.now() - 2 * 3600_000) })
      .where(eq(signingKeys.kid, kid));
    expect(await listed()).not.toContain(kid);
  });
});
