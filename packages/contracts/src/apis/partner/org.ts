import { z } from 'zod';
import { Email } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { BEARER_ERRORS, BODY_ERRORS, EXAMPLE, Id, PLATFORM_ORG_ID, Text } from './shared.ts';

const Name = (max: number) => Text().trim().min(1).max(max);

export const CreateOrgRequest = z
  .object({
    name: Name(200).meta({ description: 'The organisation (merchant) name.' }),
    provider_id: Name(200)
      .refine(
        (id) => !PLATFORM_ORG_ID.test(id),
        'must not have the shape of a platform organisation id (org_ and 24 lowercase hex digits), which ' +
          'calls that take either id could not tell apart; choose another id',
      )
      .meta({
        description:
          'Your own id for this organisation; unique among your organisations. Any text up to 200 characters ' +
          "except the shape of the platform's org ids (`org_` and 24 lowercase hex digits): calls that take " +
          'either id must never find two organisations, so that shape is refused with 400 `validation_failed`.',
      }),
    user: z
      .object({ email: Email, first_name: Name(100), last_name: Name(100) })
      .meta({ description: "The organisation's first user; made its `owner`." }),
  })
  .meta({ id: 'CreateOrg', description: 'A new organisation and its owner.' });

export const CreatedOrg = z
  .object({ org_id: Id, user_id: Id })
  .meta({ id: 'CreatedOrg', description: 'The ids of the new organisation and of its owner.' });

export const createOrg = defineOperation({
  api: 'partner',
  operationId: 'createOrg',
  method: 'POST',
  path: '/onboarding/org',
  summary: 'Create an organisation',
  description: [
    'Creates an organisation owned by the calling partner, with one user whose role is `owner`.',
    '`provider_id` is your id for the organisation: a second organisation with the same `provider_id`',
    'answers 409 `org_already_exists`; a `provider_id` shaped like a platform org id (`org_` and 24 lowercase',
    'hex digits) answers 400 `validation_failed`, so an id never names two organisations. Only your root API',
    'client can create organisations: an access token from a partner token (limited to one organisation)',
    'answers 403 `org_limited_token`.',
  ].join('\n'),
  tags: ['Organisations'],
  security: { kind: 'bearer', scopes: ['onboarding'] },
  servedBy: 'platform',
  request: {
    body: CreateOrgRequest,
    example: {
      name: "Luigi's Trattoria",
      provider_id: 'merchant-4821',
      user: { email: 'owner@luigis.example', first_name: 'Luigi', last_name: 'Rossi' },
    },
  },
  responses: {
    201: {
      description: 'The organisation and its owner were created.',
      schema: CreatedOrg,
      example: { org_id: EXAMPLE.orgId, user_id: EXAMPLE.userId },
    },
  },
  errors: [...BODY_ERRORS, ...BEARER_ERRORS, 'org_limited_token', 'org_already_exists'],
});
