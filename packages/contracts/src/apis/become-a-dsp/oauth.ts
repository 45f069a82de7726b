import { z } from 'zod';
import {
  AuthorizationCodeGrant,
  MerchantRefreshedTokens,
  MerchantTokens,
  RefreshTokenGrant,
  merchantOAuth,
} from '../become-a-pos/merchant-oauth.ts';

export const DspTokenRequest = z
  .discriminatedUnion('grant_type', [AuthorizationCodeGrant, RefreshTokenGrant])
  .meta({ id: 'DspTokenRequest', description: 'An authorization code or refresh token exchange.' });
export type DspTokenRequest = z.infer<typeof DspTokenRequest>;

export const DspTokenResponse = MerchantTokens.meta({
  id: 'DspTokenResponse',
  description: "The answer to an authorization code: the merchant's tokens.",
});
export type DspTokenResponse = z.infer<typeof DspTokenResponse>;

export const DspRefreshResponse = MerchantRefreshedTokens.meta({
  id: 'DspRefreshResponse',
  description: 'The answer to a refresh: a new access token, and a new refresh token if you rotate them.',
});
export type DspRefreshResponse = z.infer<typeof DspRefreshResponse>;

/** A DSP answers the token request 200, without `sso_details`; the request has no `redirect_uri`. */
export const dspOAuth = merchantOAuth('dsp', {
  request: DspTokenRequest,
  response: DspTokenResponse,
  refreshResponse: DspRefreshResponse,
});
export const { authorize: dspAuthorize, token: dspToken } = dspOAuth;
