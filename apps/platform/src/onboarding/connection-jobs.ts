import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { locationBindings, orgLocations } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import type { Backoff } from '../jobs/backoff.ts';
import { defineJobKind, PermanentJobError, type Job } from '../jobs/kinds.ts';
import { enqueue } from '../jobs/outbox.ts';
import { markConnected, moveBindings, moveLocation, type Binding } from './bindings.ts';
import type { IntegrationStatus } from './integration-states.ts';
import { withMerchantToken } from './merchant-tokens.ts';
import { changeConnection } from './partner-client.ts';

/**
 * The outbox jobs of location binding. `onboarding.connect` makes one side of a binding (the POS
 * location at the POS, the store at the DSP); when both succeeded the binding is APPROVED, when one
 * gives up it is `needs_reconnection` with the reason. `onboarding.disconnect` deletes a
 * connection after an integration was deleted, then marks the binding or location deprovisioned.
 */

/**
 * Retry schedule of connection calls (about 2 s doubling to 10 min, 8 attempts). Exported so a
 * test can make it quick; the worker reads it at each failure.
 */
export const CONNECTION_BACKOFF: Backoff = { baseMs: 2_000, maxMs: 10 * 60_000 };

type Side = 'pos' | 'dsp';
interface ConnectPayload {
  binding_id: string;
  side: Side;
}
type DisconnectPayload = { side: 'dsp'; binding_id: string } | { side: 'pos'; location_id: string };

/** Who to call for one side of a binding: which integration's token, and which partner location id. */
async function sideOf(db: DbOrTx, binding: Binding, side: Side) {
  if (side === 'dsp') return { integrationId: binding.dspIntegrationId, locationId: binding.dspProviderId };
  const [location] = await db.select().from(orgLocations).where(eq(orgLocations.id, binding.locationId));
  if (!location) throw new PermanentJobError(`Location ${binding.locationId} no longer exists.`);
  return { integrationId: location.integrationId, locationId: location.providerId };
}

/** One connection call as the merchant; a grant that cannot be used any more will not heal by retrying. */
async function callPartner(
  ctx: AppContext,
  job: Job,
  to: { integrationId: string; locationId: string },
  connect: boolean,
  allow: readonly IntegrationStatus[],
): Promise<void> {
  try {
    await withMerchantToken(
      ctx,
      to.integrationId,
      (token, target) =>
        changeConnection(ctx, target, token, to.locationId, connect, { id: job.id, attempt: job.attempt }),
      allow,
    );
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

const DAY = 24 * 60 * 60 * 1000;

export const connectJob = defineJobKind<ConnectPayload, { done: boolean }>({
  kind: 'onboarding.connect',
  maxAttempts: 8,
  deadlineMs: DAY,
  backoff: CONNECTION_BACKOFF,
  async handle(job, ctx) {
    const binding = await findBinding(ctx.db, job.payload.binding_id);
    // Superseded (deleted, or marked needs_reconnection meanwhile): nothing to do.
    if (!binding || binding.status !== 'pending') return { done: false };
    await callPartner(ctx, job, await sideOf(ctx.db, binding, job.payload.side), true, ['active']);
    return { done: true };
  },
  async onSucceeded(tx, job, result) {
    if (result.done) await markConnected(tx, job.payload.binding_id, job.payload.side);
  },
  async onDead(tx, job) {
    const who = job.payload.side === 'pos' ? 'POS' : 'DSP';
    await moveBindings(
      tx,
      eq(locationBindings.id, job.payload.binding_id),
      'needs_reconnection',
      `The ${who} did not accept the connection after ${job.attempt} attempt(s): ${job.error}`.slice(0, 1000),
    );
  },
});

export const disconnectJob = defineJobKind<DisconnectPayload, { done: boolean }>({
  kind: 'onboarding.disconnect',
  maxAttempts: 8,
  deadlineMs: DAY,
  backoff: CONNECTION_BACKOFF,
  async handle(job, ctx) {
    const p = job.payload;
    const allow = ['active', 'deprovisioned'] as const;
    if (p.side === 'dsp') {
      const binding = await findBinding(ctx.db, p.binding_id);
      if (!binding || binding.status !== 'waiting_for_deprovision') return { done: false };
      await callPartner(ctx, job, await sideOf(ctx.db, binding, 'dsp'), false, allow);
    } else {
      const [location] = await ctx.db.select().from(orgLocations).where(eq(orgLocations.id, p.location_id));
      if (!location || location.status !== 'waiting_for_deprovision') return { done: false };
      await callPartner(
        ctx,
        job,
        { integrationId: location.integrationId, locationId: location.providerId },
        false,
        allow,
      );
    }
    return { done: true };
  },
  async onSucceeded(tx, job, result) {
    if (result.done) await finishDisconnect(tx, job.payload, null);
  },
  async onDead(tx, job) {
    // Revoked on our side whatever the partner says; the reason tells support what is left over there.
    const who = job.payload.side === 'pos' ? 'POS' : 'DSP';
    await finishDisconnect(
      tx,
      job.payload,
      `The ${who} connection could not be deleted: ${job.error}`.slice(0, 1000),
    );
  },
});

async function finishDisconnect(tx: DbOrTx, p: DisconnectPayload, reason: string | null): Promise<void> {
  if (p.side === 'dsp') {
    await moveBindings(tx, eq(locationBindings.id, p.binding_id), 'deprovisioned', reason);
    return;
  }
  const [location] = await tx.select().from(orgLocations).where(eq(orgLocations.id, p.location_id));
  if (location) await moveLocation(tx, location, 'deprovisioned', reason);
}

/** Enqueues both connection calls of a (pending) binding, in the caller's transaction. */
export async function enqueueConnect(
  tx: DbOrTx,
  binding: Pick<Binding, 'id'>,
  partners: Record<Side, string>,
): Promise<void> {
  for (const side of ['pos', 'dsp'] as const) {
    await enqueue(tx, {
      kind: connectJob,
      payload: { binding_id: binding.id, side },
      partnerId: partners[side],
    });
  }
}

export function enqueueDisconnect(
  tx: DbOrTx,
  payload: DisconnectPayload,
  partnerId: string,
): Promise<string> {
  return enqueue(tx, { kind: disconnectJob, payload, partnerId });
}
