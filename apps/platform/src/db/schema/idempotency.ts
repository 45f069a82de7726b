import { index, integer, json, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, ref } from './columns.ts';
import { partners } from './partners.ts';

/**
 * The answers to requests that carried an `Idempotency-Key` (`db/idempotency-keys.ts`): one row a
 * partner and key, written in the transaction that did the work, kept 24 hours.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    partnerId: ref('partner_id', () => partners.id),
    key: text('key').notNull(),
    /** The contract operation the key was first used with (`createOrder`). */
    operation: text('operation').notNull(),
    /** SHA-256 of what the request asked for; a reuse with another request is refused. */
    fingerprint: text('fingerprint').notNull(),
    /** The answer, set before the transaction commits (so null is never seen by another request). */
    status: integer('status'),
    /** `json`, not `jsonb`: a replay sends the fields in the order the first answer had them. */
    body: json('body'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.key] }), index('idempotency_keys_created').on(t.createdAt)],
);
