import PDFDocument from 'pdfkit';
import { formatMoney, type Price } from './pricing.ts';
import type { NamedReport } from './reports.service.ts';

export interface InvoiceInput {
  partner: { id: string; name: string };
  /** Set when the caller's token is limited to one org: the invoice then covers that org only. */
  orgId: string | null;
  report: NamedReport;
  price: Price;
  issuedAt: Date;
}

/**
 * The standard PDF fonts (no font file to ship) encode WinAnsi only: anything else in a
 * merchant-supplied name becomes `?` instead of a wrong glyph.
 */
function winAnsi(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Invoice number: stable for a partner and month (and organisation, for an invoice limited to one),
 * so a re-download is the same invoice and two different invoices never share a number.
 */
export function invoiceNumber(partnerId: string, month: string, orgId?: string | null): string {
  const short = (id: string) =>
    id
      .replace(/^[a-z]+_/, '')
      .slice(0, 8)
      .toUpperCase();
  return `INV-${month}-${short(partnerId)}${orgId ? `-${short(orgId)}` : ''}`;
}

/**
 * Renders the month's invoice. Streams are left uncompressed: invoices are small, and the text
 * stays greppable for support and tests (pdfkit writes it as hex strings in TJ operators).
 */
export function renderInvoice({ partner, orgId, report, price, issuedAt }: InvoiceInput): Promise<Buffer> {
  const number = invoiceNumber(partner.id, report.month, orgId);
  const total = report.metrics.activeLocations * price.unitAmount;
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    compress: false,
    info: {
      Title: `Invoice ${number}`,
      Subject: `Billing report ${report.month} for ${partner.id}`,
      Author: 'Stream platform',
      CreationDate: issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font('Helvetica-Bold').fontSize(22).text('Invoice');
  doc.font('Helvetica').fontSize(10).moveDown(0.5);
  doc.text(`Invoice number: ${number}`);
  doc.text(`Issued: ${day(issuedAt)}`);
  doc.text(`Billing period: ${report.month} (UTC calendar month)`);
  if (!report.isFinal)
    doc
      .font('Helvetica-Bold')
      .text('PRELIMINARY: the month is not over; figures may change.')
      .font('Helvetica');
  doc.moveDown();
  doc.font('Helvetica-Bold').text('Billed to');
  doc.font('Helvetica').text(winAnsi(partner.name)).text(`Partner id: ${partner.id}`);
  if (orgId) doc.text(`Organisation: ${orgId} (this invoice covers this organisation only)`);
  doc.moveDown();

  doc.font('Helvetica-Bold').text('Metrics');
  doc.font('Helvetica');
  doc.text(`Active locations: ${report.metrics.activeLocations}`);
  doc.text(`New activations: ${report.metrics.newActivations}`);
  doc.text(`New onboardings: ${report.metrics.newOnboardings}`);
  doc.moveDown();

  const unit = formatMoney(price.unitAmount, price.currency);
  const header = ['#', 'Location', 'Org', 'Active in period', 'Amount'].map((text) => ({
    text,
    type: 'TH' as const,
  }));
  const rows = report.locations.map((l, i) => [
    String(i + 1),
    winAnsi(l.name ?? l.locationId),
    l.orgId,
    `${day(l.activatedAt)} - ${l.deactivatedAt ? day(l.deactivatedAt) : 'ongoing'}${l.newActivation ? ' (new)' : ''}`,
    unit,
  ]);
  doc.fontSize(9).table({
    // Widths fit a 28-character org id and the money column at 9 pt on A4.
    columnStyles: [22, '*', 145, 125, { width: 62, align: { x: 'right' } }],
    rowStyles: (i) => (i === 0 ? { backgroundColor: '#eeeeee' } : undefined),
    data: [
      header,
      ...(rows.length
        ? rows
        : [['', 'No active locations in this period.', '', '', formatMoney(0, price.currency)]]),
    ],
  });
  doc.moveDown();

  doc.fontSize(10).font('Helvetica');
  doc.text(`${report.metrics.activeLocations} active location(s) x ${unit} per active location`, {
    align: 'right',
  });
  doc
    .font('Helvetica-Bold')
    .fontSize(12)
    .text(`Total due: ${formatMoney(total, price.currency)}`, { align: 'right' });
  doc.end();
  return done;
}
