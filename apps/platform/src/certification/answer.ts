import { createHash } from 'node:crypto';
import { DspWebhook, dspSendWebhook, type DspWebhookAnswer } from '@stream/contracts/apis/become-a-dsp/index';
import { posSendWebhook } from '@stream/contracts/apis/become-a-pos/index';
import {
  EventProviderWebhook,
  eventProviderSendWebhook,
  type ProviderDeliveryAnswer,
  type ProviderDriver,
} from '@stream/contracts/apis/integrate-with-events/index';
import type { CertificationKind } from '@stream/contracts/certification';
import type { ErrorDetail } from '@stream/contracts/errors';
import { useIssueSentences } from '@stream/contracts/issue-sentences';
import type { Operation } from '@stream/contracts/operation';
import { newId } from '../db/ids.ts';
import { withoutNulls } from '../shared/without-nulls.ts';
import { fieldPath } from '@stream/contracts/server/field-path';

/**
 * What production answers a webhook, so a partner certified against the kit sees in its inbox (the
 * CLI's, a run's) what the platform will answer it live: the route of the run's kind
 * (`PRODUCTION_ROUTES`) reads the body with its contract schema (a body it refuses is 400
 * `validation_failed` naming the field, worded as production words it), then answers the status of
 * its contract with a body of its contract's schema. The inbox holds no orders, so the body says what
 * production says of the run's order: a DSP's order `received` at first, `accepted` at the POS once
 * it is there, `dsp_canceled` once cancelled, under one `ord_…` id per DSP order; an event provider's
 * delivery at the stage sent, with the driver last assigned.
 */
export const PRODUCTION_ROUTES = {
  pos: posSendWebhook,
  dsp: dspSendWebhook,
  events: eventProviderSendWebhook,
} as const satisfies Record<CertificationKind, Operation>;

/** An answer with no body (204) has `body` undefined. */
export interface WebhookAnswer {
  status: number;
  body?: unknown;
}

/** The body as the production route reads it (a POS's or DSP's `null` fields are absent) and its schema. */
export function readAs(kind: CertificationKind, body: unknown) {
  const op: Operation = PRODUCTION_ROUTES[kind];
  return {
    schema: op.request!.body!,
    input: op.request?.nullIsAbsent ? withoutNulls(body) : body,
  };
}

/**
 * Production's 400 for a body its route's schema refuses (`body.order.currency: …`, every field in
 * `details`, as `describeError` words a validation error), or undefined when it reads.
 */
export function schemaProblem(
  kind: CertificationKind,
  body: unknown,
): { message: string; details: ErrorDetail[] } | undefined {
  useIssueSentences();
  const { schema, input } = readAs(kind, body);
  const parsed = schema.safeParse(input);
  if (parsed.success) return undefined;
  const details = parsed.error.issues.map((i) => ({
    path: fieldPath('body', i.path as (string | number)[]),
    message: i.message,
  }));
  return { message: `${details[0]!.path}: ${details[0]!.message}`, details };
}

/** The 2xx of the production route for a body it reads: the DSP's contract has two, 202 for a new order. */
export function acceptedStatus(kind: CertificationKind, body: unknown): number {
  const op: Operation = PRODUCTION_ROUTES[kind];
  const statuses = Object.keys(op.responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 300);
  if (statuses.length === 1) return statuses[0]!;
  // POST /order/{partner_id}: a new order is stored and answered 202 at once; the rest apply, 200.
  return (body as { type?: unknown } | null)?.type === 'new_order' ? 202 : 200;
}

/** The run's `ord_…` id of a DSP's order: the same for every webhook naming it. */
const orderIdOf = (salt: string, location: string, order: string) =>
  `ord_${createHash('sha256').update(`${salt}\0${location}\0${order}`).digest('hex').slice(0, 24)}`;

const driverOf = (d: ProviderDriver): ProviderDriver => ({
  name: d.name,
  phone: { number: d.phone.number, ...(d.phone.code ? { code: d.phone.code } : {}) },
});

/**
 * Production's answer to a signed body its route reads (`schemaProblem` undefined). `salt` keeps a
 * run's order ids its own; `earlier` are the bodies the inbox accepted before, oldest first.
 */
export function acceptedAnswer(
  kind: CertificationKind,
  body: unknown,
  run: { salt: string; earlier: readonly unknown[] },
): WebhookAnswer {
  const status = acceptedStatus(kind, body);
  const op: Operation = PRODUCTION_ROUTES[kind];
  const spec = op.responses[status];
  if (!spec) throw new Error(`${op.operationId} answers no ${status}`);
  // What the contract says the status carries: nothing (204), or a body of its schema.
  const answer = (value: unknown): WebhookAnswer =>
    spec.schema ? { status, body: spec.schema.parse(value) } : { status };
  const event_id = newId('evt');
  if (kind === 'pos') return answer(undefined);
  if (kind === 'dsp') {
    const hook = DspWebhook.parse(readAs(kind, body).input);
    if (hook.type === 'store_status_update') return answer({ event_id } satisfies DspWebhookAnswer);
    const dspOrder = hook.type === 'new_order' ? hook.order.id : hook.order_id;
    const status =
      hook.type === 'new_order' ? 'received' : hook.type === 'cancel_order' ? 'dsp_canceled' : 'accepted';
    return answer({
      event_id,
      order_id: orderIdOf(run.salt, hook.location_id, dspOrder),
      status,
    } satisfies DspWebhookAnswer);
  }
  const hook = EventProviderWebhook.parse(body);
  const { order_id } = hook.object;
  let driver: ProviderDriver | null = null;
  for (const earlier of [...run.earlier, body]) {
    const e = EventProviderWebhook.safeParse(earlier);
    if (e.success && e.data.type === 'order.assign.driver' && e.data.object.order_id === order_id) {
      driver = driverOf(e.data.object.driver);
    }
  }
  return answer({
    event_id,
    order_id,
    delivery_status: hook.type === 'order.assign.driver' ? 'driver_assigned' : hook.object.status,
    driver,
  } satisfies ProviderDeliveryAnswer);
}
