import { z } from 'zod';

/**
 * The one error body of the Partner API, the webhook routes and the OAuth endpoint (the hosted
 * restaurant APIs use their own `{data, message, messagesDetails}` envelope instead).
 * Modelled on Stripe: a stable machine-readable `code`, a sentence saying what to fix, and the
 * request id to quote to support.
 */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable code; see the error table of each endpoint.' }),
      message: z.string().meta({ description: 'A sentence that says what was wrong and how to fix it.' }),
      request_id: z.string().optional().meta({ description: 'Also sent as the `X-Request-Id` header.' }),
      details: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .meta({ description: 'For validation errors: one entry per offending field.' }),
    }),
  })
  .meta({ id: 'Error', description: 'The error body every endpoint answers with on 4xx and 5xx.' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * Every error code the platform answers with, and the HTTP status it goes with. Routes declare
 * which of these they can answer; the OpenAPI generator and the guides' error tables read this list.
 */
export const ERROR_CODES = {
  // generic request problems
  invalid_json: { status: 400, description: 'The body is not valid JSON.' },
  validation_failed: { status: 400, description: 'A field is missing, of the wrong type or out of range.' },
  unsupported_media_type: { status: 415, description: 'The Content-Type is not one the endpoint accepts.' },
  payload_too_large: { status: 413, description: 'The body is larger than the 1 MiB limit.' },
  not_found: { status: 404, description: 'No such route, or no such resource visible to the caller.' },
  method_not_allowed: { status: 405, description: 'The route exists but not with this method.' },
  conflict: { status: 409, description: 'The request conflicts with the current state.' },
  rate_limited: { status: 429, description: 'Too many requests.' },
  internal_error: { status: 500, description: 'An unexpected error; it was logged with the request id.' },
  // authentication (Partner API bearer tokens)
  missing_token: { status: 401, description: 'No `Authorization: Bearer` header.' },
  invalid_token: { status: 401, description: 'The bearer token is malformed, its signature is wrong, or it was revoked.' },
  token_expired: { status: 401, description: 'The bearer token has expired; request a new one.' },
  insufficient_scope: { status: 403, description: 'The token lacks a scope the endpoint requires.' },
  // OAuth token endpoint
  invalid_client: { status: 401, description: 'Unknown client_id or wrong client_secret.' },
  unsupported_grant_type: { status: 400, description: 'grant_type is neither client_credentials nor refresh_token.' },
  invalid_scope: { status: 400, description: 'A requested scope is unknown or was not granted to the client.' },
  invalid_exp: { status: 400, description: 'exp is not a whole number of seconds between 1 and 3600.' },
  invalid_grant: { status: 400, description: 'The refresh token is unknown, expired or revoked.' },
  refresh_token_reused: {
    status: 400,
    description: 'The refresh token was already used; its whole token family is now revoked.',
  },
  // webhook signatures
  signature_missing: { status: 401, description: 'The `Stream-Webhook-Signature` header is absent.' },
  signature_malformed: { status: 401, description: 'The signature is not 64 lower-case hex characters.' },
  signature_mismatch: {
    status: 401,
    description: 'The signature does not match an HMAC-SHA256 of the raw body with your webhook secret.',
  },
  unknown_partner: { status: 404, description: 'No partner with that id or slug.' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
