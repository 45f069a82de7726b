import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { CreateOrgRequest } from '@stream/contracts/apis/partner/index';
import type { PartnerAuth } from '../auth/bearer.ts';
import { recordLifecycle } from '../billing/lifecycle.ts';
import type { DbOrTx } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { newId } from '../db/ids.ts';
import { orgs, users } from '../db/schema/index.ts';
import { ApiError, notFound } from '../http/errors.ts';

export type Org = typeof orgs.$inferSelect;

/**
 * The organisation if the caller may see it: it belongs to the caller's partner and, for a token
 * limited to one organisation, is that one. Anything else is 404, never 403, so ids do not leak.
 */
export async function findVisibleOrg(db: DbOrTx, auth: PartnerAuth, orgId: string): Promise<Org> {
  if (auth.orgId && auth.orgId !== orgId) throw notFound('organisation');
  const [org] = await db
    .select()
    .from(orgs)
    .where(and(eq(orgs.id, orgId), eq(orgs.partnerId, auth.partnerId)));
  if (!org) throw notFound('organisation');
  return org;
}

const alreadyExists = (providerId: string) =>
  new ApiError('org_already_exists', `You already have an organisation with provider_id "${providerId}".`);

/** Creates an org of the caller's partner with its owner, and records `org_created` for billing. */
export async function createOrg(
  db: DbOrTx,
  auth: PartnerAuth,
  input: z.output<typeof CreateOrgRequest>,
): Promise<{ org_id: string; user_id: string }> {
  if (auth.orgId) {
    throw new ApiError(
      'org_limited_token',
      'This token is limited to one organisation and cannot create organisations; use a token of your root API client.',
    );
  }
  const orgId = newId('org');
  const userId = newId('usr');
  try {
    await db.transaction(async (tx) => {
      const [existing] = await tx
        .select({ id: orgs.id })
        .from(orgs)
        .where(and(eq(orgs.partnerId, auth.partnerId), eq(orgs.providerId, input.provider_id)));
      if (existing) throw alreadyExists(input.provider_id);
      await tx
        .insert(orgs)
        .values({ id: orgId, partnerId: auth.partnerId, name: input.name, providerId: input.provider_id });
      await tx.insert(users).values({
        id: userId,
        orgId,
        email: input.user.email,
        firstName: input.user.first_name,
        lastName: input.user.last_name,
        role: 'owner',
      });
      await recordLifecycle(tx, {
        partnerId: auth.partnerId,
        orgId,
        subjectType: 'org',
        subjectId: orgId,
        event: 'org_created',
      });
    });
  } catch (err) {
    // Two concurrent creations: the unique index decides, the loser gets the same 409.
    if (isUniqueViolation(err)) throw alreadyExists(input.provider_id);
    throw err;
  }
  return { org_id: orgId, user_id: userId };
}
