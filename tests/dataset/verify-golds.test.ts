import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../src/dataset/load.js';
import { canonicalCell, canonicalMultiset, verifyDatasetGolds } from '../../src/dataset/verify-golds.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ladder-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('canonicalCell / canonicalMultiset', () => {
  it.each([
    [null, 'NULL'],
    [0, '0'],
    ['', '""'],
    [175, '175'],
    [175.0, '175'],
    [0.1 + 0.2, '0.3'],
    [2n ** 60n, '1152921504606846976'],
    ['175', '"175"'],
    [new Uint8Array([1, 255]), "x'01ff'"],
  ])('cell case %# → %s', (value, expected) => {
    expect(canonicalCell(value)).toBe(expected);
  });

  it('compares rows as a multiset: order-free, duplicates counted', () => {
    expect(canonicalMultiset([[1, 'a'], [2, 'b']])).toEqual(canonicalMultiset([[2, 'b'], [1, 'a']]));
    expect(canonicalMultiset([[1], [1]])).not.toEqual(canonicalMultiset([[1]]));
  });
});

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
    const checks = await verifyDatasetGolds(items);
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
