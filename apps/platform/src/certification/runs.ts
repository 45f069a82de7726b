import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { CertificationRun } from '@stream/contracts/apis/partner/certification';
import type { CertificationCheck, CertificationKind } from '@stream/contracts/certification';
import type { PartnerAuth } from '../auth/access-token.ts';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { newId } from '../db/ids.ts';
import { certificationRuns, partners } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { decrypt } from '../http/secrets.ts';
import { defineJobKind } from '../jobs/kinds.ts';
import { enqueue, transaction } from '../jobs/outbox.ts';
import { findPartner, webhookSecretOf } from '../partners/service.ts';
import { CALL_TIMEOUT_MS } from './check.ts';
import { dbInbox } from './db-inbox.ts';
import { checksFor, menuFormProblem, runCertification, summarise } from './runner.ts';

/**
 * Certification runs the platform makes for a partner (`POST /certification/runs`): a row and a
 * `certification.run` job written together; the job plays the checks against the partner's base
 * URL, rewriting the report after each, and a passed run is recorded on the partner, which is what
 * `partners go-live` asks for.
 */
type RunRow = typeof certificationRuns.$inferSelect;

/** How long a run waits for each webhook it asks for (a partner without the trigger sends them by hand). */
export const WEBHOOK_WAIT_MS = 60_000;

export function runToWire(row: RunRow): CertificationRun {
  return {
    _id: row.id,
    kind: row.kind,
    status: row.status,
    base_url: row.baseUrl,
    progress: {
      done: row.report?.checks.length ?? 0,
      total: checksFor(row.kind, { menuV2: row.menuForm === 'v2' }).length,
      current_check: row.currentCheck,
      waiting_for: row.waitingFor,
    },
    report: row.report ?? null,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

export async function startRun(
  ctx: AppContext,
  auth: PartnerAuth,
  /** As sent: only a DSP run has one (default v1). */
  menuForm: 'v1' | 'v2' | undefined,
): Promise<CertificationRun> {
  if (auth.orgId) {
    throw new ApiError(
      'org_limited_token',
      'Certify with your root API client, not a token limited to one organisation.',
    );
  }
  const partner = await findPartner(ctx.db, auth.partnerId);
  if (!partner || partner.kind === 'white_label') {
    throw new ApiError(
      'partner_not_certifiable',
      'A white-label partner builds no endpoints: there is nothing to certify.',
    );
  }
  // Refused, not ignored: the partner asked for a check its run would never make.
  const problem = menuForm === undefined ? undefined : menuFormProblem(partner.kind);
  if (problem) {
    throw new ApiError('validation_failed', `body.menu_form: ${problem}.`, [
      { path: 'body.menu_form', message: problem },
    ]);
  }
  if (!partner.baseUrl) {
    throw new ApiError(
      'partner_not_certifiable',
      'The platform has no base URL for you yet: ask your operator to register it.',
    );
  }
  if (partner.kind !== 'events' && !(partner.oauthClientId && partner.oauthClientSecretEnc)) {
    throw new ApiError(
      'partner_not_certifiable',
      'The platform has no OAuth client of yours yet (the client id and secret you issue it): ask your operator to register it.',
    );
  }
  try {
    const row = await transaction(ctx, async (tx) => {
      const id = newId('crt');
      const [run] = await tx
        .insert(certificationRuns)
        .values({
          id,
          partnerId: partner.id,
          kind: partner.kind as CertificationKind,
          baseUrl: partner.baseUrl!,
          menuForm: menuForm ?? 'v1',
        })
        .returning();
      await enqueue(tx, { kind: certificationJob, payload: { run_id: id }, partnerId: partner.id });
      return run!;
    });
    return runToWire(row);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw new ApiError(
      'certification_in_progress',
      'A certification run of yours is already queued or running.',
    );
  }
}

export async function findRun(db: DbOrTx, partnerId: string, runId: string): Promise<RunRow> {
  const [row] = await db
    .select()
    .from(certificationRuns)
    .where(and(eq(certificationRuns.id, runId), eq(certificationRuns.partnerId, partnerId)));
  if (!row) throw new ApiError('certification_run_not_found', `You have no certification run ${runId}.`);
  return row;
}

export const certificationJob = defineJobKind<{ run_id: string }, { passed: boolean }>({
  kind: 'certification.run',
  payload: z.object({ run_id: z.string().min(1) }),
  // The kit reports everything a partner does as a check; only the platform's own failures retry.
  maxAttempts: 3,
  deadlineMs: 2 * 60 * 60_000,
  backoff: { baseMs: 5_000, maxMs: 60_000 },
  async handle(job, ctx) {
    const [row] = await ctx.db
      .update(certificationRuns)
      .set({ status: 'running', report: null, currentCheck: null, waitingFor: null })
      .where(eq(certificationRuns.id, job.payload.run_id))
      .returning();
    if (!row) return { passed: false };
    const partner = (await findPartner(ctx.db, row.partnerId))!;
    const key = ctx.config.encryptionKey;
    const base = { kind: row.kind, base_url: row.baseUrl, started_at: new Date().toISOString() };
    const done: CertificationCheck[] = [];
    // Progress writes one after the other: a prompt's write never lands after its check's result.
    let written: Promise<unknown> = Promise.resolve();
    const note = (set: Partial<typeof certificationRuns.$inferInsert>) =>
      (written = written
        .catch(() => {})
        .then(() => ctx.db.update(certificationRuns).set(set).where(eq(certificationRuns.id, row.id))));
    const report = await runCertification({
      kind: row.kind,
      baseUrl: row.baseUrl,
      webhookSecret: webhookSecretOf(key, partner),
      ...(partner.oauthClientId && partner.oauthClientSecretEnc
        ? {
            client: {
              client_id: partner.oauthClientId,
              client_secret: decrypt(key, partner.oauthClientSecretEnc),
            },
          }
        : {}),
      menuV2: row.menuForm === 'v2',
      timeoutMs: CALL_TIMEOUT_MS,
      webhookWaitMs: WEBHOOK_WAIT_MS,
      inbox: dbInbox(ctx, row.id),
      // No trigger in the partner's build: what to send by hand, for GET /certification/runs/{id}.
      prompt: (instruction, waiting) => {
        note({ waitingFor: { ...waiting, instruction } }).catch((err) =>
          ctx.log.warn({ err, run_id: row.id }, 'could not record what the run waits for'),
        );
      },
      signal: job.signal,
      async onProgress(check) {
        if (check.status === 'running') {
          await note({ currentCheck: check.id, waitingFor: null });
          return;
        }
        done.push(check as CertificationCheck);
        await note({ report: summarise(base, done, false), currentCheck: null, waitingFor: null });
      },
    });
    if (job.signal.aborted) throw new Error('certification run interrupted; it starts again');
    await transaction(ctx, async (tx) => {
      await tx
        .update(certificationRuns)
        .set({
          status: report.passed ? 'passed' : 'failed',
          report,
          currentCheck: null,
          waitingFor: null,
          finishedAt: sql`now()`,
        })
        .where(eq(certificationRuns.id, row.id));
      if (report.passed) {
        await tx
          .update(partners)
          .set({ certifiedRunId: row.id, certifiedAt: sql`now()` })
          .where(eq(partners.id, row.partnerId));
      }
    });
    return { passed: report.passed };
  },
  async onDead(tx, job) {
    await tx
      .update(certificationRuns)
      .set({ status: 'failed', currentCheck: null, waitingFor: null, finishedAt: sql`now()` })
      .where(eq(certificationRuns.id, job.payload.run_id));
  },
});
