import { sql } from 'drizzle-orm';
/** Test helpers: Partner API access tokens over real HTTP, as a partner would get them. */
import type { OAuthTokenResponse } from '@stream/contracts/apis/partner/index';
import type { Scope } from '@stream/contracts/common';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';

export interface ClientCredentials {
  client_id: string;
  client_secret: string;
}

/** `POST /oauth/token` with client credentials; throws unless it answers 201. */
export async function requestAccessToken(
  baseUrl: string,
  creds: ClientCredentials,
  extra: Record<string, unknown> = {},
): Promise<OAuthTokenResponse> {
  const res = await call('POST', `${baseUrl}/oauth/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
      ...extra,
    },
  });
  if (res.status !== 201) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return res.body as OAuthTokenResponse;
}

export interface TestPartner extends ClientCredentials {
  partner_id: string;
  /** An access token of the (white-label) partner's root client with all its scopes. */
  token: string;
  /** An access token of the root client with only these scopes. */
  tokenWith(scopes: Scope[]): Promise<string>;
  /** Creates an org over the Partner API; answers its id. */
  org(providerId?: string): Promise<string>;
  /** A partner token limited to `orgId` (`POST /tokens`) and an access token of it. */
  orgToken(orgId: string, scopes: Scope[], name?: string): Promise<OrgToken>;
}

export interface OrgToken {
  /** The partner token's `_id` (its client_id). */
  id: string;
  secret: string;
  grant: OAuthTokenResponse;
}

let orgs = 0;

/** A new white-label partner with a root-client access token, ready to call the Partner API. */
export async function testPartner(platform: TestPlatform): Promise<TestPartner> {
  const creds = await platform.partner();
  const { access_token: token } = await requestAccessToken(platform.url, creds);
  return {
    partner_id: creds.partner_id,
    client_id: creds.client_id,
    client_secret: creds.client_secret,
    token,
    tokenWith: async (scopes) => (await requestAccessToken(platform.url, creds, { scopes })).access_token,
    org: async (providerId = `merchant-${++orgs}`) => {
      const res = await call('POST', `${platform.url}/onboarding/org`, {
        token,
        body: {
          name: `Org ${providerId}`,
          provider_id: providerId,
          user: { email: `owner-${providerId}@example.com`, first_name: 'Ada', last_name: 'Owner' },
        },
      });
      if (res.status !== 201) throw new Error(`org creation failed: ${res.status} ${res.text}`);
      return res.body.org_id as string;
    },
    orgToken: async (orgId, scopes, name = 'org token') => {
      const res = await call('POST', `${platform.url}/tokens`, {
        token,
        body: { org_id: orgId, token_name: name, scopes },
      });
      if (res.status !== 201) throw new Error(`partner token creation failed: ${res.status} ${res.text}`);
      const { _id: id } = res.body.token as { _id: string };
      const secret = res.body.secret as string;
      return {
        id,
        secret,
        grant: await requestAccessToken(platform.url, { client_id: id, client_secret: secret }),
      };
    },
  };
}

/** A test platform and a white-label partner on it: the set-up of most Partner API test files. */
export async function startWithPartner(): Promise<{ platform: TestPlatform; partner: TestPartner }> {
  const platform = await startTestPlatform();
  try {
    return { platform, partner: await testPartner(platform) };
  } catch (err) {
    await platform.stop();
    throw err;
  }
}

/** Every refresh token used so far, as if used a minute ago: past the grace of a racing exchange. */
export async function refreshTokensUsedAMinuteAgo(platform: TestPlatform): Promise<void> {
  await platform.app.ctx.db.execute(
    sql`update refresh_tokens set used_at = used_at - interval '1 minute' where used_at is not null`,
  );
}
