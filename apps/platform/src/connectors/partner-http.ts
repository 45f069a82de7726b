import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { DbOrTx, Tx } from '../db/client.ts';
import { findPartner, webhookSecretOf } from '../partners/service.ts';
import { deliver } from './http.ts';
import { defineJobKind, PermanentJobError, type DeadJob, type JobKind } from '../jobs/kinds.ts';
import { enqueue, type EnqueueInput } from '../jobs/outbox.ts';

/** One call to a partner, as stored in the job: everything needed to send it again. */
export const PartnerHttpPayload = z.object({
  partner_id: z.string().min(1),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  /** Absolute, or a path (`/stream-dsp/v1/event`) resolved against the partner's base URL when sent. */
  url: z.string().min(1),
  /** Sent as JSON. */
  body: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Sign the body with the partner's webhook secret under this header (e.g. `X-Stream-Signature`). */
  signature_header: z.string().optional(),
});
export type PartnerHttpPayload = z.infer<typeof PartnerHttpPayload>;

function resolveUrl(url: string, baseUrl: string | null): string {
  if (/^https?:\/\//i.test(url)) return url;
  if (!baseUrl) throw new PermanentJobError(`The partner has no base URL to resolve ${url} against.`);
  return baseUrl.replace(/\/+$/, '') + (url.startsWith('/') ? url : `/${url}`);
}

/**
 * A kind of plain partner call: `kind` names it, `onDead` says who is told when it is given up
 * (e.g. "the order failed"). Each such kind is one entry of `JOB_KINDS`.
 */
export function definePartnerCallKind(opts: {
  kind: string;
  onDead?: (tx: Tx, job: DeadJob<PartnerHttpPayload>, ctx: AppContext) => Promise<void>;
}): JobKind<PartnerHttpPayload, { status: number }> {
  return defineJobKind<PartnerHttpPayload, { status: number }>({
    kind: opts.kind,
    payload: PartnerHttpPayload,
    maxAttempts: 15,
    deadlineMs: 24 * 60 * 60 * 1000,
    // ~2 s, 4 s, 8 s, ... capped at one hour: about four hours over 15 attempts.
    backoff: { baseMs: 2_000, maxMs: 60 * 60 * 1000 },
    async handle(job, ctx) {
      const p = job.payload;
      const partner = await findPartner(ctx.db, p.partner_id);
      if (!partner) throw new PermanentJobError(`Partner ${p.partner_id} no longer exists.`);
      const res = await deliver(ctx, {
        method: p.method,
        url: resolveUrl(p.url, partner.baseUrl),
        body: p.body,
        headers: p.headers,
        partnerId: partner.id,
        job,
        sign: p.signature_header
          ? { secret: webhookSecretOf(ctx.config.encryptionKey, partner), header: p.signature_header }
          : undefined,
      });
      return { status: res.status };
    },
    ...(opts.onDead ? { onDead: opts.onDead } : {}),
  });
}

/** `partner.http`: a generic outbound call nobody needs to hear about when it is given up. */
export const partnerHttp = definePartnerCallKind({ kind: 'partner.http' });

/** Enqueues a partner call (of `partner.http`, or the kind given) in the caller's transaction. */
export function enqueuePartnerCall(
  tx: DbOrTx,
  payload: PartnerHttpPayload,
  opts: Omit<EnqueueInput<PartnerHttpPayload>, 'kind' | 'payload' | 'partnerId'> & {
    kind?: JobKind<PartnerHttpPayload>;
  } = {},
): Promise<string> {
  const { kind = partnerHttp, ...rest } = opts;
  return enqueue(tx, { ...rest, kind, payload, partnerId: payload.partner_id });
}
