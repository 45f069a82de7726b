import type { CertificationCheck, CertificationReport } from '@stream/contracts/certification';

/** A certification report as a partner's CI reads it (JUnit XML) and as a person reads it (lines). */

const escapeXml = (s: string) =>
  s
    // Characters XML 1.0 cannot hold at all, even escaped.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** What a check sent and got, one line per exchange, for a failure's body. */
function exchangesText(check: CertificationCheck): string {
  return check.exchanges
    .map((e) => {
      const arrow = e.direction === 'sent' ? '->' : '<-';
      const outcome = e.error ? `no answer: ${e.error}` : String(e.status);
      const body = e.response_body === undefined ? '' : ` ${JSON.stringify(e.response_body).slice(0, 500)}`;
      return `${arrow} ${e.method} ${e.url}: ${outcome}${body}`;
    })
    .join('\n');
}

/**
 * One `<testsuite>` per run, one `<testcase>` per check. A failed required check is a `<failure>`;
 * a skipped check, or an optional one that failed, is `<skipped>` with the reason, so a CI shows it
 * without going red for it.
 */
export function toJUnit(report: CertificationReport, docsUrl: string): string {
  const time = seconds(report.checks.reduce((sum, c) => sum + c.duration_ms, 0));
  const failures = report.checks.filter((c) => c.status === 'failed' && c.required).length;
  const skipped = report.checks.filter(
    (c) => c.status === 'skipped' || (c.status === 'failed' && !c.required),
  ).length;
  const counts = `tests="${report.checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}"`;
  const cases = report.checks.map((c) => {
    const open = `    <testcase classname="certification.${report.kind}" name="${escapeXml(`${c.id}: ${c.title}`)}" time="${seconds(c.duration_ms)}"`;
    const guide = `See ${docsUrl}${c.guide}`;
    if (c.status === 'passed') return `${open}/>`;
    if (c.status === 'failed' && c.required) {
      return `${open}>\n      <failure message="${escapeXml(c.fix ?? 'failed')}">${escapeXml(`${c.fix}\n${guide}\n${exchangesText(c)}`)}</failure>\n    </testcase>`;
    }
    const why = c.status === 'failed' ? `Optional check failed: ${c.fix}` : (c.fix ?? 'skipped');
    return `${open}>\n      <skipped message="${escapeXml(`${why} ${guide}`)}"/>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="stream-certification" ${counts}>`,
    `  <testsuite name="${report.kind}" ${counts} timestamp="${report.started_at}">`,
    `    <properties><property name="base_url" value="${escapeXml(report.base_url)}"/></properties>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

const MARK = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;

/** `PASS pos.locations  The merchant's locations are listed (12 ms)`, then what to fix and where to read. */
export function checkLines(c: CertificationCheck, docsUrl: string): string[] {
  const mark = c.status === 'failed' && !c.required ? 'WARN' : MARK[c.status];
  const lines = [`${mark} ${c.id}  ${c.title} (${c.duration_ms} ms)`];
  for (const note of c.notes ?? []) lines.push(`       note: ${note}`);
  if (c.status !== 'passed') {
    lines.push(`       ${c.fix}`);
    if (c.status === 'failed') lines.push(`       guide: ${docsUrl}${c.guide}`);
  }
  return lines;
}

export function summaryLine(report: CertificationReport): string {
  const { passed, failed, skipped, total } = report.summary;
  const verdict = report.passed ? 'CERTIFIED: every required check passed' : 'NOT CERTIFIED';
  return `${verdict} (${passed} passed, ${failed} failed, ${skipped} skipped of ${total}).`;
}
