import type { z } from 'zod';
import type { Operation } from '@stream/contracts/operation';
import type { AppContext } from '../context.ts';
import type { Partner } from '../partners/service.ts';
import { DeliveryError, UnusableAnswerError, deliver, type DeliveryResponse, type JobRef } from './http.ts';
import type { PartnerType } from './operations.ts';
import { fieldPath } from '@stream/contracts/server/field-path';
import { unstorableTextProblem } from '@stream/contracts/server/input';

/**
 * One call to an operation a partner builds (`servedBy: 'partner'` in the contracts): the URL from
 * the operation and the partner's base URL, the answer read from the operation's 2xx response,
 * through `deliver` (so it is in the delivery log, its secret fields redacted).
 *
 * Answers are read liberally, the way the contract is written: any 2xx is success; an operation
 * whose 2xx declares no body answers `undefined` whatever came (204, `{}`, text); one with a body
 * schema needs JSON that schema accepts (extra fields are ignored, and the contracts require only
 * what the platform uses). An answer it cannot use throws `UnusableAnswerError`, which is a
 * `PermanentJobError`: retrying the same call would get the same answer.
 */

export interface PartnerTarget {
  partner: Partner;
  type: PartnerType;
}

/** What went wrong talking to a partner, in the terms the callers act on. */
export class PartnerCallError extends Error {
  constructor(
    /** `unauthorized`: 401 (token or grant refused); `rejected`: another 4xx; `unavailable`: no answer, 5xx, 408, 425, 429, or no usable setup. */
    readonly reason: 'unauthorized' | 'rejected' | 'unavailable',
    message: string,
    readonly status?: number,
    /** The partner's answer, when it sent one (a POS's 400 `posValidation` body). */
    readonly responseText?: string,
    /** The partner's `Retry-After`: the worker waits at least this long before the next attempt. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'PartnerCallError';
  }
}

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
type Responses<O extends Operation> = O['responses'];
/** The body schema of the operation's 2xx answer, `never` when it declares none. */
type SuccessSchema<O extends Operation> = {
  [S in keyof Responses<O>]: S extends SuccessStatus
    ? Responses<O>[S] extends { schema: infer Z extends z.ZodType }
      ? Z
      : never
    : number extends S
      ? Responses<O>[S] extends { schema: infer Z extends z.ZodType }
        ? Z
        : never
      : never;
}[keyof Responses<O>];

/** What a call of `O` answers: its 2xx schema's output, or `undefined` when the 2xx has no body. */
export type AnswerOf<O extends Operation> = O extends unknown
  ? [SuccessSchema<O>] extends [never]
    ? undefined
    : z.output<SuccessSchema<O>>
  : never;

type Input<T> = T extends z.ZodType ? z.input<T> : never;
type Part<O extends Operation, K extends 'body' | 'query' | 'params'> = O['request'] extends {
  [P in K]: infer S extends z.ZodType;
}
  ? { [P in K]: Input<S> }
  : { [P in K]?: undefined };

/** What a call of `O` sends: its body, query and path parameters as the contract types them. */
export type CallInput<O extends Operation> = Part<O, 'body'> &
  Part<O, 'query'> &
  Part<O, 'params'> & {
    /** The job the call is made for: logged with it, `Idempotency-Key`, aborted with it. */
    job?: JobRef | undefined;
    headers?: Record<string, string>;
    /** Adds the hex HMAC of the body under `header` (event providers: `X-Stream-Signature`). */
    sign?: { secret: string; header: string } | undefined;
    /**
     * Reads the 2xx answer with this schema, one of the shapes the operation's answer allows, when
     * the request decides which comes back (a token exchange: the answer to a code, or to a refresh).
     */
    answer?: z.ZodType | undefined;
  };

/** The input as rest arguments: optional when the operation needs no body, query or params. */
export type OptionalInput<O extends Operation, Extra = unknown> =
  Record<string, never> extends CallInput<O> ? [input?: CallInput<O> & Extra] : [input: CallInput<O> & Extra];

/** The operation's 2xx body schema, if it declares one (the same for every 2xx status). */
function successSchema(op: Operation): z.ZodType | undefined {
  return Object.entries(op.responses).find(([s, r]) => Number(s) >= 200 && Number(s) < 300 && r.schema)?.[1]
    .schema;
}

export function operationUrl(
  t: Pick<PartnerTarget, 'partner'>,
  op: Operation,
  params?: Record<string, unknown>,
  query?: Record<string, unknown>,
): string {
  if (!t.partner.baseUrl)
    throw new PartnerCallError('unavailable', `The partner ${t.partner.slug} has no base URL.`);
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(params?.[name] ?? '')),
  );
  const url = new URL(t.partner.baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

/** The answer as the operation's 2xx schema reads it; throws `UnusableAnswerError` when it cannot. */
export function readAnswer(
  op: Operation,
  res: Pick<DeliveryResponse, 'status' | 'text'>,
  what: string,
  schema = successSchema(op),
): unknown {
  if (!schema) return undefined;
  // "Answer any 2xx": to a call that tells the partner something, a 204 or an empty 200 is an empty
  // object where the contract needs no field. A read (GET) with no body is no answer: an empty
  // catalog must not be taken for one.
  if (!res.text.trim() && op.method !== 'GET') {
    const empty = schema.safeParse({});
    if (empty.success) return empty.data;
  }
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    const shown = res.text.trim() ? 'a body that is not JSON' : 'no body';
    throw new UnusableAnswerError(
      `${what} answered ${res.status} with ${shown}; the contract needs a JSON answer.`,
      res.status,
      res.text,
    );
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => `${fieldPath('', i.path as (string | number)[]) || 'body'}: ${i.message}`)
      .join('; ');
    throw new UnusableAnswerError(
      `${what} answered ${res.status} with a body the platform cannot use (${issues}).`,
      res.status,
      res.text,
    );
  }
  // Text PostgreSQL cannot store (NUL, a lone surrogate) would fail where the answer is kept: a 500.
  const unstorable = unstorableTextProblem(result.data, '');
  if (unstorable) {
    throw new UnusableAnswerError(
      `${what} answered ${res.status} with a body the platform cannot use (${unstorable.path}: ${unstorable.message}).`,
      res.status,
      res.text,
    );
  }
  return result.data;
}

/** The partner's own error code and message when it sent the platform's error body, else the status. */
function errorSummary(err: DeliveryError): string {
  try {
    const body = JSON.parse(err.responseText ?? '') as { error?: { code?: string; message?: string } };
    if (body.error?.code) return `${err.status} ${body.error.code}: ${body.error.message ?? ''}`.trim();
  } catch {
    // not JSON: fall through
  }
  return err.status === undefined ? err.message : `HTTP ${err.status}`;
}

/**
 * Calls `op` at the partner. `token` is sent as `Authorization: Bearer` (never logged). Non-2xx
 * and network failures throw `PartnerCallError`; an unusable 2xx throws `UnusableAnswerError`.
 */
export async function callOperation<O extends Operation>(
  ctx: Pick<AppContext, 'db' | 'log'>,
  t: Pick<PartnerTarget, 'partner'>,
  op: O,
  input: CallInput<O> | undefined,
  token?: string,
): Promise<AnswerOf<O>> {
  const what = `${op.method} ${op.path} at ${t.partner.slug}`;
  const i = (input ?? {}) as CallInput<Operation> & {
    body?: unknown;
    query?: Record<string, unknown>;
    params?: Record<string, unknown>;
  };
  try {
    const res = await deliver(ctx, {
      method: op.method,
      url: operationUrl(t, op, i.params, i.query),
      body: i.body,
      headers: {
        accept: 'application/json',
        ...i.headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      partnerId: t.partner.id,
      job: i.job,
      // An OAuth token exchange is answered fresh every time, never from an idempotency cache.
      idempotencyKey: op.security.kind === 'client-credentials' ? false : undefined,
      sign: i.sign,
      redact: { request: op.request?.body, response: successSchema(op) },
      read: (res) => readAnswer(op, res, what, i.answer ?? successSchema(op)),
    });
    return res.value as AnswerOf<O>;
  } catch (err) {
    if (!(err instanceof DeliveryError)) throw err;
    const s = err.status;
    // 408 (timeout), 425 (too early) and 429 (slow down) say "later", not "no": retried like a 5xx.
    const later = s === 408 || s === 425 || s === 429;
    const reason =
      s === 401
        ? 'unauthorized'
        : s !== undefined && s >= 400 && s < 500 && !later
          ? 'rejected'
          : 'unavailable';
    throw new PartnerCallError(
      reason,
      `${what}: ${errorSummary(err)}`,
      s,
      err.responseText,
      err.retryAfterMs,
    );
  }
}
