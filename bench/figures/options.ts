export interface BenchOptions {
  /** Measured runs per figure (≥ 3; --quick: 1). */
  runs: number;
  quick: boolean;
}
