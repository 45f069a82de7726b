import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { requestAccessToken, testPartner, type TestPartner } from '../auth/testing.ts';
import { rotateSecret } from './service.ts';

let platform: TestPlatform;
let alice: TestPartner;
let bob: TestPartner;
let aliceOrg: string;
let bobOrg: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  [alice, bob] = await Promise.all([testPartner(platform), testPartner(platform)]);
  [aliceOrg, bobOrg] = await Promise.all([alice.org(), bob.org()]);
});
afterAll(() => platform?.stop());

const person = { email: 'ana@example.com', full_name: 'Ana Lima', phone_number: '+14155550123' };
const loginToken = async (token: string, orgId: string) => {
  const res = await call('POST', `${platform.url}/white-label/generate-session`, {
    token,
    body: { ...person, provider_org_id: orgId },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.sso_login_token as string;
};
const redeem = (sso_login_token: string) =>
  call('POST', `${platform.url}/white-label/sso/redeem`, { body: { sso_login_token } });
const listTokens = (token: string, orgId: string) =>
  call('GET', `${platform.url}/tokens?org_id=${orgId}`, { token });

describe('rotating the root client secret', () => {
  it('revokes everything the old secret could have obtained: tokens, partner tokens, open SSO logins', async () => {
    const partnerToken = await alice.orgToken(aliceOrg, ['user', 'sso']);
    const rootLogin = await loginToken(alice.token, aliceOrg);
    const partnerLogin = await loginToken(partnerToken.grant.access_token, aliceOrg);
    // Bob's are another partner's: untouched.
    const bobToken = await bob.orgToken(bobOrg, ['user']);
    const bobLogin = await loginToken(bob.token, bobOrg);

    const rotated = await rotateSecret(platform.app.ctx.db, platform.config.encryptionKey, alice.partner_id, [
      'client',
    ]);

    // The root client's access tokens, and the old secret.
    expect((await listTokens(alice.token, aliceOrg)).body.error.code).toBe('invalid_token');
    await expect(requestAccessToken(platform.url, alice)).rejects.toThrow(/401/);
    // Its partner tokens: their access tokens, refresh tokens and credentials.
    expect((await listTokens(partnerToken.grant.access_token, aliceOrg)).body.error.code).toBe(
      'invalid_token',
    );
    const refreshed = await call('POST', `${platform.url}/oauth/token`, {
      body: {
        grant_type: 'refresh_token',
        client_id: partnerToken.id,
        client_secret: partnerToken.secret,
        refresh_token: partnerToken.grant.refresh_token,
      },
    });
    expect([refreshed.status, refreshed.body.error.code]).toEqual([400, 'invalid_grant']);
    await expect(
      requestAccessToken(platform.url, { client_id: partnerToken.id, client_secret: partnerToken.secret }),
    ).rejects.toThrow(/401/);
    // The SSO login tokens not yet redeemed, whichever client generated them.
    const ended = (await redeem(rootLogin)).body.error;
    expect(ended.code).toBe('sso_token_expired');
    expect(ended.message).toMatch(/rotation of the partner's client secret ends it/);
    expect((await redeem(partnerLogin)).body.error.code).toBe('sso_token_invalid');

    // The new secret works, and a partner token made now is live.
    const fresh = await requestAccessToken(platform.url, {
      client_id: rotated.client_id!,
      client_secret: rotated.client_secret!,
    });
    expect((await listTokens(fresh.access_token, aliceOrg)).body.tokens).toEqual([]);
    expect((await redeem(await loginToken(fresh.access_token, aliceOrg))).status).toBe(200);

    expect((await listTokens(bobToken.grant.access_token, bobOrg)).status).toBe(200);
    expect((await redeem(bobLogin)).status).toBe(200);
  });

  it('revokes nothing when only the webhook secret is rotated', async () => {
    const carol = await testPartner(platform);
    const org = await carol.org();
    const partnerToken = await carol.orgToken(org, ['user']);
    await rotateSecret(platform.app.ctx.db, platform.config.encryptionKey, carol.partner_id, ['webhook']);
    expect((await listTokens(carol.token, org)).status).toBe(200);
    expect((await listTokens(partnerToken.grant.access_token, org)).status).toBe(200);
  });
});
