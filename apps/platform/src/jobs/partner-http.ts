import type { AppContext } from '../context.ts';
import type { DbOrTx, Tx } from '../db/client.ts';
import { findPartner, webhookSecretOf } from '../partners/service.ts';
import { deliver, type HttpMethod } from '../connectors/http.ts';
import { defineJobKind, PermanentJobError, type DeadJob } from './kinds.ts';
import { enqueue, type EnqueueInput } from './outbox.ts';

/** One call to a partner, as stored in the job: everything needed to send it again. */
export interface PartnerHttpPayload {
  partner_id: string;
  method: HttpMethod;
  /** Absolute, or a path (`/stream-dsp/v1/event`) resolved against the partner's base URL when sent. */
  url: string;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sign the body with the partner's webhook secret under this header (e.g. `X-Stream-Signature`). */
  signature_header?: string;
  /** Name of a hook registered with `registerDeadHook`, run when the call is given up. */
  on_dead?: string;
}

export type DeadHook = (tx: Tx, job: DeadJob<PartnerHttpPayload>, ctx: AppContext) => Promise<void>;

// Hooks are referred to by name because the job row outlives the process that enqueued it.
const deadHooks = new Map<string, DeadHook>();

export function registerDeadHook(name: string, hook: DeadHook): void {
  if (deadHooks.has(name)) throw new Error(`Dead hook ${name} is registered twice`);
  deadHooks.set(name, hook);
}

function resolveUrl(url: string, baseUrl: string | null): string {
  if (/^https?:\/\//i.test(url)) return url;
  if (!baseUrl) throw new PermanentJobError(`The partner has no base URL to resolve ${url} against.`);
  return baseUrl.replace(/\/+$/, '') + (url.startsWith('/') ? url : `/${url}`);
}

/** `partner.http`: a generic outbound call; later capabilities enqueue it rather than a kind of their own. */
export const partnerHttp = defineJobKind<PartnerHttpPayload, { status: number }>({
  kind: 'partner.http',
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
      job: { id: job.id, attempt: job.attempt },
      sign: p.signature_header
        ? { secret: webhookSecretOf(ctx.config.encryptionKey, partner), header: p.signature_header }
        : undefined,
    });
    return { status: res.status };
  },
  async onDead(tx, job, ctx) {
    const name = job.payload.on_dead;
    if (!name) return;
    const hook = deadHooks.get(name);
    // Throwing would roll back and retry the dead transition forever; a missing hook is a bug to log.
    if (!hook) return ctx.log.error({ job: job.id, hook: name }, 'no dead hook registered under this name');
    await hook(tx, job, ctx);
  },
});

/** Enqueues a `partner.http` call in the caller's transaction. */
export function enqueuePartnerCall(
  tx: DbOrTx,
  payload: PartnerHttpPayload,
  opts: Omit<EnqueueInput<PartnerHttpPayload>, 'kind' | 'payload' | 'partnerId'> = {},
): Promise<string> {
  return enqueue(tx, { ...opts, kind: partnerHttp, payload, partnerId: payload.partner_id });
}
