import { describe, expect, it } from 'vitest';
import { normalizeSql } from '../../src/sql/normalize.js';
import { sqlTokens, toLabelledTree, tokenJaccard, treeEditDistance, treeSize, type LabelledTree } from '../../src/sql/tree-edit-distance.js';

const t = (label: string, ...children: LabelledTree[]): LabelledTree => ({ label, children });

describe('treeEditDistance (Zhang–Shasha, unit costs)', () => {
  it.each([
    ['identical trees', t('a', t('b'), t('c')), t('a', t('b'), t('c')), 0],
    ['one relabel', t('a', t('b'), t('c')), t('a', t('b'), t('d')), 1],
    ['one insert', t('a', t('b')), t('a', t('b'), t('c')), 1],
    ['one delete of an inner node keeps its children', t('a', t('x', t('b'), t('c'))), t('a', t('b'), t('c')), 1],
    // Zhang & Shasha 1989, figure 1: f(d(a, c(b)), e) → f(c(d(a, b)), e) costs 2
    ['the paper example', t('f', t('d', t('a'), t('c', t('b'))), t('e')), t('f', t('c', t('d', t('a'), t('b'))), t('e')), 2],
    ['disjoint single nodes', t('a'), t('b'), 1],
    ['everything differs', t('a', t('b'), t('c')), t('x'), 3],
  ])('%s', (_name, a, b, expected) => {
    expect(treeEditDistance(a, b)).toBe(expected);
    expect(treeEditDistance(b, a)).toBe(expected);
  });

  it('counts nodes', () => {
    expect(treeSize(t('f', t('d', t('a'), t('c', t('b'))), t('e')))).toBe(6);
  });
});

describe('toLabelledTree', () => {
  it('turns `>` into `>=` with one relabel of a 10-node tree', () => {
    const a = normalizeSql('SELECT a FROM t WHERE x > 1', 'sqlite');
    const b = normalizeSql('SELECT a FROM t WHERE x >= 1', 'sqlite');
    if (!a.ok || !b.ok) throw new Error('parse');
    const ta = toLabelledTree(a.tree);
    expect(ta).toEqual(
      t('select_stmt',
        t('select_clause', t('list_expr', t('identifier a'))),
        t('from_clause', t('identifier t')),
        t('where_clause', t('binary_expr >', t('identifier x'), t('number_literal 1')))),
    );
    expect(treeSize(ta)).toBe(10);
    expect(treeEditDistance(ta, toLabelledTree(b.tree))).toBe(1);
  });
});

describe('token Jaccard', () => {
  it('tokenizes quoted strings, words, numbers and operators', () => {
    expect(sqlTokens("select a from t where b >= 'x y' and c != 1.5")).toEqual([
      'select', 'a', 'from', 't', 'where', 'b', '>=', "'x y'", 'and', 'c', '!=', '1.5',
    ]);
  });

  it.each([
    ['select a from t', 'select a from t', 1],
    ['select a from t', 'select b from t', 3 / 5],
    ['select a from t where x > 1', 'select a from t where x < 1', 7 / 9],
    ['', '', 1],
  ])('J(%s, %s) = %d', (a, b, expected) => {
    expect(tokenJaccard(a, b)).toBeCloseTo(expected, 12);
  });
});
