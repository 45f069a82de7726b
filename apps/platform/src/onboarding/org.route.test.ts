import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import type { TestPlatform } from '../../test/platform.ts';
import { startWithPartner, testPartner, type TestPartner } from '../auth/testing.ts';
import { lifecycleEvents, orgs, users } from '../db/schema/index.ts';

let platform: TestPlatform;
let partner: TestPartner;
beforeAll(async () => {
  ({ platform, partner } = await startWithPartner());
});
afterAll(() => platform?.stop());

const body = (provider_id: string) => ({
  name: "Luigi's Trattoria",
  provider_id,
  user: { email: 'Owner@Luigis.example', first_name: 'Luigi', last_name: 'Rossi' },
});
const createOrg = (token: string, b: unknown) =>
  call('POST', `${platform.url}/onboarding/org`, { token, body: b });

describe('POST /onboarding/org', () => {
  it('creates an org of the calling partner with an owner, and records it for billing', async () => {
    const res = await createOrg(partner.token, body('merchant-1'));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      org_id: expect.stringMatching(/^org_/),
      user_id: expect.stringMatching(/^usr_/),
    });
    const { db } = platform.app.ctx;
    const [org] = await db.select().from(orgs).where(eq(orgs.id, res.body.org_id));
    expect(org).toMatchObject({
      partnerId: partner.partner_id,
      name: "Luigi's Trattoria",
      providerId: 'merchant-1',
    });
    const [user] = await db.select().from(users).where(eq(users.id, res.body.user_id));
    expect(user).toMatchObject({
      orgId: res.body.org_id,
      email: 'Owner@Luigis.example',
      firstName: 'Luigi',
      lastName: 'Rossi',
      role: 'owner',
    });
    const events = await db.select().from(lifecycleEvents).where(eq(lifecycleEvents.orgId, res.body.org_id));
    expect(events).toMatchObject([
      { partnerId: partner.partner_id, subjectType: 'org', subjectId: res.body.org_id, event: 'org_created' },
    ]);
  });

  it('answers 409 org_already_exists for a provider_id the partner already used, even concurrently', async () => {
    expect((await createOrg(partner.token, body('merchant-2'))).status).toBe(201);
    const again = await createOrg(partner.token, body('merchant-2'));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('org_already_exists');

    const racing = await Promise.all([1, 2, 3].map(() => createOrg(partner.token, body('merchant-3'))));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);

    // provider ids are per partner
    const other = await testPartner(platform);
    expect((await createOrg(other.token, body('merchant-2'))).status).toBe(201);
  });

  it('answers 403 insufficient_scope without the onboarding scope', async () => {
    const res = await createOrg(await partner.tokenWith(['user', 'sso', 'billing']), body('merchant-4'));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('onboarding');
  });

  it('answers 403 org_limited_token to a token limited to one organisation', async () => {
    const orgId = await partner.org('merchant-5');
    const { access_token } = (await partner.orgToken(orgId, ['onboarding'], 'org')).grant;
    const res = await createOrg(access_token, body('merchant-6'));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('org_limited_token');
  });

  it('validates the body field by field', async () => {
    const res = await createOrg(partner.token, { name: '', provider_id: 7, user: { email: 'nope' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.name',
      'body.provider_id',
      'body.user.email',
      'body.user.first_name',
      'body.user.last_name',
    ]);
  });
});
