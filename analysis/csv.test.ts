import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { cellText, csvField, restoreText } from './csv';

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
