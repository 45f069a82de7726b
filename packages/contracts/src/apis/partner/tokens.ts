import { z } from 'zod';
import { PartnerTokenScope, Scope } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { secret } from '../../secret.ts';
import { PAGE_ERRORS, PageFields, pageQuery, paginated } from './pagination.ts';
import { BEARER_ERRORS, BODY_ERRORS, EXAMPLE, Id, Text } from './shared.ts';

const TokenName = Text().trim().min(1).max(100).meta({ description: 'A name to recognise the token by.' });

export const PartnerToken = z
  .object({
    _id: Id.meta({ description: 'The token id; it is also the `client_id` to use at `POST /oauth/token`.' }),
    org_id: Id.meta({ description: 'The organisation the token is limited to.' }),
    token_name: z.string(),
    scopes: z.array(Scope),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: 'PartnerToken',
    description:
      'An API client limited to one organisation and a subset of your scopes. Its secret is never shown again.',
  });
export type PartnerToken = z.infer<typeof PartnerToken>;

export const CreatePartnerTokenRequest = z
  .object({
    org_id: Id,
    token_name: TokenName,
    scopes: z.array(PartnerTokenScope).min(1).max(PartnerTokenScope.options.length).meta({
      description:
        "A subset of the scopes of the token making the call that its API client still has, without the hosted APIs' (`menu`, `orders`, `stores`): those reach every company granted to your partner, so only your own client carries them. A scope Stream later takes from your partner is taken from its partner tokens too (and their refresh tokens).",
    }),
  })
  .meta({ id: 'CreatePartnerToken', description: 'A new partner token.' });

// Strict: a partner cannot change a token's scopes or secret, so a `scopes` field is refused, not ignored.
export const RenamePartnerTokenRequest = z
  .strictObject({ token_name: TokenName })
  .meta({ id: 'RenamePartnerToken', description: 'The new name of a partner token.' });

export const PartnerTokenList = z
  .object({ tokens: z.array(PartnerToken), ...PageFields })
  .meta({ id: 'PartnerTokenList' });
export const PartnerTokenEnvelope = z.object({ token: PartnerToken }).meta({ id: 'PartnerTokenEnvelope' });
export const CreatedPartnerToken = z
  .object({
    token: PartnerToken,
    secret: secret(
      z.string().meta({
        description: 'The `client_secret` of the token (`sk_...`). Shown in this answer only: store it now.',
      }),
    ),
  })
  .meta({ id: 'CreatedPartnerToken' });
export const RevokedPartnerToken = z
  .object({ token: PartnerToken.extend({ revoked: z.literal(true) }) })
  .meta({ id: 'RevokedPartnerToken' });

const TokenIdParams = z.object({ token_id: Id.meta({ description: 'The token `_id`.' }) });

const exampleToken: PartnerToken = {
  _id: EXAMPLE.tokenId,
  org_id: EXAMPLE.orgId,
  token_name: 'Kitchen display integration',
  scopes: ['onboarding', 'sso'],
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
};

const visibility = [
  'A token, or an organisation, of another partner answers 404 (never 403), so ids do not leak.',
  "An access token obtained from a partner token only sees that token's organisation.",
].join(' ');

export const listPartnerTokens = defineOperation({
  api: 'partner',
  operationId: 'listPartnerTokens',
  method: 'GET',
  path: '/tokens',
  summary: 'List the tokens of an organisation',
  description: `The organisation's active partner tokens. Secrets are never listed. ${visibility} ${paginated('oldest first')}`,
  tags: ['Partner tokens'],
  security: { kind: 'bearer', scopes: ['user'] },
  servedBy: 'platform',
  request: { query: z.object({ org_id: Id.meta({ description: 'The organisation.' }), ...pageQuery() }) },
  responses: {
    200: {
      description: 'The tokens.',
      schema: PartnerTokenList,
      example: { tokens: [exampleToken], has_more: false, next_cursor: null },
    },
  },
  errors: [...PAGE_ERRORS, ...BEARER_ERRORS, 'not_found'],
});

export const createPartnerToken = defineOperation({
  api: 'partner',
  operationId: 'createPartnerToken',
  method: 'POST',
  path: '/tokens',
  summary: 'Create a token for an organisation',
  description: [
    'Creates a partner token: an API client limited to one organisation. Exchange its `_id` (as `client_id`)',
    'and `secret` (as `client_secret`) at `POST /oauth/token` for access tokens that only see that organisation',
    "and carry at most the token's scopes. The scopes must be a subset of the scopes of the access token",
    'making this call that its API client still has (a scope Stream took from your partner since that token',
    'was issued is refused; else 400 `invalid_scope`). The `secret` appears in this answer only.',
    visibility,
  ].join('\n'),
  tags: ['Partner tokens'],
  security: { kind: 'bearer', scopes: ['user'] },
  servedBy: 'platform',
  request: {
    body: CreatePartnerTokenRequest,
    example: {
      org_id: EXAMPLE.orgId,
      token_name: 'Kitchen display integration',
      scopes: ['onboarding', 'sso'],
    },
  },
  responses: {
    201: {
      description: 'The token and its secret.',
      schema: CreatedPartnerToken,
      example: { token: exampleToken, secret: 'sk_Zx8cV2bN5mQ1wE4rT7yU0iO3pA6sD9fG2hJ5kL8zX1c' },
    },
  },
  errors: [...BODY_ERRORS, ...BEARER_ERRORS, 'not_found', 'invalid_scope'],
});

export const renamePartnerToken = defineOperation({
  api: 'partner',
  operationId: 'renamePartnerToken',
  method: 'PUT',
  path: '/tokens/{token_id}',
  summary: 'Rename a token',
  description: `Changes \`token_name\`; the secret and scopes stay as they are (a body with any other field is 400). ${visibility}`,
  tags: ['Partner tokens'],
  security: { kind: 'bearer', scopes: ['user'] },
  servedBy: 'platform',
  request: {
    params: TokenIdParams,
    body: RenamePartnerTokenRequest,
    example: { token_name: 'Kitchen display (production)' },
  },
  responses: {
    200: {
      description: 'The renamed token.',
      schema: PartnerTokenEnvelope,
      example: {
        token: {
          ...exampleToken,
          token_name: 'Kitchen display (production)',
          updated_at: '2025-03-15T10:00:00.000Z',
        },
      },
    },
  },
  errors: [...BODY_ERRORS, ...BEARER_ERRORS, 'not_found'],
});

export const revokePartnerToken = defineOperation({
  api: 'partner',
  operationId: 'revokePartnerToken',
  method: 'DELETE',
  path: '/tokens/{token_id}',
  summary: 'Revoke a token',
  description: [
    'Revokes the token at once: its credentials stop working at `POST /oauth/token` (`invalid_client`),',
    'its refresh tokens answer `invalid_grant`, and access tokens already issued from it answer 401',
    '`invalid_token` on their next call. Answers the token with `revoked: true`; a revoked token is gone,',
    `so revoking it again answers 404. ${visibility}`,
  ].join('\n'),
  tags: ['Partner tokens'],
  security: { kind: 'bearer', scopes: ['user'] },
  servedBy: 'platform',
  request: { params: TokenIdParams },
  responses: {
    200: {
      description: 'The revoked token.',
      schema: RevokedPartnerToken,
      example: { token: { ...exampleToken, revoked: true } },
    },
  },
  errors: ['validation_failed', ...BEARER_ERRORS, 'not_found'],
});
