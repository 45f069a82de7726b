import { setTimeout as sleep } from 'node:timers/promises';
import type { AdminCommands } from '../admin/commands.ts';
import { readAdminEndpoint, type AdminEndpoint } from '../admin/endpoint-file.ts';
import type { Config } from '../config.ts';
import { DataDirLockedError, lockHolder } from '../db/lock.ts';
import { ApiError } from '../http/errors.ts';
import type { ErrorCode } from '@stream/contracts/errors';
import { CliError } from './errors.ts';

/**
 * An id as one segment of an admin path. `.` and `..` (also percent-encoded) would be resolved as
 * path steps and reach another route; an id longer than any the platform makes is no id either.
 */
function segment(id: string): string {
  if (id === '.' || id === '..' || id.length > 200) throw new CliError(`"${id.slice(0, 40)}" is not an id.`);
  return encodeURIComponent(id);
}

/** How long to wait for a server that holds the folder to publish admin.json (a fresh folder takes ~6 s). */
const WAIT_FOR_SERVER_MS = 30_000;

/**
 * Runs `command` against the platform's database, reached the one safe way:
 * - DATABASE_URL: PostgreSQL directly (any number of processes may share it);
 * - a live process holds the PGlite folder: through that server's loopback admin endpoint, never by
 *   opening the folder (two processes on one PGlite folder silently lose rows);
 * - otherwise: the PGlite folder itself, under its lock, for the length of the command.
 * Direct access applies pending migrations first, as `serve` does, so a fresh folder just works.
 */
export async function withCommands<T>(
  config: Config,
  command: (commands: AdminCommands) => Promise<T>,
): Promise<T> {
  const backend = await openBackend(config);
  try {
    return await command(backend.commands);
  } finally {
    await backend.close();
  }
}

interface Backend {
  commands: AdminCommands;
  close(): Promise<void>;
}

async function openDirect(config: Config): Promise<Backend> {
  // Loaded here: a command that goes through a server needs neither database driver.
  const [{ openDatabase }, { migrate }, { directCommands }] = await Promise.all([
    import('../db/client.ts'),
    import('../db/migrate.ts'),
    import('../admin/commands.ts'),
  ]);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
  });
  try {
    await migrate(database);
  } catch (err) {
    await database.close();
    throw err;
  }
  return { commands: directCommands(database, config.encryptionKey), close: () => database.close() };
}

async function openBackend(config: Config): Promise<Backend> {
  if (config.databaseUrl) return openDirect(config);
  const deadline = Date.now() + WAIT_FOR_SERVER_MS;
  for (;;) {
    const holder = lockHolder(config.dataDir);
    if (holder === undefined) {
      try {
        return await openDirect(config);
      } catch (err) {
        if (!(err instanceof DataDirLockedError)) throw err;
        continue; // a server took the folder in between: go through it
      }
    }
    // The holder may be a server still starting, or another CLI command finishing.
    const endpoint = readAdminEndpoint(config.dataDir);
    if (endpoint?.pid === holder) return { commands: httpCommands(endpoint), close: async () => {} };
    if (Date.now() > deadline) {
      throw new CliError(
        `Process ${holder} holds ${config.dataDir} but publishes no admin endpoint (admin.json). ` +
          'If it is a stream-platform server, it must listen on a loopback or wildcard HOST; else stop it.',
      );
    }
    await sleep(200);
  }
}

/** The admin endpoint's client: the same commands, run by the server on its open database. */
export function httpCommands(endpoint: AdminEndpoint): AdminCommands {
  async function request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body: unknown = {},
  ): Promise<T> {
    let res: Response;
    try {
      res = await fetch(endpoint.url + path, {
        method,
        headers: {
          authorization: `Bearer ${endpoint.token}`,
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new CliError(`Could not reach the server (process ${endpoint.pid}) at ${endpoint.url}: ${cause}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.ok) return parsed as T;
    const error = (parsed as { error?: { code?: string; message?: string; details?: [] } } | undefined)
      ?.error;
    // The admin scope answers a refused token as an unknown route ("There is no ... route.").
    if (res.status === 404 && error?.code === 'not_found' && error.message?.startsWith('There is no ')) {
      throw new CliError(
        `The server at ${endpoint.url} (process ${endpoint.pid}) refused the admin token in admin.json.`,
      );
    }
    throw new ApiError(
      (error?.code ?? 'internal_error') as ErrorCode,
      error?.message ?? `The admin endpoint answered HTTP ${res.status}.`,
      error?.details,
      res.status,
    );
  }
  return {
    migrate: () => request('POST', '/_admin/migrate'),
    createPartner: (req) => request('POST', '/_admin/partners', req),
    listPartners: () => request('GET', '/_admin/partners'),
    rotateSecret: (idOrSlug, which) =>
      request('POST', `/_admin/partners/${segment(idOrSlug)}/rotate-secret`, { which }),
    goLive: (idOrSlug) => request('POST', `/_admin/partners/${segment(idOrSlug)}/go-live`),
    setRootScopes: (idOrSlug, scopes) =>
      request('POST', `/_admin/partners/${segment(idOrSlug)}/scopes`, { scopes }),
    rotateSigningKey: () => request('POST', '/_admin/keys/rotate'),
    showOrder: (orderId) => request('GET', `/_admin/orders/${segment(orderId)}`),
    eventProviders: (locationId) =>
      request('GET', `/_admin/locations/${segment(locationId)}/event-providers`),
    setEventProvider: (locationId, provider, enabled) =>
      request(
        enabled ? 'PUT' : 'DELETE',
        `/_admin/locations/${segment(locationId)}/event-providers/${segment(provider)}`,
      ),
    eventCircuits: () => request('GET', '/_admin/event-providers'),
    setMenuSettings: (partner, patch) =>
      request('POST', `/_admin/partners/${segment(partner)}/menu-settings`, patch),
    publishMenus: (locationId) => request('POST', `/_admin/locations/${segment(locationId)}/publish-menus`),
    importCompany: (file) => request('POST', '/_admin/companies', file),
    grantCompany: (companyId, partner) =>
      request('PUT', `/_admin/companies/${companyId}/grants/${segment(partner)}`),
    moveHostedOrder: (orderId, status) =>
      request('POST', `/_admin/hosted-orders/${orderId}/status/${segment(status)}`),
  };
}
