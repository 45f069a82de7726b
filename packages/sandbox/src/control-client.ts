import type { Connection, ReceivedRequest, Switches, SwitchesPatch } from './state.ts';

/** Steers a running simulator over HTTP, for tests in any package. `baseUrl` is where it is mounted. */
export interface SandboxControl {
  switches(patch: SwitchesPatch): Promise<Switches>;
  resetSwitches(): Promise<Switches>;
  received(filter?: { method?: string; path?: string }): Promise<ReceivedRequest[]>;
  clearReceived(): Promise<void>;
  connections(): Promise<Connection[]>;
}

export function sandboxControl(baseUrl: string): SandboxControl {
  const base = `${baseUrl.replace(/\/$/, '')}/_sandbox`;
  const send = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  return {
    switches: (patch) => send('POST', '/switches', patch),
    resetSwitches: () => send('DELETE', '/switches'),
    received: async (filter = {}) =>
      (await send<{ received: ReceivedRequest[] }>('GET', `/received?${new URLSearchParams(filter)}`))
        .received,
    clearReceived: () => send('DELETE', '/received'),
    connections: async () => (await send<{ connections: Connection[] }>('GET', '/connections')).connections,
  };
}
