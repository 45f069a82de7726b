import { z } from 'zod';
import { ObjectId, httpUrl } from '../../common.ts';
import type { ErrorCode } from '../../errors.ts';
import { defineOperation } from '../../operation.ts';
import { secret } from '../../secret.ts';
import { statusEnum } from '../../states/machine.ts';
import { INTEGRATION_STATES } from '../../states/onboarding.ts';
import { BEARER_ERRORS, BODY_ERRORS, EXAMPLE, Id } from './shared.ts';

/**
 * Merchant onboarding over OAuth (Partner API, platform.md sections 3 and 7): an integration is one
 * merchant's grant to one POS or DSP, made for one of your organisations.
 */

export const IntegrationType = z
  .enum(['pos', 'dsp'])
  .meta({ id: 'IntegrationType', description: 'Whether the merchant connects a POS or a DSP.' });

/** The integration's status; the machine (states, moves, their causes) is `INTEGRATION_STATES`. */
export const IntegrationStatus = statusEnum(INTEGRATION_STATES);

export const Onboarding = z
  .object({
    _id: ObjectId.meta({ description: 'The integration id (`onb_...`).' }),
    org_id: ObjectId,
    type: IntegrationType,
    status: IntegrationStatus,
    status_reason: z.string().nullable().meta({
      description:
        "Why the status last changed when it was not the happy path (e.g. a refresh rejected), or why the merchant's last round trip through `entry_url` failed (declined, code refused); null once active.",
    }),
    source: z.string().meta({ description: 'The slug of the POS or DSP partner.' }),
    integration_id: ObjectId.meta({ description: 'The partner id of the POS or DSP.' }),
    partner_id: ObjectId.meta({ description: 'Your partner id.' }),
    partner_org_id: z.string().meta({ description: 'Your id of the organisation (its `provider_id`).' }),
    merchant_id: z.string().nullable().meta({
      description: "The POS's or DSP's id of the merchant account that logged in; null until active.",
    }),
    entry_url: z.url().meta({
      description:
        "Send the merchant's browser here: it redirects to the partner's login and back. Works while the status is `pending`, `waiting_for_oauth` or `needs_reconnection`; keep it secret.",
    }),
    return_url: z.url(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Onboarding', description: "One merchant's OAuth grant to one POS or DSP." });
export type Onboarding = z.infer<typeof Onboarding>;

export const OnboardingEnvelope = z.object({ onboarding: Onboarding }).meta({ id: 'OnboardingEnvelope' });

const HttpUrl = httpUrl().meta({ description: 'An http(s) URL.' });

export const CreateIntegrationRequest = z
  .object({
    org_id: Id.meta({ description: 'The organisation the merchant belongs to.' }),
    source: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: 'The slug of the POS or DSP partner to connect (e.g. `sandbox-pos`).' }),
    type: IntegrationType,
    return_url: HttpUrl.meta({
      description:
        "Where the merchant's browser lands after OAuth, with `onboarding_id` and `status=active`, or `status=error&error=<code>`, added to its query.",
    }),
  })
  .meta({ id: 'CreateIntegration', description: 'A new onboarding integration.' });

export const ConnectIntegrationRequest = z
  .object({
    code: secret(
      z.string().min(1).max(2048).meta({
        description: 'The authorization code the POS or DSP gave the merchant (headless onboarding).',
      }),
    ),
  })
  .meta({ id: 'ConnectIntegration', description: 'Completes OAuth without the browser round trip.' });

const IntegrationIdParams = z.object({ id: Id.meta({ description: 'The integration `_id`.' }) });

export const exampleOnboarding: Onboarding = {
  _id: 'onb_4c1d9e7f2a3b5c6d7e8f9a0b',
  org_id: EXAMPLE.orgId,
  type: 'pos',
  status: 'pending',
  status_reason: null,
  source: 'sandbox-pos',
  integration_id: 'ptr_7a9c1e3b5d7f9a1c3e5b7d9f',
  partner_id: EXAMPLE.partnerId,
  partner_org_id: 'merchant-4821',
  merchant_id: null,
  entry_url:
    'https://platform.example.com/onboarding/integrations/onb_4c1d9e7f2a3b5c6d7e8f9a0b/entry?token=Zq3v8N1xYk0w',
  return_url: 'https://partner.example.com/onboarding/done',
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
};

const visibility =
  'An integration or organisation of another partner (or, for a partner token, of another organisation) answers 404.';
const common = {
  api: 'partner',
  tags: ['Onboarding'],
  security: { kind: 'bearer', scopes: ['onboarding'] },
  servedBy: 'platform',
} as const;
const partnerCallErrors = ['partner_unreachable', 'partner_not_configured'] as const;

export const createIntegration = defineOperation({
  ...common,
  operationId: 'createIntegration',
  method: 'POST',
  path: '/onboarding/integrations',
  summary: 'Start onboarding a merchant to a POS or DSP',
  description: [
    "Creates an integration in `pending` and answers its `entry_url`. Send the merchant's browser to",
    "`entry_url`: the platform redirects it to the partner's `/stream-{pos|dsp}/v1/authorize`, the merchant",
    'logs in there, and the partner redirects back to the platform, which exchanges the code and then',
    'redirects to `return_url` with the outcome. Without a browser, exchange a code yourself with',
    '`PUT /onboarding/integrations/{id}`.',
    `\`source\` must be the slug of a POS or DSP partner of the given \`type\`. ${visibility}`,
  ].join('\n'),
  request: {
    body: CreateIntegrationRequest,
    example: {
      org_id: EXAMPLE.orgId,
      source: 'sandbox-pos',
      type: 'pos',
      return_url: 'https://partner.example.com/onboarding/done',
    },
  },
  responses: {
    201: {
      description: 'Created; send the merchant to `entry_url`.',
      schema: OnboardingEnvelope,
      example: { onboarding: exampleOnboarding },
    },
  },
  errors: [...BODY_ERRORS, ...BEARER_ERRORS, 'not_found', 'unknown_source', 'partner_not_configured'],
});

export const getIntegration = defineOperation({
  ...common,
  operationId: 'getIntegration',
  method: 'GET',
  path: '/onboarding/integrations/{id}',
  summary: 'Read an integration',
  description: `The integration and its status. ${visibility}`,
  request: { params: IntegrationIdParams },
  responses: {
    200: {
      description: 'The integration.',
      schema: OnboardingEnvelope,
      example: { onboarding: exampleOnboarding },
    },
  },
  errors: ['validation_failed', ...BEARER_ERRORS, 'not_found'],
});

export const connectIntegration = defineOperation({
  ...common,
  operationId: 'connectIntegration',
  method: 'PUT',
  path: '/onboarding/integrations/{id}',
  summary: 'Connect an integration with an authorization code (headless)',
  description: [
    "Exchanges `code` at the partner's `/stream-{pos|dsp}/v1/token` and activates the integration. Allowed",
    'from `pending`, `waiting_for_oauth` and `needs_reconnection`; an `active` or `deprovisioned` integration',
    'answers 409 `invalid_transition`. A code the partner refuses answers 400 `oauth_exchange_failed` and',
    `leaves the status as it was. ${visibility}`,
  ].join('\n'),
  request: { params: IntegrationIdParams, body: ConnectIntegrationRequest, example: { code: 'ac_5hT0q' } },
  responses: {
    200: {
      description: 'Connected.',
      schema: OnboardingEnvelope,
      example: { onboarding: { ...exampleOnboarding, status: 'active', merchant_id: 'demo-merchant' } },
    },
  },
  errors: [
    ...BODY_ERRORS,
    ...BEARER_ERRORS,
    'not_found',
    'invalid_transition',
    'oauth_exchange_failed',
    ...partnerCallErrors,
  ],
});

export const deleteIntegration = defineOperation({
  ...common,
  operationId: 'deleteIntegration',
  method: 'DELETE',
  path: '/onboarding/integrations/{id}',
  summary: 'Disconnect an integration',
  description: [
    'Revokes the integration (`deprovisioned` at once). Its bound locations go `waiting_for_deprovision`',
    'while the platform deletes their connections at the POS or DSP, then `deprovisioned`. Deleting a',
    `deprovisioned integration answers 409 \`invalid_transition\`. ${visibility}`,
  ].join('\n'),
  request: { params: IntegrationIdParams },
  responses: {
    200: {
      description: 'Deprovisioned; connections are being deleted at the partner.',
      schema: OnboardingEnvelope,
      example: {
        onboarding: { ...exampleOnboarding, status: 'deprovisioned', merchant_id: 'demo-merchant' },
      },
    },
  },
  errors: ['validation_failed', ...BEARER_ERRORS, 'not_found', 'invalid_transition'],
});

/**
 * Every `error` the platform puts on `return_url` (`status=error&error=<code>`): the entry URL's for an
 * integration that cannot start OAuth (`invalid_transition`, `partner_not_configured`), the callback's
 * for all of them. The white-label guide lists the same codes.
 */
export const RETURN_URL_ERRORS = [
  'oauth_denied',
  'oauth_exchange_failed',
  'partner_unreachable',
  'invalid_transition',
  'partner_not_configured',
  'invalid_oauth_state',
] as const satisfies readonly ErrorCode[];

const redirectResponse = (description: string, location: string) => ({
  302: { description, headers: { Location: { description: location, schema: z.string() } } },
});

export const openIntegrationEntry = defineOperation({
  api: 'partner',
  tags: ['Onboarding'],
  servedBy: 'platform',
  security: { kind: 'none' },
  operationId: 'openIntegrationEntry',
  method: 'GET',
  path: '/onboarding/integrations/{id}/entry',
  summary: "Entry URL: start the merchant's OAuth (browser)",
  description: [
    "The `entry_url` of an integration. Opened in the merchant's browser, it moves the integration to",
    "`waiting_for_oauth` and redirects to the partner's `/stream-{pos|dsp}/v1/authorize` with `client_id`,",
    "`response_type=code`, `redirect_uri` (the platform's `/onboarding/oauth/callback`) and a signed `state`.",
    'A wrong `token` answers 404 `invalid_entry_token`. An integration that cannot start OAuth redirects to',
    '`return_url` with `status=error&error=invalid_transition` (it is already active or deprovisioned) or',
    '`error=partner_not_configured` (its POS or DSP is not ready on the platform).',
  ].join('\n'),
  request: {
    params: IntegrationIdParams,
    query: z.object({
      token: z.string().min(1).max(256).meta({ description: 'The secret part of `entry_url`.' }),
    }),
  },
  responses: redirectResponse(
    "To the partner's authorize page (or to `return_url` with an error).",
    '`{partner}/stream-pos/v1/authorize?client_id=...&response_type=code&redirect_uri=...&state=...`',
  ),
  errors: ['validation_failed', 'invalid_entry_token'],
});

export const OAuthCallbackQuery = z.object({
  state: z
    .string()
    .min(1)
    .max(2048)
    .meta({ description: 'The signed state the platform sent to authorize.' }),
  code: z.string().min(1).max(2048).optional().meta({ description: 'The authorization code.' }),
  error: z
    .string()
    .max(256)
    .optional()
    .meta({ description: 'Set by the partner when the merchant declined.' }),
});

export const oauthCallback = defineOperation({
  api: 'partner',
  tags: ['Onboarding'],
  servedBy: 'platform',
  security: { kind: 'none' },
  operationId: 'oauthCallback',
  method: 'GET',
  path: '/onboarding/oauth/callback',
  summary: 'OAuth redirect target (browser)',
  description: [
    'Where a POS or DSP sends the merchant back after login. The platform checks `state`, exchanges `code` at',
    "the partner's token endpoint and redirects to the integration's `return_url` with `onboarding_id` and",
    `\`status=active\`, or \`status=error&error=<code>\` (${RETURN_URL_ERRORS.map((c) => `\`${c}\``).join(', ')}).`,
    'A `state` works once: one already used or superseded (the page reloaded, the entry URL opened twice)',
    'exchanges nothing and redirects with `status=active` when the integration is active, else',
    '`status=error&error=invalid_oauth_state`. A `state` that is missing or',
    'was not signed by the platform answers 400 `invalid_oauth_state` (there is no trustworthy place to redirect to).',
  ].join('\n'),
  request: { query: OAuthCallbackQuery },
  responses: redirectResponse(
    'To `return_url` with the outcome.',
    '`{return_url}?onboarding_id=onb_...&status=active` or `...&status=error&error=oauth_exchange_failed`',
  ),
  errors: ['validation_failed', 'invalid_oauth_state'],
});

export const INTEGRATION_OPERATIONS = [
  createIntegration,
  getIntegration,
  connectIntegration,
  deleteIntegration,
  openIntegrationEntry,
  oauthCallback,
] as const;
