import { describe, expect, it } from 'vitest';
import { detectOuterOrderBy, everyLimitHasOrderBy, hasOrderByTokens, textHasOrderBy, tokenScanOrderBy } from '../../src/compare/gold-ordering.js';

describe('detectOuterOrderBy', () => {
  it.each([
    ['SELECT a FROM t ORDER BY a', true, 'ast'],
    ['SELECT a FROM t ORDER BY a;', true, 'ast'],
    ['SELECT a FROM (SELECT a FROM t ORDER BY a)', false, 'ast'],
    ['SELECT a FROM t WHERE b IN (SELECT b FROM u ORDER BY b LIMIT 1)', false, 'ast'],
    ['SELECT rank() OVER (ORDER BY a) FROM t', false, 'ast'],
    ['WITH w AS (SELECT a FROM t ORDER BY a) SELECT a FROM w', false, 'ast'],
    ['SELECT a FROM t UNION SELECT a FROM u ORDER BY 1', true, 'ast'],
    // A keyword SQLite accepts as a table name: the parser reads it once quoted.
    ['SELECT a FROM Match ORDER BY a', true, 'ast'],
    // sql-parser-cst rejects an empty IN list, which SQLite accepts: the token scan decides.
    ['SELECT a FROM t WHERE a IN () ORDER BY a', true, 'token-scan'],
    ['SELECT a FROM t WHERE a IN () AND b IN (SELECT b FROM u ORDER BY b)', false, 'token-scan'],
    // No ORDER BY tokens at all: unordered without a parse, readable or not.
    ['SELECT a FROM t', false, 'no-order-by'],
    ["SELECT 'order by' FROM t -- order by a", false, 'no-order-by'],
    ['SELECT a FROM t WHERE a IN ()', false, 'no-order-by'],
  ] as const)('%s', (sql, ordered, source) => {
    expect(detectOuterOrderBy(sql)).toEqual({ ordered, source });
  });
});

describe('hasOrderByTokens', () => {
  it('answers again from the texts asked last, beyond the 256 it keeps', () => {
    const texts = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? `SELECT ${i} FROM t ORDER BY 1` : `SELECT ${i} FROM t`));
    expect(texts.map((sql) => hasOrderByTokens(sql))).toEqual(texts.map((_, i) => i % 2 === 0));
    expect(texts.map((sql) => hasOrderByTokens(sql))).toEqual(texts.map((_, i) => i % 2 === 0));
  });

  it.each([
    ['SELECT a FROM t', false],
    ["SELECT 'order by' FROM t", false],
    ['SELECT a FROM t /* order by */ -- order by', false],
    ['SELECT "order", by FROM t', false],
    ['SELECT a FROM (SELECT a FROM t order\n  BY a)', true],
    ['SELECT rank() OVER (ORDER BY a) FROM t', true],
    ['SELECT a FROM t ORDER /* why */ BY a', true],
  ] as const)('%s', (sql, expected) => {
    expect(hasOrderByTokens(sql)).toBe(expected);
  });
});

describe('tokenScanOrderBy', () => {
  it.each([
    ["SELECT 'order by' FROM t", false],
    ['SELECT a FROM t -- order by a', false],
    ['SELECT "order" FROM t order   by 1', true],
    ['SELECT a FROM t /* order by */', false],
  ] as const)('%s', (sql, expected) => {
    expect(tokenScanOrderBy(sql)).toBe(expected);
  });
});

describe('textHasOrderBy (Spider rule)', () => {
  it.each([
    ['SELECT a FROM (SELECT a FROM t ORDER BY a)', true],
    ['SELECT a FROM t ORDER  BY a', false],
    ["SELECT 'order by' FROM t", true],
  ] as const)('%s', (sql, expected) => {
    expect(textHasOrderBy(sql)).toBe(expected);
  });
});

describe('everyLimitHasOrderBy (the token test that spares findLimitWithoutOrderBy its parse)', () => {
  it.each([
    ['SELECT a FROM t', true],
    ['SELECT a FROM t ORDER BY a LIMIT 1', true],
    ['SELECT a FROM t ORDER BY a LIMIT 1 OFFSET 2', true],
    ['SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 2', true],
    ["SELECT a FROM t WHERE c = 'order by' LIMIT 1", false],
    ['SELECT a FROM t LIMIT 1', false],
    ['SELECT a FROM t WHERE b IN (SELECT b FROM u LIMIT 3) ORDER BY a', false],
    ['SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 2) LIMIT 1', false],
    ['SELECT * FROM (SELECT a FROM t LIMIT 2) ORDER BY a', false],
    ['SELECT rank() OVER (ORDER BY a) FROM t LIMIT 1', false],
    ['WITH x AS (SELECT 1 LIMIT 1) SELECT * FROM x ORDER BY 1 LIMIT 1', false],
    ['SELECT a FROM t ORDER BY a; SELECT b FROM u LIMIT 1', false],
    ['SELECT a FROM t -- order by\n LIMIT 1', false],
  ] as const)('%s → %s', (sql, expected) => {
    expect(everyLimitHasOrderBy(sql)).toBe(expected);
  });
});
