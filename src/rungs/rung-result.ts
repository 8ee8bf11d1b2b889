/**
 * The shape every rung returns. A rung is a pure async function from its inputs to a
 * `RungResult`; adapters (promptfoo assertions, vitest matchers, the CLI) only translate it.
 * Rung ids, their steps, named scores and labels are the score table's (src/rungs/scores.ts).
 */
import { DIAGNOSTIC_IDS, GATE_IDS, LADDER_RUNG_IDS, LADDER_SCORE_NAMES, isGateId, scoreNameOf } from './scores.js';
import type { DiagnosticId, ExecutingRungId, GateId, LadderRungId } from './scores.js';
import { escapeControls } from '../format.js';

export { DIAGNOSTIC_IDS, GATE_IDS, LADDER_RUNG_IDS, LADDER_SCORE_NAMES, isGateId, scoreNameOf };
export type { DiagnosticId, ExecutingRungId, GateId, LadderRungId };

/** Every rung id: the ladder's rungs and the diagnostics. */
export type RungId = LadderRungId | DiagnosticId;

/**
 * - `pass` / `fail`: the rung ran and decided.
 * - `skipped`: the rung did not run (an earlier gate failed, or its inputs are absent); `reason`
 *   says why. A skipped rung is never counted as passed or failed.
 * - `unscored`: the rung ran but the item cannot be scored (e.g. no gold runs on every snapshot:
 *   `gold_error`; an `answer` item without gold). Counted apart, never as 0.
 */
export type RungStatus = 'pass' | 'fail' | 'skipped' | 'unscored';

/** A positioned problem found by a rung (1-based line and column in the SQL text). */
export interface RungIssue {
  /** Stable kind, e.g. `unknown_column`, `write_statement`, `blocked_function`. */
  readonly kind: string;
  /** One line for a person. */
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
  /** Suggested replacement, e.g. a did-you-mean identifier. */
  readonly suggestion?: string;
}

/**
 * The result of one rung on one item.
 * @typeParam D - the rung's machine-readable details (column map, missing rows, plan features …).
 */
export interface RungResult<D = unknown> {
  readonly rung: RungId;
  readonly status: RungStatus;
  /** 1 for pass; 0 for fail; for graded diagnostics a value in [0, 1]. Absent score = not counted. */
  readonly score: number;
  /** One line that explains the verdict, e.g. `snapshot edge: 2 missing rows, 1 extra row`. */
  readonly reason: string;
  /** Positioned problems (empty when none). */
  readonly issues: readonly RungIssue[];
  /** Extra named scores this rung contributes (diagnostics use several), all in [0, 1]. */
  readonly namedScores: Readonly<Record<string, number>>;
  /** Machine-readable details; shape documented by each rung. */
  readonly details: D;
}

/** Builds a RungResult with empty issues / namedScores defaults. */
export function createRungResult<D>(
  fields: Pick<RungResult<D>, 'rung' | 'status' | 'reason' | 'details'> &
    Partial<Pick<RungResult<D>, 'score' | 'issues' | 'namedScores'>>,
): RungResult<D> {
  const score = fields.score ?? (fields.status === 'pass' ? 1 : 0);
  // Reasons and issues quote the model's SQL and the database's values: no control character
  // reaches a terminal, a report or promptfoo's table as it is. A newline stays (a reason's hint
  // line; the front ends fold it to a space with oneLine).
  const escape = (text: string): string => escapeControls(text, { keepNewlines: true });
  const issues = (fields.issues ?? []).map((issue) => (escape(issue.message) === issue.message ? issue : { ...issue, message: escape(issue.message) }));
  return Object.freeze({
    rung: fields.rung,
    status: fields.status,
    score,
    reason: escape(fields.reason),
    issues,
    namedScores: fields.namedScores ?? {},
    details: fields.details,
  });
}

/** Builds a `skipped` RungResult whose reason names what stopped it. */
export function createSkippedResult(rung: RungId, reason: string): RungResult<null> {
  return createRungResult({ rung, status: 'skipped', reason, details: null, score: 0 });
}
