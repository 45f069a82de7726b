import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensurePrivateDir } from './db/lock.ts';

/** Everything the platform reads from its environment, read in one place. */
export interface Config {
  port: number;
  host: string;
  /** Folder for the embedded database, its lock and the admin socket file. */
  dataDir: string;
  /** PostgreSQL server; when absent the platform runs on PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  /** Connections of the `pg` pool (PostgreSQL only). */
  databasePoolSize: number;
  /**
   * Base URL partners and browsers reach this platform at (entry URLs, menu download URLs).
   * PUBLIC_URL, else http://localhost:PORT (with PORT=0, filled in once the port is known).
   */
  publicUrl: string;
  logLevel: string;
  /** AES-256-GCM key for secrets the platform must be able to read back (webhook secrets, partner OAuth secrets). */
  encryptionKey: Buffer;
  bodyLimit: number;
  /** HTTP timeouts (ms): a client that is slow to send its request is cut off (408), an idle connection closed. */
  http: HttpTimeouts;
  /** Mount the sandbox partners under /sandbox and register them on first start. */
  sandbox: boolean;
  /**
   * Store API delivery metrics: a Nominatim-compatible geocoder (GEOCODER_URL; absent: the built-in
   * address file) and an OSRM-compatible route service (ROUTE_URL; absent: no driving distances).
   */
  geo?: { geocoderUrl?: string | undefined; routeUrl?: string | undefined };
  /**
   * Store API e-mail: an SMTP server (SMTP_URL, e.g. smtp://user:pass@mail.example.com:587); without
   * one, messages are written as .eml files to `mailDir` (MAIL_DIR, default DATA_DIR/mail).
   */
  mail?: { smtpUrl?: string | undefined; mailDir?: string | undefined };
  worker: {
    pollMs: number;
    leaseMs: number;
    concurrency: number;
    /** At most this many of one partner's jobs at a time per worker (default 4). */
    partnerConcurrency?: number;
    /** On stop, how long jobs in flight may finish before they are handed back (default 10 s). */
    drainMs?: number;
  };
  /** Finished jobs and delivery attempts older than `days` are pruned every `intervalMs`; 0 days keeps all. */
  retention?: { days: number; intervalMs?: number };
}

export interface HttpTimeouts {
  /** Longest time to receive a whole request (headers and body) from a client. */
  requestTimeoutMs: number;
  /** Longest time to receive the request headers. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection stays open after a response. */
  keepAliveTimeoutMs: number;
}

export class ConfigError extends Error {}

/** See README (Configuration, Benchmarks): more connections did not raise throughput on 2 cores. */
export const DEFAULT_POOL_SIZE = 10;

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return n;
}

/**
 * The key comes from ENCRYPTION_KEY (base64 of 32 bytes). Without it the platform keeps one in
 * `<dataDir>/encryption.key`, readable only by its owner, so a fresh clone just works; processes
 * on other machines sharing a PostgreSQL must be given the same ENCRYPTION_KEY.
 */
function encryptionKey(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  const raw = env.ENCRYPTION_KEY;
  if (raw) {
    const key = Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new ConfigError('ENCRYPTION_KEY must be base64 of exactly 32 bytes');
    return key;
  }
  const file = join(dataDir, 'encryption.key');
  try {
    ensurePrivateDir(dataDir); // every start: the key and the database beside it are the owner's only
  } catch (err) {
    throw new ConfigError(`DATA_DIR ${dataDir} cannot be used as the data folder: ${(err as Error).message}`);
  }
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * Defaults: 10 s for headers (a few hundred bytes; slowloris trickles them), 30 s for a whole request
 * (a 1 MiB body at ~35 KB/s), 5 s of keep-alive idleness (Node's default). Only receiving the
 * request counts: a slow handler is not cut off.
 */
function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const timeouts = {
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000),
    headersTimeoutMs: int(env, 'HEADERS_TIMEOUT_MS', 10_000),
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000),
  };
  for (const [name, value] of [
    ['REQUEST_TIMEOUT_MS', timeouts.requestTimeoutMs],
    ['HEADERS_TIMEOUT_MS', timeouts.headersTimeoutMs],
    ['KEEP_ALIVE_TIMEOUT_MS', timeouts.keepAliveTimeoutMs],
  ] as const) {
    if (value === 0) throw new ConfigError(`${name} must be at least 1 (ms); 0 would disable the timeout`);
  }
  if (timeouts.headersTimeoutMs > timeouts.requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS');
  }
  return timeouts;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080);
  const dataDir = resolve(env.DATA_DIR || '.data');
  const host = env.HOST || '0.0.0.0';
  return {
    port,
    host,
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE),
    publicUrl: (env.PUBLIC_URL || (port ? `http://localhost:${port}` : '')).replace(/\/$/, ''),
    logLevel: env.LOG_LEVEL || 'info',
    encryptionKey: encryptionKey(env, dataDir),
    bodyLimit: int(env, 'BODY_LIMIT', 1024 * 1024),
    http: httpTimeouts(env),
    sandbox: env.SANDBOX !== 'off',
    geo: { geocoderUrl: env.GEOCODER_URL || undefined, routeUrl: env.ROUTE_URL || undefined },
    mail: { smtpUrl: env.SMTP_URL || undefined, mailDir: env.MAIL_DIR || undefined },
    worker: {
      pollMs: int(env, 'WORKER_POLL_MS', 250),
      leaseMs: int(env, 'WORKER_LEASE_MS', 30_000),
      concurrency: int(env, 'WORKER_CONCURRENCY', 64),
      partnerConcurrency: Math.max(1, int(env, 'WORKER_PARTNER_CONCURRENCY', 32)),
      drainMs: int(env, 'WORKER_DRAIN_MS', 10_000),
    },
    retention: { days: int(env, 'JOB_RETENTION_DAYS', 30) },
  };
}
