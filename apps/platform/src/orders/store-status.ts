import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { StoreStatusUpdateWebhook } from '@stream/contracts/apis/become-a-dsp/index';
import type { DbOrTx } from '../db/client.ts';
import { locationBindings, orgLocations } from '../db/schema/index.ts';
import { defineJobKind } from '../jobs/kinds.ts';
import { enqueue } from '../jobs/outbox.ts';
import type { Binding, OrgLocation } from '../onboarding/bindings.ts';
import { sendStoreEventToDsp } from './calls.ts';
import { TIMER } from './effects.ts';

/**
 * Whether a restaurant takes orders, both ways: a DSP's `store_status_update` is recorded on its
 * binding; a POS's `location.status.updated` (and `location.connection.offline`) is recorded on the
 * location and relayed to every DSP store bound to it as `location.pause` / `location.resume`, with
 * an automatic resume at `paused_until` (a job, so it survives restarts).
 */

export async function recordStoreStatus(
  tx: DbOrTx,
  binding: Binding,
  update: z.output<typeof StoreStatusUpdateWebhook>['status_update'],
): Promise<void> {
  await tx
    .update(locationBindings)
    .set({
      storeStatus: {
        status: update.status,
        start_time: update.start_time ?? null,
        end_time: update.end_time ?? null,
        updated_at: new Date().toISOString(),
      },
      updatedAt: new Date(),
    })
    .where(eq(locationBindings.id, binding.id));
}

/** Tells every live store of the location to pause (until `untilMs`, or indefinitely) or resume. */
async function relayToStores(tx: DbOrTx, location: OrgLocation, pause: boolean, untilMs: number | null) {
  const stores = await tx
    .select()
    .from(locationBindings)
    .where(and(eq(locationBindings.locationId, location.id), eq(locationBindings.status, 'APPROVED')));
  for (const b of stores) {
    await sendStoreEventToDsp(
      tx,
      b,
      pause
        ? { type: 'location.pause', location_id: b.dspProviderId, ...(untilMs ? { until_ms: untilMs } : {}) }
        : { type: 'location.resume', location_id: b.dspProviderId },
    );
  }
}

/**
 * `location.status.updated`: `inactive` pauses (until `paused_until` when given; one already past
 * is no pause at all: the location is active again), `active` resumes and is the POS saying an
 * offline location works again.
 */
export async function setLocationStatus(
  tx: DbOrTx,
  location: OrgLocation,
  status: 'active' | 'inactive',
  pausedUntilMs: number | null,
): Promise<void> {
  const past = status === 'inactive' && pausedUntilMs !== null && pausedUntilMs <= Date.now();
  const until = status === 'inactive' && !past && pausedUntilMs ? new Date(pausedUntilMs) : null;
  await writeStatus(tx, location, past ? 'active' : status, until, status === 'active');
}

/**
 * Records the POS status of a location and tells its stores. While the location is offline (and
 * this is not the POS bringing it back) its stores stay paused whatever the status says.
 */
async function writeStatus(
  tx: DbOrTx,
  location: OrgLocation,
  status: 'active' | 'inactive',
  until: Date | null,
  backOnline: boolean,
): Promise<void> {
  await tx
    .update(orgLocations)
    .set({
      posStatus: status,
      pausedUntil: until,
      ...(backOnline ? { offlineSince: null } : {}),
      updatedAt: new Date(),
    })
    .where(eq(orgLocations.id, location.id));
  if (!location.offlineSince || backOnline) {
    await relayToStores(tx, location, status === 'inactive', until?.getTime() ?? null);
  }
  if (until) {
    await enqueue(tx, {
      kind: resumeJob,
      payload: { location_id: location.id, paused_until: until.toISOString() },
      runAt: until,
    });
  }
}

/** `location.connection.offline`: orders are refused, and the DSP stores paused, until it is active again. */
export async function markOffline(tx: DbOrTx, location: OrgLocation): Promise<void> {
  await tx
    .update(orgLocations)
    .set({ offlineSince: sql`coalesce(${orgLocations.offlineSince}, now())`, updatedAt: new Date() })
    .where(eq(orgLocations.id, location.id));
  if (!location.offlineSince) await relayToStores(tx, location, true, null);
}

const ResumePayload = z.object({ location_id: z.string(), paused_until: z.string() });

/**
 * The automatic resume at `paused_until`, unless the POS changed the pause meanwhile. It lifts the
 * pause only: a location that went offline meanwhile stays offline, its stores paused.
 */
export const resumeJob = defineJobKind<z.infer<typeof ResumePayload>, void>({
  kind: 'locations.resume',
  payload: ResumePayload,
  ...TIMER,
  async onSucceeded(tx, job) {
    const [location] = await tx
      .select()
      .from(orgLocations)
      .where(eq(orgLocations.id, job.payload.location_id))
      .for('update');
    if (
      location?.posStatus !== 'inactive' ||
      location.pausedUntil?.toISOString() !== new Date(job.payload.paused_until).toISOString()
    ) {
      return;
    }
    await writeStatus(tx, location, 'active', null, false);
  },
});
