import { and, eq, or } from 'drizzle-orm';
import type { PartnerAuth } from '../auth/bearer.ts';
import type { DbOrTx } from '../db/client.ts';
import { orgs } from '../db/schema/index.ts';
import { ApiError, notFound } from '../http/errors.ts';
import type { Org } from '../onboarding/orgs.ts';

/**
 * The optional `?partner_id` of white-label routes: it may only name the caller itself. Another
 * partner's id answers 404 (not 403), so a caller cannot probe which partner ids exist.
 */
export function assertOwnPartner(auth: PartnerAuth, partnerId: string | undefined): void {
  if (partnerId !== undefined && partnerId !== auth.partnerId) throw notFound('partner');
}

/**
 * The org a white-label call names: by the platform id or by the partner's own `provider_id`,
 * among the caller's orgs (and, for a token limited to one org, only that one). Unnamed, it is the
 * token's org.
 */
export async function findOwnedOrg(db: DbOrTx, auth: PartnerAuth, ref: string | undefined): Promise<Org> {
  const wanted = ref ?? auth.orgId;
  if (!wanted) {
    const message = 'Required: name the org by its provider_id or id (your token is not limited to one org).';
    throw new ApiError('validation_failed', `body.provider_org_id: ${message}`, [
      { path: 'body.provider_org_id', message },
    ]);
  }
  const rows = await db
    .select()
    .from(orgs)
    .where(and(eq(orgs.partnerId, auth.partnerId), or(eq(orgs.id, wanted), eq(orgs.providerId, wanted))));
  // A platform id wins over a provider_id that spells the same string, for every token: such a
  // provider_id is refused since creation checks it (PLATFORM_ORG_ID), but one stored before may remain.
  const org = rows.find((o) => o.id === wanted) ?? rows[0];
  if (!org || (auth.orgId !== null && org.id !== auth.orgId)) throw notFound('organisation');
  return org;
}
