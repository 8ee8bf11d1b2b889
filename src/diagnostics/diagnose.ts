/**
 * Per-item diagnostics as one flat row (for the Spider CLI's `--diagnostics` JSONL and its
 * summary), and their dataset averages. Diagnostics never gate: they explain where a prediction
 * went wrong (*Text-to-SQL Evals* §4 and §8; *Redefining text-to-SQL metrics*).
 *
 * Row keys (always present; `null` when not computed):
 * - `components_<clause>` for select, from, where, group_by, having, order_by, limit, set_ops
 *   (clause F1, ../rungs/components.ts), `components_mean`, and the counts
 *   `components_<clause>_n_gold`, `_n_pred`, `_n_matched` for micro averages;
 * - `spider_<component>` for select, select_no_agg, where, where_no_op, group_no_having, group,
 *   order, and_or, iuen, keywords: Spider's per-item 0/1 (`null` when neither side has it);
 * - `exact_match_raw`, `exact_match_normalized` (0/1);
 * - `ast_similarity`, `ast_edits`, `token_jaccard`;
 * - `schema_table_recall`, `schema_column_recall`, `schema_all_tables_hit`, `schema_precision`,
 *   `schema_f1` (against the retrieved list; `null` without one), the same with
 *   `schema_generation_` (against the predicted SQL's tables), `schema_miss_retrieval` and
 *   `schema_miss_generation` (booleans: a gold table was lost there);
 * - `result_table_similarity`, `result_row_precision`, `result_row_recall`, `result_row_f1`,
 *   `query_affinity` (need `engine` and `db`);
 * With `engine` and `db`, the database's catalog qualifies bare columns before comparing
 * (NormalizeOptions.columnsByTable), so `name` and `singer.name` agree in a join.
 *
 * - `<family>_skipped` (boolean) for components, exact_match, ast, schema, result: true when that
 *   diagnostic could not run; {@link runDiagnostics} returns the RungResults with the reasons.
 *   Each diagnostic runs under the analysis budget (src/sql/analysis-budget.ts: size, tree depth,
 *   time): over it, it is skipped with a reason starting "not analysed within budget".
 */
import type { Engine, QueryResult } from '../engine/engine.js';
import type { Dialect } from '../sql/parse.js';
import { SPIDER_COMPONENT_NAMES } from '../benchmarks/spider/spider-units.js';
import { CLAUSE_NAMES, extractClauseComponents } from '../sql/components.js';
import { columnsByTableOf } from '../sql/normalize.js';
import { scoreComponents, type ComponentsDetails } from '../rungs/components.js';
import { scoreExactMatch } from '../rungs/exact-match.js';
import { scoreAstDistance, type AstDistanceDetails } from '../rungs/ast-distance.js';
import { scoreSchemaLinking, type SchemaLinkingDetails } from '../rungs/schema-linking.js';
import { scoreResultSimilarity } from '../rungs/result-similarity.js';
import { createSkippedResult, type RungId, type RungResult } from '../rungs/rung-result.js';
import { withinAnalysisBudget } from '../sql/analysis-budget.js';

/** One diagnostics row: flat, JSON-friendly. */
export type DiagnosticsRow = Record<string, number | boolean | null>;

/** Inputs of {@link diagnoseItem}. */
export interface DiagnoseInput {
  readonly predictedSql: string;
  /** One or more gold queries; each diagnostic keeps the gold that suits the prediction best. */
  readonly goldSqls: readonly string[];
  readonly dialect: Dialect;
  /** Engine to execute gold and predicted SQL (result similarity, tables read, catalog). */
  readonly engine?: Engine;
  /** Database path for `engine`. */
  readonly db?: string;
  /** Ranked schema elements the provider retrieved (`tables` in its JSON output). */
  readonly retrieved?: readonly string[];
  /** Cut-off for `retrieved` (default: all). */
  readonly k?: number;
  /** QAS weight of the structural part (default 0.5). */
  readonly weight?: number;
}

/** The row plus the RungResults behind it (with reasons and details). */
export interface DiagnosticsRun {
  readonly row: DiagnosticsRow;
  readonly results: readonly RungResult[];
}

/**
 * Runs every diagnostic on one item and flattens the scores into a row (keys in the module doc).
 * @throws LadderError when `engine` is given with a `db` it cannot open (misuse, not model error).
 */
export async function diagnoseItem(input: DiagnoseInput): Promise<DiagnosticsRow> {
  return (await runDiagnostics(input)).row;
}

/** As {@link diagnoseItem}, also returning the RungResults (reasons of skipped diagnostics included). */
export async function runDiagnostics(input: DiagnoseInput): Promise<DiagnosticsRun> {
  const { predictedSql, goldSqls, dialect } = input;
  const row: DiagnosticsRow = {};
  const results: RungResult[] = [];
  const useEngine = input.engine !== undefined && input.db !== undefined;
  const catalog = useEngine ? await input.engine!.catalog(input.db!) : undefined;
  const columnsByTable = catalog ? columnsByTableOf(catalog) : undefined;
  const withColumns = columnsByTable ? { columnsByTable } : {};

  const components = guarded('components', () => scoreComponents({ predictedSql, goldSqls, dialect, ...withColumns }));
  results.push(components);
  row['components_skipped'] = components.status === 'skipped';
  const cd = components.details as ComponentsDetails | null;
  for (const clause of CLAUSE_NAMES) {
    const c = cd?.clauses[clause];
    row[`components_${clause}`] = c ? c.f1 : null;
    row[`components_${clause}_n_gold`] = c ? c.gold : null;
    row[`components_${clause}_n_pred`] = c ? c.predicted : null;
    row[`components_${clause}_n_matched`] = c ? c.matched : null;
  }
  row['components_mean'] = cd ? components.score : null;
  for (const name of SPIDER_COMPONENT_NAMES) {
    const s = cd?.spider?.[name];
    row[`spider_${name}`] = s && (s.labelTotal > 0 || s.predTotal > 0) ? s.score : null;
  }

  const exact = guarded('exactMatch', () => scoreExactMatch({ predictedSql, goldSqls, dialect, ...withColumns }));
  results.push(exact);
  row['exact_match_skipped'] = exact.status === 'skipped';
  row['exact_match_raw'] = exact.status === 'skipped' ? null : exact.namedScores['exact_match_raw'] ?? null;
  row['exact_match_normalized'] = exact.status === 'skipped' ? null : exact.namedScores['exact_match_normalized'] ?? null;

  const ast = guarded('astDistance', () => scoreAstDistance({ predictedSql, goldSqls, dialect, ...withColumns }));
  results.push(ast);
  const ad = ast.details as AstDistanceDetails | null;
  row['ast_skipped'] = ast.status === 'skipped';
  row['ast_similarity'] = ad ? ad.similarity : null;
  row['ast_edits'] = ad ? ad.edits : null;
  row['token_jaccard'] = ad ? ad.tokenJaccard : null;

  let goldTablesRead: (readonly string[] | null)[] | undefined;
  let predictedTablesRead: readonly string[] | null = null;
  if (useEngine && dialect === 'sqlite') {
    goldTablesRead = [];
    for (const sql of goldSqls) {
      const explained = await input.engine!.explain({ db: input.db!, sql });
      goldTablesRead.push(explained.ok ? explained.result.tablesRead : null);
    }
    const explained = await input.engine!.explain({ db: input.db!, sql: predictedSql });
    predictedTablesRead = explained.ok ? explained.result.tablesRead : null;
  }
  const schema = guarded('schemaLinking', () =>
    scoreSchemaLinking({
      goldSqls,
      dialect,
      predictedSql,
      ...(input.retrieved ? { retrieved: input.retrieved } : {}),
      ...(input.k !== undefined ? { k: input.k } : {}),
      ...(catalog ? { catalog } : {}),
      ...(goldTablesRead ? { goldTablesRead } : {}),
      predictedTablesRead,
    }),
  );
  results.push(schema);
  const sd = schema.details as SchemaLinkingDetails | null;
  row['schema_skipped'] = schema.status === 'skipped';
  for (const [prefix, scores] of [['schema_', sd?.retrieval ?? null], ['schema_generation_', sd?.generation ?? null]] as const) {
    row[`${prefix}table_recall`] = scores ? scores.tableRecall : null;
    row[`${prefix}column_recall`] = scores ? scores.columnRecall : null;
    row[`${prefix}all_tables_hit`] = scores ? scores.allTablesHit : null;
    row[`${prefix}precision`] = scores ? scores.precision : null;
    row[`${prefix}f1`] = scores ? scores.f1 : null;
  }
  row['schema_miss_retrieval'] = sd ? sd.misses.some((m) => m.source === 'retrieval') : null;
  row['schema_miss_generation'] = sd ? sd.misses.some((m) => m.source === 'generation') : null;

  const result = useEngine
    ? await resultSimilarityWithEngine({ ...input, engine: input.engine!, db: input.db! })
    : createSkippedResult('resultSimilarity', 'no engine and database given');
  results.push(result);
  row['result_skipped'] = result.status === 'skipped';
  for (const key of ['result_table_similarity', 'result_row_precision', 'result_row_recall', 'result_row_f1', 'query_affinity']) {
    row[key] = result.status === 'skipped' ? null : result.namedScores[key] ?? null;
  }
  return { row, results };
}

/**
 * Result similarity with execution: runs the prediction and every gold on `db`, scores each gold
 * with ../rungs/result-similarity.ts (row order as returned when the gold has an outermost ORDER BY,
 * else sorted; structural part = AST similarity with catalog-qualified columns) and keeps the gold
 * with the best score (QAS, else TS).
 * @returns the `resultSimilarity` RungResult, or `skipped` when no gold executes.
 */
export async function resultSimilarityWithEngine(input: DiagnoseInput & { readonly engine: Engine; readonly db: string }): Promise<RungResult> {
  const { engine, db } = input;
  const columnsByTable = columnsByTableOf(await engine.catalog(db));
  const predicted = await engine.execute({ db, sql: input.predictedSql });
  let best: RungResult | undefined;
  const failures: string[] = [];
  for (const [index, goldSql] of input.goldSqls.entries()) {
    const gold = await engine.execute({ db, sql: goldSql });
    if (!gold.ok) {
      failures.push(`gold ${index}: ${gold.error.code} ${gold.error.message}`);
      continue;
    }
    const ordered = goldHasOrderBy(goldSql, input.dialect);
    const ast = scoreAstDistance({ predictedSql: input.predictedSql, goldSqls: [goldSql], dialect: input.dialect, columnsByTable });
    const scored = guarded('resultSimilarity', () => scoreResultSimilarity({
      gold: gold.result,
      predicted: predicted.ok ? (predicted.result as QueryResult) : null,
      predictedSql: input.predictedSql,
      goldSql,
      dialect: input.dialect,
      ...(ast.status !== 'skipped' ? { structuralSimilarity: ast.score } : {}),
      rowOrder: ordered ? 'as-returned' : 'sorted',
      ...(input.weight !== undefined ? { weight: input.weight } : {}),
    }));
    if (scored.status === 'skipped') {
      failures.push(`gold ${index}: ${scored.reason}`);
      continue;
    }
    if (!best || scored.score > best.score) best = scored;
  }
  return best ?? createSkippedResult('resultSimilarity', `no gold query executed (${failures.join('; ') || 'no gold SQL given'})`);
}

/**
 * Runs one diagnostic under the analysis budget (src/sql/analysis-budget.ts): over it, the
 * diagnostic is `skipped` with a reason starting "not analysed within budget", never a throw.
 */
function guarded(rung: RungId, score: () => RungResult): RungResult {
  const outcome = withinAnalysisBudget(score);
  return outcome.ok ? outcome.value : createSkippedResult(rung, outcome.reason);
}

/** True when the gold's outermost query has ORDER BY (then row order is compared as returned). */
function goldHasOrderBy(sql: string, dialect: Dialect): boolean {
  const components = extractClauseComponents(sql, dialect);
  return components.ok ? components.components.order_by.length > 0 : /\border\s+by\b/i.test(sql);
}

/** Dataset averages of diagnostics rows. */
export interface DiagnosticsSummary {
  /** Number of rows. */
  readonly items: number;
  /** Per key: mean over the rows where the value is not null (booleans count 1 / 0). */
  readonly macro: Readonly<Record<string, number>>;
  /** Per key: how many rows had a value (the macro denominator). */
  readonly counts: Readonly<Record<string, number>>;
  /**
   * Per clause `components_<clause>`: pooled F1 = 2·Σmatched / (Σgold + Σpred) over rows with
   * counts (1 when both sums are 0), so that large clauses weigh more than in the macro mean.
   */
  readonly micro: Readonly<Record<string, number>>;
}

const COUNT_SUFFIX = /_n_(gold|pred|matched)$/;

/**
 * Averages diagnostics rows: macro means of every key (count keys excluded) and micro (pooled)
 * component F1.
 * @example
 * summarizeDiagnostics([{ components_where: 1, … }, { components_where: 0.5, … }]).macro.components_where // 0.75
 */
export function summarizeDiagnostics(rows: readonly DiagnosticsRow[]): DiagnosticsSummary {
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      if (COUNT_SUFFIX.test(key) || value === null || value === undefined) continue;
      const numeric = typeof value === 'boolean' ? (value ? 1 : 0) : value;
      if (typeof numeric !== 'number' || Number.isNaN(numeric)) continue;
      sums.set(key, (sums.get(key) ?? 0) + numeric);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const macro: Record<string, number> = {};
  for (const [key, sum] of sums) macro[key] = sum / counts.get(key)!;
  const micro: Record<string, number> = {};
  for (const clause of CLAUSE_NAMES) {
    let gold = 0;
    let pred = 0;
    let matched = 0;
    let seen = 0;
    for (const row of rows) {
      const g = row[`components_${clause}_n_gold`];
      const p = row[`components_${clause}_n_pred`];
      const m = row[`components_${clause}_n_matched`];
      if (typeof g !== 'number' || typeof p !== 'number' || typeof m !== 'number') continue;
      gold += g;
      pred += p;
      matched += m;
      seen += 1;
    }
    if (seen > 0) micro[`components_${clause}`] = gold + pred === 0 ? 1 : (2 * matched) / (gold + pred);
  }
  return { items: rows.length, macro, counts: Object.fromEntries(counts), micro };
}
