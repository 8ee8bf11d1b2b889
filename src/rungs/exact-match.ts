/**
 * Diagnostic rung `exactMatch` (*Text-to-SQL Evals* §4.1): the predicted SQL equals a gold SQL as raw text,
 * or after normalization (../sql/normalize.ts: keyword case, whitespace, identifier and string
 * quoting, table aliases, select-list aliases and positional GROUP BY / ORDER BY, commutative
 * comparisons, AND / OR operand order). A match against any gold counts. Never a gate: a match is
 * almost certainly right, a mismatch says little.
 */
import type { Dialect } from '../sql/parse.js';
import { normalizeSql } from '../sql/normalize.js';
import { createRungResult, createSkippedResult, type RungResult } from './rung-result.js';

/** Inputs of {@link scoreExactMatch}. */
export interface ExactMatchInput {
  readonly predictedSql: string;
  readonly goldSqls: readonly string[];
  readonly dialect: Dialect;
  /** Columns per table (e.g. `columnsByTableOf(catalog)`), to qualify bare columns. */
  readonly columnsByTable?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Details of an `exactMatch` result. */
export interface ExactMatchDetails {
  /** Index of the first gold equal as raw text (after trimming and dropping a trailing `;`), or null. */
  readonly rawGoldIndex: number | null;
  /** Index of the first gold equal after normalization, or null. */
  readonly normalizedGoldIndex: number | null;
  /** The normalized predicted text, or null when it could not be parsed. */
  readonly normalizedPredicted: string | null;
  /** The normalized gold texts (null where a gold could not be parsed). */
  readonly normalizedGolds: readonly (string | null)[];
  /** Why the predicted SQL could not be normalized, when it could not. */
  readonly predictedProblem: string | null;
}

/** Raw form compared by raw exact match: trimmed, one trailing semicolon dropped. Nothing else. */
export function rawForm(sql: string): string {
  return sql.trim().replace(/;\s*$/, '').trim();
}

/**
 * Exact match, raw and normalized, against any gold.
 *
 * @returns `exactMatch` RungResult; `score` and `namedScores.exact_match_normalized` are 1 when the
 *   normalized forms match, `namedScores.exact_match_raw` is 1 when the raw texts match; `status`
 *   pass/fail on the normalized match. `skipped` when no gold is given, or when the predicted SQL
 *   cannot be parsed and matches no gold as raw text (the reason quotes the parser).
 */
export function scoreExactMatch(input: ExactMatchInput): RungResult<ExactMatchDetails | null> {
  if (input.goldSqls.length === 0) return createSkippedResult('exactMatch', 'no gold SQL given') as RungResult<null>;
  const raw = rawForm(input.predictedSql);
  const rawIndex = input.goldSqls.findIndex((g) => rawForm(g) === raw);
  const normalizeOptions = input.columnsByTable ? { columnsByTable: input.columnsByTable } : {};
  const predicted = normalizeSql(input.predictedSql, input.dialect, normalizeOptions);
  const golds = input.goldSqls.map((g) => normalizeSql(g, input.dialect, normalizeOptions));
  const normalizedGolds = golds.map((g) => (g.ok ? g.text : null));
  if (!predicted.ok && rawIndex < 0) {
    return createSkippedResult('exactMatch', `predicted SQL cannot be normalized: ${predicted.reason}`) as RungResult<null>;
  }
  const normalizedPredicted = predicted.ok ? predicted.text : null;
  let normalizedIndex = normalizedPredicted === null ? -1 : normalizedGolds.findIndex((g) => g === normalizedPredicted);
  if (normalizedIndex < 0 && rawIndex >= 0) normalizedIndex = rawIndex; // raw equality implies normalized equality
  const details: ExactMatchDetails = {
    rawGoldIndex: rawIndex >= 0 ? rawIndex : null,
    normalizedGoldIndex: normalizedIndex >= 0 ? normalizedIndex : null,
    normalizedPredicted,
    normalizedGolds,
    predictedProblem: predicted.ok ? null : predicted.reason,
  };
  const matched = normalizedIndex >= 0;
  const reason = rawIndex >= 0
    ? `equal to gold ${rawIndex} as raw text`
    : matched
      ? `equal to gold ${normalizedIndex} after normalization`
      : `differs from every gold after normalization (predicted: ${normalizedPredicted ?? 'unparsed'})`;
  return createRungResult({
    rung: 'exactMatch',
    status: matched ? 'pass' : 'fail',
    score: matched ? 1 : 0,
    reason,
    namedScores: { exact_match_raw: rawIndex >= 0 ? 1 : 0, exact_match_normalized: matched ? 1 : 0 },
    details,
  });
}
