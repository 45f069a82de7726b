/** Test helpers for the hosted APIs: the demo company imported, a partner granted it, calls with X-Store. */
import { DEMO_COMPANY, DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { call, type CallOptions, type TestResponse } from '../../test/http.ts';
import { afterAll, beforeAll, vi } from 'vitest';
import type { Config } from '../config.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { requestAccessToken, testPartner, type TestPartner } from '../auth/testing.ts';
import { grantCompany, importCompany } from './companies.ts';

export interface HostedWorld {
  partner: TestPartner;
  /** A hosted call as the granted partner, to the demo store unless `store` says otherwise. */
  hosted(
    method: string,
    path: string,
    opts?: CallOptions & { store?: number | string; serviceType?: string },
  ): Promise<TestResponse>;
}

/**
 * Imports the demo company (once per database; not with the sandbox on, where the platform seeded it
 * itself as `npm start` does) and a new partner granted it.
 */
export async function hostedWorld(platform: TestPlatform): Promise<HostedWorld> {
  if (!platform.config.sandbox) {
    await importCompany(platform.app.ctx.db, platform.config.encryptionKey, DEMO_COMPANY);
  }
  const created = await testPartner(platform);
  await grantCompany(platform.app.ctx.db, DEMO_COMPANY.company.id, created.partner_id);
  // A token asked for after the grant: the grant is what gives the client the hosted scopes.
  const partner = { ...created, token: (await requestAccessToken(platform.url, created)).access_token };
  return {
    partner,
    hosted: (method, path, opts = {}) =>
      call(method, `${platform.url}${path}`, {
        token: partner.token,
        ...opts,
        headers: {
          'x-store': String(opts.store ?? DEMO_STORE_ID),
          ...(opts.serviceType ? { 'x-service-type': opts.serviceType } : {}),
          ...opts.headers,
        },
      }),
  };
}

/**
 * A test file's platform and hosted world, started before its tests and stopped after them. Read
 * `suite.platform` and `suite.world` inside tests (they are set by then).
 */
export function hostedSuite(
  /** Configuration overrides, or a function of them read when the suite starts (a port known by then). */
  overrides: Partial<Config> | (() => Partial<Config>) = {},
): { platform: TestPlatform; world: HostedWorld } {
  const suite = {} as { platform: TestPlatform; world: HostedWorld };
  beforeAll(async () => {
    suite.platform = await startTestPlatform(typeof overrides === 'function' ? overrides() : overrides);
    suite.world = await hostedWorld(suite.platform);
  });
  afterAll(() => suite.platform?.stop());
  return suite;
}

/**
 * The moment the hosted order tests run at: the example order's `startTime` (Tuesday 2026-12-01,
 * 17:41 in New York, the demo store's zone), 49 minutes before its `deferDue`. An order due in the
 * past is due now, so without it the answers would depend on the day and hour the tests run; the
 * dates the tests pick are ahead of it (a past one only where that is what is tested).
 */
export const HOSTED_TESTS_NOW = new Date('2026-12-01T22:41:07.000Z');

/**
 * Sets the file's `Date` to `at` before its platform starts (call it before `hostedSuite`); only
 * `Date`, which runs on from there (timers and the database's clock are left alone).
 */
export function hostedClockAt(at: Date = HOSTED_TESTS_NOW): void {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(at);
  });
  afterAll(() => {
    vi.useRealTimers();
  });
}
