/**
 * A refusal of a bundle's file: the file, the line, the column and what is wrong. Its own module
 * (bundle.ts re-exports it) so that a trial kind's analysis (trials/<kind>/report.ts), which the
 * kinds registry imports and bundle.ts reads through it, can make refusals without importing
 * bundle.ts: that would be an import cycle through the registry.
 */
export class BundleError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: string | null,
    readonly problem: string,
    /** short, stable reason used to count skipped rows */
    readonly reason: string,
  ) {
    super(`${file} line ${line}${column ? `, column ${column}` : ''}: ${problem}`);
    this.name = 'BundleError';
  }
}
