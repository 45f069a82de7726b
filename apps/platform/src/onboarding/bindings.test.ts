import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../../test/db.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { waitFor } from '../../test/wait.ts';
import { testPartner } from '../auth/testing.ts';
import { newId } from '../db/ids.ts';
import { rowsOf } from '../db/sql.ts';
import { locationBindings, orgLocations } from '../db/schema/index.ts';
import { moveBindings } from './bindings.ts';
import { activeLocationRow, integrationRow } from './testing.ts';

// Two transactions at once need two connections: PostgreSQL only (PGlite has one).
describe.skipIf(!onPostgres)('billing events of concurrent binding moves', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform?.stop());

  /** A location active through binding `kept`'s DSP, with a second DSP's binding `joining` pending. */
  async function locationWithTwoDsps() {
    const db = platform.app.ctx.db;
    const owner = await testPartner(platform);
    const orgId = await owner.org();
    const [pos, dsp1, dsp2] = await Promise.all(
      (['pos', 'dsp', 'dsp'] as const).map((kind) => platform.partner({ kind })),
    );
    const locationId = await activeLocationRow(db, {
      partnerId: owner.partner_id,
      orgId,
      posPartnerId: pos!.partner_id,
      name: 'Main St',
    });
    const binding = async (dsp: string, status: 'APPROVED' | 'pending') => {
      const id = newId('bnd');
      await db.insert(locationBindings).values({
        id,
        partnerId: owner.partner_id,
        orgId,
        locationId,
        dspIntegrationId: await integrationRow(db, {
          partnerId: owner.partner_id,
          orgId,
          type: 'dsp',
          sourcePartnerId: dsp,
        }),
        dspPartnerId: dsp,
        dspProviderId: `store-${id}`,
        dspStoreName: 'Main St',
        status,
      });
      return id;
    };
    return {
      locationId,
      kept: await binding(dsp1!.partner_id, 'APPROVED'),
      joining: await binding(dsp2!.partner_id, 'pending'),
    };
  }

  it('a location gaining a binding while losing its other one stays active in the billing events', async () => {
    const db = platform.app.ctx.db;
    const { locationId, kept, joining } = await locationWithTwoDsps();

    // T2 holds the location's row lock (as syncLocations takes it) and waits; T1 approves the
    // joining binding meanwhile, and must queue behind that lock before it records anything.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const t2 = db.transaction(async (tx) => {
      await tx.select().from(orgLocations).where(eq(orgLocations.id, locationId)).for('update');
      locked();
      await released;
      await moveBindings(tx, eq(locationBindings.id, kept), 'needs_reconnection');
    });
    await isLocked;
    const t1 = db.transaction((tx) => moveBindings(tx, eq(locationBindings.id, joining), 'APPROVED'));
    await waitFor(
      async () => {
        const [row] = rowsOf<{ waiting: number }>(
          await db.execute(
            sql`select count(*)::int as waiting from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock'`,
          ),
        );
        return row!.waiting > 0;
      },
      10_000,
      'the approval waiting for the location lock',
    );
    release();
    await Promise.all([t1, t2]);

    const [location] = await db.select().from(orgLocations).where(eq(orgLocations.id, locationId));
    expect(location!.status).toBe('active');
    // What the billing report reads: the last event of the location says whether it is on.
    const events = rowsOf<{ event: string }>(
      await db.execute(
        sql`select event from lifecycle_events where subject_id = ${locationId} order by at, seq`,
      ),
    );
    expect(events.map((e) => e.event)).toEqual(['location_deactivated', 'location_activated']);
  });
});
