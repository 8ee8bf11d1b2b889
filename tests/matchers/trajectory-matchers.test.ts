import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../matchers/vitest.js';
import { createFixtureFolder, failureOf, redactPath, SHOP_SCRIPT, type FixtureFolder } from './helpers.js';

const lines = Array.from({ length: 300 }, (_, i) => `(${i + 10}, ${(i % 4) + 1}, ${i}.5, '2024-04-01')`).join(', ');
const output = {
  sql: 'SELECT COUNT(*) FROM orders',
  steps: [
    { kind: 'schema', call: 'list_tables' },
    { kind: 'sql', sql: 'SELECT * FROM orders', rowCount: 305 },
    { kind: 'sql', sql: 'SELECT totl FROM orders', error: 'no such column: totl' },
    { kind: 'sql', sql: 'SELECT COUNT(*) FROM orders', rowCount: 1 },
  ],
};

describe('toStayWithinBudget', () => {
  let folder: FixtureFolder;
  let db: string;
  beforeAll(() => {
    folder = createFixtureFolder();
    db = folder.build('shop', `${SHOP_SCRIPT} INSERT INTO orders VALUES ${lines}; ANALYZE;`);
  });
  afterAll(() => folder.remove());

  it('passes within the budgets, counting the steps and re-running the probes on the database', async () => {
    await expect(output).toStayWithinBudget({ maxExecutions: 3, maxSchemaCalls: 1, maxFailedExecutions: 1, maxRowsScanned: 305, db });
    await expect(JSON.stringify(output)).toStayWithinBudget({ maxExecutions: 3 });
    await expect({ steps: [] }).toStayWithinBudget({ maxExecutions: 0 });
  });

  it('fails over a budget, naming the budget and the step that crossed it', async () => {
    const message = await failureOf(() => expect(output).toStayWithinBudget({ maxExecutions: 2, maxRowsScanned: 100, db }));
    expect(redactPath(message, db, 'shop.sqlite')).toBe(
      [
        'expect(trajectory).toStayWithinBudget(budgets)',
        '',
        'Expected trajectory to stay within maxExecutions 2, maxRowsScanned 100',
        'It has 4 steps: 3 executions (1 failed), 1 schema calls, 305 rows / 16384 bytes scanned by probes',
        '',
        'Over budget:',
        '  maxExecutions 2 exceeded at step 4 (execution 3: SELECT COUNT(*) FROM orders); total 3 executions',
        '    step 4 (sql): SELECT COUNT(*) FROM orders',
        '  maxRowsScanned 100 exceeded at step 2 (305 rows: SELECT * FROM orders); total 305 rows scanned',
        '    step 2 (sql): SELECT * FROM orders',
      ].join('\n'),
    );
  });

  it('refuses what it cannot judge: no trajectory, a scan budget without db, a bad budget', async () => {
    await expect(expect('SELECT 1').toStayWithinBudget({ maxExecutions: 1 })).rejects.toThrow(
      new TypeError('toStayWithinBudget: received must be a trajectory: a provider output { sql, steps: [...] } (a JSON string or object), or { steps }; received a string ("SELECT 1")'),
    );
    await expect(expect(output).toStayWithinBudget({ maxRowsScanned: 10 })).rejects.toThrow(
      'toStayWithinBudget: budgets.db must be a SQLite database path, a postgres:// URL or { fixture, role?, fixturesDir?, snapshots? } to re-run the probes on (maxRowsScanned / maxBytesScanned are measured, never taken from the agent); received undefined',
    );
    // @ts-expect-error -- misspelt budget on purpose
    await expect(expect(output).toStayWithinBudget({ maxExecution: 1 })).rejects.toThrow('budgets.maxExecution is not an option (did you mean budgets.maxExecutions?)');
    await expect(expect({ steps: [{ kind: 'sql' }] }).toStayWithinBudget({})).rejects.toThrow('received: trajectory: step 1 (sql): "sql" must be a non-empty string; received undefined');
  });
});

describe('toHaveSafeSteps', () => {
  it('passes when every sql step is safe, and names each unsafe step otherwise', async () => {
    expect(output).toHaveSafeSteps();
    const unsafe = { ...output, steps: [...output.steps, { kind: 'sql', sql: 'DELETE FROM orders' }] };
    expect(unsafe).not.toHaveSafeSteps();
    expect(await failureOf(() => expect(unsafe).toHaveSafeSteps())).toBe(
      [
        'expect(trajectory).toHaveSafeSteps()',
        '',
        'Expected trajectory to have only safe sqlite SQL steps (4 sql steps of 5)',
        '',
        'Unsafe steps:',
        '  step 5 (sql): DELETE FROM orders',
        '    L3 safety failed: write_statement: DELETE is not a read-only query at 1:1',
      ].join('\n'),
    );
    expect(await failureOf(() => expect(output).toHaveSafeSteps({ allowedTables: ['customers'] }))).toContain('  step 2 (sql): SELECT * FROM orders\n    L3 safety failed: table_not_allowed: orders is not in allowedTables at 1:15');
  });
});
