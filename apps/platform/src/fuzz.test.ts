/**
 * No input, however malformed, makes an endpoint answer a 5xx, hang, or show its insides. Every
 * operation the platform mounts (`app.mountedRoutes`, held to the contracts by `routes.test.ts`) gets,
 * over real HTTP and with credentials that pass (a bearer token with every scope, the demo company
 * granted, webhooks signed over the mutated bytes): mutations of its own request examples from the
 * contract, malformed path parameters, query values and headers, and random JSON. Four calls in five
 * name real things (`test/fuzz-world.ts`: an onboarded org, a bound location, an order...), so that
 * they reach the handler's logic, not only its 404; the fifth names the examples' ids of nothing. Every answer must
 * come within `ANSWER_MS`, be under 500 (a 503 only when the operation declares it), and an error
 * must be its API's envelope with a code of `ERROR_CODES` at that code's status and no stack trace.
 *
 * Deterministic: fast-check runs from `FUZZ_SEED` (default below), one seed per operation derived
 * from it and the operationId, so adding an operation changes no other's inputs. A failure prints
 * the command that replays it (`FUZZ_SEED=… FUZZ_RUNS=… npx vitest run … -t <operationId>`) and the
 * input; `FUZZ_SHRINK=1` shrinks it to the smallest, `FUZZ_LOG=1` prints every call, and a larger
 * `FUZZ_RUNS` searches further than the suite's budget (300 runs: ~45 s).
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_OPERATIONS } from '@stream/contracts/apis/index';
import { DEMO_COMPANY_ID, DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { ENVELOPE_SCHEMAS } from '@stream/contracts/envelopes';
import { ERROR_CODES } from '@stream/contracts/errors';
import { envelopeOf, fastifyPath, type Operation } from '@stream/contracts/operation';
import { z } from 'zod';
import { bodyMutation, hostileHeaderValue, hostileUrlText } from '../test/fuzz.ts';
import { startFuzzWorld, type FuzzWorld } from '../test/fuzz-world.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_601);
/** Inputs per operation: ~70 operations, each input one HTTP call; the file must stay well under 60 s. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
/** An answer slower than this is a hang. */
const ANSWER_MS = 5_000;

/** Where a body, stack frame or error text would show the platform's insides. */
const LEAKS = [
  /(?:\n|\\n)\s*at \S/, // a stack frame, as sent or JSON-escaped (linear: answers may be long)
  /node_modules|apps\/platform\/src|packages\/contracts\/src/,
  /Cannot read propert|is not a function|is not iterable|Maximum call stack|RangeError|TypeError/,
  /invalid input syntax|violates .* constraint|duplicate key value|relation "|column "|syntax error at/,
];

interface Case {
  what: string;
  /** Path and query, encoded as sent. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Sign the body (a webhook) unless a mutation of the signature header is what is tested. */
  sign: boolean;
}

let world: FuzzWorld;
beforeAll(async () => {
  world = await startFuzzWorld();
});
afterAll(() => world?.stop());

/**
 * `FUZZ_REACH=1`: what each operation answered (status and code, counted), and which never got past
 * authentication or a lookup (only 400/401/404/405/413/415/417/431 answers, no success): the calls the fuzz
 * test does not take into a handler's logic.
 */
const REACH = process.env.FUZZ_REACH === '1' ? new Map<string, Map<string, number>>() : undefined;
const GATES = new Set([400, 401, 404, 405, 413, 415, 417, 431]);
function recordReach(op: Operation, a: Answer) {
  if (!REACH) return;
  let code = '';
  if (a.status >= 400 && a.contentType.startsWith('application/json')) {
    try {
      const b = JSON.parse(a.text) as { error?: { code?: string }; messagesDetails?: { id?: string }[] };
      code = b.error?.code ?? b.messagesDetails?.[0]?.id ?? '';
    } catch {
      code = '(not JSON)'; // checkAnswer says what is wrong with it
    }
  }
  const seen = REACH.get(op.operationId) ?? new Map<string, number>();
  const key = `${a.status}${code ? ` ${code}` : ''}`;
  seen.set(key, (seen.get(key) ?? 0) + 1);
  REACH.set(op.operationId, seen);
}
afterAll(() => {
  if (!REACH) return;
  const gated = (seen: Map<string, number>) =>
    [...seen.keys()].every((k) => GATES.has(Number(k.split(' ')[0])));
  const lines = [...REACH].map(([id, seen]) => {
    const counts = [...seen]
      .sort()
      .map(([k, n]) => `${k} ×${n}`)
      .join(', ');
    return `${gated(seen) ? 'GATED  ' : 'reached'} ${id}: ${counts}`;
  });
  console.log(`fuzz reach (FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}):\n${lines.sort().join('\n')}`);
});

const keysOf = (schema: z.ZodType | undefined): string[] =>
  schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
const firstSegment = (path: string) => path.split('/')[1] ?? '';

/** Parameter values from the examples of operations without a body, by first segment and name. */
const EXAMPLE_PARAMS = new Map<string, unknown>();
for (const op of ALL_OPERATIONS) {
  if (op.request?.body || !op.request?.example) continue;
  for (const [name, value] of Object.entries(op.request.example as Record<string, unknown>)) {
    EXAMPLE_PARAMS.set(`${firstSegment(op.path)}:${name}`, value);
  }
}

/** The bearer token an operation is called with (a certification run is a POS's, not the white-label's). */
const tokenOf = (op: Operation) => world.tokens[firstSegment(op.path)] ?? world.token;

/** The world's value for a parameter or body field of `op`, if it has one. */
const realValue = (op: Operation, name: string): string | undefined =>
  world.known.get(`${op.operationId}:${name}`) ?? world.known.get(`${firstSegment(op.path)}:${name}`);

/** `value` with every string field the world has a real value for replaced by it. */
function withRealIds(op: Operation, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => withRealIds(op, v));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      typeof v === 'string' ? (realValue(op, k) ?? v) : withRealIds(op, v),
    ]),
  );
}

/**
 * The valid request an operation's mutations start from: its example, with the world's ids in the
 * path, query and body when `real` (calls that reach the handler's logic), else the example's own
 * (ids of nothing: the not-found paths).
 */
function baseRequest(op: Operation, real: boolean) {
  const req = op.request ?? {};
  const example = (req.body ? {} : (req.example ?? {})) as Record<string, unknown>;
  const value = (name: string): string | undefined => {
    const v = (real ? realValue(op, name) : undefined) ?? example[name];
    const shared = EXAMPLE_PARAMS.get(`${firstSegment(op.path)}:${name}`);
    return v === undefined ? (shared === undefined ? undefined : String(shared)) : String(v);
  };
  const params = Object.fromEntries(keysOf(req.params).map((n) => [n, value(n) ?? 'x1']));
  const query = keysOf(req.query).flatMap((n) => {
    const v = value(n);
    return v === undefined ? [] : [[n, v] as [string, string]];
  });
  const headers: Record<string, string> = {};
  if (op.security.kind === 'bearer') headers.authorization = `Bearer ${tokenOf(op)}`;
  for (const name of keysOf(req.headers)) {
    if (name === 'x-store') headers[name] = String(DEMO_STORE_ID);
    else if (name === 'x-company') headers[name] = String(DEMO_COMPANY_ID);
    else if (name === 'idempotency-key')
      continue; // optional; a mutation sends odd ones
    else if (example[name] !== undefined) headers[name] = String(example[name]);
    else if (name === 'x-service-type') headers[name] = 'DoorDash';
  }
  if (req.body) {
    headers['content-type'] = req.bodyContentTypes?.find((t) => t.includes('json')) ?? 'application/json';
  }
  // Each named example too (a webhook's other event types), each a start for mutations.
  const bodies = (
    req.body ? [req.example, ...Object.values(req.examples ?? {}).map((e) => e.value)] : []
  ).map((b) => (real ? withRealIds(op, b) : b));
  return { params, query, headers, body: bodies[0], bodies };
}

function urlOf(op: Operation, params: Record<string, string>, query: [string, string][], raw = '') {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, n: string) =>
    n === raw ? params[n]! : encodeURIComponent(params[n]!),
  );
  const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
  return qs ? `${path}?${qs}` : path;
}

const encodedQuery = (query: [string, string][]): [string, string][] =>
  query.map(([k, v]) => [k, encodeURIComponent(v)]);

/** Mostly calls about the world's things, sometimes about things that do not exist. */
const cases = (op: Operation): fc.Arbitrary<Case> =>
  fc.oneof({ weight: 4, arbitrary: casesFrom(op, true) }, { weight: 1, arbitrary: casesFrom(op, false) });

/** Every kind of malformed input one operation can be sent. */
function casesFrom(op: Operation, real: boolean): fc.Arbitrary<Case> {
  const base = baseRequest(op, real);
  const query = encodedQuery(base.query);
  const plain = (what: string, extra: Partial<Case> = {}): Case => ({
    what,
    url: urlOf(op, base.params, query),
    headers: base.headers,
    sign: true,
    ...extra,
  });
  const sendsBody = op.method !== 'GET';
  const options: { arbitrary: fc.Arbitrary<Case>; weight: number }[] = [];

  if (op.request?.body) {
    options.push({
      weight: 8,
      arbitrary: fc
        .oneof(...base.bodies.map(bodyMutation))
        .map((m) => plain(`body: ${m.what}`, { body: m.text })),
    });
  } else if (sendsBody) {
    options.push({
      weight: 1,
      arbitrary: bodyMutation({}).map((m) =>
        plain(`unexpected body: ${m.what}`, {
          body: m.text,
          headers: { ...base.headers, 'content-type': 'application/json' },
        }),
      ),
    });
  }
  const body = op.request?.body ? JSON.stringify(base.body) : undefined;

  const paramNames = Object.keys(base.params);
  if (paramNames.length > 0) {
    options.push({
      weight: 3,
      arbitrary: fc.tuple(fc.constantFrom(...paramNames), hostileUrlText).map(([name, text]) => ({
        what: `path parameter ${name} = ${text.slice(0, 80)}`,
        url: urlOf(op, { ...base.params, [name]: text }, query, name),
        headers: base.headers,
        body,
        sign: true,
      })),
    });
  }

  const queryNames = keysOf(op.request?.query);
  if (queryNames.length > 0) {
    const mutate = fc.oneof(
      fc.tuple(fc.constantFrom(...queryNames), hostileUrlText).map(([name, text]) => ({
        what: `query ${name} = ${text.slice(0, 80)}`,
        query: [...query.filter(([k]) => k !== name), [name, text] as [string, string]],
      })),
      fc.tuple(fc.constantFrom(...queryNames), hostileUrlText).map(([name, text]) => ({
        what: `query ${name} given twice`,
        query: [...query, [name, text] as [string, string], [name, text] as [string, string]],
      })),
      fc.constantFrom(...queryNames).map((name) => ({
        what: `query ${name} removed`,
        query: query.filter(([k]) => k !== name),
      })),
      fc.tuple(fc.constantFrom(...queryNames), hostileUrlText).map(([name, text]) => ({
        what: `query ${name}[x] = ${text.slice(0, 80)}`,
        query: [...query, [`${name}[x]`, text] as [string, string]],
      })),
    );
    options.push({
      weight: 3,
      arbitrary: mutate.map((m) => ({
        what: m.what,
        url: urlOf(op, base.params, m.query),
        headers: base.headers,
        body,
        sign: true,
      })),
    });
  }

  options.push({
    weight: 3,
    arbitrary: headerCases(op, base.headers).map((h) => plain(h.what, { ...h, body })),
  });
  return fc.oneof(...options);
}

/** Signed webhooks: a partner's, and a certification run's inbox. */
const signed = (op: Operation) => op.security.kind === 'webhook-signature';

/** Missing, wrong or hostile headers: content type and encoding, credentials, the operation's own. */
function headerCases(
  op: Operation,
  headers: Record<string, string>,
): fc.Arbitrary<{ what: string; headers: Record<string, string>; sign: boolean }> {
  const set = (name: string, value: string | undefined, sign = true) => {
    const next = { ...headers };
    if (value === undefined) delete next[name];
    else next[name] = value;
    return {
      what: `header ${name}: ${value === undefined ? '(none)' : value.slice(0, 80)}`,
      headers: next,
      sign,
    };
  };
  const named = [...keysOf(op.request?.headers), 'x-request-id', 'accept', 'x-forwarded-for'];
  const options = [fc.tuple(fc.constantFrom(...named), hostileHeaderValue).map(([n, v]) => set(n, v))];
  if (op.method !== 'GET') {
    options.push(
      fc
        .constantFrom(
          undefined,
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/json; charset=utf-16',
          'application/json; charset=latin1',
          'application/jsonx',
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/xml',
          '*/*',
        )
        .map((v) => set('content-type', v)),
      fc
        .constantFrom('gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'x')
        .map((v) => set('content-encoding', v)),
    );
  }
  if (op.security.kind === 'bearer') {
    options.push(
      fc
        .constantFrom(
          undefined,
          'Bearer',
          'Bearer x',
          'Basic Zm9vOmJhcg==',
          `Bearer ${tokenOf(op)}x`,
          `bearer ${tokenOf(op)}`,
          tokenOf(op),
          'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
          `Bearer ${tokenOf(op).split('.').slice(0, 2).join('.')}.`,
        )
        .map((v) => set('authorization', v)),
    );
  }
  if (signed(op)) {
    options.push(
      fc
        .constantFrom(undefined, '', 'zz', 'a'.repeat(64), 'sha256=' + 'a'.repeat(64), 'A'.repeat(65))
        .map((v) => set('stream-webhook-signature', v, false)),
    );
  }
  return fc.oneof(...options);
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
  requestId: string | null;
  finalPath: string;
}

async function send(op: Operation, c: Case): Promise<Answer> {
  const headers = { ...c.headers };
  const bytes = c.body === undefined ? undefined : new Uint8Array(Buffer.from(c.body));
  // Signed by the partner (or certification run) the path names: `/pos/{slug}/webhook`, `/order/{partner_id}`.
  const secret = c.url
    .split(/[/?]/)
    .map((segment) => world.secrets.get(segment))
    .find(Boolean);
  if (signed(op) && secret && c.sign) {
    headers['stream-webhook-signature'] = createHmac('sha256', secret)
      .update(bytes ?? '')
      .digest('hex');
  }
  const url = `${world.platform.url}${c.url}`;
  if (process.env.FUZZ_LOG === '1')
    console.error(`${op.method} ${c.url.slice(0, 200)} | ${c.what.slice(0, 200)}`);
  let res: Response;
  try {
    res = await fetch(url, {
      method: op.method,
      headers,
      body: bytes,
      redirect: 'manual',
      signal: AbortSignal.timeout(ANSWER_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `no answer within ${ANSWER_MS} ms, or the connection broke: ${String(err)} (${cause?.code}: ${cause?.message})`,
    );
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    text: await res.text(),
    requestId: res.headers.get('x-request-id'),
    finalPath: new URL(url).pathname,
  };
}

/** What every answer must be, whatever was sent. */
function checkAnswer(op: Operation, c: Case, a: Answer) {
  const where = `${c.what}\n${op.method} ${c.url.slice(0, 300)}\n-> ${a.status} ${a.text.slice(0, 400)}`;
  for (const leak of LEAKS) expect(a.text, `leaks ${leak}: ${where}`).not.toMatch(leak);
  if (a.status < 400) return;
  // A path parameter such as `%2E%2E` may take the call to another API's route: its own envelope.
  const ownRoute = firstSegment(a.finalPath) === firstSegment(op.path);
  expect(a.contentType, `an error is JSON: ${where}`).toMatch(/^application\/json/);
  const body: unknown = JSON.parse(a.text);
  // A status the operation documents with its own body (POST /Orders' 422: the order, rejected).
  const documented = ownRoute ? op.responses[a.status]?.schema : undefined;
  if (documented) {
    expect(documented.safeParse(body).success, `the documented ${a.status}: ${where}`).toBe(true);
    return;
  }
  const envelope = envelopeOf(op);
  const parsed = ENVELOPE_SCHEMAS[envelope].safeParse(body);
  if (ownRoute) expect(parsed.success, `the ${envelope} envelope: ${where}`).toBe(true);
  const b = body as { error?: { code: string; request_id?: string }; messagesDetails?: { id: string }[] };
  const code = b.error?.code ?? b.messagesDetails?.[0]?.id ?? '';
  expect(Object.keys(ERROR_CODES), `a code of ERROR_CODES: ${where}`).toContain(code);
  const declared = ERROR_CODES[code as keyof typeof ERROR_CODES];
  expect(a.status, `the status of ${code}: ${where}`).toBe(declared.status);
  if (b.error?.request_id) expect(b.error.request_id, where).toBe(a.requestId);
  if (a.status >= 500) {
    // Only a dependency the operation declares (the geocoder) may be down, and only as 503.
    expect(a.status === 503 && (op.errors as readonly string[]).includes(code), `a 5xx: ${where}`).toBe(true);
  }
}

/** A seed per operation, so that adding an operation changes no other's inputs. */
function seedOf(op: Operation): number {
  let h = SEED | 0;
  for (const ch of op.operationId) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

const SERVED = ALL_OPERATIONS.filter((op) => op.servedBy === 'platform');

describe('the platform answers any malformed input with a 4xx in its envelope, in time', () => {
  it('fuzzes every mounted operation (and nothing is mounted the contracts do not hold)', () => {
    const mounted = new Set(world.platform.app.mountedRoutes.map((r) => `${r.method} ${r.url}`));
    for (const op of SERVED)
      expect(mounted, op.operationId).toContain(`${op.method} ${fastifyPath(op.path)}`);
  });

  it.each(SERVED.map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    try {
      await fc.assert(
        fc.asyncProperty(cases(op), async (c) => {
          const a = await send(op, c);
          recordReach(op, a);
          checkAnswer(op, c, a);
        }),
        // Shrinking costs HTTP calls (and a hang costs ANSWER_MS each): only when asked for.
        { seed: seedOf(op), numRuns: RUNS, endOnFailure: process.env.FUZZ_SHRINK !== '1' },
      );
    } catch (err) {
      (err as Error).message =
        `Replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npx vitest run apps/platform/src/fuzz.test.ts ` +
        `-t ${op.operationId} (FUZZ_SHRINK=1 for the smallest input)\n${(err as Error).message}`;
      throw err;
    }
  });
});
