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
  return NEUTRALISED.test(field) ? field.slice(1) : field;
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
