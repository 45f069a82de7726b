import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { secret } from '../../secret.ts';

/**
 * The merchant OAuth flow a POS and a DSP both build (wire-notes: "OAuth between the platform and
 * a POS or DSP"). The two differ only in path prefix, the token answer's status, `redirect_uri` in
 * the token request and `sso_details` in its answer, so both documents build on these pieces and
 * {@link merchantOAuth} makes both pairs of operations.
 */

export const AuthorizeQuery = z
  .object({
    client_id: z.string().min(1).meta({ description: 'The client id you issued to the platform.' }),
    response_type: z.literal('code').meta({ description: 'Always `code`.' }),
    redirect_uri: z.url({ protocol: /^https?$/ }).meta({
      description: 'Where to send the merchant back, with `code` and `state` added to its query.',
    }),
    state: z
      .string()
      .max(2048)
      .optional()
      .meta({ description: 'Opaque value the platform checks on return; echo it back unchanged.' }),
  })
  .meta({ id: 'MerchantAuthorizeQuery' });

const clientFields = {
  client_id: z.string().min(1).meta({ description: 'The client id you issued to the platform.' }),
  client_secret: secret(
    z.string().min(1).meta({ description: 'The client secret you issued to the platform.' }),
  ),
};

export const AuthorizationCodeGrant = z.object({
  ...clientFields,
  grant_type: z.literal('authorization_code'),
  code: secret(
    z.string().min(1).meta({ description: 'The code you added to `redirect_uri`; single use, short-lived.' }),
  ),
});

export const RefreshTokenGrant = z.object({
  ...clientFields,
  grant_type: z.literal('refresh_token'),
  refresh_token: secret(z.string().min(1).meta({ description: 'A refresh token from an earlier answer.' })),
});

/**
 * The token answer. The platform reads it liberally: it needs the two tokens and `expire_time`;
 * `refresh_token_expire_time` and `id` are kept when sent, and unknown fields are ignored.
 */
export const MerchantTokens = z.object({
  access_token: secret(
    z.string().min(1).meta({ description: 'Sent as `Authorization: Bearer` on every later call.' }),
  ),
  refresh_token: secret(
    z.string().min(1).meta({ description: 'Exchanged for new tokens before `expire_time`.' }),
  ),
  expire_time: z.number().int().meta({ description: 'When the access token expires, epoch milliseconds.' }),
  refresh_token_expire_time: z
    .number()
    .int()
    .optional()
    .meta({ description: 'When the refresh token expires, epoch milliseconds.' }),
  // The spec gives the account id no type, and many systems number their accounts.
  id: z
    .union([z.string().min(1), z.number().int()])
    .optional()
    .meta({
      description:
        'Your id of the merchant account that logged in; one set of tokens per login. A number is kept as its decimal string.',
    }),
});

export const SsoDetails = z
  .object({
    email: z.string().optional(),
    full_name: z.string().optional(),
    phone_number: z.string().optional(),
  })
  .meta({
    id: 'MerchantSsoDetails',
    description: 'Who logged in, so the platform can offer single sign-on.',
  });

export const EXAMPLE_TOKENS = {
  access_token: 'at_3q2mK8vX0pQ',
  refresh_token: 'rt_9LmN4bR7sT1',
  expire_time: 1767229200000,
  refresh_token_expire_time: 1769817600000,
  id: 'demo-merchant',
};

const EXAMPLE_SSO_DETAILS = {
  email: 'owner@demo-merchant.example',
  full_name: 'Dana Whitfield',
  phone_number: '+14155550123',
};

const AUTHORIZE_DESCRIPTION = (who: string) =>
  `The platform sends the merchant's browser here to connect their ${who} account. Log the merchant
in (your own login page), ask them to approve the platform, then redirect to \`redirect_uri\` with
\`code\` (single use, valid a few minutes) and \`state\` added to its query string. Reject an
unknown \`client_id\` or a \`redirect_uri\` you did not register without redirecting; when the
merchant declines, redirect with \`error=access_denied\` and \`state\`.`;

const TOKEN_DESCRIPTION = `Exchanges an authorization code, or a refresh token, for the
merchant's tokens. Answer 401 when the client credentials are wrong or the code or refresh token is
unknown, expired, already used or was issued to another client. The platform refreshes before
\`expire_time\` and again when a call answers 401.`;

const CLIENT_EXAMPLE = { client_id: 'stream-platform', client_secret: 'cs_live_2b7x' };

/** Both grants of a token request, as named examples. */
const tokenRequestExamples = (redirectUri: boolean) => ({
  authorization_code: {
    summary: 'Exchange an authorization code',
    value: {
      ...CLIENT_EXAMPLE,
      grant_type: 'authorization_code',
      code: 'ac_5hT0q',
      ...(redirectUri ? { redirect_uri: 'https://platform.example.com/onboarding/callback' } : {}),
    },
  },
  refresh_token: {
    summary: 'Refresh before expire_time (or after a 401)',
    value: { ...CLIENT_EXAMPLE, grant_type: 'refresh_token', refresh_token: 'rt_9LmN4bR7sT1' },
  },
});

const OAUTH_TAG = {
  OAuth: "How the platform gets a merchant's tokens: your login page (authorize), then the token exchange.",
};

/** What tells the POS flow from the DSP one, besides the path prefix (wire-notes). */
const SIDES = {
  pos: { api: 'become-a-pos', who: 'POS', tokenStatus: 201, redirectUri: true, ssoDetails: true },
  dsp: { api: 'become-a-dsp', who: 'DSP', tokenStatus: 200, redirectUri: false, ssoDetails: false },
} as const;
export type MerchantSide = keyof typeof SIDES;

/**
 * The authorize and token operations one side builds, with what its token endpoint differs in:
 * the answer's status, whether the request carries `redirect_uri` and the answer `sso_details`.
 * `tokens` are that side's named token request and answer schemas.
 */
export function merchantOAuth<S extends MerchantSide, Req extends z.ZodType, Res extends z.ZodType>(
  side: S,
  tokens: { request: Req; response: Res },
) {
  const { api, who, tokenStatus, redirectUri, ssoDetails } = SIDES[side];
  const requestExamples = tokenRequestExamples(redirectUri);
  const authorize = defineOperation({
    api,
    operationId: `${side}Authorize`,
    method: 'GET',
    path: `/stream-${side}/v1/authorize`,
    summary: 'Log a merchant in and authorize the platform',
    description: AUTHORIZE_DESCRIPTION(who),
    tags: ['OAuth'],
    tagDescriptions: OAUTH_TAG,
    security: { kind: 'none' },
    servedBy: 'partner',
    request: {
      query: AuthorizeQuery,
      example: {
        client_id: 'stream-platform',
        response_type: 'code',
        redirect_uri: 'https://platform.example.com/onboarding/callback',
        state: 'st_8f2k1',
      },
    },
    responses: {
      302: {
        description: 'The merchant approved (or declined): back to `redirect_uri` with `code` and `state`.',
        headers: {
          Location: {
            description:
              '`redirect_uri?code=...&state=...`, or `redirect_uri?error=access_denied&state=...`.',
            schema: z.string(),
          },
        },
      },
      200: { description: 'Your login and consent page.', contentType: 'text/html' },
    },
    errors: ['validation_failed', 'invalid_client'],
  });
  const token = defineOperation({
    api,
    operationId: `${side}Token`,
    method: 'POST',
    path: `/stream-${side}/v1/token`,
    summary: 'Exchange a code or refresh token for merchant tokens',
    description: TOKEN_DESCRIPTION,
    tags: ['OAuth'],
    security: { kind: 'client-credentials' },
    servedBy: 'partner',
    request: {
      body: tokens.request,
      example: requestExamples.authorization_code.value,
      examples: requestExamples,
    },
    responses: {
      [tokenStatus]: {
        description: "The merchant's tokens.",
        schema: tokens.response,
        example: ssoDetails ? { ...EXAMPLE_TOKENS, sso_details: EXAMPLE_SSO_DETAILS } : EXAMPLE_TOKENS,
      },
    },
    errors: ['validation_failed', 'invalid_client', 'grant_rejected'],
  });
  return { authorize, token, tokenStatus, redirectUri, ssoDetails };
}
