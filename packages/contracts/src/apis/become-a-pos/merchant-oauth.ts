import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { secret } from '../../secret.ts';
import { EPOCH_MS_MAX, partnerId } from '../../common.ts';

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

/** An expiry the platform can store: epoch milliseconds from 1970 to the end of 9999. */
const tokenExpiry = z
  .number()
  .int()
  .min(0, 'must be epoch milliseconds from 1970 to 9999')
  .max(EPOCH_MS_MAX, 'must be epoch milliseconds from 1970 to 9999');

/**
 * The answer to an authorization code (`grant_type=authorization_code`). The platform reads it
 * liberally: it needs the two tokens and `expire_time`; `refresh_token_expire_time` and `id` are
 * kept when sent, and unknown fields are ignored. Unlike RFC 6749 (section 4.1.4), the refresh token
 * is required here: without one the merchant's connection would silently end at `expire_time`.
 */
export const MerchantTokens = z.object({
  access_token: secret(
    z.string().min(1).meta({ description: 'Sent as `Authorization: Bearer` on every later call.' }),
  ),
  refresh_token: secret(
    z
      .string({
        error: (issue) =>
          issue.input === undefined
            ? 'required in the answer to an authorization code: the platform refreshes the access token with it (only the answer to a refresh may leave it out)'
            : undefined,
      })
      .min(1)
      .meta({ description: 'Exchanged for new tokens before `expire_time`.' }),
  ),
  expire_time: tokenExpiry.meta({ description: 'When the access token expires, epoch milliseconds.' }),
  refresh_token_expire_time: tokenExpiry.optional().meta({
    description: 'When the refresh token expires, epoch milliseconds. Left out: no known expiry.',
  }),
  id: partnerId(
    'Your id of the merchant account that logged in; one set of tokens per login.',
    1000,
  ).optional(),
});

/**
 * The answer to a refresh (`grant_type=refresh_token`): RFC 6749 section 6, the server MAY issue a
 * new refresh token. Without `refresh_token` the platform keeps the one it sent (and its expiry);
 * with one it discards the old. `refresh_token_expire_time` is the expiry of whichever it holds then.
 */
export const MerchantRefreshedTokens = MerchantTokens.extend({
  refresh_token: secret(
    z.string().min(1).meta({
      description:
        'A new refresh token, if you rotate them: the platform discards the one it sent. Leave it out to keep that one in use.',
    }),
  ).optional(),
  refresh_token_expire_time: tokenExpiry.optional().meta({
    description:
      'When the refresh token the platform holds after this answer expires (the new one, or the one it sent), epoch milliseconds. Left out: a kept token keeps its expiry; a new one has no known expiry.',
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

/** A refresh answered by a partner that does not rotate refresh tokens. */
export const EXAMPLE_REFRESHED_TOKENS = {
  access_token: 'at_7Wc1nZ5yH2e',
  expire_time: 1767232800000,
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
\`expire_time\` and again when a call answers 401.

The answer to a code must carry \`refresh_token\`. The answer to a refresh may leave it out (RFC 6749,
section 6): rotating refresh tokens is optional. Without one, the platform keeps refreshing with the
refresh token it sent, and keeps its \`refresh_token_expire_time\`; with one, it discards the old.`;

const CLIENT_EXAMPLE = { client_id: 'stream-platform', client_secret: 'cs_live_2b7x' };

/** Both grants of a token request, as named examples. */
const tokenRequestExamples = (redirectUri: boolean) => ({
  authorization_code: {
    summary: 'Exchange an authorization code',
    value: {
      ...CLIENT_EXAMPLE,
      grant_type: 'authorization_code',
      code: 'ac_5hT0q',
      ...(redirectUri ? { redirect_uri: 'https://platform.example.com/onboarding/oauth/callback' } : {}),
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
 * `tokens` are that side's named token request and answer schemas: `response` answers a code,
 * `refreshResponse` a refresh. The operation's answer is either; `answers` says which each grant
 * gets, so a caller reads the answer with the schema of the grant it sent.
 */
export function merchantOAuth<
  S extends MerchantSide,
  Req extends z.ZodType,
  Res extends z.ZodType,
  RefreshRes extends z.ZodType,
>(side: S, tokens: { request: Req; response: Res; refreshResponse: RefreshRes }) {
  const { api, who, tokenStatus, redirectUri, ssoDetails } = SIDES[side];
  const requestExamples = tokenRequestExamples(redirectUri);
  const codeAnswer = ssoDetails ? { ...EXAMPLE_TOKENS, sso_details: EXAMPLE_SSO_DETAILS } : EXAMPLE_TOKENS;
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
        redirect_uri: 'https://platform.example.com/onboarding/oauth/callback',
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
        description:
          "The merchant's tokens. The answer to a refresh may leave out `refresh_token` (and `refresh_token_expire_time`): the platform keeps the ones it has.",
        schema: z.union([tokens.response, tokens.refreshResponse]),
        examples: {
          authorization_code: { summary: 'The answer to a code', value: codeAnswer },
          refresh_token: {
            summary: 'The answer to a refresh, keeping the refresh token',
            description:
              'No `refresh_token`: the platform keeps the one it sent, and its expiry. Sending a new one (and its `refresh_token_expire_time`) is as valid.',
            value: EXAMPLE_REFRESHED_TOKENS,
          },
        },
      },
    },
    errors: ['validation_failed', 'invalid_client', 'grant_rejected'],
  });
  const answers = { authorization_code: tokens.response, refresh_token: tokens.refreshResponse };
  return { authorize, token, answers, tokenStatus, redirectUri, ssoDetails };
}
