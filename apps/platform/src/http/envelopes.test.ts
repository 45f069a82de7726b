/**
 * Envelopes per API: each API is served in its own scope and answers every error (validation,
 * parse, 404, 405, 500, a thrown ApiError) in its declared envelope. The hosted restaurant APIs are
 * not built yet, so a test-only Menu API operation is mounted through buildApp's `register` hook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HostedErrorBody } from '@stream/contracts/envelopes';
import { ErrorBody } from '@stream/contracts/errors';
import { defineOperation } from '@stream/contracts/operation';
import { call, type TestResponse } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { defineCapability, registerApi } from './api.ts';
import { ApiError } from './errors.ts';
import { mount } from './route.ts';

const common = {
  api: 'hr-menu',
  summary: 'Test only',
  description: 'Mounted by this test only.',
  tags: ['Test'],
  security: { kind: 'none' },
  servedBy: 'platform',
  errors: ['validation_failed', 'invalid_json', 'not_found', 'method_not_allowed', 'internal_error'],
} as const;
const Params = z.object({ id: z.string().regex(/^\d+$/, 'must be a store number') });
const Data = z.object({ data: z.object({ id: z.string() }), message: z.string() });

const getMenu = defineOperation({
  ...common,
  operationId: 'testGetMenu',
  method: 'GET',
  path: '/TestMenus/{id}',
  request: { params: Params, query: z.object({ depth: z.coerce.number().int().max(4).optional() }) },
  responses: { 200: { description: 'The menu.', schema: Data } },
});
const patchMenu = defineOperation({
  ...common,
  operationId: 'testPatchMenu',
  method: 'PATCH',
  path: '/TestMenus/{id}',
  request: { params: Params, body: z.object({ displayName: z.string().min(1) }) },
  responses: { 200: { description: 'Changed.', schema: Data } },
});
const failing = defineOperation({
  ...common,
  operationId: 'testFailingMenu',
  method: 'GET',
  path: '/TestMenus/{id}/items',
  request: { params: Params },
  responses: { 200: { description: 'Never.', schema: Data } },
});

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform(
    {},
    {
      register: (app) =>
        registerApi(app, 'hr-menu', [
          defineCapability('/TestMenus', (scope) => {
            mount(scope, getMenu, async (req) => {
              if (req.params.id === '404') throw new ApiError('not_found', 'No menu for store 404.');
              if (req.params.id === '250') {
                const details = Array.from({ length: 250 }, (_, i) => ({
                  path: `body.items.${i}`,
                  message: 'is wrong',
                }));
                throw new ApiError('validation_failed', 'Every item is wrong.', details);
              }
              return { data: { id: req.params.id }, message: 'OK' };
            });
            mount(scope, patchMenu, async (req) => ({ data: { id: req.params.id }, message: 'Changed' }));
            mount(scope, failing, async () => {
              throw new Error('a bug with a secret stack trace');
            });
          }),
        ]),
    },
  );
});
afterAll(() => platform?.stop());

function expectHosted(res: TestResponse, status: number, code: string): HostedErrorBody {
  expect(res.status, res.text).toBe(status);
  const body = HostedErrorBody.parse(res.body);
  expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'messagesDetails']);
  expect(body.data).toBeNull();
  expect(body.messagesDetails[0]).toEqual({ id: code, message: body.message, messageType: 'ERROR' });
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  return body;
}

describe('the hosted envelope {data, message, messagesDetails}', () => {
  const url = (path: string) => `${platform.url}${path}`;

  it('serves the operation itself', async () => {
    const res = await call('GET', url('/TestMenus/12'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: '12' }, message: 'OK' });
  });

  it('answers validation errors of params, query and body, one ERROR entry per field', async () => {
    const params = expectHosted(await call('GET', url('/TestMenus/abc')), 400, 'validation_failed');
    expect(params.messagesDetails.slice(1)).toEqual([
      { id: 'params.id', message: 'must be a store number', messageType: 'ERROR' },
    ]);
    const query = expectHosted(await call('GET', url('/TestMenus/12?depth=9')), 400, 'validation_failed');
    expect(query.messagesDetails[1]?.id).toBe('querystring.depth');
    const body = expectHosted(
      await call('PATCH', url('/TestMenus/12'), { body: { displayName: '' } }),
      400,
      'validation_failed',
    );
    expect(body.messagesDetails[1]?.id).toBe('body.displayName');
  });

  it('answers a body that is not JSON, or too large, or of another type', async () => {
    expectHosted(await call('PATCH', url('/TestMenus/12'), { body: '{"displayName":' }), 400, 'invalid_json');
    expectHosted(
      await call('PATCH', url('/TestMenus/12'), {
        body: JSON.stringify({ displayName: 'x'.repeat(2 << 20) }),
      }),
      413,
      'payload_too_large',
    );
    expectHosted(
      await call('PATCH', url('/TestMenus/12'), { body: 'x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });

  it('refuses text PostgreSQL cannot store, naming the field', async () => {
    const surrogate = expectHosted(
      await call('PATCH', url('/TestMenus/12'), { body: '{"displayName":"\\u00e9\\udc00"}' }),
      400,
      'validation_failed',
    );
    expect(surrogate.messagesDetails[1]?.id).toBe('body.displayName');
    expectHosted(await call('GET', url('/TestMenus/1%002')), 400, 'validation_failed');
  });

  it('lists at most 100 offending fields, then how many more: a body of thousands of faults is not answered megabytes', async () => {
    const many = expectHosted(await call('GET', url('/TestMenus/250')), 400, 'validation_failed');
    expect(many.messagesDetails).toHaveLength(1 + 100 + 1);
    expect(many.messagesDetails[100]).toEqual({
      id: 'body.items.99',
      message: 'is wrong',
      messageType: 'ERROR',
    });
    expect(many.messagesDetails[101]).toEqual({
      id: 'more_problems',
      message: '150 more problem(s) not listed; fix these and send again to see them.',
      messageType: 'ERROR',
    });
  });

  it('answers 404 for an unknown path under the API and a thrown ApiError', async () => {
    expectHosted(await call('GET', url('/TestMenus/12/nothing/here')), 404, 'not_found');
    const thrown = expectHosted(await call('GET', url('/TestMenus/404')), 404, 'not_found');
    expect(thrown.message).toBe('No menu for store 404.');
  });

  it('answers a path spelled in another case with a 404 in the API\'s envelope naming the spelling', async () => {
    const wrongPrefix = expectHosted(await call('GET', url('/testmenus/12')), 404, 'not_found');
    expect(wrongPrefix.message).toBe('There is no GET /testmenus/12 route. Paths are case-sensitive: did you mean GET /TestMenus/{id}?');
    const wrongSegment = expectHosted(await call('GET', url('/TestMenus/12/Items')), 404, 'not_found');
    expect(wrongSegment.message).toBe('There is no GET /TestMenus/12/Items route. Paths are case-sensitive: did you mean GET /TestMenus/{id}/items?');
    // No operation of that method in any case: no hint.
    expect(expectHosted(await call('GET', url('/testmenus/12/nothing')), 404, 'not_found').message).toBe('There is no GET /testmenus/12/nothing route.');
  }); // prettier-ignore

  it('answers 405 with Allow for a method the path does not take', async () => {
    const res = await call('DELETE', url('/TestMenus/12'));
    expectHosted(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, PATCH');
  });

  it('answers 500 internal_error without the stack trace', async () => {
    const res = await call('GET', url('/TestMenus/12/items'));
    const body = expectHosted(res, 500, 'internal_error');
    expect(body.message).toContain(res.headers.get('x-request-id')!);
    expect(res.text).not.toContain('secret stack trace');
  });

  it('answers a request line over the header limit (414, before any route) in the envelope of its path', async () => {
    const long = 'x'.repeat(20_000); // Node's header limit (16 KiB) counts the request line
    const hosted = await call('GET', url(`/TestMenus/${long}`));
    expect(hosted.status).toBe(414);
    expect(HostedErrorBody.parse(hosted.body).messagesDetails[0]!.id).toBe('uri_too_long');
    for (const path of [`/tokens/${long}`, `/${long}`, `/tokens?org_id=${long}`]) {
      const partner = await call('GET', url(path));
      expect(partner.status).toBe(414);
      expect(ErrorBody.parse(partner.body).error.code).toBe('uri_too_long');
    }
  });

  it('answers headers over the limit with a short request line 431', async () => {
    const res = await call('GET', url('/tokens'), { headers: { 'x-long': 'x'.repeat(20_000) } });
    expect(res.status).toBe(431);
    expect(ErrorBody.parse(res.body).error.code).toBe('headers_too_large');
  });

  it('leaves the Partner API and paths outside every API in the {error} body', async () => {
    for (const [method, path] of [
      ['PATCH', '/tokens'],
      ['GET', '/tokens/x/y'],
      ['GET', '/no/such/route'],
      ['DELETE', '/onboarding/org'],
    ] as const) {
      const res = await call(method, url(path));
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(ErrorBody.parse(res.body).error.code).toBe('not_found');
      expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    }
    for (const path of ['/tokens', '/oauth/token']) {
      const bad = await call('POST', url(path), { body: '{"a":' });
      expect(bad.status).toBe(400);
      expect(ErrorBody.parse(bad.body).error.code).toBe('invalid_json');
    }
  });
});
