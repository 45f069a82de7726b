import { bigserial, index, pgTable, text } from 'drizzle-orm/pg-core';
import { id, timestamptz } from './columns.ts';

/**
 * Append-only record of what happened to a partner's integrations and locations. Billing reports
 * are computed from it (never from counters that could drift), and support reads it as history.
 */
export const lifecycleEvents = pgTable(
  'lifecycle_events',
  {
    id: id(),
    /** The white-label partner that owns the org (the one billed). */
    partnerId: text('partner_id').notNull(),
    orgId: text('org_id').notNull(),
    subjectType: text('subject_type', { enum: ['org', 'integration', 'location'] }).notNull(),
    subjectId: text('subject_id').notNull(),
    event: text('event').notNull(),
    at: timestamptz('at').notNull().defaultNow(),
    /** Recording order: breaks ties between events of one instant (e.g. one transaction's off-then-on). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('lifecycle_partner_at').on(t.partnerId, t.at),
    index('lifecycle_subject').on(t.subjectId, t.at),
  ],
);
