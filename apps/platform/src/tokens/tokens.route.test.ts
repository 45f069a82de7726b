import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '@stream/contracts/common';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { requestAccessToken, testPartner, type TestPartner } from '../auth/testing.ts';
import { apiClients } from '../db/schema/index.ts';
import { setRootScopes } from '../partners/service.ts';
import { sha256Hex } from '../http/secrets.ts';

let platform: TestPlatform;
let alice: TestPartner;
let bob: TestPartner;
let aliceOrg: string;
let aliceOrg2: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  [alice, bob] = await Promise.all([testPartner(platform), testPartner(platform)]);
  aliceOrg = await alice.org();
  aliceOrg2 = await alice.org();
});
afterAll(() => platform?.stop());

const url = (path: string) => `${platform.url}${path}`;
const create = (token: string, body: Record<string, unknown>) =>
  call('POST', url('/tokens'), { token, body });
const list = (token: string, orgId: string) => call('GET', url(`/tokens?org_id=${orgId}`), { token });
const rename = (token: string, id: string, token_name: string) =>
  call('PUT', url(`/tokens/${id}`), { token, body: { token_name } });
const revoke = (token: string, id: string) => call('DELETE', url(`/tokens/${id}`), { token });

/** A partner token of alice for aliceOrg, and an access token from it. */
const orgToken = (scopes: Scope[] = ['user', 'onboarding']) => alice.orgToken(aliceOrg, scopes);

describe('partner tokens', () => {
  it('create, list, exchange, rename and revoke', async () => {
    const created = await create(alice.token, {
      org_id: aliceOrg,
      token_name: '  POS bridge ',
      scopes: ['sso', 'onboarding', 'sso'],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toEqual({
      token: {
        _id: expect.stringMatching(/^cli_/),
        org_id: aliceOrg,
        token_name: 'POS bridge',
        scopes: ['sso', 'onboarding'],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      secret: expect.stringMatching(/^sk_/),
    });
    const { token, secret } = created.body;
    const [row] = await platform.app.ctx.db.select().from(apiClients).where(eq(apiClients.id, token._id));
    expect(row!.secretHash).toBe(sha256Hex(secret)); // only the hash is stored
    expect(row!.partnerId).toBe(alice.partner_id);

    const listed = await list(alice.token, aliceOrg);
    expect(listed.status).toBe(200);
    expect(listed.body.tokens).toContainEqual(token);
    expect(listed.text).not.toContain(secret);

    // the token is an API client: its id and secret get an org-limited JWT
    const grant = await requestAccessToken(platform.url, { client_id: token._id, client_secret: secret });
    expect(grant.scopes).toEqual(['onboarding', 'sso']);
    expect(decodeJwt(grant.access_token)).toMatchObject({
      sub: token._id,
      org_id: aliceOrg,
      partner_id: alice.partner_id,
    });

    // Its scopes never change: a `scopes` field is refused, not silently ignored.
    const rescoped = await call('PUT', url(`/tokens/${token._id}`), {
      token: alice.token,
      body: { token_name: 'x', scopes: ['sso'] },
    });
    expect([rescoped.status, rescoped.body.error.code, rescoped.body.error.details[0].path]).toEqual([
      400,
      'validation_failed',
      'body',
    ]);
    expect(rescoped.body.error.message).toContain('scopes');
    const renamed = await rename(alice.token, token._id, 'POS bridge (prod)');
    expect(renamed.status).toBe(200);
    expect(renamed.body.token).toMatchObject({
      _id: token._id,
      token_name: 'POS bridge (prod)',
      scopes: ['sso', 'onboarding'],
    });
    expect(Date.parse(renamed.body.token.updated_at)).toBeGreaterThanOrEqual(Date.parse(token.updated_at));
    expect((await list(alice.token, aliceOrg)).body.tokens).toContainEqual(renamed.body.token);

    const revoked = await revoke(alice.token, token._id);
    expect(revoked.status).toBe(200);
    expect(revoked.body.token).toMatchObject({
      _id: token._id,
      token_name: 'POS bridge (prod)',
      revoked: true,
    });
    expect((await list(alice.token, aliceOrg)).body.tokens.map((t: { _id: string }) => t._id)).not.toContain(
      token._id,
    );

    // revocation is immediate: credentials, refresh tokens and issued access tokens all stop working
    const again = await call('POST', url('/oauth/token'), {
      body: { grant_type: 'client_credentials', client_id: token._id, client_secret: secret },
    });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('invalid_client');
    const refreshed = await call('POST', url('/oauth/token'), {
      body: {
        grant_type: 'refresh_token',
        client_id: token._id,
        client_secret: secret,
        refresh_token: grant.refresh_token,
      },
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error.code).toBe('invalid_grant');
    const used = await list(grant.access_token, aliceOrg);
    expect(used.status).toBe(401);
    expect(used.body.error.code).toBe('invalid_token');

    expect((await revoke(alice.token, token._id)).status).toBe(404);
    expect((await rename(alice.token, token._id, 'x')).status).toBe(404);
  });

  it('only grants scopes the calling token has', async () => {
    const narrow = await alice.tokenWith(['user', 'sso']);
    const res = await create(narrow, {
      org_id: aliceOrg,
      token_name: 'too much',
      scopes: ['sso', 'billing'],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_scope');
    expect(res.body.error.message).toContain('billing');
    expect((await create(narrow, { org_id: aliceOrg, token_name: 'ok', scopes: ['sso'] })).status).toBe(201);
  });

  it("only grants scopes the calling token's client still has", async () => {
    const carol = await testPartner(platform);
    const org = await carol.org();
    // Stream takes billing from carol: her access token still says billing until it expires.
    await setRootScopes(platform.app.ctx.db, carol.partner_id, ['user', 'onboarding', 'sso']);
    const res = await create(carol.token, { org_id: org, token_name: 'stale', scopes: ['billing'] });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_scope']);
    expect(res.body.error.message).toContain('not billing');
    expect((await create(carol.token, { org_id: org, token_name: 'ok', scopes: ['sso'] })).status).toBe(201);
  });

  it('limits an org token to its organisation', async () => {
    const { id, grant } = await orgToken(['user', 'onboarding']);
    const t = grant.access_token;
    expect((await list(t, aliceOrg)).status).toBe(200);
    expect((await list(t, aliceOrg2)).status).toBe(404);
    expect((await create(t, { org_id: aliceOrg2, token_name: 'x', scopes: ['user'] })).status).toBe(404);
    const child = await create(t, { org_id: aliceOrg, token_name: 'child', scopes: ['onboarding'] });
    expect(child.status).toBe(201);
    const escalate = await create(t, { org_id: aliceOrg, token_name: 'x', scopes: ['billing'] });
    expect(escalate.body.error.code).toBe('invalid_scope');

    // tokens of the other org, and the root client, are invisible to it
    const other = await create(alice.token, { org_id: aliceOrg2, token_name: 'other org', scopes: ['user'] });
    expect((await rename(t, other.body.token._id, 'x')).status).toBe(404);
    expect((await revoke(t, other.body.token._id)).status).toBe(404);
    expect((await rename(t, alice.client_id, 'x')).status).toBe(404);
    // ...and it can rename and revoke its own
    expect((await rename(t, id, 'renamed by itself')).status).toBe(200);
    expect((await revoke(t, id)).status).toBe(200);
    expect((await list(t, aliceOrg)).body.error.code).toBe('invalid_token');
  });

  it('never lists or changes the root client', async () => {
    expect((await rename(alice.token, alice.client_id, 'x')).status).toBe(404);
    expect((await revoke(alice.token, alice.client_id)).status).toBe(404);
    expect((await list(alice.token, aliceOrg)).body.tokens.map((t: { _id: string }) => t._id)).not.toContain(
      alice.client_id,
    );
  });

  it('answers 404 on every route to another partner, and changes nothing', async () => {
    const { id } = await orgToken();
    const attempts = [
      await list(bob.token, aliceOrg),
      await create(bob.token, { org_id: aliceOrg, token_name: 'intruder', scopes: ['user'] }),
      await rename(bob.token, id, 'hijacked'),
      await revoke(bob.token, id),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const mine = (await list(alice.token, aliceOrg)).body.tokens.find((t: { _id: string }) => t._id === id);
    expect(mine.token_name).toBe('org token');
  });

  it('answers 403 insufficient_scope on every route to a token without `user`', async () => {
    const { id } = await orgToken();
    const t = await alice.tokenWith(['onboarding', 'sso', 'billing', 'legacy_onboarding']);
    for (const res of [
      await list(t, aliceOrg),
      await create(t, { org_id: aliceOrg, token_name: 'x', scopes: ['sso'] }),
      await rename(t, id, 'x'),
      await revoke(t, id),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
    }
  });

  it('says to send a query parameter once when it comes twice', async () => {
    const res = await call('GET', url(`/tokens?org_id=${aliceOrg}&org_id=${aliceOrg}`), {
      token: alice.token,
    });
    expect([res.status, res.body.error.message]).toEqual([
      400,
      'querystring.org_id: must be a string, sent once.',
    ]);
  });

  it('answers 404 for an organisation that does not exist', async () => {
    expect((await list(alice.token, 'org_missing')).status).toBe(404);
    expect(
      (await create(alice.token, { org_id: 'org_missing', token_name: 'x', scopes: ['user'] })).status,
    ).toBe(404);
  });
});
