import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { locationBindings, orgLocations } from '../db/schema/index.ts';
import type { Binding, OrgLocation } from '../onboarding/bindings.ts';

/**
 * Whether a location takes orders now: not when the store's binding is not APPROVED (still being
 * connected, or a merchant grant to renew), when the POS marked it offline or inactive (until its
 * `paused_until`), nor when the DSP paused the store (between its start and end times).
 */

const until = (ms: number | null | undefined) => (ms ? ` until ${new Date(ms).toISOString()}` : '');

/** Why the location refuses orders at `nowMs`, as a sentence for `error_message`; undefined when it takes them. */
export function refusalReason(
  location: Pick<OrgLocation, 'posStatus' | 'pausedUntil' | 'offlineSince' | 'name'>,
  binding: Pick<Binding, 'storeStatus' | 'status'> | undefined,
  nowMs: number,
): string | undefined {
  if (binding && binding.status !== 'APPROVED') return `The store's connection is ${binding.status}.`;
  if (location.offlineSince)
    return `${location.name} is offline at the POS; orders are refused until it is back.`;
  const pausedUntil = location.pausedUntil?.getTime();
  if (location.posStatus === 'inactive' && (!pausedUntil || pausedUntil > nowMs)) {
    return `${location.name} is not taking orders${until(pausedUntil)} (paused at the POS).`;
  }
  const store = binding?.storeStatus;
  if (
    store?.status === 'paused' &&
    (store.start_time === null || store.start_time <= nowMs) &&
    (store.end_time === null || store.end_time > nowMs)
  ) {
    return `The store is paused on your side${until(store.end_time)}.`;
  }
  return undefined;
}

/** `refusalReason` for an order's location and binding, read from the database. */
export async function refusingOrders(
  db: DbOrTx,
  order: { locationId: string | null; bindingId: string | null },
): Promise<string | undefined> {
  if (!order.locationId) return 'The store is bound to no location.';
  const [location] = await db.select().from(orgLocations).where(eq(orgLocations.id, order.locationId));
  if (!location) return 'The location no longer exists.';
  const [binding] = order.bindingId
    ? await db.select().from(locationBindings).where(eq(locationBindings.id, order.bindingId))
    : [];
  return refusalReason(location, binding, Date.now());
}
