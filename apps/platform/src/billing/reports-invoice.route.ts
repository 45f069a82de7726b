import type { FastifyInstance } from 'fastify';
import { getBillingInvoice } from '@stream/contracts/apis/partner/billing';
import { mount } from '../http/route.ts';
import { notFound } from '../http/errors.ts';
import { findPartner } from '../partners/service.ts';
import { renderInvoice } from './invoice.ts';
import { priceFor } from './pricing.ts';
import { reportScopeOf } from './reports.route.ts';
import { getMonthReport, monthOfFileName, reportFileNames } from './reports.service.ts';

/** GET /billing/reports/invoice */
export function registerReportsInvoiceRoute(app: FastifyInstance): void {
  mount(app, getBillingInvoice, async (req, reply) => {
    const scope = reportScopeOf(req, req.query.partner_id);
    const month = monthOfFileName(req.query.file_name);
    const partner = await findPartner(app.ctx.db, scope.partnerId);
    if (!partner) throw notFound('partner');
    const report = await getMonthReport(app.ctx.db, scope, month);
    const pdf = await renderInvoice({
      partner: { id: partner.id, name: partner.name },
      orgId: scope.orgId,
      report,
      price: priceFor(partner.settings),
      issuedAt: new Date(),
    });
    reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="${reportFileNames(month).invoice}"`);
    return pdf;
  });
}
