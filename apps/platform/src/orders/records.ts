import { and, eq } from 'drizzle-orm';
import { canTransition, ORDER_STATES, transitionRefusal, type OrderStatus } from '@stream/contracts/states';
import type { DbOrTx, Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import {
  assignments,
  columnsOf,
  compose,
  insertPart,
  part,
  run,
  runOne,
  statement,
  type Part,
} from '../db/raw.ts';
import { orders, orderTimeline, partners, webhookEvents } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import type { CarriedFinish } from '../jobs/kinds.ts';
import { prepareJob, type PreparedJob } from '../jobs/outbox.ts';
import type { OrderCall } from './calls.ts';
import { effectsOf, type Why } from './effects.ts';
import { eventOf } from '../events/order-event.ts';
import { enabledProviders } from '../events/subscriptions.ts';

/**
 * The order records: webhooks received, the order row, its timeline, and the one guarded move of
 * an order's status. A move is one statement with everything it causes (its timeline entries and
 * the partner calls `effectsOf` plans), and so is a new order: these are an order's hot path, so
 * they are written as plain SQL (`db/raw.ts`), not built anew per call.
 */

export type Order = typeof orders.$inferSelect;
export type NewOrder = typeof orders.$inferInsert;
export type TimelineKind = (typeof orderTimeline.$inferInsert)['kind'];

export interface WebhookRecord {
  id?: string;
  partnerId: string;
  type: string;
  body: unknown;
  orderId?: string | null;
  locationId?: string | null;
}

const webhookRow = (e: WebhookRecord & { id: string }) => ({
  id: e.id,
  partnerId: e.partnerId,
  type: e.type,
  body: e.body,
  orderId: e.orderId ?? null,
  locationId: e.locationId ?? null,
});

/** Stores a webhook as received (before anything answers 2xx); answers its `evt_…` id. */
export async function recordWebhook(tx: DbOrTx, e: WebhookRecord): Promise<string> {
  const id = e.id ?? newId('evt');
  const insert = insertPart(webhookEvents, webhookRow({ ...e, id }));
  const { statement: st, values } = compose('webhook_record', [], insert);
  await run(tx, st, values);
  return id;
}

export interface TimelineInput {
  kind: TimelineKind;
  type: string;
  partnerId?: string | null;
  from?: OrderStatus | null;
  to?: OrderStatus | null;
  detail?: string | null;
  eventId?: string | null;
  jobId?: string | null;
  body?: unknown;
}

/** Timeline entries in the order given, written only where `GUARD` holds (in a composed statement). */
const TIMELINE_INSERT = `insert into order_timeline
     (order_id, kind, type, partner_id, from_status, to_status, detail, event_id, job_id, body)
   select $1, e.kind, e.type, e.partner_id, e.from_status, e.to_status, e.detail, e.event_id, e.job_id, e.body::jsonb
   from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
     $10::text[]) with ordinality as e(kind, type, partner_id, from_status, to_status, detail, event_id, job_id, body, n)
   where GUARD
   order by e.n`;
const ADD_TIMELINE = statement('order_timeline_add', TIMELINE_INSERT.replace('GUARD', 'true'));

function timelinePart(orderId: string, entries: readonly TimelineInput[], guard = 'true'): Part {
  const column = (pick: (e: TimelineInput) => unknown) => entries.map((e) => pick(e) ?? null);
  return part(
    TIMELINE_INSERT.replace('GUARD', () => guard),
    [
      orderId,
      column((e) => e.kind),
      column((e) => e.type),
      column((e) => e.partnerId),
      column((e) => e.from),
      column((e) => e.to),
      column((e) => e.detail),
      column((e) => e.eventId),
      column((e) => e.jobId),
      column((e) => (e.body === undefined || e.body === null ? null : JSON.stringify(e.body))),
    ],
  );
}

/** Appends entries to the order's timeline, in the order given (one statement). */
export async function addTimeline(tx: DbOrTx, orderId: string, ...entries: TimelineInput[]): Promise<void> {
  await run(tx, ADD_TIMELINE, timelinePart(orderId, entries).values);
}

/**
 * The `gave_up` entry of a call about the order the platform stopped retrying: whom (`who`, as a
 * sentence names it: 'The DSP'), what, and the last attempt's error. Its `sent` entry's delivery is
 * `dead`; this one says so in words, for a partner reading the timeline.
 */
export async function addGaveUp(
  tx: DbOrTx,
  orderId: string,
  call: { type: string; partnerId: string; who: string; error: string },
): Promise<void> {
  await addTimeline(tx, orderId, {
    kind: 'gave_up',
    type: call.type,
    partnerId: call.partnerId,
    detail: `${call.who} was never delivered ${call.type}; the platform stopped retrying: ${call.error}`,
  });
}

/**
 * Whether the partner was sent a call about the order (a `sent` entry of its timeline): an event
 * provider told of an order is a partner on it, and stays one after its location disables it.
 */
export async function toldOf(db: DbOrTx, orderId: string, partnerId: string): Promise<boolean> {
  const [row] = await db
    .select({ seq: orderTimeline.seq })
    .from(orderTimeline)
    .where(
      and(
        eq(orderTimeline.orderId, orderId),
        eq(orderTimeline.kind, 'sent'),
        eq(orderTimeline.partnerId, partnerId),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * The event providers told of an order's move: those enabled for its location when it was received
 * and, of a cancellation, also any told of the order since disabled (it may be sending a driver).
 */
async function providersToTell(tx: DbOrTx, order: Order, type: string): Promise<string[]> {
  const enabled = await enabledProviders(tx, order.locationId, order.createdAt);
  if (type !== 'order.canceled') return enabled;
  const told = await tx
    .selectDistinct({ id: partners.id })
    .from(orderTimeline)
    .innerJoin(partners, and(eq(partners.id, orderTimeline.partnerId), eq(partners.kind, 'events')))
    .where(and(eq(orderTimeline.orderId, order.id), eq(orderTimeline.kind, 'sent')));
  return [...enabled, ...told.map((r) => r.id).filter((id) => !enabled.includes(id))];
}

const ORDER_BY_ID = statement('order_by_id', `select ${columnsOf(orders)} from orders where id = $1`);

export function findOrder(db: DbOrTx, id: string): Promise<Order | undefined> {
  return runOne<Order>(db, ORDER_BY_ID, [id]);
}

/** The order, locked for the rest of the transaction (events about one order apply one at a time). */
export async function lockOrder(tx: Tx, where: ReturnType<typeof eq>): Promise<Order | undefined> {
  const [row] = await tx.select().from(orders).where(where).for('update');
  return row;
}

export const byDspOrder = (dspPartnerId: string, dspOrderId: string) =>
  and(eq(orders.dspPartnerId, dspPartnerId), eq(orders.dspOrderId, dspOrderId))!;

export type OrderPatch = Partial<
  Pick<
    Order,
    | 'failureReason'
    | 'failureDetails'
    | 'posOrderId'
    | 'estimatedReadyAt'
    | 'posPrepMinutes'
    | 'deliveryStatus'
    | 'driverDetails'
    | 'releaseAt'
    | 'answer'
  >
>;

/**
 * The calls as jobs inserted where `guard` holds, and their `sent` timeline entries. The caller runs
 * the statement and settles the jobs with the statuses their inserts answered (`job0`, `job1`, ...).
 */
function callParts(tx: DbOrTx, calls: readonly OrderCall[], guard: string) {
  const jobs = calls.map((c) => prepareJob(tx, c.job, guard));
  const sent = calls.flatMap((c, i): TimelineInput[] =>
    c.sent ? [{ kind: 'sent', ...c.sent, jobId: jobs[i]!.id }] : [],
  );
  const ctes = jobs.map((j, i) => [`job${i}`, j.insert] as const);
  const statuses = jobs.map((_, i) => `(select status from job${i}) as "job${i}"`);
  return { jobs, sent, ctes, statuses };
}

/** Runs a composed statement whose `job<i>` parts are `jobs`, settling each whatever happens. */
async function runWithJobs<R>(
  tx: DbOrTx,
  composed: ReturnType<typeof compose>,
  jobs: readonly PreparedJob[],
): Promise<(R & Record<string, string | null>) | undefined> {
  let row: (R & Record<string, string | null>) | undefined;
  try {
    row = await runOne(tx, composed.statement, composed.values);
  } finally {
    jobs.forEach((j, i) => j.settle(row?.[`job${i}`] ?? undefined, row));
  }
  if (row) for (let i = 0; i < jobs.length; i++) delete row[`job${i}`];
  return row;
}

/** Sends the partner calls about an order that is not moving (an update to the POS): one statement. */
export async function sendCalls(tx: DbOrTx, orderId: string, calls: readonly OrderCall[]): Promise<void> {
  const { jobs, sent, ctes, statuses } = callParts(tx, calls, 'true');
  const composed = compose(
    'order_calls',
    [...ctes, ['timeline', timelinePart(orderId, sent)]],
    part(`select ${['1 as one', ...statuses].join(', ')}`),
  );
  await runWithJobs(tx, composed, jobs);
}

/** What the caller of a move has read already, so the move and its calls need not read it again. */
export interface MoveOptions {
  /** The event providers enabled for the order's location. */
  providers?: readonly string[] | undefined;
  /** Hands the calls the move causes what the caller read for them (`withDspGrant`). */
  prepare?: ((call: OrderCall) => OrderCall) | undefined;
  /** The success of the job whose outcome this move is, to write in the same statement. */
  finish?: CarriedFinish | undefined;
  /** What the event causing the move said (a cancellation's reason), for the calls it causes. */
  why?: Why | undefined;
}

/**
 * Moves the order from `order.status` to `to`, if the machine allows that move and the order is
 * still in that status, in one statement: the guarded UPDATE (`WHERE status = <from>`, so of two
 * racing writers only one moves it), its `status` timeline entry, and the calls the new status
 * causes (`effectsOf`, with their `sent` entries), all written only if the row moved. Answers the
 * moved row, or undefined when the move is not allowed or the order moved meanwhile (the caller
 * decides whether that is a 409 or a no-op).
 */
export async function moveOrder(
  tx: DbOrTx,
  order: Order,
  to: OrderStatus,
  cause: string,
  patch: OrderPatch = {},
  opts: MoveOptions = {},
): Promise<Order | undefined> {
  if (!canTransition(ORDER_STATES, order.status, to)) return undefined;
  const next: Order = { ...order, ...patch, status: to, updatedAt: new Date() };
  const event = eventOf(to, order.status);
  const providers = opts.providers ?? (event ? await providersToTell(tx, order, event.type) : []);
  const moved = 'exists (select 1 from moved)';
  const calls = effectsOf(next, order.status, providers, opts.why).map(opts.prepare ?? ((c) => c));
  const { jobs, sent, ctes, statuses } = callParts(tx, calls, moved);
  const set = assignments(orders, patch, 4);
  const update = part(
    `update orders set status = $1, updated_at = now()${set.text ? `, ${set.text}` : ''}
     where id = $2 and status = $3
     returning ${columnsOf(orders)}`,
    [to, order.id, order.status, ...set.values],
  );
  const entries: TimelineInput[] = [
    { kind: 'status', type: to, from: order.status, to, detail: cause },
    ...sent,
  ];
  const carried = opts.finish?.take();
  const composed = compose(
    'order_move',
    [
      ['moved', update],
      ['timeline', timelinePart(order.id, entries, moved)],
      ...ctes,
      ...(carried?.ctes ?? []),
    ],
    // Carrying a job's success, the statement answers one row whether or not the order moved.
    carried
      ? part(
          `select ${['moved.*', ...statuses, carried.select].join(', ')} from (select 1) as one left join moved on true`,
        )
      : part(`select ${['moved.*', ...statuses].join(', ')} from moved`),
  );
  const row = await runWithJobs<Order>(tx, composed, jobs);
  if (!carried) return row;
  carried.done(row!);
  const { finishedId: _id, finishedSuccessor: _successor, ...rest } = row as Order & Record<string, unknown>;
  return rest.id === null ? undefined : (rest as Order);
}

/**
 * A new order, with its webhook's record, its first timeline entries and the calls its status
 * causes, in one statement; nothing but the order is attempted when the DSP's order id is taken
 * (a repeated post: answers undefined, and the caller answers as the first post was).
 */
export async function insertOrder(
  tx: DbOrTx,
  row: NewOrder & { id: string; status: OrderStatus },
  webhook: WebhookRecord & { id: string },
  entries: readonly TimelineInput[],
  /** False for an order that fails at once: the caller moves it to `failed` next, which has effects of its own. */
  withEffects = true,
  /** Hands the calls what the caller read for them (`withPosGrant`). */
  prepare: (call: OrderCall) => OrderCall = (call) => call,
): Promise<Order | undefined> {
  const inserted = 'exists (select 1 from inserted)';
  const asOrder = { ...row, createdAt: new Date(), updatedAt: new Date() } as Order;
  const calls = withEffects ? effectsOf(asOrder, null).map(prepare) : [];
  const { jobs, sent, ctes, statuses } = callParts(tx, calls, inserted);
  const composed = compose(
    'order_new',
    [
      [
        'inserted',
        insertPart(
          orders,
          row,
          `on conflict (dsp_partner_id, dsp_order_id) do nothing returning ${columnsOf(orders)}`,
        ),
      ],
      ['webhook', insertPart(webhookEvents, webhookRow(webhook), '', inserted)],
      ['timeline', timelinePart(row.id, [...entries, ...sent], inserted)],
      ...ctes,
    ],
    part(`select ${['inserted.*', ...statuses].join(', ')} from inserted`),
  );
  return runWithJobs<Order>(tx, composed, jobs);
}

/** The 409 for an event that does not fit the order's status (recorded by the caller first). */
export function refusal(order: Pick<Order, 'status'>, to: OrderStatus): ApiError {
  const refused = transitionRefusal(ORDER_STATES, order.status, to);
  return new ApiError(
    'invalid_transition',
    refused?.message ?? `The order is ${order.status}; it cannot become ${to}.`,
    refused?.details,
  );
}
