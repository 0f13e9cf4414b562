import type { ImportReport } from './report';

/** One CSV data line with its cells by header name, and where it is (`file:line`). */
export interface CsvRecord {
  where: string;
  cells: Record<string, string>;
}

/**
 * Calls `each` with the data lines of a CSV text whose header must name `columns` (in any order,
 * others allowed), in order, cells trimmed, blank lines skipped. A missing column or a line with the
 * wrong number of cells goes to the report with its line; false when the header is wrong.
 */
export function eachCsvRecord(file: string, text: string, columns: readonly string[], report: ImportReport, each: (record: CsvRecord) => void): boolean {
  const lines = text.split(/\r?\n/);
  const header = splitCsvLine(lines[0] ?? '').map((h) => h.trim());
  const missing = columns.filter((c) => !header.includes(c));
  if (missing.length > 0) {
    report.fail(`${file}:1`, `header lacks column(s) ${missing.join(', ')} (expected ${columns.join(',')})`);
    return false;
  }
  lines.slice(1).forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${file}:${i + 2}`;
    const cells = splitCsvLine(line);
    if (cells.length !== header.length) {
      report.fail(where, `has ${cells.length} cells, header has ${header.length}`);
      return;
    }
    each({ where, cells: Object.fromEntries(header.map((h, k) => [h, cells[k].trim()])) });
  });
  return true;
}

/** One CSV record (RFC 4180 quoting: "a, b" and doubled "" inside quotes). */
function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  return cells;
}
