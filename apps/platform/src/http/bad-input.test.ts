/**
 * Bad input on every route of the Partner API's auth, token and org operations: malformed JSON,
 * wrong types, missing fields, huge bodies. Every answer is a 4xx with the one error body.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '@stream/contracts/errors';
import { call, type CallOptions, type TestResponse } from '../../test/http.ts';
import type { TestPlatform } from '../../test/platform.ts';
import { startWithPartner, type TestPartner } from '../auth/testing.ts';

let platform: TestPlatform;
let partner: TestPartner;
let orgId: string;
let tokenId: string;
beforeAll(async () => {
  ({ platform, partner } = await startWithPartner());
  orgId = await partner.org();
  const created = await call('POST', `${platform.url}/tokens`, {
    token: partner.token,
    body: { org_id: orgId, token_name: 'target', scopes: ['user'] },
  });
  tokenId = created.body.token._id;
});
afterAll(() => platform?.stop());

function expectErrorBody(res: TestResponse, status: number | 'any4xx', code?: string) {
  if (status === 'any4xx') {
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  } else {
    expect(res.status).toBe(status);
  }
  expect(ErrorBody.safeParse(res.body).success, res.text).toBe(true);
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  if (code) expect(res.body.error.code).toBe(code);
}

interface BodyRoute {
  method: string;
  path: () => string;
  auth: boolean;
  /** Every field present, each of the wrong type. */
  wrongTypes: Record<string, unknown>;
  /** Right types, but a NUL character (PostgreSQL text cannot hold it) in the named field. */
  nul: [string, Record<string, unknown>];
  /** Right types, but a lone UTF-16 surrogate (not well-formed: no UTF-8 for it) in the named field. */
  surrogate: [string, Record<string, unknown>];
}

/** `"\u00e9\udc00"` once JSON-encoded: an é, then a low surrogate with no high one before it. */
const LONE = '\u00e9\udc00';

const bodyRoutes: BodyRoute[] = [
  {
    method: 'POST',
    path: () => '/oauth/token',
    auth: false,
    wrongTypes: { grant_type: 1, client_id: {}, client_secret: [], exp: true, scopes: 5, refresh_token: 9 },
    nul: ['client_id', { grant_type: 'client_credentials', client_id: 'cli_\u0000', client_secret: 'sk_x' }],
    surrogate: ['client_id', { grant_type: 'client_credentials', client_id: LONE, client_secret: 'sk_x' }],
  },
  {
    method: 'POST',
    path: () => '/tokens',
    auth: true,
    wrongTypes: { org_id: 12, token_name: ['x'], scopes: 'user' },
    nul: ['token_name', { org_id: 'org_x', token_name: 'a\u0000b', scopes: ['user'] }],
    surrogate: ['token_name', { org_id: 'org_x', token_name: LONE, scopes: ['user'] }],
  },
  {
    method: 'PUT',
    path: () => `/tokens/${tokenId}`,
    auth: true,
    wrongTypes: { token_name: 42 },
    nul: ['token_name', { token_name: '\u0000' }],
    surrogate: ['token_name', { token_name: '\ud800' }],
  },
  {
    method: 'POST',
    path: () => '/onboarding/org',
    auth: true,
    wrongTypes: { name: 1, provider_id: false, user: 'owner@example.com' },
    nul: [
      'provider_id',
      {
        name: 'n',
        provider_id: 'p\u0000',
        user: { email: 'a@example.com', first_name: 'a', last_name: 'b' },
      },
    ],
    surrogate: [
      'user.first_name',
      {
        name: 'n',
        provider_id: 'p',
        user: { email: 'a@example.com', first_name: LONE, last_name: 'b' },
      },
    ],
  },
];

const HUGE = JSON.stringify({ token_name: 'x'.repeat(1024 * 1024 + 10) });

describe.each(bodyRoutes)('$method $path', (route) => {
  const send = (opts: CallOptions) =>
    call(route.method, `${platform.url}${route.path()}`, {
      ...(route.auth ? { token: partner.token } : {}),
      ...opts,
    });

  it('answers invalid_json to malformed JSON and to bytes that are not UTF-8 JSON', async () => {
    for (const body of ['{"token_name":', '{bad json}', "{'a': 1}", Buffer.from([0xff, 0xfe, 0x7b])]) {
      expectErrorBody(await send({ body }), 400, 'invalid_json');
    }
  });

  it('answers validation_failed to wrong types, naming every field', async () => {
    const res = await send({ body: route.wrongTypes });
    expectErrorBody(res, 400, 'validation_failed');
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    for (const field of Object.keys(route.wrongTypes)) expect(paths).toContain(`body.${field}`);
    for (const body of ['[1,2]', '"text"', '42', 'null', 'true']) {
      expectErrorBody(await send({ body }), 400, 'validation_failed');
    }
  });

  it('says what to send for each field, in a sentence', async () => {
    const res = await send({ body: route.wrongTypes });
    for (const d of res.body.error.details) expect(d.message, d.path).toMatch(/^(is required but missing; send|must|has) /);
  }); // prettier-ignore

  it('answers validation_failed to a NUL character in text, before it reaches the database', async () => {
    const [field, body] = route.nul;
    const res = await send({ body });
    expectErrorBody(res, 400, 'validation_failed');
    expect(res.body.error.details[0].path).toBe(`body.${field}`);
  });

  it('answers validation_failed to a lone UTF-16 surrogate in text, naming the field', async () => {
    const [field, body] = route.surrogate;
    const json = JSON.stringify(body);
    expect(json).toMatch(/\\ud[89a-f][0-9a-f]{2}/); // the escape is on the wire, as a partner would send it
    const res = await send({ body: json });
    expectErrorBody(res, 400, 'validation_failed');
    expect(res.body.error.details).toEqual([
      { path: `body.${field}`, message: 'must be well-formed Unicode (a lone UTF-16 surrogate is not)' },
    ]);
  });

  it('answers validation_failed to missing fields and to no body at all', async () => {
    expectErrorBody(await send({ body: {} }), 400, 'validation_failed');
    expectErrorBody(
      await send({ body: '', headers: { 'content-type': 'application/json' } }),
      400,
      'validation_failed',
    );
    expectErrorBody(await send({}), 400, 'validation_failed');
  });

  it('answers payload_too_large to a body over 1 MiB, and 4xx to deeply nested JSON', async () => {
    expectErrorBody(await send({ body: HUGE }), 413, 'payload_too_large');
    expectErrorBody(await send({ body: '['.repeat(100_000) + ']'.repeat(100_000) }), 'any4xx');
  });

  it('answers unsupported_media_type to a body that is neither JSON nor a form, or compressed', async () => {
    expectErrorBody(
      await send({ body: 'grant_type=x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    for (const encoding of ['gzip', 'zzz']) {
      expectErrorBody(
        await send({ body: gzipSync('{}'), headers: { 'content-type': 'application/json', 'content-encoding': encoding } }),
        415,
        'unsupported_media_type',
      );
    }
  }); // prettier-ignore

  it('shows the control bytes of a body that is not JSON escaped in its message', async () => {
    const res = await send({ body: gzipSync('{"a":1}') });
    expectErrorBody(res, 400, 'invalid_json');
    // eslint-disable-next-line no-control-regex -- no raw control bytes may reach the message
    expect(res.body.error.message).not.toMatch(/[\u0000-\u001f]/);
    expect(res.body.error.message).toContain('\\u001f');
  });
});

describe('routes without a body', () => {
  const get = (query: string) => call('GET', `${platform.url}/tokens${query}`, { token: partner.token });
  const del = (id: string, opts: CallOptions = {}) =>
    call('DELETE', `${platform.url}/tokens/${id}`, { token: partner.token, ...opts });

  it('words each rule as what to send: an empty name, a bad e-mail, an unknown scope', async () => {
    const org = await call('POST', `${platform.url}/onboarding/org`, { token: partner.token, body: { name: '', provider_id: 'p', user: { email: 'nobody', first_name: 'a', last_name: 'b' } } });
    expect(org.body.error.details).toEqual(expect.arrayContaining([
      { path: 'body.name', message: 'must not be empty.' },
      { path: 'body.user.email', message: expect.stringMatching(/^must be an e-mail address/) },
    ]));
    const token = await call('POST', `${platform.url}/tokens`, { token: partner.token, body: { org_id: orgId, token_name: 't', scopes: ['admin'] } });
    expect(token.body.error.details).toEqual([{ path: 'body.scopes[0]', message: expect.stringMatching(/^must be one of "user", "onboarding"/) }]);
  }); // prettier-ignore

  it('GET /tokens validates its query', async () => {
    expectErrorBody(await get(''), 400, 'validation_failed');
    expectErrorBody(await get('?org_id='), 400, 'validation_failed');
    expectErrorBody(await get(`?org_id=${'x'.repeat(65)}`), 400, 'validation_failed');
    expectErrorBody(await get(`?org_id=${orgId}&org_id=${orgId}`), 400, 'validation_failed');
    expectErrorBody(await get('?org_id=%E0%A4%A'), 'any4xx');
    expectErrorBody(await get('?org_id=org%00'), 400, 'validation_failed');
    // A surrogate encoded in UTF-8 style is no UTF-8: it stays undecoded text, never a 500.
    expectErrorBody(await get('?org_id=%C3%A9%ED%B0%80'), 400, 'validation_failed');
  });

  it('answers 4xx, never 5xx, to a lone surrogate in a form body or a path parameter', async () => {
    // A form body is decoded as UTF-8: the bytes of a lone surrogate become U+FFFD, well formed.
    const form = await call('POST', `${platform.url}/oauth/token`, {
      body: 'grant_type=client_credentials&client_id=%C3%A9%ED%B0%80&client_secret=sk_x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectErrorBody(form, 401, 'invalid_client');
    expectErrorBody(await del('%ED%B0%80'), 400, 'invalid_request');
    expectErrorBody(await del('%uDC00'), 400, 'invalid_request');
  });

  it('DELETE /tokens/{token_id} answers 4xx to odd ids and ignores or rejects bodies', async () => {
    expectErrorBody(await del('x'.repeat(65)), 400, 'validation_failed');
    expectErrorBody(await del('%00'), 400, 'validation_failed');
    expectErrorBody(await del('cli_unknown'), 404, 'not_found');
    expectErrorBody(await del(tokenId, { body: '{oops' }), 400, 'invalid_json');
    expectErrorBody(await del(tokenId, { body: HUGE }), 413, 'payload_too_large');
  });

  // Fastify's router rejects these before any route runs; `frameworkErrors` keeps the error body.
  it('answers 400 invalid_request (its documented status) to an over-long or undecodable path', async () => {
    for (const path of [`/tokens/${'x'.repeat(300)}`, '/tokens/%E0%A4%A']) {
      const res = await call('DELETE', `${platform.url}${path}`, { token: partner.token });
      expectErrorBody(res, 400, 'invalid_request');
    }
    // The router's own answer to an over-long parameter was 414 with a 400 code; now it says why.
    const long = await call('DELETE', `${platform.url}/tokens/${'x'.repeat(201)}`, { token: partner.token });
    expect(long.body.error.message).toBe(
      'A path parameter is longer than 200 characters; no id is that long.',
    );
    // A GET route (the router finds no route rather than refusing the parameter) answers the same,
    // in its API's envelope: not a 404, and not a 405 naming the method sent as the one to use.
    const get = await call('GET', `${platform.url}/orders/${'x'.repeat(201)}`, { token: partner.token });
    expect([get.status, get.body.error?.code, get.body.error?.message]).toEqual([400, 'invalid_request', long.body.error.message]);
    const hosted = await call('GET', `${platform.url}/Menus/${'a'.repeat(201)}`, { token: partner.token, headers: { 'x-store': '1001' } });
    expect([hosted.status, hosted.body.messagesDetails?.[0]]).toEqual([400, { id: 'invalid_request', message: long.body.error.message, messageType: 'ERROR' }]);
  }); // prettier-ignore

  it('PUT with a token id of the wrong shape is 400 or 404, never 5xx', async () => {
    const res = await call('PUT', `${platform.url}/tokens/${'y'.repeat(65)}`, {
      token: partner.token,
      body: { token_name: 'x' },
    });
    expectErrorBody(res, 400, 'validation_failed');
  });

  it('GET /.well-known/jwks.json ignores a query string', async () => {
    const res = await call('GET', `${platform.url}/.well-known/jwks.json?x=%ZZ`);
    expect(res.status).toBe(200);
    expect(res.body.keys.length).toBeGreaterThan(0);
  });
});

describe('body charsets', () => {
  it('answers unsupported_media_type to a body in a charset other than UTF-8, instead of storing it garbled', async () => {
    const org = (providerId: string) => ({
      name: 'Café Olé',
      provider_id: providerId,
      user: { email: `${providerId}@example.com`, first_name: 'Zoë', last_name: 'Ng' },
    });
    const post = (bytes: Buffer, contentType: string) =>
      call('POST', `${platform.url}/onboarding/org`, {
        token: partner.token,
        body: bytes,
        headers: { 'content-type': contentType },
      });
    // Latin-1 bytes of the body: decoded as UTF-8 they were 'Caf\ufffd Ol\ufffd', and kept so.
    const latin1 = Buffer.from(JSON.stringify(org('charset-latin1')), 'latin1');
    for (const type of ['application/json; charset=iso-8859-1', 'application/json;charset="utf-16"']) {
      const res = await post(latin1, type);
      expectErrorBody(res, 415, 'unsupported_media_type');
      expect(res.body.error.message).toMatch(/^The body must be UTF-8; charset=/);
    }
    for (const [i, type] of [
      'application/json; charset=utf-8',
      'application/json; charset="UTF8"',
    ].entries()) {
      const res = await post(Buffer.from(JSON.stringify(org(`charset-utf8-${i}`))), type);
      expect(res.status, res.text).toBe(201);
    }
  });
});
