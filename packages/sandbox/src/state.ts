import { z } from 'zod';

/**
 * How the simulated POS answers a new order: accept (at once or asynchronously, confirming by
 * webhook), refuse with each `posValidation` kind, fail with 503, or hold the answer (`timeout`);
 * `slow_ms` slows any of them. `fail_rate` answers 503 to the `order_failure_rate` share of new
 * orders at random (crash tests); `fail_30` is `fail_rate` at 0.3 whatever that switch says.
 */
export const ORDER_BEHAVIORS = [
  'accept',
  'accept_async',
  'reject_stock',
  'reject_totals',
  'reject_invalid_cart',
  'reject_store_unavailable',
  'reject_pos_offline',
  'reject_other',
  'error_503',
  'fail_rate',
  'fail_30',
  'timeout',
] as const;
export type OrderBehavior = (typeof ORDER_BEHAVIORS)[number];

/**
 * How the simulated DSP answers `location.publish`: download the file and accept it, or answer as a
 * DSP does when it refuses (each maps to one of the platform's DSP_* failure codes).
 */
export const MENU_PUBLISH_BEHAVIORS = [
  'accept',
  'unauthorized',
  'forbidden',
  'throttled',
  'internal_error',
  'rejected',
  'content_issue',
  'compliance_issue',
  'already_processing',
  'teapot',
] as const;
export type MenuPublishBehavior = (typeof MENU_PUBLISH_BEHAVIORS)[number];

/** DSP: the binding refusals a DSP names when it will not connect a store (menu failure codes). */
export const CONNECTION_REFUSALS = [
  'none',
  'DSP_ACCOUNT_NOT_FOUND',
  'DSP_LOCATION_IS_NOT_ELIGIBLE',
  'DUPLICATE_LOCATION_ID',
  'DSP_LOCATION_ALREADY_ACTIVE',
] as const;

/**
 * Behaviour a test can flip over HTTP (`POST /_sandbox/switches`). In memory on purpose: this is
 * a simulator, and a restart putting everything back to normal is what a test wants.
 */
export const SwitchesPatch = z
  .object({
    /** While true, every access token is treated as expired (401 token_expired), even new ones. */
    expire_tokens: z.boolean(),
    /** One shot: every access token issued until now is expired; tokens issued later work (refresh recovers). */
    expire_issued_tokens: z.literal(true),
    /** While true, refresh token exchanges answer 401. */
    fail_refresh: z.boolean(),
    /** While true, a refresh answers no refresh_token (no rotation): the one sent stays in use. */
    keep_refresh_token: z.boolean(),
    /** The next n connect/disconnect calls answer 400 connection_failed. */
    connection_failures: z.number().int().min(0).max(1_000_000),
    /** Delay every partner answer (not the /_sandbox ones) by this many ms. */
    slow_ms: z.number().int().min(0).max(120_000),
    /** While true, the authorize page redirects back with error=access_denied. */
    deny_authorize: z.boolean(),
    /** The next n events (`POST /event`) answer 503. */
    event_failures: z.number().int().min(0).max(1_000_000),
    /** POS: how `order.created` is answered (see ORDER_BEHAVIORS). */
    order_behavior: z.enum(ORDER_BEHAVIORS),
    /** POS `accept_async`: the confirmation webhook follows this many ms after the answer. */
    order_confirm_ms: z.number().int().min(0).max(600_000),
    /** POS `fail_rate`: the share (0..1) of `order.created` calls answered 503. */
    order_failure_rate: z.number().min(0).max(1),
    /** DSP: the next n events (`POST /stream-dsp/v1/event`) answer 503. */
    dsp_event_failures: z.number().int().min(0).max(1_000_000),
    /** DSP: how `location.publish` is answered (see MENU_PUBLISH_BEHAVIORS). */
    menu_publish: z.enum(MENU_PUBLISH_BEHAVIORS),
    /** DSP: while not `none`, connect calls answer 400 naming this refusal. */
    connection_refusal: z.enum(CONNECTION_REFUSALS),
  })
  .partial()
  .strict();
export type SwitchesPatch = z.infer<typeof SwitchesPatch>;

export interface Switches {
  expire_tokens: boolean;
  /** Set by `expire_issued_tokens`: access tokens issued at or before this epoch ms are expired. */
  tokens_issued_before: number | null;
  fail_refresh: boolean;
  keep_refresh_token: boolean;
  connection_failures: number;
  slow_ms: number;
  deny_authorize: boolean;
  event_failures: number;
  order_behavior: OrderBehavior;
  order_confirm_ms: number;
  order_failure_rate: number;
  dsp_event_failures: number;
  menu_publish: MenuPublishBehavior;
  connection_refusal: (typeof CONNECTION_REFUSALS)[number];
}

const DEFAULT_SWITCHES: Switches = {
  expire_tokens: false,
  tokens_issued_before: null,
  fail_refresh: false,
  keep_refresh_token: false,
  connection_failures: 0,
  slow_ms: 0,
  deny_authorize: false,
  event_failures: 0,
  order_behavior: 'accept',
  order_confirm_ms: 500,
  order_failure_rate: 0.3,
  dsp_event_failures: 0,
  menu_publish: 'accept',
  connection_refusal: 'none',
};

/** An order the simulated POS holds. */
export interface HeldOrder {
  provider_id: string;
  /** The platform's order id (`order_id` of later updates). */
  idempotency_key: string;
  location_id: string;
  /** `awaiting_confirmation`, `accepted`, then what the platform or a control route last said. */
  status: string;
  delivery_status?: string;
  received_at: string;
  /** The object of the last `order.updated`. */
  last_update?: unknown;
  canceled: boolean;
  /** `accept_async`: what the platform answered the confirming webhook, or why it was not sent. */
  confirmation?: { status: number; body: unknown } | { error: string };
}

/** An event the simulated DSP or event provider acknowledged. */
export interface ReceivedEvent {
  time: string;
  /** The platform's `Idempotency-Key` header: a retried event carries the same one. */
  idempotency_key?: string;
  /** Event provider: the `X-Stream-Signature` verdict (`valid`, or `unchecked` without a secret). */
  signature?: 'valid' | 'unchecked';
  body: Record<string, unknown>;
}

/** Orders and events kept at most (oldest dropped first), so a long-running simulator stays small. */
const ORDERS_LIMIT = 10_000;
const EVENTS_LIMIT = 10_000;

/** One request as the simulator received it, secrets redacted. */
export interface ReceivedRequest {
  seq: number;
  time: string;
  method: string;
  /** Relative to the simulator (without a mount prefix), without the query. */
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  status: number;
  /** Simulator notes, e.g. `signature: 'valid'` on events. */
  notes?: Record<string, unknown>;
}

export interface Connection {
  account_id: string;
  location_id: string;
  connected_at: string;
}

export class SandboxState {
  switches: Switches = { ...DEFAULT_SWITCHES };
  private received: ReceivedRequest[] = [];
  private seq = 0;
  private readonly connections = new Map<string, Connection>();
  /** Nonces of redeemed codes until they expire (codes are single use). */
  private readonly usedCodes = new Map<string, number>();

  /** POS: orders held, by idempotency_key (a repeated key answers the same order). */
  private readonly orders = new Map<string, HeldOrder>();
  /** DSP: events acknowledged, oldest first. */
  private events: ReceivedEvent[] = [];

  constructor(private readonly receivedLimit: number) {}

  applySwitches(patch: SwitchesPatch): Switches {
    const { expire_issued_tokens, ...rest } = patch;
    Object.assign(this.switches, rest);
    if (expire_issued_tokens) this.switches.tokens_issued_before = Date.now();
    return this.switches;
  }

  resetSwitches(): Switches {
    this.switches = { ...DEFAULT_SWITCHES };
    return this.switches;
  }

  /** Takes one from a countdown switch; true when this call should fail. */
  consume(name: 'connection_failures' | 'event_failures' | 'dsp_event_failures'): boolean {
    if (this.switches[name] <= 0) return false;
    this.switches[name] -= 1;
    return true;
  }

  holdOrder(order: HeldOrder): void {
    this.orders.set(order.idempotency_key, order);
    if (this.orders.size > ORDERS_LIMIT) this.orders.delete(this.orders.keys().next().value!);
  }

  /** A held order by the platform's id (idempotency_key) or the POS's own provider_id. */
  findOrder(id: string): HeldOrder | undefined {
    return this.orders.get(id) ?? [...this.orders.values()].find((o) => o.provider_id === id);
  }

  listOrders(): HeldOrder[] {
    return [...this.orders.values()];
  }

  clearOrders(): void {
    this.orders.clear();
  }

  recordEvent(event: ReceivedEvent): void {
    this.events.push(event);
    if (this.events.length > EVENTS_LIMIT) this.events.splice(0, this.events.length - EVENTS_LIMIT);
  }

  listEvents(filter: { order_id?: string | undefined; type?: string | undefined } = {}): ReceivedEvent[] {
    return this.events.filter(
      (e) =>
        // A DSP event names the order `order_id`; an order event names it `reference_id`.
        (!filter.order_id || (e.body.order_id ?? e.body.reference_id) === filter.order_id) &&
        (!filter.type || e.body.type === filter.type),
    );
  }

  clearEvents(): void {
    this.events = [];
  }

  record(entry: Omit<ReceivedRequest, 'seq'>): void {
    this.received.push({ seq: ++this.seq, ...entry });
    if (this.received.length > this.receivedLimit)
      this.received.splice(0, this.received.length - this.receivedLimit);
  }

  listReceived(filter: { method?: string | undefined; path?: string | undefined } = {}): ReceivedRequest[] {
    return this.received.filter(
      (r) =>
        (!filter.method || r.method === filter.method.toUpperCase()) &&
        (!filter.path || r.path.startsWith(filter.path)),
    );
  }

  clearReceived(): void {
    this.received = [];
  }

  isConnected(account: string, location: string): boolean {
    return this.connections.has(connectionKey(account, location));
  }

  connect(account: string, location: string): void {
    const key = connectionKey(account, location);
    if (!this.connections.has(key)) {
      this.connections.set(key, {
        account_id: account,
        location_id: location,
        connected_at: new Date().toISOString(),
      });
    }
  }

  disconnect(account: string, location: string): void {
    this.connections.delete(connectionKey(account, location));
  }

  listConnections(): Connection[] {
    return [...this.connections.values()];
  }

  clearConnections(): void {
    this.connections.clear();
  }

  /** Marks a code redeemed; false when it already was. */
  redeemCode(nonce: string, exp: number): boolean {
    const now = Date.now();
    for (const [n, e] of this.usedCodes) if (e <= now) this.usedCodes.delete(n);
    if (this.usedCodes.has(nonce)) return false;
    this.usedCodes.set(nonce, exp);
    return true;
  }
}

const connectionKey = (account: string, location: string) => `${account}\u0000${location}`;
