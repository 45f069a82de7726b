import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { AppContext } from '../context.ts';
import { newId } from '../db/ids.ts';
import { deliveryAttempts } from '../db/schema/index.ts';
import { hmacHex } from '../http/secrets.ts';

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Below the default worker lease (30 s), so a hung partner never outlives its job's lease. */
export const DEFAULT_TIMEOUT_MS = 15_000;
const EXCERPT_BYTES = 2048;
const LOGGED_REQUEST_BYTES = 64 * 1024;
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface DeliveryRequest {
  method: HttpMethod;
  url: string;
  /** A string is sent as is; any other value as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  partnerId?: string | null | undefined;
  /** The job this call belongs to, so its attempts can be listed per job. */
  job?: { id: string; attempt: number } | undefined;
  /** Adds `header: hex HMAC-SHA256 of the exact bytes sent` keyed with `secret`. */
  sign?: { secret: string; header: string } | undefined;
  connectTimeoutMs?: number;
  /** For the whole call: connecting, sending, and reading the whole answer. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  signal?: AbortSignal;
}

export interface DeliveryResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON; throws a DeliveryError when it is not. */
  json<T = unknown>(): T;
}

/** A call that did not answer 2xx in time. Handlers let it propagate so the worker retries. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** The partner's status; undefined when no answer came (timeout, refused, reset). */
    readonly status: number | undefined,
    /** The partner's body, e.g. a POS validation error to act on. */
    readonly responseText?: string,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** `{[header]: hex HMAC}` over exactly `body`; send exactly these bytes. */
export function signedHeaders(
  secret: string,
  body: string | Buffer,
  header = 'X-Stream-Signature',
): Record<string, string> {
  return { [header]: hmacHex(secret, body) };
}

// One connection pool per connect timeout (undici takes it per dispatcher, not per request).
const agents = new Map<number, Agent>();
function agentFor(connectTimeout: number): Agent {
  let agent = agents.get(connectTimeout);
  if (!agent) agents.set(connectTimeout, (agent = new Agent({ connectTimeout, keepAliveTimeout: 10_000 })));
  return agent;
}

/** PostgreSQL text cannot hold NUL; a binary answer must not break the delivery log. */
function loggable(text: string, max: number): string {
  const cut = text.length > max ? `${text.slice(0, max)}…[truncated]` : text;
  return cut.replaceAll('\u0000', '\uFFFD');
}

function describe(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no complete answer within ${timeoutMs} ms`;
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `timeout: could not connect (${e.message})`;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `timeout: ${e.message}`;
  return [code, e.message ?? String(err), e.cause?.message].filter(Boolean).join(': ');
}

/**
 * One outbound call to a partner, recorded in `delivery_attempts` whatever happens. Answers the
 * response when the status is 2xx; throws `DeliveryError` otherwise (non-2xx, timeout, network).
 * Call it outside any transaction: `ctx.db` writes the log line (and a partner call inside a
 * transaction would hold it open for the whole call).
 */
export async function deliver(
  ctx: Pick<AppContext, 'db' | 'log'>,
  req: DeliveryRequest,
): Promise<DeliveryResponse> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const body =
    req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  const headers: Record<string, string> = {
    'user-agent': 'stream-platform',
    ...(body !== undefined && typeof req.body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...req.headers,
    ...(req.sign && body !== undefined ? signedHeaders(req.sign.secret, body, req.sign.header) : {}),
  };
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  const started = performance.now();
  let status: number | undefined;
  let text: string | undefined;
  let responseHeaders: DeliveryResponse['headers'] = {};
  let error: string | undefined;
  try {
    const res = await request(req.url, {
      method: req.method,
      headers,
      body,
      signal,
      dispatcher: agentFor(req.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    status = res.statusCode;
    responseHeaders = res.headers;
    const max = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) {
        res.body.destroy();
        throw new Error(`the answer is larger than ${max} bytes`);
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
    if (status < 200 || status > 299) error = `HTTP ${status}`;
  } catch (err) {
    error = describe(err, timeout.aborted, timeoutMs);
  }
  const latencyMs = Math.round(performance.now() - started);
  try {
    await ctx.db.insert(deliveryAttempts).values({
      id: newId('att'),
      jobId: req.job?.id ?? null,
      partnerId: req.partnerId ?? null,
      attempt: req.job?.attempt ?? 1,
      method: req.method,
      url: req.url,
      requestBody: body === undefined ? null : loggable(body, LOGGED_REQUEST_BYTES),
      responseStatus: status ?? null,
      responseExcerpt:
        text === undefined
          ? null
          : loggable(Buffer.from(text).subarray(0, EXCERPT_BYTES).toString('utf8'), EXCERPT_BYTES),
      latencyMs,
      error: error ?? null,
    });
  } catch (err) {
    // The call itself happened; losing its log line must not turn a delivery into a retry.
    ctx.log.error({ err, url: req.url }, 'could not record a delivery attempt');
  }
  if (error !== undefined) {
    throw new DeliveryError(`${req.method} ${req.url} failed: ${error}`, status, text);
  }
  const answer = text ?? '';
  return {
    status: status!,
    headers: responseHeaders,
    text: answer,
    json<T>() {
      try {
        return JSON.parse(answer) as T;
      } catch {
        throw new DeliveryError(
          `${req.method} ${req.url} answered ${status} with a body that is not JSON`,
          status,
          answer,
        );
      }
    },
  };
}
