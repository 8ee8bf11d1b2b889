/**
 * The prediction as it ran on each snapshot: column names and rows by position, or the error. L4
 * records these in its details so that later rungs (L7 answer grounding) and the matchers' table
 * diffs read the rows the policy's rewrites produced, without running the query again.
 */
import type { DoubleQuoteMode, Engine, ExecutionError, ExecutionOutcome, Row } from '../engine/engine.js';
import { LadderError } from '../errors.js';
import type { Snapshot } from '../fixtures/snapshot.js';

/** The prediction on one snapshot. */
export type PredictedRun =
  | { readonly snapshot: string; readonly ok: true; readonly columns: readonly string[]; readonly rows: readonly Row[] }
  | { readonly snapshot: string; readonly ok: false; readonly error: ExecutionError };

/** Pairs each snapshot with the prediction's outcome on it (same order). */
export function predictedRunsOf(snapshots: readonly Snapshot[], outcomes: readonly ExecutionOutcome[]): PredictedRun[] {
  return snapshots.map((snapshot, index) => {
    const outcome = outcomes[index]!;
    return outcome.ok
      ? { snapshot: snapshot.name, ok: true, columns: outcome.result.columns, rows: outcome.result.rows }
      : { snapshot: snapshot.name, ok: false, error: outcome.error };
  });
}

/**
 * A database file that does not exist is misuse (a wrong path in a config or a test), not a
 * failure of the gold or the prediction.
 * @param outcomes - per query, one outcome per snapshot (same order as `snapshots`).
 * @throws LadderError `db_not_found` naming the snapshot and its path.
 */
export function throwMissingDatabase(snapshots: readonly Snapshot[], outcomes: readonly (readonly ExecutionOutcome[])[]): void {
  for (const perSnapshot of outcomes) {
    perSnapshot.forEach((outcome, index) => {
      if (!outcome.ok && outcome.error.code === 'db_not_found') {
        const snapshot = snapshots[index]!;
        throw new LadderError('db_not_found', `snapshot ${snapshot.name}: database ${snapshot.path} does not exist (it is never created)`);
      }
    });
  }
}

/**
 * Runs the predicted SQL (as given: apply the policy's rewrites first) on every snapshot, for an
 * item without gold, so that its rows are known to later rungs.
 * @throws LadderError `db_not_found` as {@link throwMissingDatabase}.
 */
export async function runPrediction(
  engine: Engine,
  snapshots: readonly Snapshot[],
  sql: string,
  request: { readonly timeoutMs?: number; readonly doubleQuotes?: DoubleQuoteMode } = {},
): Promise<PredictedRun[]> {
  const outcomes = await Promise.all(snapshots.map((snapshot) => engine.execute({ db: snapshot.path, sql, ...request })));
  throwMissingDatabase(snapshots, [outcomes]);
  return predictedRunsOf(snapshots, outcomes);
}
