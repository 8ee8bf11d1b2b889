/**
 * A {@link LadderResult} as a promptfoo GradingResult.
 *
 * - `pass`: the verdict is `pass`. An unscored item (no gold SQL, no gold that runs on every
 *   snapshot) fails its row with the reason `… unscored: …`, so the viewer never shows an unchecked
 *   item as a green PASS; it adds nothing to any named score, and the summary counts it unscored,
 *   never 0 (see adapter.ts on why).
 * - `score`: `end_to_end` (0 when unscored).
 * - `reason`: the ladder's one line (deciding rung, its reason, the skipped rungs by name).
 * - `namedScores`: `L1_syntax` … for EVERY rung the ladder has switched on (`scoreNames`), on
 *   every row: 1 for a pass, 0 for a fail and 0 for a rung the item did not reach (skipped, not
 *   listed, or a declining item's rungs), its reason in `graderOutputs`. promptfoo 0.121's column
 *   header divides each column's sums by the first column's counts, so every column must count the
 *   same rows: the header then reads "passed of all items" in every column. An unscored rung
 *   (no gold) is left out, as is `end_to_end` for an unscored item. The conditional rate ("passed of
 *   the items that reached the rung") is the ladder summary's.
 * - `componentResults`: one per rung that ran, each with its own `assertion`
 *   (`{type: 'javascript', value: 'text2sql-ladder ladder rung L2_schema'}`) so that no child
 *   inherits the parent's metric.
 * - `metadata.text2sqlLadder`: the stored ladder record (src/report/ladder-record.ts, every rung's
 *   details); `graderOutputs`: one
 *   line per rung, shown in the viewer's Evaluation tab. The afterEach extension copies both into
 *   the row metadata (Metadata tab).
 */
import type { LadderResult } from '../rungs/ladder.js';
import type { ExecutionFacts } from '../rungs/ladder-rungs.js';
import type { RungStatus } from '../rungs/rung-result.js';
import { OPTIONAL_RUNG_IDS, LADDER_RUNG_IDS, END_TO_END, SCORES, scoreNameOf, type OptionalRungId } from '../rungs/scores.js';
import { toLadderRecord, type JudgeRecord, type LadderRecord } from '../report/ladder-record.js';
import { oneLine } from './adapter.js';
import type { GradingResult } from './adapter.js';

/** What `metadata.text2sqlLadder` holds for the ladder assertion: the stored ladder record. */
export type LadderMetadata = LadderRecord;

/** Options of {@link toLadderGradingResult}. */
export interface LadderGradingOptions {
  readonly id: string;
  readonly snapshots: readonly string[];
  readonly facts: ExecutionFacts;
  /** `assertion.value` prefix of the components. Default `text2sql-ladder ladder rung`. */
  readonly componentPrefix?: string;
  /**
   * Every named score the ladder reports on every row (the switched-on rungs, see
   * `ladderScoreNames`); a rung the item did not reach scores 0. Default: the rungs in the result.
   */
  readonly scoreNames?: readonly string[];
  /** The item's role, kept in the record. */
  readonly role?: string;
  /**
   * The equivalence judge's record, when the judge step ran (`result` is then the ladder's result
   * under the judge: a counted verdict may have changed `end_to_end`). Adds the named score
   * `judge` (1 for the outcome `pass`, else 0) when the verdict counts, its line in
   * `graderOutputs`, and `judge: …` to the reason.
   */
  readonly judge?: JudgeRecord;
}

/**
 * The named scores of a ladder run, in ladder order: every rung that is always on, and each
 * optional rung (L5, L6, L7; the score table's) that `on` switches on.
 */
export function ladderScoreNames(on: { readonly [K in OptionalRungId]?: boolean }): string[] {
  return LADDER_RUNG_IDS.filter((id) => !(OPTIONAL_RUNG_IDS as readonly string[]).includes(id) || on[id as OptionalRungId] === true).map((id) => SCORES[id].scoreName);
}

/** The named score of the equivalence judge's verdict (counted verdicts only). */
export const JUDGE_SCORE = 'judge';

/** Builds the GradingResult (see the module doc). */
export function toLadderGradingResult(result: LadderResult, options: LadderGradingOptions): GradingResult {
  const namedScores: Record<string, number> = {};
  const componentResults: GradingResult[] = [];
  const graderOutputs: Record<string, string> = {};
  const statuses: Record<string, RungStatus> = {};
  const prefix = options.componentPrefix ?? 'text2sql-ladder ladder rung';
  for (const rung of result.rungs) {
    const name = scoreNameOf(rung.rung);
    statuses[name] = rung.status;
    graderOutputs[name] = `${rung.status}: ${oneLine(rung.reason)}`;
    if (rung.status === 'skipped') namedScores[name] = 0;
    if (rung.status !== 'pass' && rung.status !== 'fail') continue;
    namedScores[name] = rung.score;
    componentResults.push({
      pass: rung.status === 'pass',
      score: rung.score,
      reason: `${name} ${rung.status}: ${oneLine(rung.reason)}`,
      assertion: { type: 'javascript', value: `${prefix} ${name}` },
    });
  }
  // Rungs switched on that this item never listed (L7 without prose, a declining item's rungs).
  for (const name of options.scoreNames ?? []) {
    if (name in statuses) continue;
    statuses[name] = 'skipped';
    namedScores[name] = 0;
    graderOutputs[name] = `skipped: ${notReachedReason(name, result)}`;
  }
  if (result.endToEnd !== undefined) namedScores[END_TO_END] = result.endToEnd;
  graderOutputs[END_TO_END] = result.endToEnd === undefined ? 'unscored' : String(result.endToEnd);
  const judge = options.judge;
  if (judge !== undefined) {
    graderOutputs[JUDGE_SCORE] = oneLine(judge.reason);
    if (judge.calibrated === true && judge.state !== 'judge_error') namedScores[JUDGE_SCORE] = judge.state === 'pass' ? 1 : 0;
  }
  const record = toLadderRecord(result, { id: options.id, snapshots: options.snapshots, facts: options.facts, statuses, ...(options.role !== undefined ? { role: options.role } : {}) });
  const metadata = judge !== undefined ? { ...record, judge } : record;
  return {
    pass: result.verdict === 'pass',
    score: result.endToEnd ?? 0,
    reason: oneLine(judge !== undefined && judge.asked === true ? `${result.reason}; judge: ${judge.reason}` : result.reason),
    namedScores,
    componentResults,
    metadata: { text2sqlLadder: metadata, graderOutputs },
  };
}

/** Why a switched-on rung is absent from a result. */
function notReachedReason(name: string, result: LadderResult): string {
  if (result.expectedBehavior !== 'answer') return `${result.expectedBehavior} item: nothing executes`;
  if (name === scoreNameOf('answer')) return 'the output has no prose answer';
  return 'not reached';
}
