/** What a bench module returns: printable lines plus the raw figures (units in the key names). */
export interface BenchReport {
  readonly name: string;
  /** Human-readable lines, printed in order. */
  readonly lines: readonly string[];
  /** Raw figures, e.g. `{ timeoutLatencyMs: 180, poolVsFloorRatio: 2.1 }`. */
  readonly figures: Readonly<Record<string, number>>;
}
