import { readFileSync } from 'node:fs';

/** One file (or record) that could not be imported, and why, in words a researcher can act on. */
export interface Failure {
  file: string;
  reason: string;
}

/** Outcome of one import run; failures are also streamed as lines while the import runs. */
export class ImportReport {
  imported = 0;
  updated = 0;
  unchanged = 0;
  readonly failures: Failure[] = [];
  /** Imported, but with something the researcher should know (e.g. captions without audio). */
  readonly warnings: Failure[] = [];
  /** Importer-specific counts (captions, judge scores, missing scores, ...). */
  readonly counts: Record<string, number> = {};

  constructor(private readonly onFailure: (line: string) => void = () => {}) {}

  fail(file: string, reason: string): void {
    this.failures.push({ file, reason });
    this.onFailure(`${file}: ${reason}`);
  }

  warn(file: string, reason: string): void {
    this.warnings.push({ file, reason });
    this.onFailure(`${file}: warning: ${reason}`);
  }

  /** Reads an input file as UTF-8, or records why it could not be read and returns undefined. */
  readInputFile(file: string): string | undefined {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      this.fail(file, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message);
      return undefined;
    }
  }

  count(name: string, by = 1): void {
    this.counts[name] = (this.counts[name] ?? 0) + by;
  }

  summary(): string {
    const extra = Object.entries(this.counts).map(([k, v]) => `, ${v} ${k}`).join('');
    return `clips: ${this.imported} imported, ${this.updated} updated, ${this.unchanged} unchanged${extra}; ${this.failures.length} failed, ${this.warnings.length} warnings`;
  }
}
