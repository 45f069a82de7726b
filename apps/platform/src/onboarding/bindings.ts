import { planPublish } from '../menus/publish.ts';
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import {
  BINDING_STATES,
  ORG_LOCATION_STATES,
  statesLeadingTo,
  type BindingStatus,
  type OrgLocationStatus,
} from '@stream/contracts/states';
import { recordLifecycle } from '../billing/lifecycle.ts';
import type { DbOrTx } from '../db/client.ts';
import { locationBindings, orgLocations } from '../db/schema/index.ts';

/**
 * Status changes of bindings and org locations. Every change goes through here so the guards
 * (only the states the machine allows may move) and the billing events stay in one place.
 */

export type Binding = typeof locationBindings.$inferSelect;
export type OrgLocation = typeof orgLocations.$inferSelect;

/**
 * Bindings that still hold their DSP store (a second bind of the same store is a 409); the partial
 * unique indexes of `location_bindings` list the same states.
 */
export const LIVE_BINDING_STATES: readonly BindingStatus[] = ['pending', 'APPROVED', 'needs_reconnection'];

/**
 * What an org location's status should be given its bindings: active while any binding is
 * APPROVED, else pending. Deprovisioning is driven by the POS integration, not by bindings, so a
 * location on its way out keeps its status.
 */
export function locationStatusFromBindings(
  current: OrgLocationStatus,
  bindings: readonly BindingStatus[],
): OrgLocationStatus {
  if (current === 'waiting_for_deprovision' || current === 'deprovisioned') return current;
  return bindings.includes('APPROVED') ? 'active' : 'pending';
}

/**
 * Moves the bindings matching `where` that may become `to` (others are left alone), then brings
 * their locations' status in line. Records `location_activated` per approval. Answers the moved rows.
 */
export async function moveBindings(
  tx: DbOrTx,
  where: SQL | undefined,
  to: BindingStatus,
  reason: string | null = null,
): Promise<Binding[]> {
  const moved = await tx
    .update(locationBindings)
    .set({
      status: to,
      statusReason: reason,
      changeTime: sql`now()`,
      updatedAt: sql`now()`,
      // A new connection round starts from scratch.
      ...(to === 'pending' ? { posConnected: false, dspConnected: false } : {}),
    })
    .where(and(where, inArray(locationBindings.status, statesLeadingTo(BINDING_STATES, to))))
    .returning();
  // Locations first: their row locks order this transaction's billing events after those of a
  // concurrent one that moved another binding of the same location (recorded before the lock, an
  // activation could precede that one's deactivation while this binding keeps the location active).
  await syncLocations(
    tx,
    moved.map((b) => b.locationId),
  );
  if (to === 'APPROVED') {
    for (const b of moved) {
      await recordLifecycle(tx, {
        partnerId: b.partnerId,
        orgId: b.orgId,
        subjectType: 'location',
        subjectId: b.locationId,
        event: 'location_activated',
      });
      // A new store gets the location's menu.
      await planPublish(tx, { location_id: b.locationId, cause: 'binding', binding_id: b.id });
    }
  }
  return moved;
}

/** Records that one side's connection call succeeded; both sides done makes the binding APPROVED. */
export async function markConnected(tx: DbOrTx, bindingId: string, side: 'pos' | 'dsp'): Promise<void> {
  const [row] = await tx
    .update(locationBindings)
    .set(side === 'pos' ? { posConnected: true } : { dspConnected: true })
    .where(and(eq(locationBindings.id, bindingId), eq(locationBindings.status, 'pending')))
    .returning();
  if (row?.posConnected && row.dspConnected) {
    await moveBindings(tx, eq(locationBindings.id, bindingId), 'APPROVED');
  }
}

/**
 * An org location is `active` while it has an APPROVED binding, else `pending`; losing the last
 * one records `location_deactivated`.
 */
export async function syncLocations(tx: DbOrTx, locationIds: readonly string[]): Promise<void> {
  // Sorted, and each location locked before its bindings are read: two transactions each losing a
  // different APPROVED binding of one location would otherwise both still see the other's.
  for (const id of [...new Set(locationIds)].sort()) {
    const [location] = await tx.select().from(orgLocations).where(eq(orgLocations.id, id)).for('update');
    if (!location) continue;
    const bindings = await tx
      .select({ status: locationBindings.status })
      .from(locationBindings)
      .where(eq(locationBindings.locationId, id));
    const next = locationStatusFromBindings(
      location.status,
      bindings.map((b) => b.status),
    );
    if (next !== location.status) await moveLocation(tx, location, next, null);
  }
}

/** Moves one org location if its machine allows it; leaving `active` records `location_deactivated`. */
export async function moveLocation(
  tx: DbOrTx,
  location: OrgLocation,
  to: OrgLocationStatus,
  reason: string | null,
): Promise<boolean> {
  const [moved] = await tx
    .update(orgLocations)
    .set({ status: to, statusReason: reason, changeTime: sql`now()`, updatedAt: sql`now()` })
    .where(
      and(
        eq(orgLocations.id, location.id),
        inArray(orgLocations.status, statesLeadingTo(ORG_LOCATION_STATES, to)),
      ),
    )
    .returning({ id: orgLocations.id });
  if (moved && location.status === 'active' && to !== 'active') {
    await recordLifecycle(tx, {
      partnerId: location.partnerId,
      orgId: location.orgId,
      subjectType: 'location',
      subjectId: location.id,
      event: 'location_deactivated',
    });
  }
  return Boolean(moved);
}

/** Bindings that use an integration's merchant token: a DSP's own, or those of a POS's locations. */
export function bindingsOfIntegration(integration: { id: string; type: 'pos' | 'dsp' }): SQL {
  return integration.type === 'dsp'
    ? eq(locationBindings.dspIntegrationId, integration.id)
    : inArray(
        locationBindings.locationId,
        sql`(select ${orgLocations.id} from ${orgLocations} where ${orgLocations.integrationId} = ${integration.id})`,
      );
}
