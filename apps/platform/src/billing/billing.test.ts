import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { testPartner, type TestPartner } from '../auth/testing.ts';
import { partners } from '../db/schema/index.ts';
import { activeLocationRow } from '../onboarding/testing.ts';
import { parseCsv } from './csv.ts';
import { recordLifecycle, type LifecycleEventName } from './lifecycle.ts';
import { monthBounds, monthOf } from './report.ts';
import { CSV_COLUMNS } from './reports-raw.route.ts';

let platform: TestPlatform;
let a: TestPartner;
let b: TestPartner;
let org1: string;
let org2: string;
let orgB: string;

/** The scripted month M is two months back, so it is final whatever today is; P before it, N after. */
const shift = (month: string, by: number) => {
  const { start } = monthBounds(month);
  return monthOf(new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + by, 1)));
};
const current = monthOf(new Date());
const M = shift(current, -2);
const P = shift(M, -1);
const N = shift(M, 1);
const at = (month: string, dayTime: string) => new Date(`${month}-${dayTime}Z`);

const STORE_NAME = 'Luigi\'s "Pizza", Downtown';

async function event(
  partner: TestPartner,
  orgId: string,
  event: LifecycleEventName,
  subjectId: string,
  when: Date,
) {
  const subjectType = event.startsWith('integration') ? 'integration' : 'location';
  await recordLifecycle(platform.app.ctx.db, {
    partnerId: partner.partner_id,
    orgId,
    subjectType,
    subjectId,
    event,
    at: when,
  });
}

/** A POS integration and one named location in it, so reports can show the location's name. */
async function namedLocation(partner: TestPartner, orgId: string, name: string): Promise<string> {
  const db = platform.app.ctx.db;
  const pos = await platform.partner({ kind: 'pos' });
  return activeLocationRow(db, { partnerId: partner.partner_id, orgId, posPartnerId: pos.partner_id, name });
}

/**
 * Hand-computed figures for month M (partner A):
 *   L1 on since P (org1)               -> active, not new
 *   L2 on M-05, off M-20 (org1, named) -> active, new
 *   L3 on M-10, again M-12 (org2)      -> active, new (the second binding is no new period)
 *   L4 on P-01, off P-28               -> not active in M
 *   L5 on N-01T00:00                   -> not active in M
 *   I2, I3 activated in M; I1 in P     -> 2 onboardings
 * => activeLocations 3, newActivations 2, newOnboardings 2.
 * Month P: L1 and L4 new, I1 -> 2, 2, 1. Partner B's one location in M must never show in A's.
 */
let L1: string, L2: string, L3: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  [a, b] = await Promise.all([testPartner(platform), testPartner(platform)]);
  [org1, org2, orgB] = await Promise.all([a.org('bill-1'), a.org('bill-2'), b.org('bill-b')]);
  L2 = await namedLocation(a, org1, STORE_NAME);
  [L1, L3] = ['loc_l1', 'loc_l3'];
  const script: [string, LifecycleEventName, string, Date][] = [
    [org1, 'integration_activated', 'int_i1', at(P, '10T09:00:00')],
    [org1, 'location_activated', L1, at(P, '15T09:00:00')],
    [org1, 'location_activated', 'loc_l4', at(P, '01T09:00:00')],
    [org1, 'location_deactivated', 'loc_l4', at(P, '28T09:00:00')],
    [org1, 'integration_activated', 'int_i2', at(M, '02T09:00:00')],
    [org2, 'integration_activated', 'int_i3', at(M, '03T09:00:00')],
    [org1, 'location_activated', L2, at(M, '05T09:00:00')],
    [org2, 'location_activated', L3, at(M, '10T09:00:00')],
    [org2, 'location_activated', L3, at(M, '12T09:00:00')],
    [org1, 'location_deactivated', L2, at(M, '20T09:00:00')],
    [org1, 'location_activated', 'loc_l5', at(N, '01T00:00:00')],
  ];
  for (const [orgId, name, subject, when] of script) await event(a, orgId, name, subject, when);
  await event(b, orgB, 'location_activated', 'loc_b1', at(M, '07T09:00:00'));
  // Partner A agreed a price of EUR 19.99 per active location.
  await platform.app.ctx.db
    .update(partners)
    .set({ settings: { billing: { price_per_active_location: 1999, currency: 'EUR' } } })
    .where(eq(partners.id, a.partner_id));
});
afterAll(() => platform?.stop());

const get = (path: string, token?: string) => call('GET', `${platform.url}${path}`, token ? { token } : {});

/** The text pdfkit draws: uncompressed content streams hold it as hex strings inside TJ arrays. */
function pdfText(pdf: Buffer): string {
  const source = pdf.toString('latin1');
  const lines = [...source.matchAll(/\[((?:<[0-9a-f]*>|[\s\d.-])*)\]\s*TJ/g)].map((m) =>
    [...m[1]!.matchAll(/<([0-9a-f]*)>/g)].map((h) => Buffer.from(h[1]!, 'hex').toString('latin1')).join(''),
  );
  return lines.join('\n');
}

describe('GET /billing/reports', () => {
  it('answers one report per month from the first event to now, with hand-computed figures', async () => {
    const res = await get('/billing/reports', a.token);
    expect(res.status).toBe(200);
    const months = res.body.reports.map((r: { reportMonth: string }) => r.reportMonth);
    expect(months).toEqual([P, M, N, current].filter((m, i, all) => all.indexOf(m) === i));
    const byMonth = Object.fromEntries(
      res.body.reports.map((r: { reportMonth: string }) => [r.reportMonth, r]),
    );
    expect(byMonth[P].metrics).toEqual({ activeLocations: 2, newActivations: 2, newOnboardings: 1 });
    const m = byMonth[M];
    expect(m).toMatchObject({
      partnerId: a.partner_id,
      isFinal: true,
      metrics: { activeLocations: 3, newActivations: 2, newOnboardings: 2 },
      files: { raw: `billing-${M}.csv`, invoice: `billing-${M}.pdf` },
    });
    expect(m.locations).toEqual([
      {
        locationId: L1,
        orgId: org1,
        name: null,
        activatedAt: at(P, '15T09:00:00.000').toISOString(),
        deactivatedAt: null,
        firstActivatedAt: at(P, '15T09:00:00.000').toISOString(),
        newActivation: false,
      },
      {
        locationId: L2,
        orgId: org1,
        name: STORE_NAME,
        activatedAt: at(M, '05T09:00:00.000').toISOString(),
        deactivatedAt: at(M, '20T09:00:00.000').toISOString(),
        firstActivatedAt: at(M, '05T09:00:00.000').toISOString(),
        newActivation: true,
      },
      expect.objectContaining({ locationId: L3, orgId: org2, newActivation: true, deactivatedAt: null }),
    ]);
    expect(byMonth[current].isFinal).toBe(false);
  });

  it("shows a partner only its own figures, and a token limited to one org only that org's", async () => {
    const other = await get('/billing/reports', b.token);
    const bM = other.body.reports.find((r: { reportMonth: string }) => r.reportMonth === M);
    expect(bM.metrics).toEqual({ activeLocations: 1, newActivations: 1, newOnboardings: 0 });
    expect(bM.locations.map((l: { locationId: string }) => l.locationId)).toEqual(['loc_b1']);

    const { access_token } = (await a.orgToken(org2, ['billing'], 'billing org2')).grant;
    const scoped = await get('/billing/reports', access_token);
    const sM = scoped.body.reports.find((r: { reportMonth: string }) => r.reportMonth === M);
    expect(sM.metrics).toEqual({ activeLocations: 1, newActivations: 1, newOnboardings: 1 });
  });

  it('accepts its own partner_id', async () => {
    expect((await get(`/billing/reports?partner_id=${a.partner_id}`, a.token)).status).toBe(200);
  });
});

describe('GET /billing/reports/raw', () => {
  it("answers the month's rows as RFC 4180 CSV", async () => {
    for (const name of [`billing-${M}.csv`, `${M}.csv`, M]) {
      const res = await get(`/billing/reports/raw?file_name=${name}`, a.token);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="billing-${M}.csv"`);
      const [header, ...rows] = parseCsv(res.text);
      expect(header).toEqual([...CSV_COLUMNS]);
      expect(rows.map((r) => r[3])).toEqual([L1, L2, L3]);
      const l2 = Object.fromEntries(header!.map((column, i) => [column, rows[1]![i]]));
      expect(l2).toEqual({
        report_month: M,
        partner_id: a.partner_id,
        org_id: org1,
        location_id: L2,
        location_name: STORE_NAME,
        activated_at: at(M, '05T09:00:00.000').toISOString(),
        deactivated_at: at(M, '20T09:00:00.000').toISOString(),
        first_activated_at: at(M, '05T09:00:00.000').toISOString(),
        new_activation: 'true',
      });
    }
  });
});

describe('GET /billing/reports/invoice', () => {
  it('answers a PDF holding the partner, the month, the metrics and the total', async () => {
    const res = await fetch(`${platform.url}/billing/reports/invoice?file_name=billing-${M}.pdf`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="billing-${M}.pdf"`);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(pdf);
    for (const expected of [
      `Billing period: ${M}`,
      `Partner id: ${a.partner_id}`,
      'Active locations: 3',
      'New activations: 2',
      'New onboardings: 2',
      STORE_NAME,
      '3 active location(s) x EUR 19.99 per active location',
      'Total due: EUR 59.97',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('PRELIMINARY');
  });

  it('marks the current month preliminary and bills the default price', async () => {
    const res = await fetch(`${platform.url}/billing/reports/invoice?file_name=${current}`, {
      headers: { authorization: `Bearer ${b.token}` },
    });
    expect(res.status).toBe(200);
    const text = pdfText(Buffer.from(await res.arrayBuffer()));
    expect(text).toContain('PRELIMINARY');
    expect(text).toMatch(/Total due: USD \d+\.\d\d/);
  });
});

describe('errors of the billing routes', () => {
  const routes = [
    (q: string) => `/billing/reports?${q}`,
    (q: string) => `/billing/reports/raw?file_name=${M}.csv&${q}`,
    (q: string) => `/billing/reports/invoice?file_name=${M}.pdf&${q}`,
  ];

  it("answers 404 when partner_id names another partner, whoever's token it is", async () => {
    for (const route of routes) {
      for (const [token, partnerId] of [
        [b.token, a.partner_id],
        [a.token, b.partner_id],
        [a.token, 'ptr_nope'],
      ] as const) {
        const res = await get(route(`partner_id=${partnerId}`), token);
        expect([res.status, res.body.error.code], route('')).toEqual([404, 'not_found']);
      }
    }
  });

  it('answers 400 validation_failed naming partner_id when it is not an id', async () => {
    for (const route of routes) {
      const res = await get(route('partner_id=ptr%20nope'), a.token);
      expect([res.status, res.body.error.code], route('')).toEqual([400, 'validation_failed']);
      expect(res.body.error.details).toEqual([
        { path: 'querystring.partner_id', message: expect.any(String) },
      ]);
    }
  });

  it('answers 403 without the billing scope, 401 without a token', async () => {
    const ssoOnly = await a.tokenWith(['sso']);
    for (const route of routes) {
      const res = await get(route(''), ssoOnly);
      expect([res.status, res.body.error.code]).toEqual([403, 'insufficient_scope']);
      const anonymous = await get(route(''));
      expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'missing_token']);
    }
  });

  it('answers 400 for a malformed file_name and 404 report_not_found outside the reported months', async () => {
    for (const [path, status, code] of [
      ['/billing/reports/raw', 400, 'validation_failed'],
      ['/billing/reports/raw?file_name=march.csv', 400, 'validation_failed'],
      [`/billing/reports/raw?file_name=${M.slice(0, 4)}-13.csv`, 400, 'validation_failed'],
      [`/billing/reports/raw?file_name=${M}.pdf`, 400, 'validation_failed'],
      [`/billing/reports/raw?file_name=${M}.csv&file_name=${P}.csv`, 400, 'validation_failed'],
      [`/billing/reports/invoice?file_name=${M}.csv`, 400, 'validation_failed'],
      [`/billing/reports/invoice?file_name=%00`, 400, 'validation_failed'],
      [`/billing/reports/raw?file_name=${shift(P, -1)}.csv`, 404, 'report_not_found'],
      [`/billing/reports/invoice?file_name=${shift(current, 1)}.pdf`, 404, 'report_not_found'],
      [`/billing/reports?partner_id=${'x'.repeat(100)}`, 400, 'validation_failed'],
    ] as const) {
      const res = await get(path, a.token);
      expect([res.status, res.body.error.code], path).toEqual([status, code]);
    }
  });

  it('answers a partner with no recorded events an empty list', async () => {
    const fresh = await testPartner(platform);
    const res = await get('/billing/reports', fresh.token);
    expect([res.status, res.body]).toEqual([200, { reports: [], has_more: false, next_cursor: null }]);
  });
});
