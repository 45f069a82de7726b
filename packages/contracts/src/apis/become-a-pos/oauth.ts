import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import {
  AUTHORIZE_DESCRIPTION,
  AuthorizationCodeGrant,
  AuthorizeQuery,
  EXAMPLE_TOKENS,
  MerchantTokens,
  RefreshTokenGrant,
  SsoDetails,
  OAUTH_TAG,
  TOKEN_DESCRIPTION,
  tokenRequestExamples,
} from './merchant-oauth.ts';

export const PosTokenRequest = z
  .discriminatedUnion('grant_type', [
    AuthorizationCodeGrant.extend({
      redirect_uri: z
        .string()
        .optional()
        .meta({ description: 'The `redirect_uri` of the authorize request; check it matches when sent.' }),
    }),
    RefreshTokenGrant,
  ])
  .meta({ id: 'PosTokenRequest', description: 'An authorization code or refresh token exchange.' });
export type PosTokenRequest = z.infer<typeof PosTokenRequest>;

export const PosTokenResponse = MerchantTokens.extend({ sso_details: SsoDetails.optional() }).meta({
  id: 'PosTokenResponse',
  description: "The merchant's tokens, and who logged in.",
});
export type PosTokenResponse = z.infer<typeof PosTokenResponse>;

export const posAuthorize = defineOperation({
  api: 'become-a-pos',
  operationId: 'posAuthorize',
  method: 'GET',
  path: '/stream-pos/v1/authorize',
  summary: 'Log a merchant in and authorize the platform',
  description: AUTHORIZE_DESCRIPTION('POS'),
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
          description: '`redirect_uri?code=...&state=...`, or `redirect_uri?error=access_denied&state=...`.',
          schema: z.string(),
        },
      },
    },
    200: { description: 'Your login and consent page.', contentType: 'text/html' },
  },
  errors: ['validation_failed', 'invalid_client'],
});

export const posToken = defineOperation({
  api: 'become-a-pos',
  operationId: 'posToken',
  method: 'POST',
  path: '/stream-pos/v1/token',
  summary: 'Exchange a code or refresh token for merchant tokens',
  description: TOKEN_DESCRIPTION,
  tags: ['OAuth'],
  security: { kind: 'client-credentials' },
  servedBy: 'partner',
  request: {
    body: PosTokenRequest,
    example: tokenRequestExamples(true).authorization_code.value,
    examples: tokenRequestExamples(true),
  },
  responses: {
    201: {
      description: "The merchant's tokens.",
      schema: PosTokenResponse,
      example: {
        ...EXAMPLE_TOKENS,
        sso_details: {
          email: 'owner@demo-merchant.example',
          full_name: 'Dana Whitfield',
          phone_number: '+14155550123',
        },
      },
    },
  },
  errors: ['validation_failed', 'invalid_client', 'grant_rejected'],
});
