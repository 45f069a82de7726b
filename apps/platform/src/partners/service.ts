import { eq } from 'drizzle-orm';
import { ALL_SCOPES, type PartnerKind, type Scope } from '@stream/contracts/common';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { apiClients, partners } from '../db/schema/index.ts';
import { decrypt, encrypt, newSecret, sha256Hex } from '../http/secrets.ts';

export interface CreatePartnerInput {
  kind: PartnerKind;
  slug: string;
  name: string;
  baseUrl?: string | undefined;
  scopes?: readonly Scope[] | undefined;
  oauthClientId?: string | undefined;
  oauthClientSecret?: string | undefined;
}

/** What `partners create` prints: the secrets appear here once and are never shown again. */
export interface PartnerCredentials {
  partner_id: string;
  slug: string;
  kind: PartnerKind;
  client_id: string;
  client_secret: string;
  webhook_secret: string;
}

export const SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;

export class PartnerExistsError extends Error {}

/** Creates a partner with its root API client (client_credentials) and its webhook secret. */
export async function createPartner(db: DbOrTx, key: Buffer, input: CreatePartnerInput): Promise<PartnerCredentials> {
  const existing = await db.select({ id: partners.id }).from(partners).where(eq(partners.slug, input.slug));
  if (existing.length) throw new PartnerExistsError(`A partner with slug "${input.slug}" already exists.`);
  const partnerId = newId('ptr');
  const clientId = newId('cli');
  const clientSecret = newSecret('sk');
  const webhookSecret = newSecret('whsec');
  await db.insert(partners).values({
    id: partnerId,
    kind: input.kind,
    slug: input.slug,
    name: input.name,
    baseUrl: input.baseUrl ?? null,
    webhookSecretEnc: encrypt(key, webhookSecret),
    oauthClientId: input.oauthClientId ?? null,
    oauthClientSecretEnc: input.oauthClientSecret ? encrypt(key, input.oauthClientSecret) : null,
  });
  await db.insert(apiClients).values({
    id: clientId,
    partnerId,
    orgId: null,
    name: `${input.slug} root client`,
    secretHash: sha256Hex(clientSecret),
    scopes: [...(input.scopes ?? ALL_SCOPES)],
  });
  return {
    partner_id: partnerId,
    slug: input.slug,
    kind: input.kind,
    client_id: clientId,
    client_secret: clientSecret,
    webhook_secret: webhookSecret,
  };
}

export type Partner = typeof partners.$inferSelect;

export async function findPartner(db: DbOrTx, idOrSlug: string): Promise<Partner | undefined> {
  const column = idOrSlug.startsWith('ptr_') ? partners.id : partners.slug;
  const [row] = await db.select().from(partners).where(eq(column, idOrSlug));
  return row;
}

export function webhookSecretOf(key: Buffer, partner: Partner): string {
  return decrypt(key, partner.webhookSecretEnc);
}
