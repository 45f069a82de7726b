import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, timestamptz } from './columns.ts';
import { orgs, partners, users } from './partners.ts';

/**
 * A single-use login token from `POST /white-label/generate-session`. Only its SHA-256 is kept; the
 * user it signs in is described here and created or updated when the token is redeemed.
 */
export const ssoLoginTokens = pgTable(
  'sso_login_tokens',
  {
    id: id(),
    tokenHash: text('token_hash').notNull().unique(),
    partnerId: ref('partner_id', () => partners.id),
    orgId: ref('org_id', () => orgs.id),
    /** The API client whose token asked for it (audit). */
    clientId: text('client_id').notNull(),
    email: text('email').notNull(),
    fullName: text('full_name').notNull(),
    phoneNumber: text('phone_number').notNull(),
    role: text('role').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    /** Set once, atomically, by the one redemption that wins. */
    redeemedAt: timestamptz('redeemed_at'),
    userId: text('user_id').references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [index('sso_login_tokens_expiry').on(t.expiresAt)],
);

/** A signed-in user's session, opened by redeeming an SSO login token. Only the token's hash is kept. */
export const userSessions = pgTable(
  'user_sessions',
  {
    id: id(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: ref('user_id', () => users.id),
    orgId: ref('org_id', () => orgs.id),
    ssoTokenId: text('sso_token_id').references(() => ssoLoginTokens.id),
    expiresAt: timestamptz('expires_at').notNull(),
    revokedAt: timestamptz('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [index('user_sessions_user').on(t.userId)],
);
