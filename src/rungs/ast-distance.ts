/**
 * Diagnostic rung `astDistance` (*Text-to-SQL Evals* §4.3 and §4.4): Zhang–Shasha tree edit distance
 * between the normalized trees of the predicted and gold queries, similarity
 * `1 − edits / max(nodes_gold, nodes_pred)`, and token Jaccard over the normalized texts.
 *
 * Read with care: structural similarity correlates weakly with correctness. A one-node change
 * (`>` to `>=`, LEFT to INNER JOIN) can flip the meaning while scoring close to 1, and a rewrite
 * that keeps the meaning exactly (subquery to CTE) can score low. Never a gate.
 */
import { BUDGET_REASON, withinAnalysisBudget } from '../sql/analysis-budget.js';
import type { Dialect } from '../sql/parse.js';
import { normalizeSql } from '../sql/normalize.js';
import { editDistanceSteps, toLabelledTree, tokenJaccard, treeEditDistance, treeSize } from '../sql/tree-edit-distance.js';
import { createRungResult, createSkippedResult, type RungResult } from './rung-result.js';

/** Inputs of {@link scoreAstDistance}. */
export interface AstDistanceInput {
  readonly predictedSql: string;
  readonly goldSqls: readonly string[];
  readonly dialect: Dialect;
  /** Columns per table (e.g. `columnsByTableOf(catalog)`), to qualify bare columns. */
  readonly columnsByTable?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Details of an `astDistance` result (for the gold with the highest similarity; first on ties). */
export interface AstDistanceDetails {
  readonly goldIndex: number;
  /** Unit-cost edits (insert, delete, relabel) between the normalized trees. */
  readonly edits: number;
  readonly goldNodes: number;
  readonly predictedNodes: number;
  /** `1 − edits / max(goldNodes, predictedNodes)`, in [0, 1]. */
  readonly similarity: number;
  /** Token Jaccard over the normalized texts, in [0, 1]. */
  readonly tokenJaccard: number;
  readonly unreadableGolds: readonly { readonly index: number; readonly reason: string }[];
}

/**
 * Structural similarity of the predicted query to its closest gold.
 *
 * @returns `astDistance` RungResult: `score` = similarity; `namedScores` `ast_similarity`,
 *   `token_jaccard`; `status` pass when the trees are identical (0 edits), else fail. `skipped`
 *   when the predicted SQL or every gold cannot be parsed, or the comparison is over a budget
 *   ({@link MAX_EDIT_DISTANCE_PAIRS}, {@link MAX_EDIT_DISTANCE_STEPS}, or the size, depth and time budgets of
 *   src/sql/analysis-budget.ts; the reason then says "not analysed within budget").
 * @example
 * // 'SELECT a FROM t WHERE x > 1' vs 'SELECT a FROM t WHERE x >= 1': 1 relabel of 10 nodes, similarity 0.9
 */
export function scoreAstDistance(input: AstDistanceInput): RungResult<AstDistanceDetails | null> {
  const scored = withinAnalysisBudget(() => astDistanceOf(input));
  return scored.ok ? scored.value : (createSkippedResult('astDistance', scored.reason) as RungResult<null>);
}

/**
 * Most node pairs (gold nodes × predicted nodes) the edit distance compares: its two tables
 * hold one 8-byte number per pair, so this caps them at about 64 MB.
 */
export const MAX_EDIT_DISTANCE_PAIRS = 4_000_000;

/** Most inner steps of the edit distance (`editDistanceSteps`): about 1 s (90 000 steps per ms measured; two 1 800-node trees take 32 million). */
export const MAX_EDIT_DISTANCE_STEPS = 100_000_000;

function astDistanceOf(input: AstDistanceInput): RungResult<AstDistanceDetails | null> {
  const normalizeOptions = input.columnsByTable ? { columnsByTable: input.columnsByTable } : {};
  const predicted = normalizeSql(input.predictedSql, input.dialect, normalizeOptions);
  if (!predicted.ok) return createSkippedResult('astDistance', `predicted SQL: ${predicted.reason}`) as RungResult<null>;
  const predictedTree = toLabelledTree(predicted.tree);
  const predictedNodes = treeSize(predictedTree);
  const unreadable: { index: number; reason: string }[] = [];
  let best: AstDistanceDetails | undefined;
  input.goldSqls.forEach((goldSql, index) => {
    const gold = normalizeSql(goldSql, input.dialect, normalizeOptions);
    if (!gold.ok) {
      unreadable.push({ index, reason: gold.reason });
      return;
    }
    const goldTree = toLabelledTree(gold.tree);
    const goldNodes = treeSize(goldTree);
    if (goldNodes * predictedNodes > MAX_EDIT_DISTANCE_PAIRS) {
      unreadable.push({ index, reason: `${BUDGET_REASON}: ${goldNodes} × ${predictedNodes} nodes; the edit distance compares at most ${MAX_EDIT_DISTANCE_PAIRS} node pairs` });
      return;
    }
    const steps = editDistanceSteps(goldTree, predictedTree);
    if (steps > MAX_EDIT_DISTANCE_STEPS) {
      unreadable.push({ index, reason: `${BUDGET_REASON}: the edit distance would take ${steps} steps; it takes at most ${MAX_EDIT_DISTANCE_STEPS}` });
      return;
    }
    const edits = treeEditDistance(goldTree, predictedTree);
    const similarity = Math.max(0, 1 - edits / Math.max(goldNodes, predictedNodes));
    if (!best || similarity > best.similarity) {
      best = { goldIndex: index, edits, goldNodes, predictedNodes, similarity, tokenJaccard: tokenJaccard(gold.text, predicted.text), unreadableGolds: [] };
    }
  });
  if (!best) {
    const why = unreadable.map((u) => `gold ${u.index}: ${u.reason}`).join('; ') || 'no gold SQL given';
    return createSkippedResult('astDistance', `no readable gold SQL (${why})`) as RungResult<null>;
  }
  const details: AstDistanceDetails = { ...best, unreadableGolds: unreadable };
  return createRungResult({
    rung: 'astDistance',
    status: details.edits === 0 ? 'pass' : 'fail',
    score: details.similarity,
    reason: `${details.edits} edit(s) to gold ${details.goldIndex} (${details.goldNodes} vs ${details.predictedNodes} nodes): similarity ${details.similarity.toFixed(3)}, token Jaccard ${details.tokenJaccard.toFixed(3)}`,
    namedScores: { ast_similarity: details.similarity, token_jaccard: details.tokenJaccard },
    details,
  });
}
