import { parse } from 'csv-parse/sync';

/**
 * CSV fields as the app writes them (RFC 4180) and as spreadsheets open them. A text field that
 * starts with = + - @, a tab or a carriage return would run as a formula in Excel, LibreOffice
 * or Google Sheets (OWASP "CSV injection"): a link parameter such as PROLIFIC_PID comes from
 * anyone's URL. Such text is written with a leading single quote, which spreadsheets show as
 * text; numbers are never touched, so a score of -1.5 stays a number. Text that already starts
 * with quotes before one of those characters gets one more quote, so `restoreText` undoes
 * `neutralised` exactly and the analysis reads back what was exported.
 */
const FORMULA = /^'*[=+\-@\t\r]/;
const NEUTRALISED = /^'+[=+\-@\t\r]/;

/** The text a spreadsheet will not evaluate: `'` + text when it could start a formula. */
function neutralised(text: string): string {
  return FORMULA.test(text) ? `'${text}` : text;
}

/** The exported text of a field as read back from a CSV file. */
export function restoreText(field: string): string {
  // Most fields do not start with a quote; the first character decides without the regex.
  return field.charCodeAt(0) === 39 && NEUTRALISED.test(field) ? field.slice(1) : field;
}

/**
 * The field before CSV quoting: numbers and booleans as JavaScript prints them, null/undefined
 * as empty, text as is. The in-memory bundle reads these, the CSV writer quotes them.
 */
export function cellText(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** One RFC 4180 field: text neutralised (and then always quoted), quoted when it holds a comma, quote, CR, LF or edge space. */
export function csvField(value: unknown): string {
  const text = cellText(value);
  const s = typeof value === 'string' ? neutralised(text) : text;
  return s !== text || /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV file as lines (header first), each ending in CRLF. */
export function* csvLines(header: readonly string[], rows: Iterable<readonly unknown[]>): Iterable<string> {
  yield header.map(csvField).join(',') + '\r\n';
  for (const row of rows) yield row.map(csvField).join(',') + '\r\n';
}

/** Thrown by CsvSplitter on text only the full parser reads exactly; the caller reads the file again with it. */
export class NeedsFullParser extends Error {
  constructor() {
    super('this CSV needs the full RFC 4180 parser');
    this.name = 'NeedsFullParser';
  }
}

/** The options the bundle reader gives csv-parse: what CsvSplitter must agree with. */
export const CSV_PARSE_OPTIONS = { bom: true, relax_column_count: true, skip_empty_lines: true } as const;

const countQuotes = (line: string) => {
  let n = 0;
  for (let i = line.indexOf('"'); i !== -1; i = line.indexOf('"', i + 1)) n++;
  return n;
};

/**
 * Splits CSV text, fed in chunks, into the records csv-parse gives with CSV_PARSE_OPTIONS, at
 * about the speed of splitting lines: a line without a quote is split on its commas; a record
 * with quotes (which may span lines) goes through csv-parse alone. What it cannot read exactly
 * throws NeedsFullParser instead: a record the parser refuses (its error names the file's
 * line), a CR that is not part of the file's line ending, a line ending other than the first
 * line's (csv-parse keeps the first one it sees), a header whose quoted field spans lines.
 */
export class CsvSplitter {
  private rest = '';
  private started = false;
  /** the file's line ending is CRLF; null until the first line ends */
  private crlf: boolean | null = null;
  /** a quoted record that spans lines, so far, and the number of quotes in it */
  private pending: string | null = null;
  private quotes = 0;

  push(chunk: string, onRecord: (fields: string[]) => void): void {
    let text = this.rest + chunk;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      // The line without its CR, if it has one: cut once.
      const cr = end > start && text.charCodeAt(end - 1) === 13;
      this.line(text.slice(start, cr ? end - 1 : end), true, cr, onRecord);
      start = end + 1;
    }
    this.rest = text.slice(start);
  }

  /** The last line, when the text does not end with a line ending. */
  end(onRecord: (fields: string[]) => void): void {
    if (this.rest !== '' || this.pending !== null) this.line(this.rest, false, false, onRecord);
    if (this.pending !== null) throw new NeedsFullParser();
  }

  /** `line` without its line ending; `cr`: the ending was CRLF. */
  private line(line: string, ended: boolean, cr: boolean, onRecord: (fields: string[]) => void): void {
    const first = this.crlf === null && ended;
    if (first) this.crlf = cr;
    if ((ended && cr !== this.crlf) || line.includes('\r')) throw new NeedsFullParser();
    if (this.pending === null) {
      if (line === '') return;
      if (!line.includes('"')) {
        onRecord(line.split(','));
        return;
      }
      this.pending = line;
      this.quotes = countQuotes(line);
    } else {
      this.pending += (this.crlf ? '\r\n' : '\n') + line;
      this.quotes += countQuotes(line);
    }
    // An odd number of quotes: the line ends inside a quoted field, which goes on on the next line.
    if (this.quotes % 2 === 1) {
      if (first) throw new NeedsFullParser();
      return;
    }
    const record = this.pending;
    this.pending = null;
    let records: string[][];
    try {
      // Without bom: a BOM is stripped only at the start of the file, not of a record.
      records = parse(record, { relax_column_count: true }) as string[][];
    } catch {
      throw new NeedsFullParser();
    }
    if (records.length !== 1) throw new NeedsFullParser();
    onRecord(records[0]);
  }
}
