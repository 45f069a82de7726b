import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { z } from 'zod';
import { hasSecrets, redactSecrets } from '@stream/contracts/secret';
import type { AppContext } from '../context.ts';
import { newId } from '../db/ids.ts';
import { part, run, statement, type Part } from '../db/raw.ts';
import { hmacHex } from '../http/secrets.ts';
import { PermanentJobError } from '../jobs/kinds.ts';

/**
 * The outbound HTTP of every partner call, and its delivery log: one `delivery_attempts` row per
 * attempt, written before the call and completed after it, with the secret fields of the
 * operation redacted. A call made for a job carries the job's `Idempotency-Key`.
 */

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Below the default worker lease (30 s), so a hung partner never outlives its job's lease. */
export const DEFAULT_TIMEOUT_MS = 15_000;
const EXCERPT_BYTES = 2048;
const LOGGED_REQUEST_BYTES = 64 * 1024;
/** The largest answer read from a partner; a larger one is not read (the certification kit holds partners to it too). */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The job a call is made for: its attempts are listed per job in the delivery log, the call
 * carries `Idempotency-Key: <id>` (the same on every attempt), and `signal` (the worker's: lease
 * lost, process draining) aborts it.
 */
export interface JobRef {
  id: string;
  attempt: number;
  signal?: AbortSignal | undefined;
  /**
   * Takes a write of the delivery log to make in the statement that records the job's outcome (the
   * worker's), saving a round trip per call; without it the write is made at once. An attempt whose
   * outcome a crash lost keeps `finished_at` null: interrupted.
   */
  defer?: ((write: Part) => void) | undefined;
}

/** The `Idempotency-Key` of the calls made for a job: its id, so every attempt sends the same. */
export const idempotencyKeyOf = (job: Pick<JobRef, 'id'>): string => job.id;

export interface DeliveryRequest {
  method: HttpMethod;
  url: string;
  /** A string is sent as is; any other value as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  partnerId?: string | null | undefined;
  /** The job this call is made for (see {@link JobRef}). */
  job?: JobRef | undefined;
  /**
   * `Idempotency-Key` header: by default the job's id when there is a job, else none. `false`
   * sends none even for a job (an OAuth token exchange, which must never be answered from a cache).
   */
  idempotencyKey?: string | false | undefined;
  /** Schemas whose secret fields (`secret()` in the contracts) are redacted in the log. */
  redact?: { request?: z.ZodType | undefined; response?: z.ZodType | undefined } | undefined;
  /**
   * Reads a 2xx answer (e.g. checks it against the contract). A thrown {@link UnusableAnswerError}
   * is recorded as the attempt's error and rethrown; its result is the response's `value`.
   */
  read?: ((res: DeliveryResponse) => unknown) | undefined;
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
  /** What `read` answered (undefined without `read`). */
  value: unknown;
}

/** A call that did not answer 2xx in time. Handlers let it propagate so the worker retries. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** The partner's status; undefined when no answer came (timeout, refused, reset). */
    readonly status: number | undefined,
    /** The partner's body, e.g. a POS validation error to act on. */
    readonly responseText?: string,
    /** How long the partner asked to wait (`Retry-After`, on a 429 or 503). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** The text as JSON, undefined when it is not (a partner's answer or webhook may be anything). */
export const parseJson = (text: string): unknown => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A 2xx answer the platform cannot use (not JSON where the contract needs a body, a field it needs
 * missing or of the wrong type). Retrying the same call will not change it, so a job fails at once.
 */
export class UnusableAnswerError extends PermanentJobError {
  constructor(
    message: string,
    readonly status: number,
    readonly responseText: string,
  ) {
    super(message);
    this.name = 'UnusableAnswerError';
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

/**
 * One signal for a call: aborted at its deadline or when a caller's or the job's signal aborts.
 * `AbortSignal.timeout` + `AbortSignal.any` do the same at about five times the cost per call (weak
 * references and a finalisation registry for each), paid twice per order; `done()` clears the timer
 * and the listeners once the answer is read.
 */
function callSignal(timeoutMs: number, stops: AbortSignal[]) {
  const controller = new AbortController();
  let timedOut = false;
  const stop = () => controller.abort();
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);
  timer.unref(); // as AbortSignal.timeout's: a call in flight does not hold a stopping process open
  for (const s of stops) {
    if (s.aborted) stop();
    else s.addEventListener('abort', stop, { once: true });
  }
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      for (const s of stops) s.removeEventListener('abort', stop);
    },
  };
}

function describe(err: unknown, timedOut: boolean, timeoutMs: number, aborted: boolean): string {
  if (timedOut) return `timeout: no complete answer within ${timeoutMs} ms`;
  if (aborted) return 'aborted: the job was stopped (lease lost or process draining)';
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `timeout: could not connect (${e.message})`;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `timeout: ${e.message}`;
  return [code, e.message ?? String(err), e.cause?.message].filter(Boolean).join(': ');
}

/** The logged form of a JSON text: its secret fields redacted (left as is when it is not JSON). */
function redactedText(text: string, schema: z.ZodType | undefined): string {
  if (!schema || !hasSecrets(schema)) return text;
  try {
    return JSON.stringify(redactSecrets(schema, JSON.parse(text)));
  } catch {
    return text;
  }
}

type Db = Pick<AppContext, 'db' | 'log'>;

// Every partner call writes these two: plain statements, not built anew per call (db/raw.ts).
const START = statement(
  'delivery_attempt_start',
  `insert into delivery_attempts (id, job_id, partner_id, attempt, method, url, request_body)
   values ($1, $2, $3, $4, $5, $6, $7)`,
);
const OUTCOME = statement(
  'delivery_attempt_outcome',
  `update delivery_attempts set response_status = $2, response_excerpt = $3, latency_ms = $4, error = $5,
     finished_at = now()
   where id = $1`,
);
const WHOLE = statement(
  'delivery_attempt_whole',
  `insert into delivery_attempts (id, job_id, partner_id, attempt, method, url, response_status,
     response_excerpt, latency_ms, error, finished_at)
   values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now())`,
);

/** Writes the attempt's row before the call: no outcome yet (`finished_at` null). */
async function recordStart(
  ctx: Db,
  req: DeliveryRequest,
  body: string | undefined,
): Promise<string | undefined> {
  const id = newId('att');
  try {
    await run(ctx.db, START, [
      id,
      req.job?.id ?? null,
      req.partnerId ?? null,
      req.job?.attempt ?? 1,
      req.method,
      req.url,
      body === undefined ? null : loggable(redactedText(body, req.redact?.request), LOGGED_REQUEST_BYTES),
    ]);
    return id;
  } catch (err) {
    // Losing the log line must not stop the delivery; the outcome is still logged below.
    ctx.log.error({ err, url: req.url }, 'could not record a delivery attempt');
    return undefined;
  }
}

/** Completes the attempt's row with its outcome (or writes it whole if the first write failed). */
async function recordOutcome(
  ctx: Db,
  req: DeliveryRequest,
  rowId: string | undefined,
  outcome: {
    status: number | undefined;
    text: string | undefined;
    latencyMs: number;
    error: string | undefined;
  },
): Promise<void> {
  const logged = outcome.text === undefined ? undefined : redactedText(outcome.text, req.redact?.response);
  const result = [
    outcome.status ?? null,
    logged === undefined
      ? null
      : loggable(Buffer.from(logged).subarray(0, EXCERPT_BYTES).toString('utf8'), EXCERPT_BYTES),
    outcome.latencyMs,
    outcome.error ?? null,
  ];
  try {
    if (rowId && req.job?.defer) req.job.defer(part(OUTCOME.text, [rowId, ...result]));
    else if (rowId) await run(ctx.db, OUTCOME, [rowId, ...result]);
    else
      await run(ctx.db, WHOLE, [
        newId('att'),
        req.job?.id ?? null,
        req.partnerId ?? null,
        req.job?.attempt ?? 1,
        req.method,
        req.url,
        ...result,
      ]);
  } catch (err) {
    // The call itself happened; losing its log line must not turn a delivery into a retry.
    ctx.log.error({ err, url: req.url }, 'could not record a delivery attempt');
  }
}

/**
 * One outbound call to a partner, recorded in `delivery_attempts` whatever happens. Answers the
 * response when the status is 2xx (and `read` accepts it); throws `DeliveryError` otherwise
 * (non-2xx, timeout, network, aborted) or `UnusableAnswerError` (from `read`).
 * Call it outside any transaction: `ctx.db` writes the log line (and a partner call inside a
 * transaction would hold it open for the whole call).
 */
export async function deliver(ctx: Db, req: DeliveryRequest): Promise<DeliveryResponse> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const body =
    req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  const idempotencyKey =
    req.idempotencyKey === false
      ? undefined
      : (req.idempotencyKey ?? (req.job ? idempotencyKeyOf(req.job) : undefined));
  const headers: Record<string, string> = {
    'user-agent': 'stream-platform',
    ...(body !== undefined && typeof req.body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    ...req.headers,
    ...(req.sign && body !== undefined ? signedHeaders(req.sign.secret, body, req.sign.header) : {}),
  };
  const rowId = await recordStart(ctx, req, body);
  // The timeout counts from here: writing the log row is not the partner's time.
  const stops = [req.signal, req.job?.signal].filter((s): s is AbortSignal => s !== undefined);
  const call = callSignal(timeoutMs, stops);
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
      signal: call.signal,
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
    error = describe(
      err,
      call.timedOut(),
      timeoutMs,
      stops.some((s) => s.aborted),
    );
  } finally {
    call.done();
  }
  const answer = text ?? '';
  const response: DeliveryResponse = {
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
    value: undefined,
  };
  let unreadable: unknown;
  if (error === undefined && req.read) {
    try {
      response.value = req.read(response);
    } catch (err) {
      unreadable = err;
      error = `unusable answer: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  const latencyMs = Math.round(performance.now() - started);
  await recordOutcome(ctx, req, rowId, { status, text, latencyMs, error });
  if (unreadable !== undefined) throw unreadable;
  if (error !== undefined) {
    throw new DeliveryError(
      `${req.method} ${req.url} failed: ${error}`,
      status,
      text,
      retryAfterOf(responseHeaders['retry-after']),
    );
  }
  return response;
}

/** `Retry-After` as seconds or an HTTP date, in ms from now (capped at an hour); undefined if absent or unreadable. */
export function retryAfterOf(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, 60 * 60_000) : undefined;
}
