import type { z } from 'zod';
import type {
  CertificationCheck,
  CertificationExchange,
  CertificationKind,
  CertificationTrigger,
} from '@stream/contracts/certification';
import { hasSecrets, redactSecrets } from '@stream/contracts/secret';
import { hmacHex } from '@stream/contracts/server/signature';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, parseJson } from '../connectors/index.ts';
import type { Inbox } from './inbox.ts';
import { asClause } from '@stream/contracts/issue-sentences';

/**
 * One check of a certification run: a step the runner plays as the platform against the partner's
 * implementation. A check passes unless it throws `CheckFailure` (with the sentence that says what
 * to fix) or `Skip` (something it needs is missing because an earlier check failed).
 */
export interface Check {
  id: string;
  title: string;
  /** A path of the documentation site, with its section. */
  guide: string;
  /** Default true. */
  required?: boolean;
  run(t: CheckRun): Promise<void>;
}

export class CheckFailure extends Error {}
export class Skip extends Error {}

/** What the partner's side needs to be reached, and what the run learns from one check for the next. */
export interface RunContext {
  kind: CertificationKind;
  baseUrl: string;
  /** The OAuth client the partner issued to the platform; without it the OAuth checks are skipped. */
  client?: { client_id: string; client_secret: string };
  /** Signs what the runner sends and verifies what the partner sends. */
  webhookSecret: string;
  timeoutMs: number;
  /** How long to wait for a webhook the partner sends. */
  webhookWaitMs: number;
  inbox: Inbox;
  /**
   * Asks the person running the kit to send a webhook by hand (their build has no trigger): the
   * sentence, and the same as data with the instant the check stops waiting.
   */
  prompt(line: string, waitingFor: CertificationTrigger & { until: string }): void;
  /** Facts learnt on the way: tokens, the location, the order. */
  state: RunState;
  /** Run the DSP's menu checks in the v2 form too. */
  menuV2?: boolean;
}

export interface RunState {
  accessToken?: string;
  refreshToken?: string;
  /** The token answer's `id`: the merchant account, sent as `X-Provider-Merchant-Id` as production does. */
  merchantId?: string;
  code?: string;
  locationId?: string;
  /** That location's prep time: menus with should_adjust_for_prep_time close it before each range ends. */
  prepTimeMinutes?: number;
  /** A catalog item an order can name: its provider id (a family's when sold as itself), family, name and price. */
  item?: { provider_id: string; family_id?: string; name: string; price: number; currency: string };
  /** Every stream_id of the menu files the DSP downloaded: what its orders must name. */
  menuIds?: string[];
  /** The POS's id of the order the runner placed; the DSP's id of the order it sent. */
  orderId?: string;
  /** Every order id the DSP's new_order webhooks named so far (each ending event gets a new one). */
  orderIds?: string[];
  /** The reference of the order the events were about (events). */
  referenceId?: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, undefined when it is not JSON. */
  json: unknown;
}

export interface CallInput {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Exact bytes to send instead of `body` serialised. */
  raw?: string;
  headers?: Record<string, string>;
  /** `Authorization: Bearer` with this token. */
  token?: string;
  /** Sign the bytes with `X-Stream-Signature` (the webhook secret, or this one). */
  sign?: true | string;
  /** Schemas whose secret fields (`secret()` in the contracts) the report shows as `[redacted]`. */
  redact?: { request?: z.ZodType | undefined; response?: z.ZodType | undefined };
}

/** What the platform allows a partner in production: the kit holds partners to the same. */
export const CALL_TIMEOUT_MS = DEFAULT_TIMEOUT_MS;

const BODY_LIMIT = 4096;

/**
 * A body for the report: parsed JSON as sent (its secret fields redacted: reports go to CI logs and
 * the Partner API) up to 16 KiB, else its text cut to 4 KiB. Bodies sent and received alike.
 */
export function reportable(text: string, json: unknown, schema?: z.ZodType): unknown {
  if (json !== undefined && schema && hasSecrets(schema)) return redactSecrets(schema, json);
  if (json !== undefined && text.length <= BODY_LIMIT * 4) return json;
  return text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}… (${text.length} bytes)` : text;
}

/** The answer's text, or undefined past `max` bytes (the rest is not read). */
async function boundedText(res: Response, max: number): Promise<string | undefined> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Why fetch failed, in words: `timeout after 5000 ms`, `ECONNREFUSED`. */
export function networkError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const reason = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  // fetch refuses the ports browsers block (1, 9, 25, 6000, ...) before connecting.
  return reason === 'bad port' ? 'fetch refuses this port, as browsers do: serve on another one' : reason;
}

/** The running check: its calls to the partner, recorded for the report, and its verdicts. */
export class CheckRun {
  readonly exchanges: CertificationExchange[] = [];
  readonly notes: string[] = [];

  constructor(readonly ctx: RunContext) {}

  get state(): RunState {
    return this.ctx.state;
  }

  /** The fact `key` of the run, or a skip naming the check that should have learnt it. */
  need<K extends keyof RunState>(key: K, from: string): NonNullable<RunState[K]> {
    const value = this.ctx.state[key];
    if (value === undefined || value === null) throw new Skip(`needs ${from}, which did not pass`);
    return value as NonNullable<RunState[K]>;
  }

  fail(fix: string): never {
    throw new CheckFailure(fix);
  }

  note(line: string): void {
    this.notes.push(line);
  }

  url(path: string, query?: Record<string, string>): string {
    const base = this.ctx.baseUrl.replace(/\/+$/, '');
    return `${base}${path}${query ? `?${new URLSearchParams(query)}` : ''}`;
  }

  /** One call to the partner. No answer (refused, timed out) fails the check, saying so. */
  async call(input: CallInput): Promise<Answer> {
    const url = this.url(input.path, input.query);
    const raw = input.raw ?? (input.body === undefined ? undefined : JSON.stringify(input.body));
    const headers: Record<string, string> = { accept: 'application/json', ...input.headers };
    if (raw !== undefined) headers['content-type'] ??= 'application/json';
    if (input.token) headers.authorization = `Bearer ${input.token}`;
    if (input.sign && raw !== undefined) {
      headers['x-stream-signature'] = hmacHex(input.sign === true ? this.ctx.webhookSecret : input.sign, raw);
    }
    const started = performance.now();
    const record = (status: number | null, extra: Partial<CertificationExchange>) =>
      this.exchanges.push({
        direction: 'sent',
        method: input.method,
        url,
        ...(raw !== undefined
          ? { request_body: reportable(raw, parseJson(raw), input.redact?.request) }
          : {}),
        status,
        duration_ms: Math.round(performance.now() - started),
        ...extra,
      });
    let res: Response;
    try {
      res = await fetch(url, {
        method: input.method,
        headers,
        ...(raw !== undefined ? { body: raw } : {}),
        // As production: a redirect is an answer, not followed (see expect2xx).
        redirect: 'manual',
        signal: AbortSignal.timeout(this.ctx.timeoutMs),
      });
    } catch (err) {
      const error = networkError(err, this.ctx.timeoutMs);
      record(null, { error });
      this.fail(`${input.method} ${url} got no answer (${error}). Answer within ${this.ctx.timeoutMs} ms.`);
    }
    let text: string | undefined;
    try {
      text = await boundedText(res, DEFAULT_MAX_RESPONSE_BYTES);
    } catch (err) {
      const error = networkError(err, this.ctx.timeoutMs);
      record(res.status, { error });
      this.fail(`${input.method} ${url} did not finish its answer (${error}).`);
    }
    if (text === undefined) {
      const error = `answer larger than ${DEFAULT_MAX_RESPONSE_BYTES} bytes`;
      record(res.status, { error });
      this.fail(`${input.method} ${url}: ${error}, which the platform does not read. Answer less.`);
    }
    const json = parseJson(text);
    record(res.status, text ? { response_body: reportable(text, json, input.redact?.response) } : {});
    return { status: res.status, headers: res.headers, text, json };
  }

  /** Fails unless the answer is 2xx, quoting what came instead. */
  expect2xx(answer: Answer, what: string): void {
    if (answer.status >= 200 && answer.status < 300) return;
    const location = answer.status >= 300 && answer.status < 400 ? answer.headers.get('location') : null;
    if (location !== null)
      this.fail(
        `${what} must answer 2xx; it answered ${answer.status}, a redirect to ${location}, which the platform does not follow: register the base URL that answers.`,
      );
    this.fail(`${what} must answer 2xx; it answered ${answer.status}${excerpt(answer.text)}.`);
  }

  /** The value parsed by `schema`, or a failure naming every field at fault. */
  expectShape<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.fail(`${what} does not match the contract: ${describeIssues(parsed.error.issues)}.`);
  }
}

/** ` "the first 200 characters"` of an answer, or nothing. */
export const excerpt = (text: string) => (text ? ` ${JSON.stringify(text.slice(0, 200))}` : '');

/** `locations[0].provider_id: Invalid input; currency: must be lower case`, at most five. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => {
    const path = i.path
      .map((p, n) => (typeof p === 'number' ? `[${p}]` : `${n ? '.' : ''}${String(p)}`))
      .join('');
    // The sentence ends once, after the last: `must be a string, not null.` is not followed by `.;`.
    return `${path || '(body)'}: ${asClause(i.message)}`;
  });
  return shown.join('; ') + (issues.length > 5 ? ` (and ${issues.length - 5} more)` : '');
}

export type CheckResult = CertificationCheck;
