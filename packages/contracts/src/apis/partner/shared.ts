import { z } from 'zod';
import type { ErrorCode } from '../../errors.ts';

/** Free text. PostgreSQL text cannot hold NUL, so it is refused here rather than failing in the database. */
export const Text = () => z.string().refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');

/**
 * An id the platform minted (`org_…`, `cli_…`, `ord_…`): checked before it reaches a query. The message
 * names no prefix: the same schema checks order, location, token and run ids.
 */
export const Id = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an id as the platform gave it: 1 to 64 letters, digits, _ or -');

/** `?partner_id` of the white-label routes (SSO, billing): optional, and only ever the caller's own id. */
export const OwnPartnerId = Id.optional().meta({
  description: "Optional. When given it must be the caller's own partner id, otherwise 404.",
});

/**
 * The shape of the platform's org ids (`org_` and 24 lowercase hex digits, as `newId` makes them).
 * A partner's `provider_id` of that shape is refused: calls that take either id could not tell them apart.
 */
export const PLATFORM_ORG_ID = /^org_[0-9a-f]{24}$/;

/** Errors any operation with a JSON body can answer before its handler runs. */
export const BODY_ERRORS = [
  'invalid_json',
  'validation_failed',
  'unsupported_media_type',
  'payload_too_large',
] as const satisfies readonly ErrorCode[];

/** Errors a signed webhook to the platform (`webhook-signature`) can answer before its handler runs. */
export const SIGNED_WEBHOOK_ERRORS = [
  ...BODY_ERRORS,
  'signature_missing',
  'signature_malformed',
  'signature_mismatch',
  'unknown_partner',
] as const satisfies readonly ErrorCode[];

/** Errors of the `bearer` security: every Partner API route behind a JWT can answer these. */
export const BEARER_ERRORS = [
  'missing_token',
  'invalid_token',
  'token_expired',
  'insufficient_scope',
] as const satisfies readonly ErrorCode[];

/** Lifetimes of the Partner API's OAuth tokens, in seconds. */
export const ACCESS_TOKEN_MAX_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

/** Example values shared by the examples of several operations. */
export const EXAMPLE = {
  partnerId: 'ptr_5f0c6d1e2a3b4c5d6e7f8091',
  orgId: 'org_8d2f1a7c9b3e4f5a6b7c8d9e',
  userId: 'usr_1a2b3c4d5e6f7a8b9c0d1e2f',
  clientId: 'cli_3e5a7c9d1f2b4a6c8e0d2f4a',
  tokenId: 'cli_9c1e3a5b7d9f1a3c5e7b9d1f',
  createdAt: '2025-03-14T09:26:53.000Z',
} as const;
