import { afterAll, describe, expect, it } from 'vitest';
import type { AssertionContext } from '../../src/promptfoo/adapter.js';
import { execution } from '../../assertions/execution.js';
import { closeSharedEngine, resolveFixtureOnce } from '../../src/promptfoo/runtime.js';
import { safety } from '../../assertions/safety.js';
import { schema } from '../../assertions/schema.js';
import { syntax } from '../../assertions/syntax.js';
import { toSummaryRecord } from '../../src/promptfoo/summary-hooks.js';

afterAll(() => closeSharedEngine());

/** A context as promptfoo builds it for a warehouse item. */
function context(vars: Record<string, unknown> = {}, config?: Record<string, unknown>, replayMissing = false): AssertionContext {
  return {
    vars: { id: 'wh-t1', db: 'warehouse', expected_behavior: 'answer', ...vars },
    test: { metadata: { id: 'wh-t1', source: 'datasets/test.yaml:3' } },
    ...(config ? { config } : {}),
    providerResponse: { metadata: replayMissing ? { replay: { missing: true, key: 'wh-t1', file: 'run.jsonl' } } : {} },
  };
}

describe('syntax assertion', () => {
  it('passes a query SQLite prepares, with its named score and its own component assertion', async () => {
    const result = await syntax('```sql\nSELECT COUNT(*) FROM orders;\n```', context());
    expect([result.pass, result.score, result.reason, result.namedScores]).toEqual([true, 1, expect.any(String), { L1_syntax: 1 }]);
    expect(result.componentResults).toEqual([{ pass: true, score: 1, reason: result.reason, assertion: { type: 'javascript', value: 'assertions/syntax.ts:syntax' } }]);
    expect(result.metadata?.['text2sqlLadder']).toMatchObject({ kind: 'rung', rung: 'syntax', status: 'pass', details: { authority: 'engine' } });
  });

  it('fails a typo with a one-line reason (a failure, not a thrown error)', async () => {
    const result = await syntax('SELECT COUNT(*) FORM orders', context());
    expect([result.pass, result.namedScores]).toEqual([false, { L1_syntax: 0 }]);
    expect(result.reason).toMatchInlineSnapshot(`"SQLite: near "orders": syntax error"`);
  });

  it('fails an answer item answered with a decline', async () => {
    const result = await syntax(JSON.stringify({ action: 'clarify', message: 'Which year?' }), context());
    expect([result.pass, result.reason]).toEqual([false, 'expected an answer, but the provider declined (clarify): Which year?']);
  });

  it('fails a missing replay prediction even for a clarify item', async () => {
    const result = await syntax('[no recorded prediction for item wh-t1 in run.jsonl]', context({ expected_behavior: 'clarify' }, undefined, true));
    expect([result.pass, result.reason]).toEqual([false, 'no recorded prediction for item wh-t1 in run.jsonl']);
  });

  it.each([
    [{ action: 'clarify', message: 'Which quarter?' }, true, 'skipped: clarify item: asked for clarification: Which quarter?'],
    ['SELECT 1', false, 'clarify item: expected the provider to ask for clarification, but it answered with SQL: SELECT 1'],
  ])('on a clarify item, output %j → pass %s without a named score', async (output, pass, reason) => {
    const result = await syntax(output, context({ expected_behavior: 'clarify', gold_sql: [] }));
    expect([result.pass, result.reason, result.namedScores]).toEqual([pass, reason, pass ? undefined : { L1_syntax: 0 }]);
  });
});

describe('schema assertion', () => {
  it('fails an unknown column with the rung reason; role-scoped tables are unknown to other roles', async () => {
    const column = await schema('SELECT totl FROM orders', context());
    expect([column.pass, column.namedScores]).toEqual([false, { L2_schema: 0 }]);
    expect(column.reason).toMatchInlineSnapshot(`"no such column: totl; columns of orders: order_id, customer_id, user_id, order_date, ordered_at, status, channel, order_total, deleted_at at 1:8"`);
    const roleScoped = await schema('SELECT email FROM users', context({ role: 'finance' }));
    expect(roleScoped.pass).toBe(false);
    expect((await schema('SELECT email FROM users', context({ role: 'support' }))).pass).toBe(true);
  });
});

describe('safety assertion', () => {
  it('fails two statements; LIMIT is off by default; allowed tables default to the item role\'s and are configurable', async () => {
    const two = await safety('SELECT 1; DROP TABLE orders', context());
    expect([two.pass, two.namedScores]).toEqual([false, { L3_safety: 0 }]);
    expect(two.reason).toMatchInlineSnapshot(`"statement 2 of 2 (DROP TABLE orders): ddl_statement; multiple_statements: 2 statements; exactly one query is allowed at 1:11 (+1 more)"`);
    const asFinance = await safety('SELECT * FROM users', context({ role: 'finance' }));
    expect([asFinance.pass, asFinance.reason]).toEqual([false, expect.stringContaining('users is not in allowedTables')]);
    expect((await safety('SELECT * FROM users', context({}))).pass).toBe(true);
    const limited = await safety('SELECT * FROM orders', context({}, { safety: { maxLimit: 100 } }));
    expect(limited.pass).toBe(false);
    const byRole = await safety('SELECT * FROM users LIMIT 5', context({ role: 'finance' }, { safety: { maxLimit: 100, allowedTables: 'role' } }));
    expect([byRole.pass, byRole.reason]).toEqual([false, expect.stringContaining('users')]);
  });
});

describe('misuse is an error naming the option and the file, not a failing result', () => {
  it.each([
    [syntax, { dialect: 'oracle' }, {}, 'config.dialect must be one of "sqlite", "postgres", "mysql", "bigquery", "snowflake"; received a string ("oracle") (in assertions/syntax.ts:syntax)'],
    [syntax, { timeoutMs: -5 }, {}, 'config.timeoutMs must be a positive integer (ms); received a number (-5) (in assertions/syntax.ts:syntax)'],
    [syntax, { polcy: 'spider' }, {}, 'config.polcy is not an option; known options: dialect, timeoutMs, doubleQuotes, fixturesDir, cacheDir, postgres, gold_sql, db, db_path, snapshots, role, expected_behavior (in assertions/syntax.ts:syntax)'],
    [safety, { safety: { limit: 10 } }, {}, /^config\.safety\.limit is not an option \(did you mean config\.safety\.maxLimit\?\); known options: .* \(in assertions\/safety\.ts:safety\)$/],
    [schema, undefined, { db: 'warehous' }, /^unknown fixture "warehous" in .*; known fixtures: warehouse, warehouse_pg \(in assertions\/schema\.ts:schema\)$/],
    [schema, undefined, { expected_behavior: 'answr' }, 'datasets/test.yaml:3: expected_behavior must be one of "answer", "clarify", "refuse"; received a string ("answr") (in assertions/schema.ts:schema)'],
    [execution, { gold_result_ordered: 'yes' }, { gold_sql: ['SELECT 1'] }, 'config.gold_result_ordered must be true or false; received a string ("yes") (in assertions/execution.ts:execution)'],
    [execution, undefined, { gold_sql: ['SELECT 1'], snapshots: [] }, 'datasets/test.yaml:3: snapshots must be a snapshot name or a non-empty list of them; received an array ([]) (in assertions/execution.ts:execution)'],
    [execution, undefined, { gold_sql: ['SELECT 1'], db: undefined, db_path: [] }, 'datasets/test.yaml:3: db_path must be a database path or a non-empty list of them; received an array ([]) (in assertions/execution.ts:execution)'],
    [schema, undefined, { db: undefined }, 'datasets/test.yaml:3: db must be a fixture name (or db_path a database file) for an answer item; received undefined (in assertions/schema.ts:schema)'],
  ] as const)('%o with config %j, vars %j', async (assertion, config, vars, message) => {
    await expect(assertion('SELECT 1', context(vars, config))).rejects.toThrow(message);
  });
});

describe('execution assertion', () => {
  it('passes a matching query on every snapshot, with the facts the summary reads', async () => {
    const result = await execution('SELECT COUNT(*) FROM products', context({ gold_sql: 'SELECT COUNT(*) AS n FROM products' }, { policy: 'default' }));
    expect([result.pass, result.namedScores]).toEqual([true, { L4_execution: 1 }]);
    expect(result.metadata?.['text2sqlLadder']).toMatchObject({ rung: 'execution', status: 'pass', details: { goldIndex: 0, firstFailingSnapshot: null, goldErrors: [] } });
    expect(toSummaryRecord({ gradingResult: result })).toMatchObject({ verdict: 'pass', endToEnd: 1, executed: true, goldError: false, emptyGoldMatch: false });
  });

  it('runs on each file of a db_path list (one snapshot per file) and fails with the snapshot named', async () => {
    const fixture = await resolveFixtureOnce('warehouse', undefined);
    const [base, later] = [fixture.snapshots[0]!.path, fixture.snapshots[1]!.path];
    const vars = { db: undefined, db_path: [base, later], gold_sql: 'SELECT COUNT(*) FROM orders' };
    const result = await execution("SELECT COUNT(*) FROM orders WHERE order_date < '2025-07-01'", context(vars));
    expect([result.pass, result.reason]).toEqual([false, expect.stringMatching(/^snapshot later: /)]);
  });

  it('an item without gold is unscored: fails its row with the reason, no named score', async () => {
    const result = await execution('SELECT 1', context({ gold_sql: [] }));
    expect([result.pass, result.score, result.namedScores, result.reason]).toEqual([false, 0, undefined, 'unscored: no gold SQL: nothing checks the result, so the item is unscored (never counted as 0); add gold_sql to grade it']);
  });
});
