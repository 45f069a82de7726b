import { and, asc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import {
  ALL_SCOPES,
  defaultRootScopes,
  isHostedScope,
  WHITE_LABEL_SCOPES,
  type PartnerKind,
  type Scope,
} from '@stream/contracts/common';
import type { DbOrTx } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { prepared } from '../db/prepared.ts';
import { newId } from '../db/ids.ts';
import { apiClients, partners, ssoLoginTokens, tokenFamilies } from '../db/schema/index.ts';
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

const exists = (slug: string) => new PartnerExistsError(`A partner with slug "${slug}" already exists.`);

/** Creates a partner with its root API client (client_credentials) and its webhook secret. */
export async function createPartner(
  db: DbOrTx,
  key: Buffer,
  input: CreatePartnerInput,
): Promise<PartnerCredentials> {
  const existing = await db.select({ id: partners.id }).from(partners).where(eq(partners.slug, input.slug));
  if (existing.length) throw exists(input.slug);
  const partnerId = newId('ptr');
  const clientId = newId('cli');
  const clientSecret = newSecret('sk');
  const webhookSecret = newSecret('whsec');
  try {
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
  } catch (err) {
    // Two creates of one slug racing on PostgreSQL: the loser sees the unique index.
    if (isUniqueViolation(err)) throw exists(input.slug);
    throw err;
  }
  await db.insert(apiClients).values({
    id: clientId,
    partnerId,
    orgId: null,
    name: `${input.slug} root client`,
    secretHash: sha256Hex(clientSecret),
    // Least privilege by kind: the white-label scopes for a white-label partner, none for a POS,
    // DSP or event provider (their Partner API calls need no scope) unless the operator names them.
    // The hosted APIs' scopes come with a company grant (`companies grant`), not with the partner.
    scopes: [...(input.scopes ?? defaultRootScopes(input.kind))],
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

// Every signed webhook looks its partner up: prepared once per database.
const partnerById = prepared('partner_by_id', (db, name) =>
  db
    .select()
    .from(partners)
    .where(eq(partners.id, sql.placeholder('ref')))
    .prepare(name),
);
const partnerBySlug = prepared('partner_by_slug', (db, name) =>
  db
    .select()
    .from(partners)
    .where(eq(partners.slug, sql.placeholder('ref')))
    .prepare(name),
);

export async function findPartner(db: DbOrTx, idOrSlug: string): Promise<Partner | undefined> {
  const query = idOrSlug.startsWith('ptr_') ? partnerById(db) : partnerBySlug(db);
  const [row] = await query.execute({ ref: idOrSlug });
  return row;
}

export function webhookSecretOf(key: Buffer, partner: Partner): string {
  return decrypt(key, partner.webhookSecretEnc);
}

/** A partner as `partners list` shows it: no secrets. */
export interface PartnerSummary {
  id: string;
  kind: PartnerKind;
  slug: string;
  name: string;
  base_url: string | null;
  /** The root API client's id (the client_credentials pair made with the partner). */
  client_id: string | null;
  /** The client id the partner issued to the platform for merchant OAuth, if any. */
  oauth_client_id: string | null;
  created_at: string;
  /** The last passed certification run (`POST /certification/runs`) and when; null: never certified. */
  certified_run_id: string | null;
  certified_at: string | null;
  /** When the operator moved the partner to live (`partners go-live`); null: still in sandbox. */
  live_at: string | null;
  /** Sandbox partners only: their secrets, which they keep readable (see sandbox-bootstrap.ts). */
  sandbox_credentials?: Pick<PartnerCredentials, 'client_secret' | 'webhook_secret'> & {
    oauth_client_secret: string | null;
  };
}

/** The partner's root API client: the one made with it, not limited to an org. */
const isRootClientOf = (partnerId: typeof partners.id | string) =>
  and(eq(apiClients.partnerId, partnerId), isNull(apiClients.orgId), isNull(apiClients.revokedAt));

export async function listPartners(db: DbOrTx): Promise<PartnerSummary[]> {
  const rows = await db
    .select({ partner: partners, clientId: apiClients.id })
    .from(partners)
    .leftJoin(apiClients, isRootClientOf(partners.id))
    .orderBy(asc(partners.createdAt), asc(partners.slug), asc(apiClients.createdAt));
  const seen = new Set<string>();
  return rows.flatMap(({ partner: p, clientId }) => {
    if (seen.has(p.id)) return []; // a second root client (none is made today): show the first
    seen.add(p.id);
    return [
      {
        id: p.id,
        kind: p.kind,
        slug: p.slug,
        name: p.name,
        base_url: p.baseUrl,
        client_id: clientId,
        oauth_client_id: p.oauthClientId,
        created_at: p.createdAt.toISOString(),
        certified_run_id: p.certifiedRunId,
        certified_at: p.certifiedAt?.toISOString() ?? null,
        live_at: p.liveAt?.toISOString() ?? null,
      },
    ];
  });
}

export const SECRET_KINDS = ['client', 'webhook'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** What `partners rotate-secret` prints: each new secret appears here once. */
export interface RotatedSecrets {
  partner_id: string;
  slug: string;
  client_id?: string;
  client_secret?: string;
  webhook_secret?: string;
}

export class PartnerNotFoundError extends Error {}

/**
 * Replaces the root client secret and/or the webhook secret. The old ones stop working at once
 * (no grace period: rotation is what you do after a leak). Rotating the client secret also revokes
 * what a holder of the leaked secret could have obtained with it: the token families issued to that
 * client (its access and refresh tokens: the bearer check reads the family), every partner token of
 * the partner (`POST /tokens`, with theirs: nothing records which token made one, and one made by
 * whoever held the secret would otherwise outlive the rotation), and the SSO login tokens not yet
 * redeemed. Sessions already opened are the users' and are kept.
 */
export async function rotateSecret(
  db: DbOrTx,
  key: Buffer,
  idOrSlug: string,
  which: readonly SecretKind[],
): Promise<RotatedSecrets> {
  return db.transaction(async (tx) => {
    const partner = await findPartner(tx, idOrSlug);
    if (!partner) throw new PartnerNotFoundError(`No partner with id or slug "${idOrSlug}".`);
    const out: RotatedSecrets = { partner_id: partner.id, slug: partner.slug };
    if (which.includes('client')) {
      const [client] = await tx
        .select({ id: apiClients.id })
        .from(apiClients)
        .where(isRootClientOf(partner.id))
        .orderBy(asc(apiClients.createdAt))
        .limit(1);
      if (!client) throw new PartnerNotFoundError(`Partner "${partner.slug}" has no root API client.`);
      const secret = newSecret('sk');
      const now = new Date();
      await tx
        .update(apiClients)
        .set({ secretHash: sha256Hex(secret), updatedAt: now })
        .where(eq(apiClients.id, client.id));
      if (typeof partner.settings.client_secret_enc === 'string') {
        // A partner that keeps its secret readable (the sandbox partners) keeps the new one.
        const settings = { ...partner.settings, client_secret_enc: encrypt(key, secret) };
        await tx.update(partners).set({ settings }).where(eq(partners.id, partner.id));
      }
      await tx
        .update(tokenFamilies)
        .set({ revokedAt: now, revokedReason: 'client_secret_rotated' })
        .where(and(eq(tokenFamilies.clientId, client.id), isNull(tokenFamilies.revokedAt)));
      await tx
        .update(apiClients)
        .set({ revokedAt: now, updatedAt: now })
        .where(
          and(
            eq(apiClients.partnerId, partner.id),
            isNotNull(apiClients.orgId),
            isNull(apiClients.revokedAt),
          ),
        );
      // Expired rather than deleted: the redemption then says to generate a new one.
      await tx
        .update(ssoLoginTokens)
        .set({ expiresAt: now })
        .where(
          and(
            eq(ssoLoginTokens.partnerId, partner.id),
            isNull(ssoLoginTokens.redeemedAt),
            gt(ssoLoginTokens.expiresAt, now),
          ),
        );
      out.client_id = client.id;
      out.client_secret = secret;
    }
    if (which.includes('webhook')) {
      const secret = newSecret('whsec');
      await tx
        .update(partners)
        .set({ webhookSecretEnc: encrypt(key, secret) })
        .where(eq(partners.id, partner.id));
      out.webhook_secret = secret;
    }
    return out;
  });
}

/**
 * Sets the Partner API scopes (the white-label ones) of a partner's root client, for any kind: the
 * operator's way to give a POS, DSP or event provider white-label work, or to take it back. The
 * hosted scopes the client has (`companies grant`) are kept. The partner's tokens (`POST /tokens`)
 * lose the white-label scopes it no longer has, and every token family what its client no longer
 * has, so a refresh cannot keep a scope taken away; new ones come with the next client_credentials
 * grant. Access tokens already issued keep theirs until they expire (an hour).
 */
export async function setRootScopes(
  db: DbOrTx,
  idOrSlug: string,
  scopes: readonly Scope[],
): Promise<{ partner_id: string; slug: string; kind: PartnerKind; client_id: string; scopes: Scope[] }> {
  return db.transaction(async (tx) => {
    const partner = await findPartner(tx, idOrSlug);
    if (!partner) throw new PartnerNotFoundError(`No partner with id or slug "${idOrSlug}".`);
    const [client] = await tx
      .select({ id: apiClients.id, scopes: apiClients.scopes })
      .from(apiClients)
      .where(isRootClientOf(partner.id))
      .orderBy(asc(apiClients.createdAt))
      .limit(1);
    if (!client) throw new PartnerNotFoundError(`Partner "${partner.slug}" has no root API client.`);
    const wanted = new Set<string>([...scopes, ...client.scopes.filter(isHostedScope)]);
    const next = ALL_SCOPES.filter((s) => wanted.has(s));
    await tx
      .update(apiClients)
      .set({ scopes: next, updatedAt: new Date() })
      .where(eq(apiClients.id, client.id));
    // Its partner tokens (POST /tokens) hold a white-label scope only while the root client does.
    const dropped = WHITE_LABEL_SCOPES.filter((s) => !wanted.has(s));
    await tx.execute(sql`
      UPDATE ${apiClients} SET scopes = ARRAY(
        SELECT s FROM unnest(scopes) WITH ORDINALITY AS t(s, i)
        WHERE NOT s = ANY(${sql.param(dropped, apiClients.scopes)}) ORDER BY i
      ), updated_at = now()
      WHERE partner_id = ${partner.id} AND org_id IS NOT NULL
        AND scopes && ${sql.param(dropped, apiClients.scopes)}`);
    // Their token families lose what their client no longer has, so a refresh cannot keep it.
    await tx.execute(sql`
      UPDATE ${tokenFamilies} f SET scopes = ARRAY(
        SELECT s FROM unnest(f.scopes) WITH ORDINALITY AS t(s, i) WHERE s = ANY(c.scopes) ORDER BY i
      )
      FROM ${apiClients} c
      WHERE c.id = f.client_id AND c.partner_id = ${partner.id} AND f.revoked_at IS NULL
        AND NOT (f.scopes <@ c.scopes)`);
    return {
      partner_id: partner.id,
      slug: partner.slug,
      kind: partner.kind,
      client_id: client.id,
      scopes: next,
    };
  });
}

export class PartnerNotCertifiedError extends Error {}

/**
 * Moves a partner from sandbox to live: only one with a passed certification run. Answers when it
 * went live (the first time: going live again changes nothing).
 */
export async function goLive(
  db: DbOrTx,
  idOrSlug: string,
): Promise<{ partner_id: string; slug: string; certified_run_id: string; live_at: string }> {
  const partner = await findPartner(db, idOrSlug);
  if (!partner) throw new PartnerNotFoundError(`No partner ${idOrSlug}.`);
  if (!partner.certifiedRunId) {
    throw new PartnerNotCertifiedError(
      `${partner.slug} has no passed certification run: it starts one with POST /certification/runs ` +
        'and passes every required check first (a local stream-platform certify run is not recorded, so it does not count).',
    );
  }
  const [row] = await db
    .update(partners)
    .set({ liveAt: sql`coalesce(${partners.liveAt}, now())` })
    .where(eq(partners.id, partner.id))
    .returning();
  return {
    partner_id: row!.id,
    slug: row!.slug,
    certified_run_id: row!.certifiedRunId!,
    live_at: row!.liveAt!.toISOString(),
  };
}
