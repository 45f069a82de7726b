import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { CERTIFICATION_KINDS, type CertificationReport } from '@stream/contracts/certification';
import type { CertificationRun } from '@stream/contracts/apis/partner/certification';
import type { ErrorDetail } from '@stream/contracts/errors';
import { createdAt, id, ref, timestamptz } from './columns.ts';
import { partners } from './partners.ts';

/** A webhook a run's inbox would not read (as production would not): its status and error code, and why, as a clause. */
export interface WebhookRefusal {
  status: number;
  code: 'unsupported_media_type' | 'payload_too_large' | 'invalid_json' | 'validation_failed';
  reason: string;
  /** Production's own message and details, when it words them otherwise (a body its schema refuses). */
  message?: string;
  details?: ErrorDetail[];
}

export const CERTIFICATION_RUN_STATUSES = ['queued', 'running', 'passed', 'failed'] as const;

/** One certification run the platform made against a partner's implementation (`POST /certification/runs`). */
export const certificationRuns = pgTable(
  'certification_runs',
  {
    id: id(),
    partnerId: ref('partner_id', () => partners.id),
    kind: text('kind', { enum: CERTIFICATION_KINDS }).notNull(),
    status: text('status', { enum: CERTIFICATION_RUN_STATUSES }).notNull().default('queued'),
    baseUrl: text('base_url').notNull(),
    menuForm: text('menu_form', { enum: ['v1', 'v2'] })
      .notNull()
      .default('v1'),
    /** The report so far: rewritten after each check. */
    report: jsonb('report').$type<CertificationReport>(),
    /** The check running now, and the webhook it waits for the partner to send by hand, if any. */
    currentCheck: text('current_check'),
    waitingFor: jsonb('waiting_for').$type<CertificationRun['progress']['waiting_for']>(),
    createdAt: createdAt(),
    finishedAt: timestamptz('finished_at'),
  },
  (t) => [
    // One run at a time per partner: two would talk to the same test merchant at once.
    uniqueIndex('certification_runs_one_active')
      .on(t.partnerId)
      .where(sql`status in ('queued', 'running')`),
    index('certification_runs_partner').on(t.partnerId, t.createdAt),
  ],
);

/**
 * A webhook the partner sent a run (its inbox), kept with its signature verdict and, when the inbox
 * refused to read it as the platform would (its Content-Type, its JSON), why.
 */
export const certificationWebhooks = pgTable(
  'certification_webhooks',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: ref('run_id', () => certificationRuns.id),
    receivedAt: timestamptz('received_at').notNull().defaultNow(),
    path: text('path').notNull(),
    raw: text('raw').notNull(),
    signature: text('signature').notNull(),
    refused: jsonb('refused').$type<WebhookRefusal>(),
  },
  (t) => [index('certification_webhooks_run').on(t.runId, t.id)],
);

/** A menu file a run served the DSP, and how often it was downloaded. */
export const certificationFiles = pgTable('certification_files', {
  id: id(),
  runId: ref('run_id', () => certificationRuns.id),
  body: jsonb('body').notNull(),
  downloads: integer('downloads').notNull().default(0),
  createdAt: createdAt(),
});
