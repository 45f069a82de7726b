import { z } from 'zod';
import { PartnerKind, PartnerTokenScope } from '@stream/contracts/common';
import { SECRET_KINDS, SLUG, type CreatePartnerInput } from './service.ts';

/**
 * What creating a partner takes, validated once: the CLI checks its flags with it (naming
 * `--base-url` for `base_url`) and the admin endpoint checks its body with it.
 */
export const CreatePartnerRequest = z
  .object({
    kind: PartnerKind,
    slug: z
      .string()
      .regex(SLUG, 'must be 2-63 lower-case letters, digits or hyphens, starting with a letter or digit'),
    name: z.string().trim().min(1, 'must not be empty').max(200),
    base_url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
    // The hosted scopes (`menu`, `orders`, `stores`) come with `companies grant`, as in set-scopes.
    scopes: z.array(PartnerTokenScope).min(1, 'must name at least one scope').optional(),
    oauth_client_id: z.string().min(1).max(500).optional(),
    oauth_client_secret: z.string().min(1).max(2000).optional(),
  })
  .strict()
  .refine((v) => (v.oauth_client_id === undefined) === (v.oauth_client_secret === undefined), {
    path: ['oauth_client_secret'],
    message: 'oauth_client_id and oauth_client_secret go together: give both or neither',
  });
export type CreatePartnerRequest = z.infer<typeof CreatePartnerRequest>;

export function toCreatePartnerInput(r: CreatePartnerRequest): CreatePartnerInput {
  return {
    kind: r.kind,
    slug: r.slug,
    name: r.name,
    baseUrl: r.base_url?.replace(/\/+$/, ''),
    scopes: r.scopes && [...new Set(r.scopes)],
    oauthClientId: r.oauth_client_id,
    oauthClientSecret: r.oauth_client_secret,
  };
}

export const RotateSecretRequest = z.object({ which: z.array(z.enum(SECRET_KINDS)).min(1) }).strict();
export type RotateSecretRequest = z.infer<typeof RotateSecretRequest>;

/**
 * `partners set-scopes`: the root client's Partner API scopes, none allowed (an empty list). The
 * hosted ones (`menu`, `orders`, `stores`) are not set here: they come with `companies grant`.
 */
export const SetRootScopesRequest = z.object({ scopes: z.array(PartnerTokenScope) }).strict();
export type SetRootScopesRequest = z.infer<typeof SetRootScopesRequest>;
