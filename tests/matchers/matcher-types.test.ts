/**
 * Type tests for the vitest matchers, checked by `tsc -p tsconfig.json --noEmit` (npm run
 * typecheck): every `@ts-expect-error` below must meet a type error, or tsc fails on the unused
 * directive. The runtime test checks that importing the entry registered every matcher.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import '../../matchers/vitest.js';
import type { TextToSqlMatchers } from '../../matchers/vitest.js';

/** Never called: only compiled. */
export async function typeChecks(): Promise<void> {
  // Return types: three matchers are async (await them), two are sync.
  expectTypeOf(expect('SELECT 1').toBeValidSql({ dialect: 'sqlite' })).toEqualTypeOf<Promise<void>>();
  expectTypeOf(expect('SELECT 1').toReferenceExistingSchema('db.sqlite')).toEqualTypeOf<Promise<void>>();
  expectTypeOf(expect('SELECT 1').toMatchGoldResult('SELECT 1', { db: 'db.sqlite' })).toEqualTypeOf<Promise<void>>();
  expectTypeOf(expect('SELECT 1').toBeSafeSql()).toEqualTypeOf<void>();
  expectTypeOf(expect('x').toHaveGroundedNumbers([[1]])).toEqualTypeOf<void>();
  expectTypeOf(expect('SELECT 1').not.toMatchGoldResult(['SELECT 1'], { snapshots: ['a.sqlite', { name: 'b', path: 'b.sqlite' }], policy: 'spider' })).toEqualTypeOf<Promise<void>>();

  // Accepted argument shapes.
  await expect('SELECT 1').toBeValidSql({ dialect: 'sqlite', db: 'db.sqlite' });
  await expect('SELECT 1').toReferenceExistingSchema({ ddl: 'CREATE TABLE t (a)' }, { dialect: 'postgres' });
  await expect('SELECT 1').toReferenceExistingSchema({ orders: ['id'], 'hr.staff': { id: 'INTEGER' } });
  expect('SELECT 1').toBeSafeSql({ dialect: 'mysql', maxLimit: 10, allowedTables: ['orders'] });
  await expect('SELECT 1').toMatchGoldResult('SELECT 1', { db: 'db.sqlite', policy: { preset: 'spider', keepDistinct: true }, timeoutMs: 500 });
  expect('x').toHaveGroundedNumbers({ columns: ['n'], rows: [[1n], [null]] }, { question: 'q', sql: 's', grounding: { derivations: false } });

  // The trajectory matchers: budgets async, safe steps sync.
  expectTypeOf(expect({ steps: [] }).toStayWithinBudget({ maxExecutions: 3 })).toEqualTypeOf<Promise<void>>();
  expectTypeOf(expect({ steps: [] }).toHaveSafeSteps()).toEqualTypeOf<void>();
  await expect({ steps: [] }).toStayWithinBudget({ maxRowsScanned: 10, db: { fixture: 'warehouse', role: 'analyst' } });
  expect({ steps: [] }).toHaveSafeSteps({ allowedTables: ['orders'], dialect: 'postgres' });
  // @ts-expect-error -- a budget is a number
  await expect({ steps: [] }).toStayWithinBudget({ maxExecutions: 'three' });

  // @ts-expect-error -- unknown matcher (SQL in capitals)
  expect('SELECT 1').toBeValidSQL({ dialect: 'sqlite' });
  // @ts-expect-error -- unknown matcher
  expect('SELECT 1').toBeReadOnly();

  // @ts-expect-error -- options are required
  await expect('SELECT 1').toBeValidSql();
  // @ts-expect-error -- dialect is required
  await expect('SELECT 1').toBeValidSql({});
  // @ts-expect-error -- unknown dialect
  await expect('SELECT 1').toBeValidSql({ dialect: 'oracle' });
  // @ts-expect-error -- db is a path
  await expect('SELECT 1').toBeValidSql({ dialect: 'sqlite', db: true });

  // @ts-expect-error -- the catalog is required
  await expect('SELECT 1').toReferenceExistingSchema();
  // @ts-expect-error -- a number is no catalog
  await expect('SELECT 1').toReferenceExistingSchema(42);
  // @ts-expect-error -- unknown option
  await expect('SELECT 1').toReferenceExistingSchema('db.sqlite', { dialct: 'sqlite' });

  // @ts-expect-error -- misspelt policy option
  expect('SELECT 1').toBeSafeSql({ maxLimt: 10 });
  // @ts-expect-error -- maxLimit is a number of rows
  expect('SELECT 1').toBeSafeSql({ maxLimit: '10' });
  // @ts-expect-error -- the policy is an object
  expect('SELECT 1').toBeSafeSql('strict');

  // @ts-expect-error -- the options are required
  await expect('SELECT 1').toMatchGoldResult('SELECT 1');
  // @ts-expect-error -- neither db nor snapshots
  await expect('SELECT 1').toMatchGoldResult('SELECT 1', {});
  // @ts-expect-error -- db and snapshots together
  await expect('SELECT 1').toMatchGoldResult('SELECT 1', { db: 'a.sqlite', snapshots: ['b.sqlite'] });
  // @ts-expect-error -- unknown preset
  await expect('SELECT 1').toMatchGoldResult('SELECT 1', { db: 'a.sqlite', policy: 'strict' });
  // @ts-expect-error -- the gold is SQL text
  await expect('SELECT 1').toMatchGoldResult(1, { db: 'a.sqlite' });

  // @ts-expect-error -- rows are required
  expect('x').toHaveGroundedNumbers();
  // @ts-expect-error -- rows are arrays by position, not objects
  expect('x').toHaveGroundedNumbers([{ n: 1 }]);
  // @ts-expect-error -- the question is text
  expect('x').toHaveGroundedNumbers([[1]], { question: 1 });
}

describe('text2sql-ladder/vitest registration', () => {
  it('registers every matcher of TextToSqlMatchers on expect', () => {
    const names: (keyof TextToSqlMatchers)[] = ['toBeValidSql', 'toReferenceExistingSchema', 'toBeSafeSql', 'toMatchGoldResult', 'toHaveGroundedNumbers', 'toStayWithinBudget', 'toHaveSafeSteps'];
    const assertion = expect('SELECT 1') as unknown as Record<string, unknown>;
    expect(names.filter((name) => typeof assertion[name] !== 'function')).toEqual([]);
  });
});
