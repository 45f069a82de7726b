import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { orgs, partners, users } from './partners.ts';

/**
 * A single-use login token from `POST /white-label/generate-session`. Only its SHA-256 is kept; the
 * user it signs in is described here and created or updated when the token is redeemed.
 */
export const ssoLoginTokens = pgTable(
  'sso_login_tokens',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    orgId: text('org_id')
      .notNull()
      .references(() => orgs.id),
    /** The API client whose token asked for it (audit). */
    clientId: text('client_id').notNull(),
    email: text('email').notNull(),
    fullName: text('full_name').notNull(),
    phoneNumber: text('phone_number').notNull(),
    role: text('role').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Set once, atomically, by the one redemption that wins. */
    redeemedAt: timestamp('redeemed_at', { withTimezone: true }),
    userId: text('user_id').references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sso_login_tokens_expiry').on(t.expiresAt)],
);

/** A signed-in user's session, opened by redeeming an SSO login token. Only the token's hash is kept. */
export const userSessions = pgTable(
  'user_sessions',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    orgId: text('org_id')
      .notNull()
      .references(() => orgs.id),
    ssoTokenId: text('sso_token_id').references(() => ssoLoginTokens.id),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('user_sessions_user').on(t.userId)],
);
