import { defineCapability } from '../http/api.ts';
import { registerReportsInvoiceRoute } from './reports-invoice.route.ts';
import { registerReportsRawRoute } from './reports-raw.route.ts';
import { registerReportsRoute } from './reports.route.ts';

/** `/billing/*`: monthly figures, their CSV rows and the PDF invoice, all from the lifecycle log. */
export const billing = defineCapability('/billing', (scope) => {
  registerReportsRoute(scope);
  registerReportsRawRoute(scope);
  registerReportsInvoiceRoute(scope);
});
