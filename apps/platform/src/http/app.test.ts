import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

describe('cross-cutting HTTP behaviour', () => {
  it('answers /healthz and /readyz once migrations are applied', async () => {
    expect((await call('GET', `${platform.url}/healthz`)).body).toEqual({ status: 'ok' });
    const ready = await call('GET', `${platform.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });

  it('returns the request id in a header, echoing a sane caller-supplied one', async () => {
    const minted = await fetch(`${platform.url}/healthz`);
    expect(minted.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const echoed = await fetch(`${platform.url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await fetch(`${platform.url}/healthz`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers unknown routes with the error body', async () => {
    const res = await call('GET', `${platform.url}/no/such/route`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  });
});
