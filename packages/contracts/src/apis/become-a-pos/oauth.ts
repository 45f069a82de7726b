import { z } from 'zod';
import {
  AuthorizationCodeGrant,
  MerchantRefreshedTokens,
  MerchantTokens,
  RefreshTokenGrant,
  SsoDetails,
  merchantOAuth,
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
  description: "The answer to an authorization code: the merchant's tokens, and who logged in.",
});
export type PosTokenResponse = z.infer<typeof PosTokenResponse>;

export const PosRefreshResponse = MerchantRefreshedTokens.extend({
  sso_details: SsoDetails.optional(),
}).meta({
  id: 'PosRefreshResponse',
  description: 'The answer to a refresh: a new access token, and a new refresh token if you rotate them.',
});
export type PosRefreshResponse = z.infer<typeof PosRefreshResponse>;

/** A POS answers the token request 201, with `sso_details`; the request may carry `redirect_uri`. */
export const posOAuth = merchantOAuth('pos', {
  request: PosTokenRequest,
  response: PosTokenResponse,
  refreshResponse: PosRefreshResponse,
});
export const { authorize: posAuthorize, token: posToken } = posOAuth;
