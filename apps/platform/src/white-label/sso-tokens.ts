import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import {
  SSO_LOGIN_TOKEN_TTL_SECONDS,
  USER_SESSION_TTL_SECONDS,
  type SsoRole,
} from '@stream/contracts/apis/partner/sso';
import type { DbOrTx, Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { apiClients, ssoLoginTokens, userSessions, users } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { newSecret, sha256Hex } from '../http/secrets.ts';

export interface SsoUserInput {
  partnerId: string;
  orgId: string;
  clientId: string;
  email: string;
  fullName: string;
  phoneNumber: string;
  role: SsoRole;
}

/** `sso_` + 32 random bytes in base64url, as `newSecret` mints it. */
const TOKEN_SHAPE = /^sso_[A-Za-z0-9_-]{43}$/;

const addSeconds = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000);

/** Mints a single-use login token; only its hash is stored. */
export async function issueLoginToken(
  db: DbOrTx,
  input: SsoUserInput,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret('sso');
  const expiresAt = addSeconds(now, SSO_LOGIN_TOKEN_TTL_SECONDS);
  await db
    .insert(ssoLoginTokens)
    .values({ id: newId('sso'), tokenHash: sha256Hex(token), expiresAt, ...input });
  return { token, expiresAt };
}

/**
 * The platform's users have a first and a last name; SSO sends one full name. Split at the first
 * space so that joining the two with one space gives the full name back.
 */
export function splitFullName(fullName: string): { firstName: string; lastName: string | null } {
  const name = fullName.trim().replace(/\s+/g, ' ');
  const space = name.indexOf(' ');
  return space < 0
    ? { firstName: name, lastName: null }
    : { firstName: name.slice(0, space), lastName: name.slice(space + 1) };
}

export const fullNameOf = (u: { firstName: string | null; lastName: string | null }) =>
  [u.firstName, u.lastName].filter(Boolean).join(' ');

type LoginToken = typeof ssoLoginTokens.$inferSelect;

/** Creates the token's user in its org, or updates the one with that email (any case). */
async function upsertUser(tx: Tx, t: LoginToken) {
  const fields = {
    ...splitFullName(t.fullName),
    phoneNumber: t.phoneNumber,
    role: t.role,
    updatedAt: new Date(),
  };
  const sameUser = and(eq(users.orgId, t.orgId), sql`lower(${users.email}) = lower(${t.email})`);
  // ON CONFLICT DO NOTHING: a concurrent first sign-in of the same email inserts first; we then update it.
  await tx
    .insert(users)
    .values({ id: newId('usr'), orgId: t.orgId, email: t.email, ...fields })
    .onConflictDoNothing();
  const [user] = await tx.update(users).set(fields).where(sameUser).returning();
  if (!user) throw new Error(`user of ${t.id} vanished during redemption`);
  return user;
}

/** The client that generated the login token is not revoked: revoking a partner token stops its logins too. */
const issuerLive = sql<boolean>`exists (select 1 from ${apiClients} where ${apiClients.id} = ${ssoLoginTokens.clientId} and ${apiClients.revokedAt} is null)`;

/**
 * Redeems a login token once: the conditional UPDATE lets exactly one concurrent redemption win.
 * Answers the user (created or updated) and a new session.
 */
export async function redeemLoginToken(db: DbOrTx, token: string, now = new Date()) {
  if (!TOKEN_SHAPE.test(token)) throw new ApiError('sso_token_invalid', 'That is not an sso_login_token.');
  const tokenHash = sha256Hex(token);
  return db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(ssoLoginTokens)
      .set({ redeemedAt: now })
      .where(
        and(
          eq(ssoLoginTokens.tokenHash, tokenHash),
          isNull(ssoLoginTokens.redeemedAt),
          gt(ssoLoginTokens.expiresAt, now),
          issuerLive,
        ),
      )
      .returning();
    if (!claimed) {
      const [row] = await tx
        .select({ redeemedAt: ssoLoginTokens.redeemedAt, issuerLive })
        .from(ssoLoginTokens)
        .where(eq(ssoLoginTokens.tokenHash, tokenHash));
      if (!row) throw new ApiError('sso_token_invalid', 'The sso_login_token is unknown.');
      if (!row.issuerLive)
        throw new ApiError(
          'sso_token_invalid',
          'The API client that generated this sso_login_token was revoked; generate a new one with a live client.',
        );
      if (row.redeemedAt)
        throw new ApiError('sso_token_redeemed', 'The sso_login_token was already used; generate a new one.');
      throw new ApiError(
        'sso_token_expired',
        `The sso_login_token expired (it lives ${SSO_LOGIN_TOKEN_TTL_SECONDS / 60} minutes, and a rotation of the partner's client secret ends it at once); generate a new one.`,
      );
    }
    const user = await upsertUser(tx, claimed);
    await tx.update(ssoLoginTokens).set({ userId: user.id }).where(eq(ssoLoginTokens.id, claimed.id));
    const sessionToken = newSecret('uss');
    const expiresAt = addSeconds(now, USER_SESSION_TTL_SECONDS);
    await tx.insert(userSessions).values({
      id: newId('ses'),
      tokenHash: sha256Hex(sessionToken),
      userId: user.id,
      orgId: user.orgId,
      ssoTokenId: claimed.id,
      expiresAt,
    });
    return { session: { token: sessionToken, expiresAt }, user };
  });
}
