/**
 * Diagnostic rung `components`: clause-level F1 between the predicted and the gold query
 * (*Text-to-SQL Evals* §4.2), plus Spider's official partial-match components. Never a gate.
 */
import type { Dialect } from '../sql/parse.js';
import { SPIDER_COMPONENT_NAMES, extractSpiderUnits, type SpiderComponentName, type SpiderUnits } from '../benchmarks/spider/spider-units.js';
import { CLAUSE_NAMES, extractClauseComponents, type ClauseComponentOptions, type ClauseComponents, type ClauseName } from '../sql/components.js';
import { createRungResult, createSkippedResult, type RungResult } from './rung-result.js';

/** Counts behind one component's F1 (kept so that datasets can be micro-averaged). */
export interface ComponentScore {
  /** F1 in [0, 1]; 1 when both sides are empty. */
  readonly f1: number;
  readonly precision: number;
  readonly recall: number;
  /** Items in the gold / predicted multiset, and items matched (multiset intersection size). */
  readonly gold: number;
  readonly predicted: number;
  readonly matched: number;
}

/**
 * F1 between two multisets of item texts (*Text-to-SQL Evals* §4.2):
 * P = |G ∩ P| / |P|, R = |G ∩ P| / |G|, F1 = 2PR / (P + R); F1 = 1 when both are empty, 0 when
 * nothing matches. The intersection is a multiset one (an item matches at most as often as it
 * occurs on both sides). P (R) is 1 when the predicted (gold) side is empty and the other is too.
 */
export function multisetF1(gold: readonly string[], predicted: readonly string[]): ComponentScore {
  const matched = multisetIntersectionSize(gold, predicted);
  if (gold.length === 0 && predicted.length === 0) return { f1: 1, precision: 1, recall: 1, gold: 0, predicted: 0, matched: 0 };
  const precision = predicted.length === 0 ? 0 : matched / predicted.length;
  const recall = gold.length === 0 ? 0 : matched / gold.length;
  const f1 = matched === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall, gold: gold.length, predicted: predicted.length, matched };
}

/** Size of the multiset intersection of two lists of strings. */
export function multisetIntersectionSize(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const item of a) counts.set(item, (counts.get(item) ?? 0) + 1);
  let matched = 0;
  for (const item of b) {
    const left = counts.get(item) ?? 0;
    if (left > 0) {
      matched += 1;
      counts.set(item, left - 1);
    }
  }
  return matched;
}

/**
 * One Spider component on one item, as the script's `get_scores(count, pred_total, label_total)`:
 * 0 when the totals differ, 1 when `count == pred_total`, else 0 (all-or-nothing per item).
 */
export interface SpiderComponentScore {
  readonly score: 0 | 1;
  readonly labelTotal: number;
  readonly predTotal: number;
  readonly count: number;
}

function spiderScore(labelTotal: number, predTotal: number, count: number): SpiderComponentScore {
  const score = predTotal !== labelTotal ? 0 : count === predTotal ? 1 : 0;
  return { score, labelTotal, predTotal, count };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/**
 * Spider's partial-match components for one (gold, predicted) pair, following
 * taoyds/spider `evaluation.py` (`eval_sel`, `eval_where`, `eval_group`, `eval_having`,
 * `eval_order`, `eval_and_or`, `eval_IUEN`, `eval_keywords`, `get_scores`).
 */
export function scoreSpiderComponents(gold: SpiderUnits, predicted: SpiderUnits): Readonly<Record<SpiderComponentName, SpiderComponentScore>> {
  const groupTotal = (u: SpiderUnits): number => (u.groupKeys.length > 0 ? 1 : 0);
  const orderTotal = (u: SpiderUnits): number => (u.orderBy.length > 0 ? 1 : 0);
  const andOrEqual = sameList(gold.andOr, predicted.andOr);
  let iuenLabel = 0;
  let iuenPred = 0;
  let iuenCount = 0;
  for (const kind of ['intersect', 'except', 'union'] as const) {
    const g = gold.nested[kind];
    const p = predicted.nested[kind];
    if (g !== null) iuenLabel += 1;
    if (p !== null) iuenPred += 1;
    if (g !== null && p !== null && g === p) iuenCount += 1;
  }
  return {
    select: spiderScore(gold.select.length, predicted.select.length, multisetIntersectionSize(gold.select, predicted.select)),
    select_no_agg: spiderScore(gold.select.length, predicted.select.length, multisetIntersectionSize(gold.selectNoAgg, predicted.selectNoAgg)),
    where: spiderScore(gold.where.length, predicted.where.length, multisetIntersectionSize(gold.where, predicted.where)),
    where_no_op: spiderScore(gold.where.length, predicted.where.length, multisetIntersectionSize(gold.whereNoOp, predicted.whereNoOp)),
    group_no_having: spiderScore(gold.groupColumns.length, predicted.groupColumns.length, multisetIntersectionSize(gold.groupColumns, predicted.groupColumns)),
    group: spiderScore(
      groupTotal(gold),
      groupTotal(predicted),
      groupTotal(gold) === 1 && groupTotal(predicted) === 1 && sameList(gold.groupKeys, predicted.groupKeys) && sameList(gold.having, predicted.having) ? 1 : 0,
    ),
    order: spiderScore(
      orderTotal(gold),
      orderTotal(predicted),
      orderTotal(gold) === 1 && sameList(gold.orderBy, predicted.orderBy) && gold.hasLimit === predicted.hasLimit ? 1 : 0,
    ),
    and_or: andOrEqual ? spiderScore(1, 1, 1) : spiderScore(gold.andOr.length, predicted.andOr.length, 0),
    iuen: spiderScore(iuenLabel, iuenPred, iuenCount),
    keywords: spiderScore(gold.keywords.length, predicted.keywords.length, multisetIntersectionSize(gold.keywords, predicted.keywords)),
  };
}

/** Inputs of {@link scoreComponents}. */
export interface ComponentsInput {
  readonly predictedSql: string;
  /** One or more gold queries; the best-scoring one is reported. */
  readonly goldSqls: readonly string[];
  readonly dialect: Dialect;
  /** See {@link ClauseComponentOptions.aliasResolution}; default `resolve`. */
  readonly aliasResolution?: ClauseComponentOptions['aliasResolution'];
  /** Columns per table (e.g. `columnsByTableOf(catalog)`), to qualify bare columns. */
  readonly columnsByTable?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Details of a `components` result. */
export interface ComponentsDetails {
  /** Index in `goldSqls` of the gold compared (the one with the highest mean clause F1; first on ties). */
  readonly goldIndex: number;
  /** Per clause: F1 with its counts and both item lists. */
  readonly clauses: Readonly<Record<ClauseName, ComponentScore & { readonly goldItems: readonly string[]; readonly predictedItems: readonly string[] }>>;
  /** Spider's components for the same gold, or null when Spider units could not be built. */
  readonly spider: Readonly<Record<SpiderComponentName, SpiderComponentScore>> | null;
  /** Golds that could not be read, with the reason. */
  readonly unreadableGolds: readonly { readonly index: number; readonly reason: string }[];
}

/**
 * Scores clause components of the predicted query against every gold and keeps the best gold.
 *
 * @returns `components` RungResult: `score` = mean clause F1 over the eight clauses; `status`
 *   `pass` when every clause F1 is 1, else `fail` (diagnostic only, never a gate); `namedScores`
 *   `components_<clause>` (F1, rounded to 4 places) and `spider_<component>` (0/1, only for
 *   components present on either side, as Spider counts them). `skipped` with a reason when the
 *   predicted query or every gold cannot be parsed.
 * @example
 * // *Text-to-SQL Evals* §4.2: where 0.67 (one of two gold predicates), order_by 1.0 (alias resolved)
 */
export function scoreComponents(input: ComponentsInput): RungResult<ComponentsDetails | null> {
  const options: ClauseComponentOptions = {
    ...(input.aliasResolution ? { aliasResolution: input.aliasResolution } : {}),
    ...(input.columnsByTable ? { columnsByTable: input.columnsByTable } : {}),
  };
  const predicted = extractClauseComponents(input.predictedSql, input.dialect, options);
  if (!predicted.ok) return createSkippedResult('components', `predicted SQL: ${predicted.reason}`) as RungResult<null>;
  const unreadable: { index: number; reason: string }[] = [];
  let best: { index: number; components: ClauseComponents; mean: number; scores: Record<ClauseName, ComponentScore> } | undefined;
  input.goldSqls.forEach((goldSql, index) => {
    const gold = extractClauseComponents(goldSql, input.dialect, options);
    if (!gold.ok) {
      unreadable.push({ index, reason: gold.reason });
      return;
    }
    const scores = Object.fromEntries(CLAUSE_NAMES.map((c) => [c, multisetF1(gold.components[c], predicted.components[c])])) as Record<ClauseName, ComponentScore>;
    const mean = CLAUSE_NAMES.reduce((sum, c) => sum + scores[c].f1, 0) / CLAUSE_NAMES.length;
    if (!best || mean > best.mean) best = { index, components: gold.components, mean, scores };
  });
  if (!best) {
    const why = unreadable.map((u) => `gold ${u.index}: ${u.reason}`).join('; ') || 'no gold SQL given';
    return createSkippedResult('components', `no readable gold SQL (${why})`) as RungResult<null>;
  }
  const chosen = best;
  const clauses = Object.fromEntries(
    CLAUSE_NAMES.map((c) => [c, { ...chosen.scores[c], goldItems: chosen.components[c], predictedItems: predicted.components[c] }]),
  ) as ComponentsDetails['clauses'];
  const goldUnits = extractSpiderUnits(input.goldSqls[chosen.index]!, input.dialect, options);
  const predictedUnits = extractSpiderUnits(input.predictedSql, input.dialect, options);
  const spider = goldUnits.ok && predictedUnits.ok ? scoreSpiderComponents(goldUnits.components, predictedUnits.components) : null;
  const namedScores: Record<string, number> = {};
  for (const c of CLAUSE_NAMES) namedScores[`components_${c}`] = round4(clauses[c].f1);
  if (spider) {
    for (const name of SPIDER_COMPONENT_NAMES) {
      const s = spider[name];
      if (s.labelTotal > 0 || s.predTotal > 0) namedScores[`spider_${name}`] = s.score;
    }
  }
  const imperfect = CLAUSE_NAMES.filter((c) => clauses[c].f1 < 1);
  const reason =
    imperfect.length === 0
      ? `every clause matches gold ${chosen.index}`
      : `clauses below 1 against gold ${chosen.index}: ${imperfect.map((c) => `${c} ${clauses[c].f1.toFixed(2)}`).join(', ')}`;
  return createRungResult({
    rung: 'components',
    status: imperfect.length === 0 ? 'pass' : 'fail',
    score: chosen.mean,
    reason,
    namedScores,
    details: { goldIndex: chosen.index, clauses, spider, unreadableGolds: unreadable },
  });
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
