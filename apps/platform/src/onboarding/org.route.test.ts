import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_ORG_ID } from '@stream/contracts/apis/partner/shared';
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
      org_id: expect.stringMatching(PLATFORM_ORG_ID), // the shape a provider_id may not have
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

  it("refuses a provider_id shaped like a platform org id (it could be another org's id): 400 naming it", async () => {
    const a = await createOrg(partner.token, body('merchant-7'));
    // Had B been created with A's id as its provider_id, that id would name both A and B.
    const b = await createOrg(partner.token, body(` ${a.body.org_id} `));
    expect([b.status, b.body.error.code, b.body.error.details]).toEqual([400, 'validation_failed', [{ path: 'body.provider_id', message: expect.stringContaining('org_ and 24') }]]);
    expect(b.body.error.message).toBe('body.provider_id: must not have the shape of a platform organisation id (org_ and 24 lowercase hex digits), which calls that take either id could not tell apart; choose another id');
    const own = await platform.app.ctx.db.select({ providerId: orgs.providerId }).from(orgs).where(eq(orgs.partnerId, partner.partner_id));
    expect(own.map((o) => o.providerId)).not.toContain(a.body.org_id);
    // Only that exact shape is reserved: other ids starting with org_ are the partner's to choose.
    for (const id of ['org_01HZX3KQ7Y8E2M4N6P8R0T2V4W', `org_${'A'.repeat(24)}`, `org_${'a'.repeat(25)}`, `xorg_${'a'.repeat(24)}`])
      expect([id, (await createOrg(partner.token, body(id))).status]).toEqual([id, 201]);
  }); // prettier-ignore

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
