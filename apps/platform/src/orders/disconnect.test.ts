import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import { rowsOf } from '../db/sql.ts';
import {
  dspEvents,
  newOrder,
  postDsp,
  postPos,
  posCalls,
  startOrderWorld,
  waitForStatus,
  type OrderWorld,
} from './testing.ts';

/**
 * Orders in flight when the merchant disconnects the POS or the DSP: the order is settled on both
 * sides with the grant the platform still holds (as the connections are deleted with it), so a
 * kitchen hears a cancellation, and a customer the outcome, of an order accepted before.
 */

let w: OrderWorld | undefined;
// A world per test (each disconnects its merchant), started in a hook: its start-up is not the test's time.
beforeEach(async () => {
  w = await startOrderWorld();
});
afterEach(() => w?.stop());

const accept = (providerId: string) => ({
  status: 200,
  body: { order: { provider_id: providerId, prep_time_minutes: 20 } },
});

async function acceptedOrder(world: OrderWorld, providerId: string) {
  world.pos.answer = (body) => (body.type === 'order.created' ? accept(providerId) : { status: 204 });
  const body = newOrder(world);
  const res = await postDsp(world, body);
  expect(res.status, res.text).toBe(202);
  await waitForStatus(world, res.body.order_id, 'accepted');
  return { id: res.body.order_id as string, dspId: body.order.id };
}

async function disconnect(world: OrderWorld, side: 'pos' | 'dsp') {
  const res = await call('DELETE', `${world.url}/onboarding/integrations/${world.onboardings[side]}`, {
    token: world.token,
  });
  expect(res.status, res.text).toBe(200);
}

/** The order's jobs of one kind once settled (succeeded or dead). */
function settledJob(world: OrderWorld, orderId: string, kind: string) {
  return waitFor(
    async () => {
      const rows = rowsOf<{ status: string; last_error: string | null }>(
        await world.platform.app.ctx.db.execute(
          sql`select status, last_error from jobs where kind = ${kind} and payload->>'order_id' = ${orderId} order by seq desc limit 1`,
        ),
      );
      return rows[0]?.status === 'succeeded' || rows[0]?.status === 'dead' ? rows[0] : undefined;
    },
    10_000,
    `${kind} settled`,
  );
}

describe('an accepted order when the merchant disconnects', () => {
  it('the POS: a cancellation from the DSP still reaches the kitchen', async () => {
    if (!w) throw new Error('no world');
    const order = await acceptedOrder(w, 'pos-gone-1');
    await disconnect(w, 'pos');
    const res = await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: order.dspId });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('dsp_canceled');
    expect(await settledJob(w, order.id, 'orders.pos-update')).toEqual({
      status: 'succeeded',
      last_error: null,
    });
    expect(posCalls(w, order.id).map((c) => (c.body as { type: string }).type)).toEqual([
      'order.created',
      'order.canceled',
    ]);
  });

  it('the DSP: the POS marking it ready still reaches the marketplace', async () => {
    if (!w) throw new Error('no world');
    const order = await acceptedOrder(w, 'dsp-gone-1');
    await disconnect(w, 'dsp');
    const ready = await postPos(w, {
      type: 'order.status.updated',
      object: { status: 'ready_for_pickup', provider_id: 'dsp-gone-1', location_id: w.posLocation },
    });
    expect(ready.status, ready.text).toBe(204);
    const ordered = await waitFor(
      () =>
        dspEvents(w!, order.dspId).find(
          (e) => (e.body as { order_status_update?: string }).order_status_update === 'ready_for_pickup',
        ),
      10_000,
      'ready_for_pickup at the DSP',
    );
    expect(ordered.body).toMatchObject({ type: 'location.order.notify_status_change', location_id: w.store });
  });
});
