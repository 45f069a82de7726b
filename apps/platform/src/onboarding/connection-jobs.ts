import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { locationBindings, orgLocations, partners } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import type { Backoff } from '../jobs/backoff.ts';
import { defineJobKind, PermanentJobError, type Job } from '../jobs/kinds.ts';
import { enqueue } from '../jobs/outbox.ts';
import { markConnected, moveBindings, moveLocation, type Binding, type OrgLocation } from './bindings.ts';
import type { IntegrationStatus } from '@stream/contracts/states';
import { PARTNER_OPERATIONS, PartnerCallError } from '../connectors/index.ts';
import { onboardingFailureOf, recordMenuFailure } from '../menus/publish.ts';
import { merchant } from './merchant.ts';

/**
 * The outbox jobs of location binding. `onboarding.connect` makes one side of a binding (the POS
 * location at the POS, the store at the DSP); when both succeeded the binding is APPROVED, when one
 * gives up it is `needs_reconnection` with the reason, and a DSP side that gave up is also told to
 * the POS as a menu failure (the store will get no menu): the code the DSP named in its refusal,
 * else ONBOARDING_FAILURE_UNKNOWN. `onboarding.disconnect` deletes a
 * connection after an integration was deleted, then marks the binding or location deprovisioned.
 */

/**
 * Retry schedule of connection calls (about 2 s doubling to 10 min, 8 attempts). Exported so a
 * test can make it quick; the worker reads it at each failure.
 */
export const CONNECTION_BACKOFF: Backoff = { baseMs: 2_000, maxMs: 10 * 60_000 };

type Side = 'pos' | 'dsp';
const ConnectPayload = z.object({ binding_id: z.string().min(1), side: z.enum(['pos', 'dsp']) });
const DisconnectPayload = z.discriminatedUnion('side', [
  z.object({ side: z.literal('dsp'), binding_id: z.string().min(1) }),
  z.object({ side: z.literal('pos'), location_id: z.string().min(1) }),
]);
type DisconnectPayload = z.infer<typeof DisconnectPayload>;

type Target = { integrationId: string; side: Side; locationId: string };
const whoIs = (side: Side) => (side === 'pos' ? 'POS' : 'DSP');

/** A POS location's side: the POS integration's token, and the POS's id of the location. */
const posSide = (location: OrgLocation): Target => ({
  integrationId: location.integrationId,
  side: 'pos',
  locationId: location.providerId,
});

/** Who to call for one side of a binding: which integration's token, and which partner location id. */
async function sideOf(db: DbOrTx, binding: Binding, side: Side): Promise<Target> {
  if (side === 'dsp')
    return { integrationId: binding.dspIntegrationId, side, locationId: binding.dspProviderId };
  const location = await findLocation(db, binding.locationId);
  if (!location) throw new PermanentJobError(`Location ${binding.locationId} no longer exists.`);
  return posSide(location);
}

/** One connection call as the merchant; a grant that cannot be used any more will not heal by retrying. */
async function callPartner(
  ctx: AppContext,
  job: Job,
  to: Target,
  connect: boolean,
  allow: readonly IntegrationStatus[],
): Promise<void> {
  try {
    const ops = PARTNER_OPERATIONS[to.side];
    await merchant.call(ctx, to.integrationId, connect ? ops.connect : ops.disconnect, {
      body: { location_id: to.locationId },
      job,
      allow,
    });
  } catch (err) {
    if (
      err instanceof ApiError &&
      (err.code === 'integration_needs_reconnection' || err.code === 'integration_not_active')
    ) {
      throw new PermanentJobError(err.message);
    }
    throw err;
  }
}

async function findBinding(db: DbOrTx, id: string): Promise<Binding | undefined> {
  const [row] = await db.select().from(locationBindings).where(eq(locationBindings.id, id));
  return row;
}

async function findLocation(db: DbOrTx, id: string): Promise<OrgLocation | undefined> {
  const [row] = await db.select().from(orgLocations).where(eq(orgLocations.id, id));
  return row;
}

/** Both kinds retry alike: 8 attempts on {@link CONNECTION_BACKOFF}, for a day at most. */
const RETRIES = { maxAttempts: 8, deadlineMs: 24 * 60 * 60 * 1000, backoff: CONNECTION_BACKOFF };

export const connectJob = defineJobKind<z.infer<typeof ConnectPayload>, { done: boolean }>({
  kind: 'onboarding.connect',
  payload: ConnectPayload,
  ...RETRIES,
  async handle(job, ctx) {
    const binding = await findBinding(ctx.db, job.payload.binding_id);
    // Superseded (deleted, or marked needs_reconnection meanwhile): nothing to do.
    if (!binding || binding.status !== 'pending') return { done: false };
    try {
      await callPartner(ctx, job, await sideOf(ctx.db, binding, job.payload.side), true, ['active']);
    } catch (err) {
      // A refusal the DSP named (DSP_ACCOUNT_NOT_FOUND, ...) will not change by retrying.
      const named =
        job.payload.side === 'dsp' && err instanceof PartnerCallError && err.reason === 'rejected'
          ? onboardingFailureOf(err.responseText)
          : undefined;
      if (named) throw new PermanentJobError(`${named}: ${err instanceof Error ? err.message : ''}`);
      throw err;
    }
    return { done: true };
  },
  async onSucceeded(tx, job, result) {
    if (result.done) await markConnected(tx, job.payload.binding_id, job.payload.side);
  },
  async onDead(tx, job) {
    const who = whoIs(job.payload.side);
    await moveBindings(
      tx,
      eq(locationBindings.id, job.payload.binding_id),
      'needs_reconnection',
      `The ${who} did not accept the connection after ${job.attempt} attempt(s): ${job.error}`.slice(0, 1000),
    );
    if (job.payload.side === 'dsp') await tellMenuFailure(tx, job.payload.binding_id, job.error);
  },
});

export const disconnectJob = defineJobKind<DisconnectPayload, { done: boolean }>({
  kind: 'onboarding.disconnect',
  payload: DisconnectPayload,
  ...RETRIES,
  async handle(job, ctx) {
    const p = job.payload;
    const allow = ['active', 'deprovisioned'] as const;
    if (p.side === 'dsp') {
      const binding = await findBinding(ctx.db, p.binding_id);
      if (!binding || binding.status !== 'waiting_for_deprovision') return { done: false };
      await callPartner(ctx, job, await sideOf(ctx.db, binding, 'dsp'), false, allow);
    } else {
      const location = await findLocation(ctx.db, p.location_id);
      if (!location || location.status !== 'waiting_for_deprovision') return { done: false };
      await callPartner(ctx, job, posSide(location), false, allow);
    }
    return { done: true };
  },
  async onSucceeded(tx, job, result) {
    if (result.done) await finishDisconnect(tx, job.payload, null);
  },
  async onDead(tx, job) {
    // Revoked on our side whatever the partner says; the reason tells support what is left over there.
    await finishDisconnect(
      tx,
      job.payload,
      `The ${whoIs(job.payload.side)} connection could not be deleted: ${job.error}`.slice(0, 1000),
    );
  },
});

/** The POS hears that the store will get no menu, with the DSP's reason. */
async function tellMenuFailure(tx: DbOrTx, bindingId: string, error: string): Promise<void> {
  const [store] = await tx
    .select({ binding: locationBindings, dsp: partners, location: orgLocations })
    .from(locationBindings)
    .innerJoin(partners, eq(partners.id, locationBindings.dspPartnerId))
    .innerJoin(orgLocations, eq(orgLocations.id, locationBindings.locationId))
    .where(eq(locationBindings.id, bindingId));
  if (!store) return;
  await recordMenuFailure(tx, store, {
    code: onboardingFailureOf(error) ?? 'ONBOARDING_FAILURE_UNKNOWN',
    reason: `The DSP refused to connect store ${store.binding.dspProviderId}: ${error}`.slice(0, 1000),
    cause: 'connection',
  });
}

async function finishDisconnect(tx: DbOrTx, p: DisconnectPayload, reason: string | null): Promise<void> {
  if (p.side === 'dsp') {
    await moveBindings(tx, eq(locationBindings.id, p.binding_id), 'deprovisioned', reason);
    return;
  }
  const location = await findLocation(tx, p.location_id);
  if (location) await moveLocation(tx, location, 'deprovisioned', reason);
}

/**
 * The calls of one connection run in order: a disconnect never overtakes the connect before it
 * (nor a connect after a re-bind the disconnect before it), whatever their retries. A POS side is
 * keyed by its location; a DSP side by the store (DSP and its store id), whichever binding holds it,
 * so the disconnect of a binding being deleted runs before the connect of the store bound anew.
 */
const connectionKey = (side: Side, id: string) => `connection:${side}:${id}`;
type Store = Pick<Binding, 'dspPartnerId' | 'dspProviderId'>;
const storeKey = (b: Store) => connectionKey('dsp', `${b.dspPartnerId}:${b.dspProviderId}`);

/** Enqueues both connection calls of a (pending) binding, in the caller's transaction. */
export async function enqueueConnect(
  tx: DbOrTx,
  binding: Pick<Binding, 'id' | 'locationId'> & Store,
  partners: Record<Side, string>,
): Promise<void> {
  for (const side of ['pos', 'dsp'] as const) {
    await enqueue(tx, {
      kind: connectJob,
      payload: { binding_id: binding.id, side },
      partnerId: partners[side],
      orderingKey: side === 'pos' ? connectionKey('pos', binding.locationId) : storeKey(binding),
    });
  }
}

/** The disconnect of a POS location, or of a binding's DSP store. */
export function enqueueDisconnect(
  tx: DbOrTx,
  payload: Extract<DisconnectPayload, { side: 'pos' }>,
  partnerId: string,
): Promise<string>;
export function enqueueDisconnect(
  tx: DbOrTx,
  payload: Extract<DisconnectPayload, { side: 'dsp' }>,
  partnerId: string,
  store: Store,
): Promise<string>;
export function enqueueDisconnect(
  tx: DbOrTx,
  payload: DisconnectPayload,
  partnerId: string,
  store?: Store,
): Promise<string> {
  return enqueue(tx, {
    kind: disconnectJob,
    payload,
    partnerId,
    orderingKey: payload.side === 'pos' ? connectionKey('pos', payload.location_id) : storeKey(store!),
  });
}
