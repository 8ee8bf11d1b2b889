import { afterAll, describe, expect, it } from 'vitest';
import type { AssertionContext } from '../../src/promptfoo/adapter.js';
import { ladder } from '../../assertions/ladder.js';
import { closeSharedEngine, sharedCatalogCache } from '../../src/promptfoo/runtime.js';

afterAll(() => closeSharedEngine());

const GOLD = "SELECT COUNT(*) AS product_count FROM products";

function context(vars: Record<string, unknown> = {}, config?: Record<string, unknown>, replayMissing = false): AssertionContext {
  return {
    vars: { id: 'wh-t1', question: 'How many products are in the catalogue?', db: 'warehouse', expected_behavior: 'answer', gold_sql: [GOLD], ...vars },
    test: { metadata: { id: 'wh-t1', source: 'datasets/test.yaml:7' } },
    ...(config ? { config } : {}),
    providerResponse: { metadata: replayMissing ? { replay: { missing: true, key: 'wh-t1', file: 'run.jsonl' } } : {} },
  };
}

describe('ladder assertion', () => {
  it("reads the first snapshot's catalog (L2) once for every row of the process", async () => {
    // The first test of the file: nothing has read a catalog in this process yet.
    expect(sharedCatalogCache().reads).toBe(0);
    const first = await ladder('SELECT COUNT(*) FROM products', context());
    const second = await ladder('SELECT COUNT(*) AS n FROM products', context());
    expect([first.namedScores?.['L2_schema'], second.namedScores?.['L2_schema']]).toEqual([1, 1]);
    expect(sharedCatalogCache().reads).toBe(1);
    const third = await ladder('SELECT COUNT(*) FROM product', context());
    expect(third.reason).toBe('L2_schema fail: no such table: product; did you mean products? at 1:22; skipped: L4_execution');
    expect(sharedCatalogCache().reads).toBe(1);
  });

  it('a correct answer passes every rung: named scores per rung + end_to_end, one component per rung', async () => {
    const result = await ladder('```sql\nSELECT COUNT(*) FROM products\n```', context());
    expect(result.pass).toBe(true);
    expect(result.score).toBe(1);
    expect(result.namedScores).toEqual({ L1_syntax: 1, L2_schema: 1, L3_safety: 1, L4_execution: 1, L7_answer: 0, end_to_end: 1 });
    expect(result.reason).toMatchInlineSnapshot(`"L4_execution pass: matches on 3 snapshots"`);
    expect(result.componentResults?.map((component) => [component.pass, component.assertion])).toEqual([
      [true, { type: 'javascript', value: 'text2sql-ladder ladder rung L1_syntax' }],
      [true, { type: 'javascript', value: 'text2sql-ladder ladder rung L2_schema' }],
      [true, { type: 'javascript', value: 'text2sql-ladder ladder rung L3_safety' }],
      [true, { type: 'javascript', value: 'text2sql-ladder ladder rung L4_execution' }],
    ]);
    expect(result.metadata?.['text2sqlLadder']).toMatchObject({
      kind: 'ladder',
      id: 'wh-t1',
      verdict: 'pass',
      endToEnd: 1,
      output: 'sql',
      snapshots: ['base', 'later', 'edge'],
      executed: true,
      goldError: false,
      emptyGoldMatch: false,
      statuses: { L1_syntax: 'pass', L2_schema: 'pass', L3_safety: 'pass', L4_execution: 'pass' },
    });
  });

  it('a failed gate scores the later rungs 0 (every column counts every row) and names them skipped', async () => {
    const result = await ladder('SELECT COUNT(*) FROM product', context());
    expect([result.pass, result.score]).toEqual([false, 0]);
    // L3 still judges the text (only the executing rungs are gated).
    expect(result.namedScores).toEqual({ L1_syntax: 1, L2_schema: 0, L3_safety: 1, L4_execution: 0, L7_answer: 0, end_to_end: 0 });
    expect(result.reason).toMatchInlineSnapshot(`"L2_schema fail: no such table: product; did you mean products? at 1:22; skipped: L4_execution"`);
    expect(result.componentResults).toHaveLength(3);
    expect(result.metadata?.['graderOutputs']).toEqual({
      L1_syntax: expect.stringMatching(/^pass: /),
      L2_schema: expect.stringMatching(/^fail: /),
      L3_safety: 'pass: one read-only query; no unsafe construct',
      L4_execution: 'skipped: L2_schema fail',
      L7_answer: 'skipped: the output has no prose answer',
      end_to_end: '0',
    });
  });

  it('a wrong result fails L4 with the snapshot and the row difference in one line', async () => {
    const result = await ladder("SELECT COUNT(*) FROM products WHERE category = 'Accessories'", context());
    expect(result.namedScores).toEqual({ L1_syntax: 1, L2_schema: 1, L3_safety: 1, L4_execution: 0, L7_answer: 0, end_to_end: 0 });
    expect(result.reason).toMatchInlineSnapshot(`"L4_execution fail: snapshot base: gold [12] vs predicted [4]"`);
  });

  it('a write statement fails L3 and never executes', async () => {
    const result = await ladder('DELETE FROM products', context());
    expect(result.pass).toBe(false);
    expect([result.namedScores?.['L3_safety'], result.namedScores?.['L4_execution'], result.componentResults?.map((c) => c.assertion?.value)]).toEqual([0, 0, ['text2sql-ladder ladder rung L1_syntax', 'text2sql-ladder ladder rung L3_safety']]);
  });

  it('a clarify item passes on a decline with only end_to_end, and fails on SQL', async () => {
    const clarify = { expected_behavior: 'clarify', gold_sql: [] };
    const declined = await ladder({ action: 'clarify', message: 'Which period?' }, context(clarify));
    expect([declined.pass, declined.namedScores, declined.reason]).toEqual([true, { L1_syntax: 0, L2_schema: 0, L3_safety: 0, L4_execution: 0, L7_answer: 0, end_to_end: 1 }, 'clarify item: asked for clarification: Which period?']);
    const answered = await ladder('SELECT COUNT(*) FROM orders', context(clarify));
    // The SQL goes through the gates (a clarify item answered with a read-only query passes L1–L3).
    expect([answered.pass, answered.namedScores]).toEqual([false, { L1_syntax: 1, L2_schema: 1, L3_safety: 1, L4_execution: 0, L7_answer: 0, end_to_end: 0 }]);
  });

  it('an answer item without gold is unscored: its row fails with the reason (never a green PASS), no L4 or end_to_end score', async () => {
    const result = await ladder('SELECT COUNT(*) FROM products', context({ gold_sql: [] }));
    expect([result.pass, result.score, result.namedScores, result.reason]).toEqual([
      false,
      0,
      { L1_syntax: 1, L2_schema: 1, L3_safety: 1, L7_answer: 0 },
      'L4_execution unscored: no gold SQL: nothing checks the result, so the item is unscored (never counted as 0); add gold_sql to grade it',
    ]);
  });

  it('a missing replay prediction is a failure at L1, not an error', async () => {
    const result = await ladder('[no recorded prediction for item wh-t1 in run.jsonl]', context({}, undefined, true));
    expect([result.pass, result.reason]).toEqual([false, 'L1_syntax fail: no recorded prediction for item wh-t1 in run.jsonl; skipped: L2_schema, L3_safety, L4_execution']);
  });

  it('with L6 and L7 on, a correct JSON answer runs both after L4', async () => {
    const output = { sql: 'SELECT COUNT(*) FROM products', answer: 'We carry 999 products.' };
    const result = await ladder(output, context({}, { efficiency: true }));
    expect(Object.keys(result.namedScores ?? {})).toEqual(['L1_syntax', 'L2_schema', 'L3_safety', 'L4_execution', 'L6_efficiency', 'L7_answer', 'end_to_end']);
    expect([result.namedScores?.['L7_answer'], result.namedScores?.['end_to_end'], result.pass]).toEqual([0, 0, false]);
    expect(result.reason).toMatch(/^L7_answer fail: /);
  });

  it('end_to_end counts L7 by default: an ungrounded number makes the item not end-to-end correct; answerInEndToEnd: false judges the SQL only', async () => {
    const output = { sql: 'SELECT COUNT(*) FROM products', answer: 'We carry 999 products.' };
    const byDefault = await ladder(output, context({}));
    expect([byDefault.namedScores?.['L4_execution'], byDefault.namedScores?.['L7_answer'], byDefault.namedScores?.['end_to_end'], byDefault.score]).toEqual([1, 0, 0, 0]);
    const included = await ladder(output, context({}, { answerInEndToEnd: true }));
    expect([included.namedScores?.['L7_answer'], included.namedScores?.['end_to_end']]).toEqual([0, 0]);
    const excluded = await ladder(output, context({}, { answerInEndToEnd: false }));
    expect([excluded.namedScores?.['L7_answer'], excluded.namedScores?.['end_to_end'], excluded.pass]).toEqual([0, 1, false]);
    const grounded = await ladder({ sql: 'SELECT COUNT(*) FROM products', answer: 'We carry 12 products.' }, context({}));
    expect([grounded.namedScores?.['L7_answer'], grounded.namedScores?.['end_to_end'], grounded.pass]).toEqual([1, 1, true]);
    // A blank prose answer is no verdict on an answer: L7 is skipped and end_to_end is the SQL's.
    const blank = await ladder({ sql: 'SELECT COUNT(*) FROM products', answer: '  ' }, context({}));
    expect([blank.namedScores?.['L4_execution'], blank.namedScores?.['L7_answer'], blank.namedScores?.['end_to_end'], blank.pass]).toEqual([1, 0, 1, true]);
    await expect(ladder(output, context({}, { answerInEndToEnd: 'yes' }))).rejects.toThrow(/config\.answerInEndToEnd must be/);
  });

  it('with L5 on (config.semantic), a lucky L4 match on the warehouse fails with the witness, and end_to_end counts it', async () => {
    // wh-024 with a prediction that drops the year's upper bound: no snapshot has a 2026 order.
    const gold = [
      "SELECT o.user_id, COUNT(*) AS orders FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = 'Fabrikam Inc' AND o.order_date BETWEEN '2025-01-01' AND '2025-12-31' AND o.status <> 'CANCELLED' AND o.deleted_at IS NULL GROUP BY o.user_id",
    ];
    const predicted = "SELECT o.user_id, COUNT(*) AS orders FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = 'Fabrikam Inc' AND o.order_date >= '2025-01-01' AND o.status <> 'CANCELLED' AND o.deleted_at IS NULL GROUP BY o.user_id";
    const result = await ladder(predicted, context({ gold_sql: gold }, { semantic: { suite: false, search: { maxSeconds: 120 } } }));
    expect(result.namedScores).toEqual({ L1_syntax: 1, L2_schema: 1, L3_safety: 1, L4_execution: 1, L5_semantic: 0, L7_answer: 0, end_to_end: 0 });
    expect(result.pass).toBe(false);
    expect(result.reason).toMatch(/^L5_semantic fail: refuted on a \d+-row database: gold returns .*INSERT INTO /);
    const l5 = (result.metadata?.['text2sqlLadder'] as { rungs: { rung: string; details: { rejectedBy: string; search: { verdict: string; witnesses: unknown[] } } }[] }).rungs.find((r) => r.rung === 'semantic');
    expect([l5?.details.rejectedBy, l5?.details.search.verdict, l5?.details.search.witnesses.length]).toEqual(['search', 'refuted', 1]);
  });

  it('nonsense output objects are failures, not errors', async () => {
    const result = await ladder({ unexpected: [1, 2] }, context());
    expect(result.pass).toBe(false);
    expect(result.reason).toMatch(/^L1_syntax fail: /);
  });

  it.each([
    [{ policy: 'spyder' }, {}, 'config.policy must be one of default, spider, bird; received a string ("spyder") (in assertions/ladder.ts:ladder)'],
    [{ policy: { orderMatters: true } }, {}, /^config\.policy\.orderMatters is not an option \(did you mean config\.policy\.rowOrder\?\); known options: preset, .* \(in assertions\/ladder\.ts:ladder\)$/],
    [{ timeotMs: 5 }, {}, /^config\.timeotMs is not an option \(did you mean config\.timeoutMs\?\); known options: dialect, timeoutMs, /],
    [{ semantic: { serch: true } }, {}, /^config\.semantic\.serch is not an option \(did you mean config\.semantic\.search\?\)/],
    [{ efficiency: 'yes' }, {}, 'config.efficiency must be true, false or { budgetFactor, failOnProxies, timing }; received a string ("yes") (in assertions/ladder.ts:ladder)'],
    [{ answer: { tolerance: 0.1 } }, {}, 'config.answer.tolerance is not an option; known options: relativeTolerance, derivations, maxDerivationCells, decimalText (in assertions/ladder.ts:ladder)'],
    [{ safety: { allowedTables: 'role' } }, {}, 'config.safety.allowedTables: "role" needs an item with a fixture (db) and a role; item wh-t1 has no role (in assertions/ladder.ts:ladder)'],
    [{ gold_result_ordered: 'yes' }, {}, 'config.gold_result_ordered must be true or false; received a string ("yes") (in assertions/ladder.ts:ladder)'],
    [undefined, { gold_result_ordered: 'yes' }, 'datasets/test.yaml:7: gold_result_ordered must be true or false; received a string ("yes") (in assertions/ladder.ts:ladder)'],
    [undefined, { snapshots: ['base', 'nightly'] }, 'datasets/test.yaml:7: snapshots must be names of snapshots of fixture warehouse (base, later, edge); received an array (["nightly"]) (in assertions/ladder.ts:ladder)'],
    [undefined, { snapshots: [] }, 'datasets/test.yaml:7: snapshots must be a snapshot name or a non-empty list of them; received an array ([]) (in assertions/ladder.ts:ladder)'],
    [undefined, { db: undefined, db_path: [] }, 'datasets/test.yaml:7: db_path must be a database path or a non-empty list of them; received an array ([]) (in assertions/ladder.ts:ladder)'],
    [undefined, { db: undefined, db_path: '/nonexistent/x.sqlite' }, 'database not found: /nonexistent/x.sqlite does not exist (it is never created) (in assertions/ladder.ts:ladder)'],
  ] as const)('misuse is an ERROR row (a throw): config %j vars %j', async (config, vars, message) => {
    const error: unknown = await ladder('SELECT 1', context(vars, config)).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error, 'the assertion must throw (promptfoo makes an ERROR row), not return a failing row').toBeInstanceOf(Error);
    if (typeof message === 'string') expect((error as Error).message).toBe(message);
    else expect((error as Error).message).toMatch(message);
  });
});
