import type { SandboxAccount, SandboxClient, SandboxKind } from './options.ts';
import type { DownloadedMenu } from './menus.ts';
import type { DspWebhook } from '@stream/contracts/apis/become-a-dsp/index';
import type { PlatformAnswer } from './send.ts';
import type { CatalogChange } from './orders.ts';
import type {
  Connection,
  HeldOrder,
  ReceivedEvent,
  ReceivedRequest,
  Switches,
  SwitchesPatch,
} from './state.ts';

export type { CatalogChange, PlatformAnswer };

/** What `GET /_sandbox` answers. */
export interface SandboxInfo {
  kind: SandboxKind;
  client_ids: string[];
  platform_url: string | null;
  partner_ref: string | null;
  accounts: SandboxAccount[];
  switches: Switches;
}

/**
 * Steers a running simulator over HTTP, for tests in any package. A control route that fails
 * (4xx, 5xx) throws; the `send*` helpers answer what the platform answered, whatever its status.
 */
export interface SandboxControl {
  info(): Promise<SandboxInfo>;
  /** Sets switches (`POST /_sandbox/switches`); answers all of them. */
  switches(patch: SwitchesPatch): Promise<Switches>;
  resetSwitches(): Promise<Switches>;
  received(filter?: { method?: string; path?: string }): Promise<ReceivedRequest[]>;
  clearReceived(): Promise<void>;
  connections(): Promise<Connection[]>;
  /** POS: the orders it holds. */
  orders(): Promise<HeldOrder[]>;
  /** POS: forgets every order it holds. */
  clearOrders(): Promise<void>;
  /** POS: sends the platform `order.status.updated` for an order it holds (by its provider_id). */
  sendOrderStatus(
    providerId: string,
    status: 'accepted' | 'ready_for_pickup' | 'completed' | 'merchant_canceled',
  ): Promise<PlatformAnswer>;
  /** POS: sends `location.status.updated` (`inactive` until `pausedUntil` epoch ms, if given). */
  sendLocationStatus(
    locationId: string,
    status: 'active' | 'inactive',
    pausedUntil?: number,
  ): Promise<PlatformAnswer>;
  /** POS: sends `location.connection.offline`. */
  sendOffline(locationId: string): Promise<PlatformAnswer>;
  /** POS: sends any webhook body as it is (catalog webhooks, an in-store `order.created`). */
  sendPosWebhook(body: unknown): Promise<PlatformAnswer>;
  /** DSP: sends a webhook (`new_order` with a partial `order` is filled into a valid demo order); `sent` is it as sent. */
  send(webhook: Record<string, unknown>): Promise<PlatformAnswer & { sent: DspWebhook }>;
  /** DSP: the menu files it downloaded, the last of each store, with their schema verdict. */
  menus(): Promise<DownloadedMenu[]>;
  /**
   * POS: replaces the catalog it serves (any JSON), or puts the demo catalog back (`undefined`), and
   * sends the platform `location.catalog.updated` for each merchant (`catalog_updated`: its answers).
   */
  setCatalog(catalog: unknown): Promise<CatalogChange>;
  /** DSP and event provider: the events it acknowledged, oldest first (`order_id` also matches `reference_id`). */
  events(filter?: { order_id?: string; type?: string }): Promise<ReceivedEvent[]>;
  /** DSP and event provider: forgets the events it received. */
  clearEvents(): Promise<void>;
  /** Event provider: sends `order.assign.driver` for an order it heard of (a demo driver unless given). */
  assignDriver(
    orderId: string,
    opts?: { location_id?: string; driver?: { name: string; phone: { number: string; code?: string } } },
  ): Promise<PlatformAnswer>;
  /** Event provider: sends `order.update.delivery.status`. */
  sendDeliveryStatus(
    orderId: string,
    status: 'enroute_to_pickup' | 'arrived_at_pickup' | 'enroute_to_dropoff' | 'completed',
    opts?: { location_id?: string },
  ): Promise<PlatformAnswer>;
}

/** A control route's refusal (4xx, 5xx): its status and its body, parsed when JSON. */
export class ControlError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/**
 * `baseUrl` is where the simulator is (mounted: `{platform}/sandbox/<kind>`); `credentials` one of
 * its control clients (standalone: the client it issued; mounted: its OAuth client or the sandbox
 * partner's own client), sent as HTTP Basic.
 */
export function sandboxControl(baseUrl: string, credentials: SandboxClient): SandboxControl {
  const base = `${baseUrl.replace(/\/$/, '')}/_sandbox`;
  const authorization = `Basic ${Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64')}`;
  const send = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) {
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      throw new ControlError(`sandbox ${method} ${path}: ${res.status} ${text}`, res.status, body);
    }
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  // Absent filters are left out, not sent as "undefined".
  const query = (filter: Record<string, string | undefined>) =>
    new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => e[1] !== undefined));
  return {
    info: () => send('GET', ''),
    switches: (patch) => send('POST', '/switches', patch),
    resetSwitches: () => send('DELETE', '/switches'),
    received: async (filter = {}) =>
      (await send<{ received: ReceivedRequest[] }>('GET', `/received?${query(filter)}`)).received,
    clearReceived: () => send('DELETE', '/received'),
    connections: async () => (await send<{ connections: Connection[] }>('GET', '/connections')).connections,
    orders: async () => (await send<{ orders: HeldOrder[] }>('GET', '/orders')).orders,
    clearOrders: () => send('DELETE', '/orders'),
    sendOrderStatus: (providerId, status) =>
      send('POST', `/orders/${encodeURIComponent(providerId)}/status`, { status }),
    sendLocationStatus: (locationId, status, pausedUntil) =>
      send('POST', `/locations/${encodeURIComponent(locationId)}/status`, {
        status,
        ...(pausedUntil !== undefined ? { paused_until: pausedUntil } : {}),
      }),
    sendOffline: (locationId) => send('POST', `/locations/${encodeURIComponent(locationId)}/offline`, {}),
    sendPosWebhook: (body) => send('POST', '/webhook', body),
    send: (webhook) => send('POST', '/send', webhook),
    events: async (filter = {}) =>
      (await send<{ events: ReceivedEvent[] }>('GET', `/events?${query(filter)}`)).events,
    clearEvents: () => send('DELETE', '/events'),
    menus: async () => (await send<{ menus: DownloadedMenu[] }>('GET', '/menus')).menus,
    setCatalog: (catalog) =>
      catalog === undefined ? send('DELETE', '/catalog') : send('PUT', '/catalog', catalog),
    assignDriver: (orderId, opts = {}) => send('POST', `/orders/${encodeURIComponent(orderId)}/driver`, opts),
    sendDeliveryStatus: (orderId, status, opts = {}) =>
      send('POST', `/orders/${encodeURIComponent(orderId)}/delivery-status`, { ...opts, status }),
  };
}
