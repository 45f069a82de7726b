import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { CreatePartnerTokenRequest, PartnerToken } from '@stream/contracts/apis/partner/index';
import { settleRevocation, tokenLiveSql, type PartnerAuth } from '../auth/bearer.ts';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { apiClients, orgs } from '../db/schema/index.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { creationOrder, pageOf, pageWindow, type Page, type PageQuery } from '../http/pagination.ts';
import { newSecret, sha256Hex } from '../http/secrets.ts';
import { prepared } from '../db/prepared.ts';
import { findVisibleOrg } from '../onboarding/orgs.ts';

/*
 * A partner token IS an API client limited to one org: its id is the client_id, its secret the
 * client_secret. Root clients (org_id null) are never listed or changed here.
 */
type ApiClient = typeof apiClients.$inferSelect;

/** The columns a partner token's wire form needs (never the secret's hash). */
const tokenColumns = {
  id: apiClients.id,
  orgId: apiClients.orgId,
  name: apiClients.name,
  scopes: apiClients.scopes,
  createdAt: apiClients.createdAt,
  updatedAt: apiClients.updatedAt,
};

export function toPartnerToken(
  client: Pick<ApiClient, 'id' | 'orgId' | 'name' | 'scopes' | 'createdAt' | 'updatedAt'>,
): PartnerToken {
  return {
    _id: client.id,
    org_id: client.orgId!,
    token_name: client.name,
    scopes: client.scopes as PartnerToken['scopes'],
    created_at: client.createdAt.toISOString(),
    updated_at: client.updatedAt.toISOString(),
  };
}

const TOKENS_ORDER = creationOrder('tokens', apiClients.createdAt, apiClients.id);

/**
 * One round trip for the whole authenticated read: is the caller's token live (`tokenLiveSql`),
 * is the org visible (the partner owns it; else no org id: 404), and one page of its active tokens
 * (a row with no client: none). Always at least one row.
 */
const orgWithTokens = prepared('tokens_list', (db, name) =>
  db
    .select({
      live: tokenLiveSql(sql.placeholder('familyId')),
      orgId: orgs.id,
      client: tokenColumns,
      instant: TOKENS_ORDER.instant,
    })
    .from(sql`(select 1) as one`)
    .leftJoin(
      orgs,
      and(eq(orgs.id, sql.placeholder('orgId')), eq(orgs.partnerId, sql.placeholder('partnerId'))),
    )
    .leftJoin(
      apiClients,
      and(
        eq(apiClients.orgId, orgs.id),
        eq(apiClients.partnerId, orgs.partnerId),
        isNull(apiClients.revokedAt),
        TOKENS_ORDER.wherePrepared(),
      ),
    )
    .orderBy(...TOKENS_ORDER.orderBy)
    .limit(sql.placeholder('limit'))
    .prepare(name),
);

export async function listTokens(
  db: DbOrTx,
  auth: PartnerAuth,
  orgId: string,
  query: PageQuery,
): Promise<Page<PartnerToken>> {
  const window = pageWindow(TOKENS_ORDER.order, query);
  // The visibility rule of findVisibleOrg, folded into the list query.
  if (auth.orgId && auth.orgId !== orgId) throw notFound('organisation');
  const rows = await orgWithTokens(db).execute({
    orgId,
    partnerId: auth.partnerId,
    familyId: auth.familyId,
    ...TOKENS_ORDER.placeholders(window),
  });
  settleRevocation(auth, rows[0]!.live);
  if (!rows[0]!.orgId) throw notFound('organisation');
  const tokens = rows.flatMap((r) => (r.client ? [{ client: r.client, instant: r.instant! }] : []));
  const { items, ...page } = pageOf(window, tokens, (t) => [t.instant, t.client.id]);
  return { ...page, items: items.map((t) => toPartnerToken(t.client)) };
}

export async function createToken(
  db: DbOrTx,
  auth: PartnerAuth,
  input: z.output<typeof CreatePartnerTokenRequest>,
): Promise<{ token: PartnerToken; secret: string }> {
  const org = await findVisibleOrg(db, auth, input.org_id);
  // The calling token's scopes, as its client has them now: a scope taken from the client since the
  // access token was issued (`partners set-scopes`) is not handed on for the rest of its hour.
  const [client] = await db
    .select({ scopes: apiClients.scopes })
    .from(apiClients)
    .where(eq(apiClients.id, auth.clientId));
  const allowed = auth.scopes.filter((s) => client?.scopes.includes(s));
  const extra = input.scopes.filter((s) => !allowed.includes(s));
  if (extra.length) {
    throw new ApiError(
      'invalid_scope',
      `A token can only get scopes the calling token and its API client both have now (${allowed.join(', ') || 'none'}); not ${extra.join(', ')}.`,
    );
  }
  const secret = newSecret('sk');
  const [row] = await db
    .insert(apiClients)
    .values({
      id: newId('cli'),
      partnerId: auth.partnerId,
      orgId: org.id,
      name: input.token_name,
      secretHash: sha256Hex(secret),
      scopes: [...new Set(input.scopes)],
    })
    .returning();
  return { token: toPartnerToken(row!), secret };
}

/** Changes a visible, active partner token; 404 for anything else (other partner, other org, root client, revoked). */
async function updateVisibleToken(
  db: DbOrTx,
  auth: PartnerAuth,
  tokenId: string,
  set: Partial<Pick<ApiClient, 'name'>> & { revokedAt?: ReturnType<typeof sql> },
): Promise<ApiClient> {
  const [row] = await db
    .update(apiClients)
    .set({ ...set, updatedAt: sql`now()` })
    .where(
      and(
        eq(apiClients.id, tokenId),
        eq(apiClients.partnerId, auth.partnerId),
        auth.orgId ? eq(apiClients.orgId, auth.orgId) : isNotNull(apiClients.orgId),
        isNull(apiClients.revokedAt),
      ),
    )
    .returning();
  if (!row) throw notFound('token');
  return row;
}

export async function renameToken(
  db: DbOrTx,
  auth: PartnerAuth,
  tokenId: string,
  name: string,
): Promise<PartnerToken> {
  return toPartnerToken(await updateVisibleToken(db, auth, tokenId, { name }));
}

/** Revokes at once: the bearer check and both grants look at api_clients.revoked_at. */
export async function revokeToken(db: DbOrTx, auth: PartnerAuth, tokenId: string): Promise<PartnerToken> {
  return toPartnerToken(await updateVisibleToken(db, auth, tokenId, { revokedAt: sql`now()` }));
}
