import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, timestamptz, updatedAt } from './columns.ts';

/** A POS, DSP, event provider or white-label partner. */
export const partners = pgTable('partners', {
  id: id(),
  kind: text('kind', { enum: ['pos', 'dsp', 'events', 'white_label'] }).notNull(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  /** Where the partner's own endpoints live (POS/DSP/events). */
  baseUrl: text('base_url'),
  /** Encrypted: HMAC verification needs the secret itself. */
  webhookSecretEnc: text('webhook_secret_enc').notNull(),
  /** Client credentials the partner issued to the platform for merchant OAuth (encrypted secret). */
  oauthClientId: text('oauth_client_id'),
  oauthClientSecretEnc: text('oauth_client_secret_enc'),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
  /** The certification run that passed last (`POST /certification/runs`), and when. */
  certifiedRunId: text('certified_run_id'),
  certifiedAt: timestamptz('certified_at'),
  /** When the operator moved the partner from sandbox to live (`partners go-live`); null: sandbox. */
  liveAt: timestamptz('live_at'),
  createdAt: createdAt(),
});

/**
 * An OAuth client of the Partner API. A partner's root client (org_id null) is made with the
 * partner; partner tokens (`POST /tokens`) are clients limited to one org.
 */
export const apiClients = pgTable(
  'api_clients',
  {
    id: id(),
    partnerId: ref('partner_id', () => partners.id),
    /** Null for the partner's root client; set for a partner token (POST /tokens). */
    orgId: text('org_id').references((): AnyPgColumn => orgs.id),
    name: text('name').notNull(),
    /** SHA-256 of the secret: secrets are 256-bit random, so a slow hash adds nothing. */
    secretHash: text('secret_hash').notNull(),
    scopes: text('scopes').array().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    revokedAt: timestamptz('revoked_at'),
  },
  (t) => [index('api_clients_partner_org').on(t.partnerId, t.orgId)],
);

/** One chain of access and refresh tokens from a single client-credentials grant. */
export const tokenFamilies = pgTable('token_families', {
  id: id(),
  clientId: ref('client_id', () => apiClients.id),
  scopes: text('scopes').array().notNull(),
  createdAt: createdAt(),
  revokedAt: timestamptz('revoked_at'),
  revokedReason: text('revoked_reason'),
});

export const refreshTokens = pgTable('refresh_tokens', {
  id: id(),
  familyId: ref('family_id', () => tokenFamilies.id),
  tokenHash: text('token_hash').notNull().unique(),
  expiresAt: timestamptz('expires_at').notNull(),
  usedAt: timestamptz('used_at'),
  createdAt: createdAt(),
});

/** JWT signing keys. The newest unretired key signs; all keys not yet expired are in the JWKS. */
export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  alg: text('alg').notNull(),
  privateJwkEnc: text('private_jwk_enc').notNull(),
  publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
  createdAt: createdAt(),
  /** Stops signing from this time; still verifies until tokens it signed have expired. */
  retiredAt: timestamptz('retired_at'),
});

export const orgs = pgTable(
  'orgs',
  {
    id: id(),
    partnerId: ref('partner_id', () => partners.id),
    name: text('name').notNull(),
    /** The partner's own id for this organisation. */
    providerId: text('provider_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('orgs_partner_provider').on(t.partnerId, t.providerId)],
);

export const users = pgTable(
  'users',
  {
    id: id(),
    orgId: ref('org_id', () => orgs.id),
    email: text('email').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    phoneNumber: text('phone_number'),
    role: text('role').notNull().default('owner'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_org_email').on(t.orgId, sql`lower(${t.email})`)],
);
