import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { lifecycleEvents } from '../db/schema/index.ts';

/**
 * The events billing counts. Record them in the same transaction as the state change:
 * - `integration_activated` / `integration_deprovisioned` (subject: the onboarding integration)
 * - `location_activated`: a POS location got its first APPROVED DSP binding, or another one
 * - `location_deactivated`: a location no longer has any APPROVED binding (deprovisioned, needs_reconnection)
 * - `org_created` (subject: the org)
 */
export type LifecycleEventName =
  | 'org_created'
  | 'integration_activated'
  | 'integration_deprovisioned'
  | 'location_activated'
  | 'location_deactivated';

export interface LifecycleEvent {
  partnerId: string;
  orgId: string;
  subjectType: 'org' | 'integration' | 'location';
  subjectId: string;
  event: LifecycleEventName;
  at?: Date;
}

export async function recordLifecycle(tx: DbOrTx, e: LifecycleEvent): Promise<void> {
  // The database's clock at the moment of the insert (not the transaction's start, not a process's
  // clock): events of transactions serialised by a row lock then sort in the order they happened.
  await tx.insert(lifecycleEvents).values({ id: newId('lce'), ...e, at: e.at ?? sql`clock_timestamp()` });
}
