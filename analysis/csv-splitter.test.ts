import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { CSV_PARSE_OPTIONS, CsvSplitter, csvLines, NeedsFullParser } from './csv';

/** The records CsvSplitter gives for `text` fed in the given chunk sizes, or 'full parser' when it hands over. */
function split(text: string, chunkSizes: number[]): string[][] | 'full parser' {
  const records: string[][] = [];
  const splitter = new CsvSplitter();
  try {
    let at = 0;
    for (let c = 0; at < text.length; c++) {
      const size = Math.max(1, chunkSizes[c % Math.max(1, chunkSizes.length)] ?? text.length);
      splitter.push(text.slice(at, at + size), (r) => records.push(r));
      at += size;
    }
    splitter.end((r) => records.push(r));
  } catch (e) {
    if (e instanceof NeedsFullParser) return 'full parser';
    throw e;
  }
  return records;
}

describe('CsvSplitter, the fast path of the bundle reader', () => {
  // Fields as the app writes them (neutralised, quoted when needed) and as people type them.
  const field = fc.oneof(
    fc.string(),
    fc.stringMatching(/^[a-z0-9_-]{0,8}$/),
    fc.constantFrom('=', '+', '-', '@', '\t', "'", "'=", '"', ',', ' ', '\r', '\n', '\r\n', '\uFEFF').chain((c) => fc.string({ maxLength: 4 }).map((s) => c + s)),
  );
  const record = fc.array(fc.oneof(field, fc.double().map(String)), { minLength: 1, maxLength: 5 });

  it('gives the records csv-parse gives, for files the app writes (CRLF, quoting, neutralised text), in any chunks', () => {
    fc.assert(fc.property(fc.array(record, { maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 40 })), fc.boolean(), (rows, chunks, bom) => {
      const text = (bom ? '\uFEFF' : '') + [...csvLines(['a', 'b'], rows)].join('');
      const expected = parse(text, CSV_PARSE_OPTIONS) as string[][];
      const got = split(text, chunks);
      // Only a CR or a header spanning lines is handed over; everything else is split here.
      if (got === 'full parser') return /\r(?!\n)|\n(?<!\r\n)/.test(text.replace(/\r\n$/, ''));
      expect(got).toEqual(expected);
      return true;
    }), { numRuns: 3000 });
  });

  it('agrees with csv-parse or hands over on any text: raw lines, quoted or not, LF or CRLF, malformed quotes', () => {
    const line = fc.array(fc.oneof(field, fc.constantFrom('"x"', '"a""b"', '"', 'a"b', '""', '"a\nb"', '"a\r\nb"')), { minLength: 0, maxLength: 4 }).map((f) => f.join(','));
    fc.assert(fc.property(fc.array(line, { maxLength: 6 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.array(fc.integer({ min: 1, max: 20 })), (lines, eol, lastEnded, chunks) => {
      const text = lines.join(eol) + (lastEnded ? eol : '');
      let expected: string[][] | 'error';
      try {
        expected = parse(text, CSV_PARSE_OPTIONS) as string[][];
      } catch {
        expected = 'error';
      }
      const got = split(text, chunks);
      // A refusal is always the full parser's to give (its message names the line).
      if (expected === 'error') return got === 'full parser';
      if (got !== 'full parser') expect(got).toEqual(expected);
      return true;
    }), { numRuns: 5000 });
  });

  it('splits plain lines itself and hands over a bare CR or mixed line endings', () => {
    expect(split('a,b\r\n1,2\r\n\r\n,\r\n', [3])).toEqual([['a', 'b'], ['1', '2'], ['', '']]);
    expect(split('a,b\n"x\ny",2\n', [100])).toEqual([['a', 'b'], ['x\ny', '2']]);
    expect(split('\uFEFFa\n', [1])).toEqual([['a']]);
    expect(split('a,b\rc,d\n', [100])).toBe('full parser');
    expect(split('a,b\r\nc,d\ne,f\r\n', [100])).toBe('full parser');
    expect(split('a,b\n"x,2\n', [100])).toBe('full parser');
  });
});
