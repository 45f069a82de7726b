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
      code: z
        .string()
        .meta({ description: 'Stable machine-readable code; see the error table of each endpoint.' }),
      message: z.string().meta({ description: 'A sentence that says what was wrong and how to fix it.' }),
      request_id: z.string().optional().meta({ description: 'Also sent as the `X-Request-Id` header.' }),
      details: z
        .array(z.object({ path: z.string(), message: z.string() }))
        .optional()
        .meta({
          description:
            'For validation errors: one entry per offending field, at most 100, then one `more_problems` entry saying how many more there are.',
        }),
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
  invalid_request: {
    status: 400,
    description: 'The URL cannot be routed (undecodable, NUL character, over-long parameter).',
  },
  validation_failed: { status: 400, description: 'A field is missing, of the wrong type or out of range.' },
  unsupported_media_type: {
    status: 415,
    description:
      'The Content-Type (or Content-Encoding) is not one the endpoint accepts, or names a charset other than UTF-8.',
  },
  payload_too_large: {
    status: 413,
    description: 'The body is larger than the limit: 1 MiB, or the limit its operation states.',
  },
  request_timeout: {
    status: 408,
    description: 'The request (headers or body) did not arrive in full in time; the connection is closed.',
  },
  headers_too_large: { status: 431, description: 'The request headers are larger than the server accepts.' },
  uri_too_long: {
    status: 414,
    description:
      'The request line (path and query string) is longer than 8,192 bytes; send long data in a body.',
  },
  expectation_failed: {
    status: 417,
    description:
      'The `Expect` header asks for something other than `100-continue`; send the request without it.',
  },
  not_found: { status: 404, description: 'No such route, or no such resource visible to the caller.' },
  method_not_allowed: { status: 405, description: 'The route exists but not with this method.' },
  conflict: { status: 409, description: 'The request conflicts with the current state.' },
  rate_limited: { status: 429, description: 'Too many requests.' },
  invalid_cursor: {
    status: 400,
    description:
      '`starting_after` is not a `next_cursor` this list answered; pass it back as it came, or leave it out for the first page.',
  },
  internal_error: { status: 500, description: 'An unexpected error; it was logged with the request id.' },
  temporarily_unavailable: {
    status: 503,
    description: 'The platform lost its database connection while it worked on the request; send it again.',
  },
  // authentication (Partner API bearer tokens)
  missing_token: { status: 401, description: 'No `Authorization: Bearer` header.' },
  invalid_token: {
    status: 401,
    description: 'The bearer token is malformed, its signature is wrong, or it was revoked.',
  },
  token_expired: { status: 401, description: 'The bearer token has expired; request a new one.' },
  insufficient_scope: { status: 403, description: 'The token lacks a scope the endpoint requires.' },
  org_limited_token: {
    status: 403,
    description:
      'The token is limited to one organisation (a partner token) and cannot do this; use your root API client.',
  },
  // organisations
  org_already_exists: { status: 409, description: 'You already have an organisation with this provider_id.' },
  // OAuth token endpoint
  invalid_client: { status: 401, description: 'Unknown client_id or wrong client_secret.' },
  unsupported_grant_type: {
    status: 400,
    description: 'grant_type is neither client_credentials nor refresh_token.',
  },
  invalid_scope: {
    status: 400,
    description: 'A requested scope is unknown or was not granted to the client.',
  },
  invalid_exp: {
    status: 400,
    description:
      'exp is neither a lifetime in whole seconds from 1 to 3600 nor an expiry time in epoch seconds at most 1 hour from now.',
  },
  invalid_grant: { status: 400, description: 'The refresh token is unknown, expired or revoked.' },
  refresh_token_reused: {
    status: 400,
    description: 'The refresh token was already used; its whole token family is now revoked.',
  },
  // webhook signatures
  signature_missing: {
    status: 401,
    // One code for both directions: the events Stream sends a provider carry `X-Stream-Signature`.
    description:
      'The signature header is absent: `Stream-Webhook-Signature` on the webhooks you send, `X-Stream-Signature` on the events Stream sends you.',
  },
  signature_malformed: {
    status: 401,
    description: 'The signature is not 64 hex characters (send lower-case; upper-case is accepted).',
  },
  signature_mismatch: {
    status: 401,
    description: 'The signature does not match an HMAC-SHA256 of the raw body with your webhook secret.',
  },
  unknown_partner: { status: 404, description: 'No partner with that id or slug.' },
  // white-label SSO (like OAuth's invalid_grant: 400, one code per reason)
  sso_token_invalid: { status: 400, description: 'The sso_login_token is unknown or malformed.' },
  sso_token_expired: {
    status: 400,
    description:
      "The sso_login_token is past its 5-minute lifetime, or was ended by a rotation of the partner's client secret; generate a new one.",
  },
  sso_token_redeemed: { status: 400, description: 'The sso_login_token was already used; each works once.' },
  // billing
  report_not_found: {
    status: 404,
    description: 'No billing report for that month: it is before your first recorded event or in the future.',
  },
  // endpoints a POS or DSP builds (the sandbox answers these; wire-notes: 401 on a bad exchange)
  grant_rejected: {
    status: 401,
    description:
      'The authorization code or refresh token is unknown, expired, already used or issued to another client.',
  },
  connection_failed: { status: 400, description: 'The location could not be connected or disconnected.' },
  // onboarding (integrations, locations, bindings)
  invalid_transition: {
    status: 409,
    description:
      'The resource is in a state that does not allow this change; `details` lists the allowed moves.',
  },
  unknown_source: {
    status: 400,
    description: '`source` is not the slug of a POS or DSP partner of that `type`.',
  },
  partner_not_configured: {
    status: 409,
    description:
      'The POS or DSP has no base URL or OAuth client credentials registered with the platform yet.',
  },
  invalid_entry_token: {
    status: 404,
    description: 'The entry URL is unknown, malformed or no longer valid.',
  },
  invalid_oauth_state: {
    status: 400,
    description:
      'The OAuth callback `state` is missing, forged or already used; start again from the entry URL.',
  },
  oauth_exchange_failed: {
    status: 400,
    description:
      'The POS or DSP refused to exchange the authorization code; it may be wrong, expired or used.',
  },
  oauth_denied: { status: 400, description: 'The merchant or the partner cancelled the authorization.' },
  integration_not_active: {
    status: 409,
    description:
      'The integration has no usable merchant grant yet (or any more); finish or redo the OAuth step.',
  },
  integration_needs_reconnection: {
    status: 409,
    description:
      "The merchant's grant was rejected on refresh; reconnect through the entry URL or PUT a new code.",
  },
  integration_type_mismatch: {
    status: 400,
    description:
      'The integration is of the other type (ingest needs a POS integration, bind a DSP integration).',
  },
  partner_unreachable: {
    status: 502,
    description: 'The POS or DSP did not answer, or answered with something that is not its contract.',
  },
  unknown_location: {
    status: 400,
    description:
      'A location named in the body is unknown: not listed by the partner, or not in the organisation.',
  },
  location_not_bindable: {
    status: 409,
    description:
      'The POS location is being deprovisioned or is not in the organisation of the DSP integration.',
  },
  location_already_bound: {
    status: 409,
    description:
      'The POS location already holds a binding to that DSP, or the store is already bound in this org.',
  },
  // orders
  certification_run_not_found: {
    status: 404,
    description: 'No certification run with that id of yours.',
  },
  certification_in_progress: {
    status: 409,
    description:
      'A certification run of yours is queued or running: wait for its report before starting another.',
  },
  partner_not_certifiable: {
    status: 409,
    description:
      'The platform cannot certify you yet: a white-label partner has nothing to certify, and a POS, DSP or event provider needs its base URL (and a POS or DSP its OAuth client) registered first.',
  },
  order_not_found: {
    status: 404,
    description: 'No order with that id visible to you (for a DSP: no order you posted with that id).',
  },
  location_not_found: {
    status: 404,
    description: 'No connected location with that id for you (for a POS: your `location_id`).',
  },
  store_held_by_another_org: {
    status: 409,
    description: 'That DSP store is bound to a location of another organisation.',
  },
  // event providers
  event_provider_not_found: {
    status: 404,
    description: 'No event provider with that slug or id.',
  },
  delivery_held_by_another_provider: {
    status: 409,
    description: 'Another event provider already delivers this order.',
  },
  // hosted restaurant APIs (Menu, Order, Store)
  menu_exists: {
    status: 409,
    description: 'The store already has a menu of that name; change it with PATCH.',
  },
  menu_invalid: {
    status: 422,
    description:
      'The menu breaks a rule across fields (nesting, requirement counts, unknown ids); each is listed.',
  },
  invalid_patch: {
    status: 400,
    description:
      'The JSON Patch document is malformed, or an operation names a path, or writes a field, the menu does not have.',
  },
  patch_not_allowed: {
    status: 405,
    description: 'The patch changes what cannot be patched: an `id` (orders and discounts refer to it).',
  },
  patch_test_failed: {
    status: 409,
    description: 'A JSON Patch `test` operation did not match the menu; nothing was changed.',
  },
  order_invalid: {
    status: 422,
    description:
      'The order cannot be priced against the menu (unknown item, modifier rules); each problem is listed.',
  },
  order_rejected: {
    status: 422,
    description:
      'The order was stored as `rejected`: the store is closed, an item is out of stock, or the minimum is not met.',
  },
  date_range_too_long: {
    status: 400,
    description: 'The business-date range is longer than 3 days, or ends before it starts.',
  },
  idempotency_key_reused: {
    status: 422,
    description:
      'The Idempotency-Key was used in the last 24 hours with another request (body, store or endpoint); use a new key.',
  },
  card_already_applied: {
    status: 409,
    description: 'A payment with this card was already applied to the order.',
  },
  payment_exceeds_balance: {
    status: 422,
    description: 'The payment is larger than what the order still owes.',
  },
  transaction_type_not_accepted: {
    status: 422,
    description:
      'A void, reversal, refund or release is not a payment; only payments and captures are applied to an order.',
  },
  order_status_unprocessable: {
    status: 422,
    description:
      "The order's status does not allow this: cancelling an order that is no longer accepted (ready, on its way, completed or rejected), moving it where its status does not lead, or paying one that is cancelled or rejected. messagesDetails names what its status allows.",
  },
  capture_without_authorization: {
    status: 422,
    description: 'The capture has no uncaptured authorization of the same card on the order to complete.',
  },
  capture_amount_zero: {
    status: 422,
    description:
      'A capture of 0 cents and no tip captures nothing; capture at least 1 cent of the authorization or a tip, or void it at the gateway.',
  },
  capture_exceeds_authorization: {
    status: 422,
    description: 'The capture is larger than the amount the card authorized.',
  },
  store_not_located: {
    status: 422,
    description:
      'The store has no latitude and longitude, so nothing can be measured from it; the operator adds them.',
  },
  address_not_found: {
    status: 422,
    description: 'The geocoder found no place for the address; check street, city, state and postal code.',
  },
  geo_service_unavailable: {
    status: 503,
    description: 'The geocoder did not answer in time or answered an error; try again.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One entry of an error body's `details`: which field was wrong, and how. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * An error that answers as the error body: its code's status unless told. The platform's `ApiError`
 * and the sandbox's `SandboxError` extend it (each server's error handler knows its own).
 */
export class CodedError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    status?: number,
  ) {
    super(message);
    this.status = status ?? ERROR_CODES[code].status;
  }
}

/**
 * The details an error body lists: at most `MAX_DETAILS`, then one `more_problems` entry counting the
 * rest, so a request with tens of thousands of faults is not answered megabytes of them.
 */
export const MAX_DETAILS = 100;
export function listedDetails(details: readonly ErrorDetail[]): ErrorDetail[] {
  if (details.length <= MAX_DETAILS) return [...details];
  const more = details.length - MAX_DETAILS;
  return [
    ...details.slice(0, MAX_DETAILS),
    {
      path: 'more_problems',
      message: `${more} more problem(s) not listed; fix these and send again to see them.`,
    },
  ];
}

/** The error body; `request_id` and `details` only when there are some. */
export function errorBody(
  code: string,
  message: string,
  requestId?: string,
  details?: ErrorDetail[],
): ErrorBody {
  return {
    error: {
      code,
      message,
      ...(requestId ? { request_id: requestId } : {}),
      ...(details ? { details: listedDetails(details) } : {}),
    },
  };
}
