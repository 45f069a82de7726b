import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { lifecycleEvents, orgLocations } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { pageOfAll, pageWindow, type Page, type PageQuery } from '../http/pagination.ts';
import {
  computeReports,
  reportMonths,
  type MonthReport,
  type RecordedEvent,
  type ReportLocation,
} from './report.ts';

/** Whose reports: a partner's, or one org's when the token is limited to it. */
export interface ReportScope {
  partnerId: string;
  orgId: string | null;
}

export interface NamedLocation extends ReportLocation {
  name: string | null;
}
export interface NamedReport extends Omit<MonthReport, 'locations'> {
  locations: NamedLocation[];
}

/** The names a report lists its files under (`file_name` also accepts `YYYY-MM[.ext]`). */
export const reportFileNames = (month: string) => ({
  raw: `billing-${month}.csv`,
  invoice: `billing-${month}.pdf`,
});

/** The month a validated `file_name` names. */
export function monthOfFileName(fileName: string): string {
  const month = /\d{4}-\d{2}/.exec(fileName)?.[0];
  if (!month) throw new Error(`file_name "${fileName}" passed validation without a month`);
  return month;
}

async function loadEvents(db: DbOrTx, scope: ReportScope): Promise<RecordedEvent[]> {
  const where: SQL[] = [eq(lifecycleEvents.partnerId, scope.partnerId)];
  if (scope.orgId) where.push(eq(lifecycleEvents.orgId, scope.orgId));
  return db
    .select({
      orgId: lifecycleEvents.orgId,
      subjectId: lifecycleEvents.subjectId,
      event: lifecycleEvents.event,
      at: lifecycleEvents.at,
    })
    .from(lifecycleEvents)
    .where(and(...where))
    .orderBy(asc(lifecycleEvents.at), asc(lifecycleEvents.seq));
}

/** Location names for display; the figures never depend on them. */
async function withNames(db: DbOrTx, scope: ReportScope, reports: MonthReport[]): Promise<NamedReport[]> {
  const ids = [...new Set(reports.flatMap((r) => r.locations.map((l) => l.locationId)))];
  const names = new Map<string, string>();
  if (ids.length) {
    const rows = await db
      .select({ id: orgLocations.id, name: orgLocations.name })
      .from(orgLocations)
      .where(and(eq(orgLocations.partnerId, scope.partnerId), inArray(orgLocations.id, ids)));
    for (const row of rows) names.set(row.id, row.name);
  }
  return reports.map((r) => ({
    ...r,
    locations: r.locations.map((l) => ({ ...l, name: names.get(l.locationId) ?? null })),
  }));
}

/** Months are the reports' keys (`2026-11`): they sort as text. */
const REPORTS_ORDER = { name: 'billing-reports', parts: ['text'], direction: 'asc' } as const;

/** A page of the months from the first recorded event to `now`'s month, oldest first; only its reports are computed. */
export async function listReports(
  db: DbOrTx,
  scope: ReportScope,
  query: PageQuery,
  now = new Date(),
): Promise<Page<NamedReport>> {
  const window = pageWindow(REPORTS_ORDER, query);
  const events = await loadEvents(db, scope);
  const { items: months, ...page } = pageOfAll(window, reportMonths(events, now), (m) => [m]);
  return { ...page, items: await withNames(db, scope, computeReports(events, months, now)) };
}

/** One month's report; 404 `report_not_found` outside the months `listReports` answers. */
export async function getMonthReport(
  db: DbOrTx,
  scope: ReportScope,
  month: string,
  now = new Date(),
): Promise<NamedReport> {
  const events = await loadEvents(db, scope);
  if (!reportMonths(events, now).includes(month)) {
    throw new ApiError(
      'report_not_found',
      `There is no billing report for ${month}: reports run from the month of your first recorded event to the current month.`,
    );
  }
  const [report] = await withNames(db, scope, computeReports(events, [month], now));
  return report!;
}
