import { z } from 'zod';
import { Scope } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { secret } from '../../secret.ts';
import { ACCESS_TOKEN_MAX_SECONDS, BODY_ERRORS, EXAMPLE, REFRESH_TOKEN_SECONDS, Text } from './shared.ts';

export const GRANT_TYPES = ['client_credentials', 'refresh_token'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/*
 * grant_type, exp and scopes are deliberately loose here: the endpoint answers a precise code
 * (unsupported_grant_type, invalid_exp, invalid_scope) rather than the generic validation_failed a
 * stricter schema would give, and form bodies carry every value as a string. The `enum` metadata
 * still documents the accepted values in the OpenAPI document.
 */
export const OAuthTokenRequest = z
  .object({
    grant_type: z
      .string()
      .min(1)
      .meta({
        enum: [...GRANT_TYPES],
        description: '`client_credentials` for a new token, `refresh_token` to exchange a refresh token.',
      }),
    client_id: Text()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'Your API client id (`cli_...`); required unless sent as HTTP Basic.' }),
    client_secret: secret(
      z
        .string()
        .min(1)
        .max(500)
        .meta({ description: 'Your API client secret (`sk_...`); required unless sent as HTTP Basic.' }),
    ).optional(),
    exp: z
      // Zod's own "Invalid input" would not say what exp is (null, true, an object end up here).
      .union([z.number(), z.string()], {
        error: `must be a number: a lifetime in whole seconds from 1 to ${ACCESS_TOKEN_MAX_SECONDS}, or an expiry time in epoch seconds`,
      })
      .optional()
      .meta({
        description: `Lifetime of the access token in seconds: a whole number from 1 to ${ACCESS_TOKEN_MAX_SECONDS} (the default); or its expiry time in epoch seconds, at most 1 hour from now. Any other number or text answers 400 \`invalid_exp\`; another JSON type (null, true, an object) 400 \`validation_failed\`.`,
        examples: [3600],
      }),
    scopes: z
      .union([z.array(z.string()), z.string()])
      .optional()
      .meta({
        description:
          'Scopes wanted, as an array or one space-separated string; each must have been granted to the client (else 400 `invalid_scope`). Default: every scope of the client (of the original grant, for `refresh_token`); a blank string is the default too, an empty list (`[]`, asking for no scope) is 400 `invalid_scope`.',
        examples: [['user', 'onboarding']],
      }),
    scope: z.string().optional().meta({
      description: 'RFC 6749 spelling of `scopes` (space-separated); used when `scopes` is absent.',
    }),
    refresh_token: secret(
      z.string().min(1).max(500).meta({
        description: 'Required with `grant_type=refresh_token`: the refresh token to exchange (`rt_...`).',
      }),
    ).optional(),
  })
  .meta({ id: 'OAuthTokenRequest', description: 'A token request of the Partner API.' });
export type OAuthTokenRequest = z.infer<typeof OAuthTokenRequest>;

export const OAuthTokenResponse = z
  .object({
    access_token: secret(
      z.string().meta({ description: 'An ES256 JWT; send it as `Authorization: Bearer <access_token>`.' }),
    ),
    token_type: z.literal('bearer'),
    refresh_token: secret(
      z.string().meta({ description: 'Single use: exchange it once at this endpoint for a new pair.' }),
    ),
    expires_in: z.int().meta({ description: 'Seconds until the access token expires.' }),
    refresh_token_expires_in: z
      .int()
      .meta({ description: 'Seconds until the refresh token expires (30 days).' }),
    scopes: z.array(Scope).meta({ description: 'The scopes the access token carries.' }),
  })
  .meta({ id: 'OAuthTokenResponse', description: 'An access token and the refresh token to renew it.' });
export type OAuthTokenResponse = z.infer<typeof OAuthTokenResponse>;

export const Jwk = z
  .object({
    kty: z.string(),
    crv: z.string().optional(),
    x: z.string().optional(),
    y: z.string().optional(),
    kid: z.string(),
    alg: z.string(),
    use: z.literal('sig'),
  })
  .meta({ id: 'Jwk', description: 'A public signing key (RFC 7517).' });
export type Jwk = z.infer<typeof Jwk>;

export const JwkSet = z
  .object({ keys: z.array(Jwk) })
  .meta({ id: 'JwkSet', description: 'The keys that verify Partner API access tokens (RFC 7517 JWK Set).' });
export type JwkSet = z.infer<typeof JwkSet>;

const exampleTokens: OAuthTokenResponse = {
  access_token:
    'eyJhbGciOiJFUzI1NiIsImtpZCI6ImtleV8wYTFiMmMzZDRlNWY2YTdiOGM5ZDBlMWYiLCJ0eXAiOiJhdCtqd3QifQ.eyJwYXJ0bmVyX2lkIjoicHRyXzVmMGM2ZDFlMmEzYjRjNWQ2ZTdmODA5MSIsInNjb3BlIjoidXNlciBvbmJvYXJkaW5nIn0.MEUCIQDx',
  token_type: 'bearer',
  refresh_token: 'rt_Jq3v9fXo2m1bqz0V7cT4yKXwR8sA6dLmN5pEe0gHhUu',
  expires_in: ACCESS_TOKEN_MAX_SECONDS,
  refresh_token_expires_in: REFRESH_TOKEN_SECONDS,
  scopes: ['user', 'onboarding'],
};

export const requestToken = defineOperation({
  api: 'partner',
  operationId: 'requestToken',
  method: 'POST',
  path: '/oauth/token',
  summary: 'Request an access token',
  description: [
    'Exchanges API client credentials (`client_credentials`) or a refresh token (`refresh_token`) for a',
    'Partner API access token. The body may be JSON or `application/x-www-form-urlencoded`. The client',
    'authenticates with `client_id` and `client_secret` in the body, or with HTTP Basic (RFC 6749 section',
    '2.3.1: `Authorization: Basic base64(client_id:client_secret)`, as most OAuth libraries send it), not both.',
    '',
    `The access token is an ES256 JWT signed with a key published at \`/.well-known/jwks.json\` (header \`kid\`).`,
    "Claims: `iss` (this platform's URL), `sub` (the client id), `partner_id`, `org_id` (only for a partner",
    'token limited to one organisation), `scope` (space-separated), `fam` (the token family), `jti`, `iat`, `exp`.',
    `It lives \`exp\` seconds (1 to ${ACCESS_TOKEN_MAX_SECONDS}, default ${ACCESS_TOKEN_MAX_SECONDS}); the refresh token 30 days.`,
    '',
    'Refresh tokens are single use. Each `refresh_token` exchange answers a new access token and a new',
    'refresh token of the same family. Presenting a refresh token a second time answers',
    '`refresh_token_reused` and revokes its whole family: every refresh token and every access token',
    'descended from the original grant stops working, so a leaked token cannot be used alongside yours.',
    '',
    'A partner token (`POST /tokens`) is itself an API client: use its `_id` as `client_id` and its',
    '`secret` as `client_secret`; the access token is then limited to that organisation and those scopes.',
    'A revoked partner token answers `invalid_client` here, and `invalid_grant` for its refresh tokens.',
  ].join('\n'),
  tags: ['Authentication'],
  security: { kind: 'none' },
  servedBy: 'platform',
  request: {
    body: OAuthTokenRequest,
    bodyContentTypes: ['application/x-www-form-urlencoded'],
    example: {
      grant_type: 'client_credentials',
      client_id: EXAMPLE.clientId,
      client_secret: 'sk_2mQ9xW4vT7yZ1bN8cF5hJ3kL6pR0sD2gA9eU4iO7wX1',
      exp: 3600,
      scopes: ['user', 'onboarding'],
    },
  },
  responses: {
    201: {
      description: 'An access token and a refresh token.',
      schema: OAuthTokenResponse,
      example: exampleTokens,
      headers: {
        'Cache-Control': {
          description: 'Always `no-store`: tokens must not be cached.',
          schema: z.literal('no-store'),
        },
      },
    },
  },
  errors: [
    ...BODY_ERRORS,
    'unsupported_grant_type',
    'invalid_client',
    'invalid_scope',
    'invalid_exp',
    'invalid_grant',
    'refresh_token_reused',
  ],
});

export const getJwks = defineOperation({
  api: 'partner',
  operationId: 'getJwks',
  method: 'GET',
  path: '/.well-known/jwks.json',
  summary: 'Get the token signing keys',
  description: [
    'The public keys that verify Partner API access tokens; pick the one whose `kid` matches the token header.',
    'Keys rotate without downtime: a new key signs from the moment it is created, and a retired key stays',
    'listed until every token it signed has expired. Cache the set for at most its `Cache-Control` max-age and',
    'fetch it again when a token names a `kid` you do not know (jose `createRemoteJWKSet` does both).',
  ].join('\n'),
  tags: ['Authentication'],
  security: { kind: 'none' },
  servedBy: 'platform',
  responses: {
    200: {
      description: 'The key set.',
      schema: JwkSet,
      example: {
        keys: [
          {
            kty: 'EC',
            crv: 'P-256',
            x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
            y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
            kid: 'key_0a1b2c3d4e5f6a7b8c9d0e1f',
            alg: 'ES256',
            use: 'sig',
          },
        ],
      },
    },
  },
  errors: [],
});
