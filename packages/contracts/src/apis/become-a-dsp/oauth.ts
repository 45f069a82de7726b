import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import {
  AUTHORIZE_DESCRIPTION,
  AuthorizationCodeGrant,
  AuthorizeQuery,
  EXAMPLE_TOKENS,
  MerchantTokens,
  RefreshTokenGrant,
  OAUTH_TAG,
  TOKEN_DESCRIPTION,
  tokenRequestExamples,
} from '../become-a-pos/merchant-oauth.ts';

export const DspTokenRequest = z
  .discriminatedUnion('grant_type', [AuthorizationCodeGrant, RefreshTokenGrant])
  .meta({ id: 'DspTokenRequest', description: 'An authorization code or refresh token exchange.' });
export type DspTokenRequest = z.infer<typeof DspTokenRequest>;

export const DspTokenResponse = MerchantTokens.meta({
  id: 'DspTokenResponse',
  description: "The merchant's tokens.",
});
export type DspTokenResponse = z.infer<typeof DspTokenResponse>;

export const dspAuthorize = defineOperation({
  api: 'become-a-dsp',
  operationId: 'dspAuthorize',
  method: 'GET',
  path: '/stream-dsp/v1/authorize',
  summary: 'Log a merchant in and authorize the platform',
  description: AUTHORIZE_DESCRIPTION('DSP'),
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

export const dspToken = defineOperation({
  api: 'become-a-dsp',
  operationId: 'dspToken',
  method: 'POST',
  path: '/stream-dsp/v1/token',
  summary: 'Exchange a code or refresh token for merchant tokens',
  description: TOKEN_DESCRIPTION,
  tags: ['OAuth'],
  security: { kind: 'client-credentials' },
  servedBy: 'partner',
  request: {
    body: DspTokenRequest,
    example: tokenRequestExamples(false).authorization_code.value,
    examples: tokenRequestExamples(false),
  },
  responses: {
    200: { description: "The merchant's tokens.", schema: DspTokenResponse, example: EXAMPLE_TOKENS },
  },
  errors: ['validation_failed', 'invalid_client', 'grant_rejected'],
});
