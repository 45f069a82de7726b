import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { PAGE_ERRORS, PageFields, pageQuery, paginated } from './pagination.ts';
import { BEARER_ERRORS, EXAMPLE, OwnPartnerId } from './shared.ts';

const METRICS_DEFINITION =
  'Months are calendar months in UTC. `activeLocations`: distinct locations that had at least one APPROVED ' +
  'DSP binding at any moment of the month. `newActivations`: locations whose first-ever activation falls in the ' +
  'month. `newOnboardings`: integrations (POS or DSP onboardings) whose first activation falls in the month. ' +
  'Figures are computed from the recorded lifecycle of your integrations and locations, so a report can be ' +
  'recomputed at any time and always agrees with its CSV and invoice.';

/** `2026-11`, optionally prefixed `billing-` and suffixed with the endpoint's extension. */
const fileName = (ext: 'csv' | 'pdf') =>
  z
    .string()
    .regex(
      new RegExp(`^(?:billing-)?\\d{4}-(?:0[1-9]|1[0-2])(?:\\.${ext})?$`),
      `must name a month as YYYY-MM, e.g. billing-2026-11.${ext}`,
    )
    .meta({
      description: `The month, as \`billing-YYYY-MM.${ext}\` (the name listed in the report's \`files\`), \`YYYY-MM.${ext}\` or \`YYYY-MM\`.`,
      example: `billing-2026-11.${ext}`,
    });

export const BillingReportLocation = z
  .object({
    locationId: z.string(),
    orgId: z.string(),
    name: z.string().nullable(),
    activatedAt: z.iso
      .datetime()
      .meta({ description: 'Start of the activity that overlapped the month (may be earlier).' }),
    deactivatedAt: z.iso.datetime().nullable().meta({
      description: 'When the location stopped being active within the month; null if active at its end.',
    }),
    firstActivatedAt: z.iso.datetime(),
    newActivation: z
      .boolean()
      .meta({ description: 'True when the first-ever activation falls in this month.' }),
  })
  .meta({
    id: 'BillingReportLocation',
    description: 'A location active during the month (one billable unit).',
  });

export const BillingReport = z
  .object({
    reportMonth: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .meta({ example: '2026-11' }),
    partnerId: z.string(),
    isFinal: z.boolean().meta({ description: 'False for the current month, whose figures still change.' }),
    locations: z.array(BillingReportLocation),
    metrics: z.object({
      activeLocations: z.number().int(),
      newActivations: z.number().int(),
      newOnboardings: z.number().int(),
    }),
    files: z
      .object({ raw: z.string(), invoice: z.string() })
      .meta({ description: '`file_name` values for the raw CSV and the PDF invoice of this month.' }),
  })
  .meta({ id: 'BillingReport', description: METRICS_DEFINITION });

export const BillingReportList = z
  .object({ reports: z.array(BillingReport), ...PageFields })
  .meta({ id: 'BillingReportList' });

const exampleReport = {
  reportMonth: '2026-11',
  partnerId: EXAMPLE.partnerId,
  isFinal: true,
  locations: [
    {
      locationId: 'loc_3243f6a8885a308d313198a2',
      orgId: EXAMPLE.orgId,
      name: 'Acme Pizza Downtown',
      activatedAt: '2026-11-04T15:20:00.000Z',
      deactivatedAt: null,
      firstActivatedAt: '2026-11-04T15:20:00.000Z',
      newActivation: true,
    },
  ],
  metrics: { activeLocations: 1, newActivations: 1, newOnboardings: 1 },
  files: { raw: 'billing-2026-11.csv', invoice: 'billing-2026-11.pdf' },
};

const scope = 'A token limited to one org sees that org only.';

export const listBillingReports = defineOperation({
  api: 'partner',
  operationId: 'listBillingReports',
  method: 'GET',
  path: '/billing/reports',
  summary: 'List monthly billing reports',
  description:
    'One report per month from the month of your first recorded event (org created, ' +
    `integration or location activated) to the current month, which is not final yet. ${scope} ` +
    `${METRICS_DEFINITION} ${paginated('oldest month first')}`,
  tags: ['Billing'],
  tagDescriptions: {
    Billing: `Monthly billing reports, their raw rows (CSV) and invoices (PDF). ${METRICS_DEFINITION}`,
  },
  security: { kind: 'bearer', scopes: ['billing'] },
  servedBy: 'platform',
  request: { query: z.object({ partner_id: OwnPartnerId, ...pageQuery() }) },
  responses: {
    200: {
      description: 'The reports.',
      schema: BillingReportList,
      example: { reports: [exampleReport], has_more: false, next_cursor: null },
    },
  },
  errors: [...PAGE_ERRORS, ...BEARER_ERRORS, 'not_found'],
});

export const getBillingReportRaw = defineOperation({
  api: 'partner',
  operationId: 'getBillingReportRaw',
  method: 'GET',
  path: '/billing/reports/raw',
  summary: "Download a month's rows as CSV",
  description:
    'RFC 4180 CSV (UTF-8, CRLF line ends, fields quoted when needed; a text cell starting with `=`, `+`, `-` or `@` ' +
    "gets a leading `'` so spreadsheets do not run it): a header row, then one row per location " +
    'active in the month, the same locations as the report. Columns: report_month, partner_id, org_id, ' +
    'location_id, location_name, activated_at, deactivated_at, first_activated_at, new_activation. ' +
    `A month before your first event or after the current one answers 404 \`report_not_found\`. ${scope}`,
  tags: ['Billing'],
  security: { kind: 'bearer', scopes: ['billing'] },
  servedBy: 'platform',
  request: { query: z.object({ file_name: fileName('csv'), partner_id: OwnPartnerId }) },
  responses: {
    200: {
      description: 'The CSV file (sent with `Content-Disposition: attachment`).',
      contentType: 'text/csv',
      example:
        'report_month,partner_id,org_id,location_id,location_name,activated_at,deactivated_at,first_activated_at,new_activation\r\n' +
        `2026-11,${EXAMPLE.partnerId},${EXAMPLE.orgId},loc_3243f6a8885a308d313198a2,"Acme Pizza, Downtown",` +
        '2026-11-04T15:20:00.000Z,,2026-11-04T15:20:00.000Z,true\r\n',
    },
  },
  errors: ['validation_failed', ...BEARER_ERRORS, 'not_found', 'report_not_found'],
});

export const getBillingInvoice = defineOperation({
  api: 'partner',
  operationId: 'getBillingInvoice',
  method: 'GET',
  path: '/billing/reports/invoice',
  summary: "Download a month's PDF invoice",
  description:
    'A PDF invoice for the month: your partner name and id, the month, the three metrics, one line per active ' +
    'location and the total. Each location active in the month is billed once at the per-active-location price ' +
    'agreed in your partner settings (default USD 25.00), without proration. The current month is marked ' +
    `preliminary. A month before your first event or after the current one answers 404 \`report_not_found\`. ${scope}`,
  tags: ['Billing'],
  security: { kind: 'bearer', scopes: ['billing'] },
  servedBy: 'platform',
  request: { query: z.object({ file_name: fileName('pdf'), partner_id: OwnPartnerId }) },
  responses: {
    200: {
      description: 'The PDF (sent with `Content-Disposition: attachment`).',
      contentType: 'application/pdf',
    },
  },
  errors: ['validation_failed', ...BEARER_ERRORS, 'not_found', 'report_not_found'],
});

export const BILLING_OPERATIONS = [listBillingReports, getBillingReportRaw, getBillingInvoice] as const;
