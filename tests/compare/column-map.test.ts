import { describe, expect, it } from 'vitest';
import { findColumnMap, type ColumnMapInput } from '../../src/compare/column-map.js';
import { compareResults } from '../../src/compare/compare-results.js';
import { resolvePolicy } from '../../src/compare/policy.js';
import type { Cell, Row } from '../../src/engine/engine.js';
import { result } from './helpers.js';

/** Deterministic PRNG (mulberry32) so that the adversarial tables are fixed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Rows of `table` with columns reordered so that new column k is old column perm[k]. */
function permuteColumns(table: readonly Row[], perm: readonly number[]): Row[] {
  return table.map((row) => perm.map((p) => row[p]!));
}

function input(goldTable: readonly Row[], predRows: readonly Row[], overrides: Partial<ColumnMapInput> = {}): ColumnMapInput {
  const ng = goldTable[0]?.length ?? 0;
  const np = predRows[0]?.length ?? 0;
  return {
    goldTable,
    predRows,
    goldColumnCount: ng,
    predColumnCount: np,
    segments: [{ start: 0, end: predRows.length, pool: goldTable.map((_, i) => i) }],
    tolerance: { kind: 'relative', value: 0 },
    goldNames: [],
    predNames: [],
    matchColumnNames: false,
    columnOrder: 'ignore',
    budget: 2_000_000,
    ...overrides,
  };
}

describe('findColumnMap', () => {
  it('finds the one map for swapped columns', () => {
    const outcome = findColumnMap(input([[1, 'a'], [2, 'b']], [['a', 1], ['b', 2]]));
    expect(outcome.kind === 'found' && outcome.map).toEqual([1, 0]);
  });

  it('columnOrder significant tries only the identity', () => {
    const outcome = findColumnMap(input([[1, 'a']], [['a', 1]], { columnOrder: 'significant' }));
    expect(outcome.kind).toBe('none');
  });

  it('names restrict candidates under matchColumnNames', () => {
    const outcome = findColumnMap(
      input([[1, 1]], [[1, 1]], { matchColumnNames: true, goldNames: ['a', 'b'], predNames: ['B', 'A'] }),
    );
    expect(outcome.kind === 'found' && outcome.map).toEqual([1, 0]);
  });
});

describe('adversarial column maps', () => {
  it('many identical columns: 16 equal columns match in linear work (symmetry classes)', () => {
    const rows: Row[] = Array.from({ length: 200 }, (_, r) => Array.from({ length: 16 }, () => r));
    const verdict = compareResults(result(rows), result(rows.map((row) => [...row])), resolvePolicy('default'));
    expect(verdict.match).toBe(true);
    expect(verdict.columnMap).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(verdict.columnSearchWork).toBeLessThan(16 * 16 * 400 + 17 * 400 + 16 * 200 + 1);
  });

  it('many identical columns plus one that differs: no match, decided without search', () => {
    const gold: Row[] = Array.from({ length: 50 }, (_, r) => [...Array.from({ length: 15 }, () => r), r * 2]);
    const pred: Row[] = Array.from({ length: 50 }, (_, r) => [...Array.from({ length: 15 }, () => r), r * 2 + 1]);
    const verdict = compareResults(result(gold), result(pred), resolvePolicy('default'));
    expect([verdict.match, verdict.flags]).toEqual([false, []]);
  });

  it('30 columns in a shuffled order: the inverse permutation is found', () => {
    const random = prng(30);
    const gold: Row[] = Array.from({ length: 40 }, (_, r) => Array.from({ length: 30 }, (_, c) => (r * 31 + c * 7) % 97));
    const perm = shuffled([...Array(30).keys()], random);
    const verdict = compareResults(result(gold), result(permuteColumns(gold, perm)), resolvePolicy('default'));
    expect(verdict.match).toBe(true);
    // Gold column g sits at predicted position perm.indexOf(g).
    expect(verdict.columnMap).toEqual([...Array(30).keys()].map((g) => perm.indexOf(g)));
  });

  it('30 columns of the same 3 values: decided by pair pruning, not enumeration', () => {
    const random = prng(3);
    const gold: Row[] = Array.from({ length: 60 }, () => Array.from({ length: 30 }, () => Math.floor(random() * 3)));
    const perm = shuffled([...Array(30).keys()], random);
    const verdict = compareResults(result(gold), result(permuteColumns(gold, perm)), resolvePolicy('default'));
    expect(verdict.match).toBe(true);
    expect(verdict.columnSearchWork).toBeLessThan(2_000_000);
  });

  it('columns whose value sets coincide but rows do not: false, not undecided', () => {
    const random = prng(7);
    const n = 40;
    const column = (): Cell[] => shuffled([...Array(n).keys()], random);
    const goldCols = Array.from({ length: 10 }, column);
    const predCols = Array.from({ length: 10 }, column);
    const toRows = (cols: Cell[][]): Row[] => Array.from({ length: n }, (_, r) => cols.map((col) => col[r]!));
    const verdict = compareResults(result(toRows(goldCols)), result(toRows(predCols)), resolvePolicy('default'));
    expect([verdict.match, verdict.reason, verdict.flags]).toEqual([false, '40 missing rows, 40 extra rows; first: gold [1, 32, 26, 34, 18, 32, 30, 7, 12, 39] vs predicted [27, 14, 29, 22, 16, 25, 26, 30, 33, 21]', []]);
  });

  it('value sets coincide per column, rows differ only by a swap between two columns', () => {
    // Gold rows (1,2),(2,1); prediction (1,1),(2,2): each column holds {1,2} on both sides.
    const verdict = compareResults(result([[1, 2], [2, 1]]), result([[1, 1], [2, 2]]), resolvePolicy('default'));
    expect(verdict.match).toBe(false);
  });

  it('a spent budget gives undecided, never a guess', () => {
    const random = prng(11);
    const gold: Row[] = Array.from({ length: 30 }, () => Array.from({ length: 8 }, () => Math.floor(random() * 2)));
    const perm = shuffled([...Array(8).keys()], random);
    const verdict = compareResults(result(gold), result(permuteColumns(gold, perm)), resolvePolicy({ columnSearchBudget: 100 }));
    expect([verdict.match, verdict.flags, verdict.columnMap]).toEqual(['undecided', ['column_search_budget'], null]);
    expect(verdict.reason).toMatch(/^column-map search stopped after \d+ cell visits \(budget 100\)$/);
  });
});
