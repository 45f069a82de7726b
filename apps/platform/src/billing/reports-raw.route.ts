import type { FastifyInstance } from 'fastify';
import { getBillingReportRaw } from '@stream/contracts/apis/partner/billing';
import { mount } from '../http/route.ts';
import { toCsv } from './csv.ts';
import { reportScopeOf } from './reports.route.ts';
import { getMonthReport, monthOfFileName, reportFileNames, type NamedReport } from './reports.service.ts';

export const CSV_COLUMNS = [
  'report_month',
  'partner_id',
  'org_id',
  'location_id',
  'location_name',
  'activated_at',
  'deactivated_at',
  'first_activated_at',
  'new_activation',
] as const;

export function reportCsv(partnerId: string, r: NamedReport): string {
  return toCsv(
    CSV_COLUMNS,
    r.locations.map((l) => [
      r.month,
      partnerId,
      l.orgId,
      l.locationId,
      l.name,
      l.activatedAt.toISOString(),
      l.deactivatedAt?.toISOString() ?? null,
      l.firstActivatedAt.toISOString(),
      l.newActivation,
    ]),
  );
}

/** GET /billing/reports/raw */
export function registerReportsRawRoute(app: FastifyInstance): void {
  mount(app, getBillingReportRaw, async (req, reply) => {
    const scope = reportScopeOf(req, req.query.partner_id);
    const month = monthOfFileName(req.query.file_name);
    const report = await getMonthReport(app.ctx.db, scope, month);
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${reportFileNames(month).raw}"`);
    return reportCsv(scope.partnerId, report);
  });
}
