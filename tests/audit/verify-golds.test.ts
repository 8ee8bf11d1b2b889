import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/dataset/load.js';
import { verifyDatasetGolds } from '../../src/audit/verify-golds.js';
import { createLadderRuntime } from '../../src/runtime/ladder-runtime.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ladder-verify-'));
const runtime = createLadderRuntime({ engine: { poolSize: 2 } });
afterAll(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Loads a dataset written from lines (warehouse fixture by default). */
async function load(name: string, lines: readonly string[]) {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, ['defaults: {db: warehouse}', 'items:', ...lines].join('\n'));
  const { items, errors } = await loadDataset(file);
  expect(errors).toEqual([]);
  return items;
}

describe('verifyDatasetGolds', () => {
  it('reports a failing gold, disagreeing golds and an unknown snapshot, per item, and skips unscored items', async () => {
    const file = path.join(dir, 'items.yaml');
    writeFileSync(
      file,
      [
        'defaults: {db: warehouse}',
        'items:',
        '  - id: fine',
        '    question: Products?',
        '    gold_sql: [SELECT COUNT(*) FROM products, SELECT COUNT(product_id) FROM products]',
        '  - id: broken',
        '    question: Q?',
        '    snapshots: [base]',
        '    gold_sql: SELECT nope FROM products',
        '  - id: split',
        '    question: Q?',
        '    snapshots: [base]',
        '    gold_sql: [SELECT COUNT(*) FROM products, SELECT COUNT(*) FROM regions]',
        '  - id: nowhere',
        '    question: Q?',
        '    snapshots: [base, future]',
        '    gold_sql: SELECT 1 FROM products WHERE 0',
        '  - id: pending',
        '    question: Q?',
      ].join('\n'),
    );
    const { items, errors } = await loadDataset(file);
    expect(errors).toEqual([]);
    const checks = await verifyDatasetGolds(items, { runtime });
    expect(checks.map((c) => [c.id, c.problems])).toEqual([
      ['fine', []],
      ['broken', ['gold 1 fails on base: no such column: nope']],
      ['split', ['golds disagree on base']],
      ['nowhere', ['snapshot "future" is not one of base, later, edge']],
    ]);
    expect(checks[0]!.snapshots.map((s) => [s.snapshot, s.agree, s.empty])).toEqual([
      ['base', true, false],
      ['later', true, false],
      ['edge', true, false],
    ]);
    expect(checks[3]!.snapshots.map((s) => [s.snapshot, s.empty])).toEqual([['base', true]]);
  });
});

describe('verifyDatasetGolds: golds compared through the engine under the item\'s policy', () => {
  it('integers beyond 2^53 stay exact: 9007199254740993 and 9007199254740992 disagree', async () => {
    const items = await load('bigint', ['  - id: big', '    question: Q?', '    snapshots: [base]', '    gold_sql: [SELECT 9007199254740993, SELECT 9007199254740992]']);
    const [check] = await verifyDatasetGolds(items, { runtime });
    expect(check!.problems).toEqual(['golds disagree on base']);
    expect(check!.snapshots[0]!.runs).toEqual([
      { ok: true, result: { columns: ['9007199254740993'], rows: [[9007199254740993n]] } },
      { ok: true, result: { columns: ['9007199254740992'], rows: [[9007199254740992n]] } },
    ]);
  });

  it.each([
    ['175 and 175.0 (types)', 'SELECT 175', 'SELECT 175.0', []],
    ['columns in another order (one column map)', 'SELECT 1 AS a, 2 AS b', 'SELECT 2 AS b, 1 AS a', []],
    ['0.1 + 0.2 and 0.3 (float tolerance)', 'SELECT 0.1 + 0.2', 'SELECT 0.3', []],
    ["'175' and 175 (text is not a number)", "SELECT '175'", 'SELECT 175', ['golds disagree on base']],
    ['NULL and 0', 'SELECT NULL', 'SELECT 0', ['golds disagree on base']],
  ])('the default policy: %s', async (_name, first, second, problems) => {
    const items = await load('policy', ['  - id: p', '    question: Q?', '    snapshots: [base]', `    gold_sql: [${JSON.stringify(first)}, ${JSON.stringify(second)}]`]);
    const [check] = await verifyDatasetGolds(items, { runtime });
    expect(check!.problems).toEqual(problems);
  });

  it('gold_result_ordered: true makes row order count, false lets it go', async () => {
    const lines = (ordered: boolean) => ['  - id: o', '    question: Q?', '    snapshots: [base]', `    gold_result_ordered: ${ordered}`, '    gold_sql: ["SELECT 1 UNION ALL SELECT 2", "SELECT 2 UNION ALL SELECT 1"]'];
    expect((await verifyDatasetGolds(await load('ordered', lines(true)), { runtime }))[0]!.problems).toEqual(['golds disagree on base']);
    expect((await verifyDatasetGolds(await load('unordered', lines(false)), { runtime }))[0]!.problems).toEqual([]);
  });

  it('a bad policy is misuse', async () => {
    await expect(verifyDatasetGolds([], { runtime, policy: 'strict' as never })).rejects.toThrow('policy must be one of default, spider, bird; received a string ("strict")');
  });
});
