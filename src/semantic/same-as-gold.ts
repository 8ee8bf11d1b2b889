/**
 * The one case L5 settles without a database: a prediction that is a gold's own text up to
 * formatting. Both run as the same statement, so they return the same result on every database;
 * neither a suite nor a search can tell them apart, and none is built or run for the pair.
 */
import { applySqlRewrites, type SqlRewrites } from '../compare/sql-rewrites.js';
import { sameQueryText } from './neighbours/neighbours.js';

/**
 * The first gold the prediction is, up to formatting, once the policy's rewrites are applied to
 * both (`sameQueryText`: the case of keywords and ASCII identifiers, `AS`, `ASC`, `INNER` /
 * `OUTER`, `<>` vs `!=`, `==` vs `=`, whitespace, comments, a trailing semicolon).
 * @param predictedSql - the prediction as the model wrote it.
 * @param golds - the item's golds as written.
 * @param rewrites - the comparison policy's SQL rewrites.
 * @returns the gold's 0-based index, or -1 when the prediction is none of them.
 */
export function sameAsGold(predictedSql: string, golds: readonly string[], rewrites: SqlRewrites): number {
  const predicted = applySqlRewrites(predictedSql, 'predicted', rewrites);
  return golds.findIndex((gold) => sameQueryText(applySqlRewrites(gold, 'gold', rewrites), predicted));
}
