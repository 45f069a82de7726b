import type { FastifyInstance } from 'fastify';
import { registerReportsInvoiceRoute } from './reports-invoice.route.ts';
import { registerReportsRawRoute } from './reports-raw.route.ts';
import { registerReportsRoute } from './reports.route.ts';

/** Billing reports: monthly figures, their CSV rows and the PDF invoice, all from the lifecycle log. */
export function registerBilling(app: FastifyInstance): void {
  registerReportsRoute(app);
  registerReportsRawRoute(app);
  registerReportsInvoiceRoute(app);
}
