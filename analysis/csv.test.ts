import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { buildBundle } from './bundle';
import { cellText, csvField, restoreText } from './csv';
import { reportCsvFiles } from './csv-report';
import { analyze } from './report';
import { simulate } from './simulate';

/** What a spreadsheet would do with the field: a formula when its text (after CSV unquoting) starts with = + - @ tab CR. */
const unquote = (field: string): string => (parse(field + '\r\n', { relax_quotes: false }) as string[][])[0]?.[0] ?? '';
const runsAsFormula = (text: string) => /^[=+\-@\t\r]/.test(text);

describe('csvField neutralises spreadsheet formulas in text', () => {
  it('prefixes a quote, inside CSV quotes, to text starting with = + - @ tab or CR', () => {
    expect(csvField('=1+1')).toBe(`"'=1+1"`);
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvField('+44 20')).toBe(`"'+44 20"`);
    expect(csvField('-cmd|')).toBe(`"'-cmd|"`);
    expect(csvField('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvField('\t=1')).toBe(`"'\t=1"`);
    expect(csvField('\r=1')).toBe(`"'\r=1"`);
    expect(csvField('plain')).toBe('plain');
    expect(csvField("it's")).toBe("it's");
  });

  it('leaves numbers as numbers: a negative score stays -1.5', () => {
    expect(csvField(-1.5)).toBe('-1.5');
    expect(csvField(-2e-3)).toBe('-0.002');
    expect(csvField(0)).toBe('0');
    expect(csvField(null)).toBe('');
  });

  it('never writes text a spreadsheet runs, and restoreText gives back exactly the text (any string)', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string().map((s) => `'${s}`), fc.constantFrom('=', '+', '-', '@', '\t', '\r').chain((c) => fc.string().map((s) => c + s)), fc.string().map((s) => `''=${s}`)), (text) => {
      const field = unquote(csvField(text));
      return !runsAsFormula(field) && restoreText(field) === text;
    }), { numRuns: 2000 });
  });

  it('restores a number field unchanged', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => Number(restoreText(unquote(csvField(x)))) === x || (x === 0 && Object.is(x, -0))));
    expect(cellText(-1.5)).toBe('-1.5');
  });
});

describe('the report CSVs', () => {
  it('neutralise names from the bundle and keep negative strengths numeric', () => {
    const sim = simulate({ systems: 3, items: 30, listeners: 4, careless: 0, attention: 0, seed: 1 });
    const rename = (s: string) => (s === 'oracle' ? '=cmd|"/c calc"!A1' : s);
    const items = sim.items.map((i) => ({ ...i, system_a: rename(i.system_a), system_b: rename(i.system_b) }));
    const files = reportCsvFiles(analyze(buildBundle({ ...sim, items }), { btPrior: 0.1 }));
    const rows = parse(files['bradley_terry.csv'], { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.system)).toContain(`'=cmd|"/c calc"!A1`);
    expect(rows.some((r) => /^-\d/.test(r.log_strength))).toBe(true);
  });
});
