/** A CSV cell: text is quoted as needed; null is an empty field. */
export type Cell = string | number | boolean | null;

/**
 * Cells a spreadsheet would run as a formula (CSV injection) get a leading apostrophe. Location
 * names come from merchants' POS systems, and partners open these files in spreadsheets.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function field(cell: Cell): string {
  if (cell === null) return '';
  let text = String(cell);
  if (typeof cell === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** RFC 4180: CRLF after every record (the last included), fields with `"`, `,` or line breaks quoted. */
export function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header, ...rows].map((r) => r.map(field).join(',') + '\r\n').join('');
}

/** Parses RFC 4180 text back into records (for tests and tools that read the export back). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (quoted) {
      cell += c;
    } else if (c === ',') {
      record.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      records.push([...record, cell]);
      record = [];
      cell = '';
      i++;
    } else {
      cell += c;
    }
  }
  if (cell !== '' || record.length) records.push([...record, cell]);
  return records;
}
