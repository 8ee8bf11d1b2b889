/**
 * Diagnostic rung `resultSimilarity`: partial credit for a wrong answer (*Redefining text-to-SQL metrics*). Never a
 * gate. Three numbers:
 * - row precision / recall / F1 on the multisets of rows under a column map
 *   (../compare/table-similarity.ts `rowSimilarity`);
 * - the column-wise table similarity TS of *Redefining text-to-SQL metrics*, as defined precisely in
 *   ../compare/table-similarity.ts (exact Levenshtein for small tables, bag distance beyond
 *   `maxExactCellPairs`);
 * - the query affinity score of *Redefining text-to-SQL metrics* (its equation 1):
 *   `QAS = w · structural + (1 − w) · TS`, w = `weight` (default 0.5, the paper's setting), with the
 *   AST similarity of ./ast-distance.ts in place of the paper's neural embedding cosine, so that it
 *   runs offline.
 *
 * As in the paper, identical SQL strings give TS = 1 without comparing tables, and a prediction
 * that could not be executed gives TS = 0.
 */
import type { QueryResult } from '../engine/engine.js';
import type { Dialect } from '../sql/parse.js';
import { compareTables, rowSimilarity, type RowSimilarity, type TableSimilarity, type TableSimilarityOptions } from '../compare/table-similarity.js';
import { rawForm } from './exact-match.js';
import { scoreAstDistance } from './ast-distance.js';
import { createRungResult, type RungResult } from './rung-result.js';

/** A result as the engine returns it; only `columns` (for the count) and `rows` are read. */
export type ResultRows = Pick<QueryResult, 'columns' | 'rows'>;

/** Inputs of {@link scoreResultSimilarity}. */
export interface ResultSimilarityInput {
  /** The gold result. */
  readonly gold: ResultRows;
  /** The predicted result, or null when the predicted query could not be executed. */
  readonly predicted: ResultRows | null;
  /** Gold column j ↔ predicted column `columnMap[j]` (e.g. from compareResults); default: overlap map. */
  readonly columnMap?: readonly number[];
  /** Structural similarity in [0, 1]; when absent it is computed from the SQL below, if given. */
  readonly structuralSimilarity?: number;
  readonly predictedSql?: string;
  readonly goldSql?: string;
  readonly dialect?: Dialect;
  /** Weight w of the structural part in QAS, in [0, 1]. Default 0.5. */
  readonly weight?: number;
  readonly rowOrder?: TableSimilarityOptions['rowOrder'];
  readonly maxExactCellPairs?: number;
}

/** Details of a `resultSimilarity` result. */
export interface ResultSimilarityDetails {
  /** null when the prediction did not execute. */
  readonly rows: RowSimilarity | null;
  readonly table: TableSimilarity | null;
  /** TS actually used (1 for identical SQL, 0 for a failed prediction). */
  readonly tableSimilarity: number;
  readonly structuralSimilarity: number | null;
  /** null when no structural similarity is available. */
  readonly queryAffinity: number | null;
  readonly weight: number;
  /** `identical_sql`, `not_executed` or `compared`. */
  readonly basis: 'identical_sql' | 'not_executed' | 'compared';
}

/**
 * Partial-credit result similarity for one item.
 *
 * @returns `resultSimilarity` RungResult; `score` = QAS when a structural similarity is available,
 *   else TS; `namedScores` `result_table_similarity`, `result_row_precision`, `result_row_recall`,
 *   `result_row_f1` (absent when the prediction did not execute), `query_affinity`; `status` pass
 *   when TS = 1 and row F1 = 1.
 * @throws RangeError for a `weight` outside [0, 1] or a `structuralSimilarity` outside [0, 1].
 */
export function scoreResultSimilarity(input: ResultSimilarityInput): RungResult<ResultSimilarityDetails> {
  const weight = input.weight ?? 0.5;
  if (typeof weight !== 'number' || !(weight >= 0 && weight <= 1)) throw new RangeError(`weight must be a number in [0, 1]; received ${String(weight)}`);
  if (input.structuralSimilarity !== undefined && !(input.structuralSimilarity >= 0 && input.structuralSimilarity <= 1)) {
    throw new RangeError(`structuralSimilarity must be in [0, 1]; received ${String(input.structuralSimilarity)}`);
  }
  let structural: number | null = input.structuralSimilarity ?? null;
  if (structural === null && input.predictedSql !== undefined && input.goldSql !== undefined && input.dialect !== undefined) {
    const ast = scoreAstDistance({ predictedSql: input.predictedSql, goldSqls: [input.goldSql], dialect: input.dialect });
    if (ast.status !== 'skipped') structural = ast.score;
  }
  const identical = input.predictedSql !== undefined && input.goldSql !== undefined && rawForm(input.predictedSql) === rawForm(input.goldSql);
  const goldTable = { columnCount: input.gold.columns.length, rows: input.gold.rows };
  let rows: RowSimilarity | null = null;
  let table: TableSimilarity | null = null;
  let basis: ResultSimilarityDetails['basis'];
  let ts: number;
  if (input.predicted === null) {
    basis = 'not_executed';
    ts = 0;
  } else {
    const predictedTable = { columnCount: input.predicted.columns.length, rows: input.predicted.rows };
    if (identical) {
      basis = 'identical_sql';
      rows = rowSimilarity(goldTable, predictedTable, input.columnMap);
      ts = 1;
    } else {
      basis = 'compared';
      const compared = compareTables(goldTable, predictedTable, {
        ...(input.columnMap ? { columnMap: input.columnMap } : {}),
        ...(input.rowOrder ? { rowOrder: input.rowOrder } : {}),
        ...(input.maxExactCellPairs !== undefined ? { maxExactCellPairs: input.maxExactCellPairs } : {}),
      });
      rows = compared.rows;
      table = compared.table;
      ts = table.score;
    }
  }
  const qas = structural === null ? null : weight * structural + (1 - weight) * ts;
  const namedScores: Record<string, number> = { result_table_similarity: ts };
  if (rows) {
    namedScores['result_row_precision'] = rows.precision;
    namedScores['result_row_recall'] = rows.recall;
    namedScores['result_row_f1'] = rows.f1;
  }
  if (qas !== null) namedScores['query_affinity'] = qas;
  const reason =
    basis === 'not_executed'
      ? `prediction did not execute: table similarity 0${qas !== null ? `, query affinity ${qas.toFixed(3)}` : ''}`
      : `rows P ${rows!.precision.toFixed(3)} R ${rows!.recall.toFixed(3)} F1 ${rows!.f1.toFixed(3)}; table similarity ${ts.toFixed(3)}${table ? ` (${table.method})` : ' (identical SQL)'}${qas !== null ? `; query affinity ${qas.toFixed(3)}` : ''}`;
  return createRungResult({
    rung: 'resultSimilarity',
    status: ts === 1 && rows !== null && rows.f1 === 1 ? 'pass' : 'fail',
    score: qas ?? ts,
    reason,
    namedScores,
    details: { rows, table, tableSimilarity: ts, structuralSimilarity: structural, queryAffinity: qas, weight, basis },
  });
}
