import type { SandboxAccount, SandboxClient, SandboxKind } from './options.ts';
import type { Connection, HeldOrder, ReceivedRequest, Switches, SwitchesPatch } from './state.ts';

/** What the platform answered a webhook the simulator sent. */
export interface PlatformAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** What `GET /_sandbox` answers. */
export interface SandboxInfo {
  kind: SandboxKind;
  client_ids: string[];
  platform_url: string | null;
  accounts: SandboxAccount[];
  switches: Switches;
}

/** Steers a running simulator over HTTP, for tests in any package. */
export interface SandboxControl {
  info(): Promise<SandboxInfo>;
  switches(patch: SwitchesPatch): Promise<Switches>;
  resetSwitches(): Promise<Switches>;
  received(filter?: { method?: string; path?: string }): Promise<ReceivedRequest[]>;
  clearReceived(): Promise<void>;
  connections(): Promise<Connection[]>;
  /** POS: the orders it holds. */
  orders(): Promise<HeldOrder[]>;
  /** POS: sends the platform `order.status.updated` for an order it holds. */
  sendOrderStatus(providerId: string, status: string): Promise<PlatformAnswer>;
  /** POS: sends `location.status.updated`. */
  sendLocationStatus(
    locationId: string,
    status: 'active' | 'inactive',
    pausedUntil?: number,
  ): Promise<PlatformAnswer>;
  /** DSP: sends a webhook (`new_order` with a partial `order` is filled into a valid demo order). */
  send(webhook: Record<string, unknown>): Promise<PlatformAnswer>;
  /** DSP: the events it received, oldest first. */
  events(filter?: {
    order_id?: string;
    type?: string;
  }): Promise<{ time: string; body: Record<string, unknown> }[]>;
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
    if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  return {
    info: () => send('GET', ''),
    switches: (patch) => send('POST', '/switches', patch),
    resetSwitches: () => send('DELETE', '/switches'),
    received: async (filter = {}) =>
      (await send<{ received: ReceivedRequest[] }>('GET', `/received?${new URLSearchParams(filter)}`))
        .received,
    clearReceived: () => send('DELETE', '/received'),
    connections: async () => (await send<{ connections: Connection[] }>('GET', '/connections')).connections,
    orders: async () => (await send<{ orders: HeldOrder[] }>('GET', '/orders')).orders,
    sendOrderStatus: (providerId, status) =>
      send('POST', `/orders/${encodeURIComponent(providerId)}/status`, { status }),
    sendLocationStatus: (locationId, status, pausedUntil) =>
      send('POST', `/locations/${encodeURIComponent(locationId)}/status`, {
        status,
        ...(pausedUntil ? { paused_until: pausedUntil } : {}),
      }),
    send: (webhook) => send('POST', '/send', webhook),
    events: async (filter = {}) =>
      (
        await send<{ events: { time: string; body: Record<string, unknown> }[] }>(
          'GET',
          `/events?${new URLSearchParams(filter)}`,
        )
      ).events,
  };
}
