/**
 * `text2sql-ladder/vitest`: importing it (typically from a vitest setup file) registers the
 * text2sql-ladder matchers with vitest's `expect`, adds their types to vitest's `Matchers`, and
 * closes the matchers' shared SQLite engine after each test file.
 *
 * ```ts
 * // vitest.config.ts: test: { setupFiles: ['./tests/setup.ts'] }
 * // tests/setup.ts
 * import 'text2sql-ladder/vitest';
 * ```
 *
 * Three matchers are asynchronous (`toBeValidSql`, `toReferenceExistingSchema`,
 * `toMatchGoldResult`): always `await` them. TypeScript does not flag a missing `await`; enable
 * typescript-eslint's `@typescript-eslint/no-floating-promises`, which does.
 */
import { afterAll, expect } from 'vitest';
import type { GroundingOptions } from '../src/answer/ground.js';
import type { Dialect } from '../src/sql/parse.js';
import { closeMatcherEngine } from './matcher-engine.js';
import { toBeSafeSql } from './to-be-safe-sql.js';
import type { SafeSqlPolicy } from './to-be-safe-sql.js';
import { toBeValidSql } from './to-be-valid-sql.js';
import type { ValidSqlOptions } from './to-be-valid-sql.js';
import { toHaveGroundedNumbers } from './to-have-grounded-numbers.js';
import type { GroundedNumbersOptions, GroundingRows } from './to-have-grounded-numbers.js';
import { toMatchGoldResult } from './to-match-gold-result.js';
import type { GoldResultOptions } from './to-match-gold-result.js';
import { toReferenceExistingSchema } from './to-reference-existing-schema.js';
import type { CatalogSource, ExistingSchemaOptions } from './to-reference-existing-schema.js';
import { checkVitestRelease } from './vitest-version.js';
import { toHaveSafeSteps, toStayWithinBudget } from './trajectory-matchers.js';
import type { TrajectoryBudgetOptions } from './trajectory-matchers.js';

export type { CatalogSource, Dialect, ExistingSchemaOptions, GoldResultOptions, GroundedNumbersOptions, GroundingOptions, GroundingRows, SafeSqlPolicy, TrajectoryBudgetOptions, ValidSqlOptions };

/**
 * The text2sql-ladder matchers as vitest sees them. Each runs one rung of the ladder (the same
 * function the promptfoo assertions call) and works with `.not`. The asynchronous ones return a
 * promise that must be awaited; the synchronous ones throw on failure.
 */
export interface TextToSqlMatchers {
  /**
   * L1 syntax: the SQL is exactly one query that parses in `dialect` (with `db`, SQLite prepares
   * it against that database and decides). **Async: await it.**
   * @example
   * await expect('SELECT name FROM customers').toBeValidSql({ dialect: 'sqlite' });
   * await expect('SELEC name FROM customers').not.toBeValidSql({ dialect: 'postgres' });
   */
  toBeValidSql(options: ValidSqlOptions): Promise<void>;
  /**
   * L2 schema: every table and column the SQL names exists in the catalog (a SQLite file path,
   * `{ ddl }`, `{ table: columns }` or a Catalog), scope by scope; failures name each unknown
   * identifier with its position and a did-you-mean. **Async: await it.**
   * @example
   * await expect('SELECT name FROM customers').toReferenceExistingSchema('db/shop.sqlite');
   * await expect('SELECT nme FROM customers').not.toReferenceExistingSchema({ customers: ['id', 'name'] });
   */
  toReferenceExistingSchema(catalogOrDb: CatalogSource, options?: ExistingSchemaOptions): Promise<void>;
  /**
   * L3 safety, fail closed: one read-only query, no writes, DDL, PRAGMA, ATTACH or side-effect
   * functions anywhere; optional LIMIT and allowed-tables guardrails. Synchronous.
   * @example
   * expect('SELECT name FROM customers LIMIT 10').toBeSafeSql({ maxLimit: 100, allowedTables: ['customers'] });
   * expect('SELECT 1; DROP TABLE orders').not.toBeSafeSql();
   */
  toBeSafeSql(policy?: SafeSqlPolicy): void;
  /**
   * L4 execution accuracy: the SQL returns the gold's result (one of several golds) on every
   * snapshot, under a comparison policy; failures show a table diff. **Async: await it.**
   * @example
   * await expect(sql).toMatchGoldResult('SELECT city, SUM(total) FROM orders JOIN customers ON … GROUP BY city', { db: 'db/shop.sqlite' });
   * await expect(sql).toMatchGoldResult([goldA, goldB], { snapshots: ['db/base.sqlite', 'db/edge.sqlite'], policy: 'spider' });
   */
  toMatchGoldResult(goldOrGolds: string | readonly string[], options: GoldResultOptions): Promise<void>;
  /**
   * L7 answer grounding: every number in the prose answer comes from the rows (or the question or
   * SQL), within the precision the prose states. Synchronous.
   * @example
   * expect('EMEA revenue was $4.12M in Q3.').toHaveGroundedNumbers([['EMEA', 4118530]], { question: 'EMEA revenue in Q3?' });
   * expect('EMEA revenue was $5.2M.').not.toHaveGroundedNumbers([['EMEA', 4118530]]);
   */
  toHaveGroundedNumbers(rows: GroundingRows, options?: GroundedNumbersOptions): void;
  /**
   * Trajectory budgets: an agent's steps (`{ sql, steps: [...] }`) stay within `maxExecutions`,
   * `maxSchemaCalls`, `maxFailedExecutions`, and with `db`, `maxRowsScanned` / `maxBytesScanned`
   * (the probes re-run on it); failures name the step that crossed each budget. **Async: await it.**
   * @example
   * await expect(agentOutput).toStayWithinBudget({ maxExecutions: 3, maxRowsScanned: 10_000, db: 'db/shop.sqlite' });
   */
  toStayWithinBudget(budgets: TrajectoryBudgetOptions): Promise<void>;
  /**
   * L3 on every step: each `sql` step of an agent's trajectory passes static safety (the policy as
   * for `toBeSafeSql`); failures name each unsafe step. Synchronous.
   * @example
   * expect(agentOutput).toHaveSafeSteps({ allowedTables: ['orders', 'customers'] });
   */
  toHaveSafeSteps(policy?: SafeSqlPolicy): void;
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type -- vitest's own declaration
  interface Matchers<T = any> extends TextToSqlMatchers {}
}

checkVitestRelease();
expect.extend({ toBeValidSql, toReferenceExistingSchema, toBeSafeSql, toMatchGoldResult, toHaveGroundedNumbers, toStayWithinBudget, toHaveSafeSteps });
afterAll(closeMatcherEngine);
