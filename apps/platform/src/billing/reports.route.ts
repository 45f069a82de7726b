import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { listBillingReports, type BillingReport } from '@stream/contracts/apis/partner/billing';
import { authOf } from '../auth/bearer.ts';
import { mount } from '../http/route.ts';
import { assertOwnPartner } from '../white-label/partner-scope.ts';
import { listReports, reportFileNames, type NamedReport, type ReportScope } from './reports.service.ts';

/** The caller's report scope, after checking the optional `?partner_id` names the caller. */
export function reportScopeOf(req: FastifyRequest, partnerId: string | undefined): ReportScope {
  const auth = authOf(req);
  assertOwnPartner(auth, partnerId);
  return { partnerId: auth.partnerId, orgId: auth.orgId };
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function reportToWire(partnerId: string, r: NamedReport): z.input<typeof BillingReport> {
  return {
    reportMonth: r.month,
    partnerId,
    isFinal: r.isFinal,
    locations: r.locations.map((l) => ({
      locationId: l.locationId,
      orgId: l.orgId,
      name: l.name,
      activatedAt: l.activatedAt.toISOString(),
      deactivatedAt: iso(l.deactivatedAt),
      firstActivatedAt: l.firstActivatedAt.toISOString(),
      newActivation: l.newActivation,
    })),
    metrics: r.metrics,
    files: reportFileNames(r.month),
  };
}

/** GET /billing/reports */
export function registerReportsRoute(app: FastifyInstance): void {
  mount(app, listBillingReports, async (req) => {
    const scope = reportScopeOf(req, req.query.partner_id);
    const { items, ...page } = await listReports(app.ctx.db, scope, req.query);
    return { reports: items.map((r) => reportToWire(scope.partnerId, r)), ...page };
  });
}
