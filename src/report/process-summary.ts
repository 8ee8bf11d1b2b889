/**
 * The process part of the ladder summary: how the agents got to their answers, per column (provider
 * × prompt) and per tag, from the trajectory metrics each ladder record keeps (src/trajectory/metrics.ts).
 * Present only for columns whose records carry trajectory metrics (the ladder's `trajectory` option).
 *
 * Definitions, over the column's graded items (errored rows are in no figure):
 * - **executions / schema calls / steps per question**: the mean of the per-item counts;
 * - **failed executions**: the total of `sql` steps that failed, as the agents saw them;
 * - **error recovery**: among scored items whose first SQL execution failed, the share that still
 *   finish end-to-end correct (*Text-to-SQL Evals*, §10: "the fraction of runs with an initial
 *   execution error that still finish correct");
 * - **rows / bytes scanned**: totals over the measured probes (an estimate on SQLite, measured on
 *   PostgreSQL: src/trajectory/probe-cost.ts); **unmeasured probes**: probes not re-run (unsafe,
 *   invalid on the fixture, failed);
 * - **over budget**: items whose trajectory went over a `trajectory` budget;
 * - **clarify: asked / guessed**: among `clarify` items (ambiguous questions), the share whose
 *   final output asks for clarification / answers with SQL (a refusal or no output is neither);
 * - **over-asking**: among `answer` items (clear questions), the share with a clarifying question,
 *   in the final output or as a step. Always asking scores 100% asked and 100% over-asking; never
 *   asking 0% asked: neither strategy looks good on both.
 */
/** A count over its denominator (the shape of the ladder summary's `Rate`); `rate` is `undefined` when `n` is 0. */
export interface Rate {
  readonly passed: number;
  readonly n: number;
  readonly rate: number | undefined;
}

/** What the process summary reads of one (item, column) record. */
export interface ProcessRecordInput {
  readonly tags: readonly string[];
  readonly expectedBehavior: 'answer' | 'clarify' | 'refuse';
  readonly verdict: 'pass' | 'fail' | 'unscored' | 'error';
  readonly endToEnd?: number;
  /** How the output was read: `sql`, `declined:<action>` or `missing` (the ladder record's `output`). */
  readonly output?: string;
  /** The trajectory metrics by name (absent: not measured). */
  readonly trajectory?: Readonly<Record<string, number>>;
}

/** Process figures of a set of items. */
export interface ProcessFigures {
  /** Graded items with trajectory metrics. */
  readonly items: number;
  readonly executionsPerQuestion: number | undefined;
  readonly schemaCallsPerQuestion: number | undefined;
  readonly stepsPerQuestion: number | undefined;
  readonly failedExecutions: number;
  /** Recovered (end-to-end correct) of the scored items with an initial execution error. */
  readonly errorRecovery: Rate;
  readonly rowsScanned: number;
  readonly bytesScanned: number;
  readonly unmeasuredProbes: number;
  readonly overBudget: number;
}

/** The process summary of one column. */
export interface ProcessSummary extends ProcessFigures {
  /** `clarify` items whose final output asks for clarification. */
  readonly clarifyAsked: Rate;
  /** `clarify` items answered with SQL (a guess). */
  readonly clarifyGuessed: Rate;
  /** `answer` items with a clarifying question (final output or a step). */
  readonly overAsking: Rate;
  /** Per tag (sorted), the figures over the items carrying the tag. */
  readonly tags: ReadonlyArray<{ readonly tag: string } & ProcessFigures>;
}

function rateOf(passed: number, n: number): Rate {
  return { passed, n, rate: n === 0 ? undefined : passed / n };
}

/**
 * The process summary of one column's records, or `undefined` when none carries trajectory metrics.
 * @example
 * summarizeProcess(records)?.executionsPerQuestion // 1.5
 */
export function summarizeProcess(records: readonly ProcessRecordInput[]): ProcessSummary | undefined {
  const graded = records.filter((record) => record.verdict !== 'error' && record.trajectory !== undefined);
  if (graded.length === 0) return undefined;
  const clarify = graded.filter((record) => record.expectedBehavior === 'clarify');
  const clear = graded.filter((record) => record.expectedBehavior === 'answer');
  const tagNames = [...new Set(graded.flatMap((record) => record.tags))].sort();
  return {
    ...figuresOf(graded),
    clarifyAsked: rateOf(clarify.filter((record) => record.output === 'declined:clarify').length, clarify.length),
    clarifyGuessed: rateOf(clarify.filter((record) => record.output === 'sql').length, clarify.length),
    overAsking: rateOf(clear.filter((record) => (record.trajectory?.['clarifications'] ?? 0) > 0).length, clear.length),
    tags: tagNames.map((tag) => ({ tag, ...figuresOf(graded.filter((record) => record.tags.includes(tag))) })),
  };
}

function figuresOf(records: readonly ProcessRecordInput[]): ProcessFigures {
  const sum = (name: string, list: readonly ProcessRecordInput[] = records): number => list.reduce((total, record) => total + (record.trajectory?.[name] ?? 0), 0);
  const mean = (name: string): number | undefined => (records.length === 0 ? undefined : sum(name) / records.length);
  const initialErrors = records.filter((record) => record.verdict !== 'unscored' && (record.trajectory?.['initialError'] ?? 0) > 0);
  return {
    items: records.length,
    executionsPerQuestion: mean('executions'),
    schemaCallsPerQuestion: mean('schemaCalls'),
    stepsPerQuestion: mean('steps'),
    failedExecutions: sum('failedExecutions'),
    errorRecovery: rateOf(initialErrors.filter((record) => record.endToEnd === 1).length, initialErrors.length),
    rowsScanned: sum('rowsScanned'),
    bytesScanned: sum('bytesScanned'),
    unmeasuredProbes: sum('unmeasured'),
    overBudget: records.filter((record) => (record.trajectory?.['overBudget'] ?? 0) > 0).length,
  };
}
