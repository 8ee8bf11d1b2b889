/**
 * The shape every rung returns. A rung is a pure async function from its inputs to a
 * `RungResult`; adapters (promptfoo assertions, vitest matchers, the CLI) only translate it.
 *
 * Rung ids and the promptfoo `namedScores` keys they map to:
 * | rung id            | ladder step | named score        | gate? |
 * |--------------------|-------------|--------------------|-------|
 * | `syntax`           | L1          | `L1_syntax`        | yes   |
 * | `schema`           | L2          | `L2_schema`        | yes   |
 * | `safety`           | L3          | `L3_safety`        | yes   |
 * | `execution`        | L4          | `L4_execution`     | no    |
 * | `semantic`         | L5          | `L5_semantic`      | no    |
 * | `efficiency`       | L6          | `L6_efficiency`    | no    |
 * | `answer`           | L7          | `L7_answer`        | no    |
 * | diagnostics (`components`, `exactMatch`, `astDistance`, `schemaLinking`, `resultSimilarity`) | — | their own keys | never |
 */

import { escapeControls } from '../format.js';

/**
 * The ladder's rungs, in the order they run. The first three are the gates (see
 * {@link GATE_IDS}); the rest execute. Adding a rung: its id here (in ladder order), its named
 * score in {@link LADDER_SCORE_NAMES}, and its entry in the typed table of
 * src/rungs/ladder-rungs.ts — the compiler reports each one that is missing.
 */
export const LADDER_RUNG_IDS = ['syntax', 'schema', 'safety', 'execution', 'semantic', 'efficiency', 'answer'] as const;

/** A rung of the ladder (see {@link LADDER_RUNG_IDS}). */
export type LadderRungId = (typeof LADDER_RUNG_IDS)[number];

/**
 * The gates (L1–L3), in order: static checks of the text. A gate that does not pass keeps the
 * executing rungs from running; L3 judges the text of every statement even when L1 fails.
 */
export const GATE_IDS = ['syntax', 'schema', 'safety'] as const satisfies readonly LadderRungId[];

/** A gate rung (see {@link GATE_IDS}). */
export type GateId = (typeof GATE_IDS)[number];

/** A rung that executes SQL (every ladder rung after the gates). */
export type ExecutingRungId = Exclude<LadderRungId, GateId>;

/** Diagnostics: graded, reported, never gates. */
export const DIAGNOSTIC_IDS = ['components', 'exactMatch', 'astDistance', 'schemaLinking', 'resultSimilarity'] as const;

/** A diagnostic (see {@link DIAGNOSTIC_IDS}). */
export type DiagnosticId = (typeof DIAGNOSTIC_IDS)[number];

/** Every rung id: the ladder's rungs and the diagnostics. */
export type RungId = LadderRungId | DiagnosticId;

/** True for a gate id (L1–L3). */
export function isGateId(rung: RungId): rung is GateId {
  return (GATE_IDS as readonly RungId[]).includes(rung);
}

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

/** The named score key each ladder rung reports under (see the table above). */
export const LADDER_SCORE_NAMES = {
  syntax: 'L1_syntax',
  schema: 'L2_schema',
  safety: 'L3_safety',
  execution: 'L4_execution',
  semantic: 'L5_semantic',
  efficiency: 'L6_efficiency',
  answer: 'L7_answer',
} as const satisfies Record<LadderRungId, string>;

/** The named-score key of a rung: `L1_syntax` … for ladder rungs, the rung id for diagnostics. */
export function scoreNameOf(rung: RungId): string {
  return (LADDER_SCORE_NAMES as Partial<Record<RungId, string>>)[rung] ?? rung;
}

/** Builds a RungResult with empty issues / namedScores defaults. */
export function createRungResult<D>(
  fields: Pick<RungResult<D>, 'rung' | 'status' | 'reason' | 'details'> &
    Partial<Pick<RungResult<D>, 'score' | 'issues' | 'namedScores'>>,
): RungResult<D> {
  const score = fields.score ?? (fields.status === 'pass' ? 1 : 0);
  // Reasons and issues quote the model's SQL and the database's values: no control character
  // reaches a terminal, a report or promptfoo's table as it is.
  const issues = (fields.issues ?? []).map((issue) => (escapeControls(issue.message) === issue.message ? issue : { ...issue, message: escapeControls(issue.message) }));
  return Object.freeze({
    rung: fields.rung,
    status: fields.status,
    score,
    reason: escapeControls(fields.reason),
    issues,
    namedScores: fields.namedScores ?? {},
    details: fields.details,
  });
}

/** Builds a `skipped` RungResult whose reason names what stopped it. */
export function createSkippedResult(rung: RungId, reason: string): RungResult<null> {
  return createRungResult({ rung, status: 'skipped', reason, details: null, score: 0 });
}
