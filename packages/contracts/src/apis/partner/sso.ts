import { z } from 'zod';
import { Email, PhoneE164 } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { secret } from '../../secret.ts';
import { BEARER_ERRORS, BODY_ERRORS, EXAMPLE, OwnPartnerId } from './shared.ts';

/** How long an `sso_login_token` can be redeemed, and how long the user session it opens lasts. */
export const SSO_LOGIN_TOKEN_TTL_SECONDS = 5 * 60;
export const USER_SESSION_TTL_SECONDS = 12 * 60 * 60;

export const SsoRole = z
  .enum(['owner', 'admin', 'manager', 'team_member', 'custom'])
  .meta({ id: 'SsoRole', description: 'The role the user gets in the org. Omitted means `owner`.' });
export type SsoRole = z.infer<typeof SsoRole>;

const PartnerIdQuery = z.object({ partner_id: OwnPartnerId });

export const GenerateSessionRequest = z
  .object({
    email: Email.meta({ description: 'The user to sign in; matched case-insensitively within the org.' }),
    full_name: z.string().trim().min(1).max(200),
    phone_number: PhoneE164,
    role: SsoRole.default('owner'),
    provider_org_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({
        description:
          "The org to sign in to: your `provider_id` of an org you created, or the platform's org id (`org_…`). " +
          'A `provider_id` never has the shape of a platform org id (refused at creation); one stored before that ' +
          'rule loses to the org whose platform id it spells. Optional only for a token limited to one org, which ' +
          'then names that org.',
      }),
    provider_org_name: z.string().max(200).optional().meta({
      description: 'Accepted for compatibility with existing clients; not used (the org keeps its name).',
    }),
  })
  .meta({ id: 'SsoSessionRequest' });

export const GenerateSessionResponse = z
  .object({
    sso_login_token: secret(
      z.string().meta({ description: 'Single use; redeem it with `POST /white-label/sso/redeem`.' }),
    ),
    expires_at: z.iso
      .datetime()
      .meta({ description: 'After this instant the token is refused (`sso_token_expired`).' }),
    expires_in: z
      .number()
      .int()
      .meta({ description: `Seconds until expires_at (${SSO_LOGIN_TOKEN_TTL_SECONDS}).` }),
  })
  .meta({ id: 'SsoSessionResponse' });

export const generateSession = defineOperation({
  api: 'partner',
  operationId: 'generateSsoSession',
  method: 'POST',
  path: '/white-label/generate-session',
  summary: 'Generate an SSO login token',
  description:
    "Issues a single-use `sso_login_token` for one user of an org you own. Hand it to the user's browser, " +
    'which redeems it with `POST /white-label/sso/redeem` for a user session. The token lives ' +
    `${SSO_LOGIN_TOKEN_TTL_SECONDS / 60} minutes and works once; the platform stores only its SHA-256 hash. ` +
    'The user is created or updated (name, phone number, role) when the token is redeemed, not now. ' +
    '`provider_org_id` names the org by your `provider_id` or by its platform id; an org you do not own, or one ' +
    'outside a token limited to one org, answers 404.',
  tags: ['White-label SSO'],
  tagDescriptions: {
    'White-label SSO':
      'Sign your users in to the platform without a password: your backend asks for a single-use login token, ' +
      "the user's browser redeems it for a session.",
  },
  security: { kind: 'bearer', scopes: ['sso'] },
  servedBy: 'platform',
  request: {
    query: PartnerIdQuery,
    body: GenerateSessionRequest,
    example: {
      email: 'ana@example.com',
      full_name: 'Ana Lima',
      phone_number: '+14155550123',
      role: 'manager',
      provider_org_id: 'acme-42',
    },
  },
  responses: {
    201: {
      description: 'The login token.',
      schema: GenerateSessionResponse,
      example: {
        sso_login_token: 'sso_Vn3dJ0m1d2qkQ3Yb8uTq5xw0P6nqkR1cS5yZbE2a9Hk',
        expires_at: '2026-11-03T10:05:00.000Z',
        expires_in: SSO_LOGIN_TOKEN_TTL_SECONDS,
      },
    },
  },
  errors: [...BODY_ERRORS, ...BEARER_ERRORS, 'not_found'],
});

export const SsoUser = z
  .object({
    _id: z.string(),
    org_id: z.string(),
    email: z.string(),
    full_name: z.string(),
    phone_number: z.string().nullable(),
    role: SsoRole,
  })
  .meta({ id: 'SsoUser' });

export const RedeemSsoTokenRequest = z
  .object({ sso_login_token: secret(z.string().min(1).max(200)) })
  .meta({ id: 'RedeemSsoTokenRequest' });

export const RedeemSsoTokenResponse = z
  .object({
    session: z.object({
      session_token: secret(
        z.string().meta({ description: 'Opaque; stored by the platform only as a hash.' }),
      ),
      expires_at: z.iso.datetime(),
    }),
    user: SsoUser,
  })
  .meta({ id: 'RedeemSsoTokenResponse' });

export const redeemSsoToken = defineOperation({
  api: 'partner',
  operationId: 'redeemSsoToken',
  method: 'POST',
  path: '/white-label/sso/redeem',
  summary: 'Redeem an SSO login token',
  description:
    'Exchanges an `sso_login_token` for a user session. Open: the token is the credential. Creates the user ' +
    'in the org (matched by email, case-insensitively) or updates its name, phone number and role, then opens ' +
    `a session of ${USER_SESSION_TTL_SECONDS / 3600} hours. A token works once: a second redemption answers ` +
    '`sso_token_redeemed`, one past its lifetime `sso_token_expired`, an unknown one `sso_token_invalid`.',
  tags: ['White-label SSO'],
  security: { kind: 'none' },
  servedBy: 'platform',
  request: {
    body: RedeemSsoTokenRequest,
    example: { sso_login_token: 'sso_Vn3dJ0m1d2qkQ3Yb8uTq5xw0P6nqkR1cS5yZbE2a9Hk' },
  },
  responses: {
    200: {
      description: 'The user session.',
      schema: RedeemSsoTokenResponse,
      example: {
        session: {
          session_token: 'uss_q8Rk2mJx0Lw4T1vE9bYc3Zf6Nh5Dp7Ga0Ks2Wu8Ii4Oo',
          expires_at: '2026-11-03T22:00:10.000Z',
        },
        user: {
          _id: EXAMPLE.userId,
          org_id: EXAMPLE.orgId,
          email: 'ana@example.com',
          full_name: 'Ana Lima',
          phone_number: '+14155550123',
          role: 'manager',
        },
      },
    },
  },
  errors: [...BODY_ERRORS, 'sso_token_invalid', 'sso_token_expired', 'sso_token_redeemed'],
});

export const SSO_OPERATIONS = [generateSession, redeemSsoToken] as const;
