/**
 * The text2sql-ladder matchers, unregistered (`text2sql-ladder/matchers`). Most apps import
 * `text2sql-ladder/vitest` instead, which registers them and adds their types; import from here to
 * register them yourself (`expect.extend({ toBeValidSql, … })`) or to close the shared engine.
 * Only re-exports.
 */
export { toBeValidSql } from './to-be-valid-sql.js';
export type { ValidSqlOptions } from './to-be-valid-sql.js';
export { toReferenceExistingSchema } from './to-reference-existing-schema.js';
export type { CatalogSource, ExistingSchemaOptions } from './to-reference-existing-schema.js';
export { toBeSafeSql } from './to-be-safe-sql.js';
export type { SafeSqlPolicy } from './to-be-safe-sql.js';
export { toMatchGoldResult } from './to-match-gold-result.js';
export type { GoldResultOptions } from './to-match-gold-result.js';
export { toHaveGroundedNumbers } from './to-have-grounded-numbers.js';
export type { GroundedNumbersOptions, GroundingRows } from './to-have-grounded-numbers.js';
export { toHaveSafeSteps, toStayWithinBudget } from './trajectory-matchers.js';
export type { TrajectoryBudgetOptions } from './trajectory-matchers.js';
export { closeMatcherEngine, getMatcherEngine, MATCHER_ENGINE_OPTIONS } from './matcher-engine.js';
export type { MatcherOutcome } from './message.js';
