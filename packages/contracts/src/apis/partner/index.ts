import type { Operation } from '../../operation.ts';
import { getJwks, requestToken } from './oauth.ts';
import { createOrg } from './org.ts';
import { createPartnerToken, listPartnerTokens, renamePartnerToken, revokePartnerToken } from './tokens.ts';

export * from './shared.ts';
export * from './oauth.ts';
export * from './tokens.ts';
export * from './org.ts';

/** Authentication, partner tokens and organisations of the Partner API. */
export const PARTNER_AUTH_OPERATIONS: readonly Operation[] = [
  requestToken,
  getJwks,
  listPartnerTokens,
  createPartnerToken,
  renamePartnerToken,
  revokePartnerToken,
  createOrg,
];
