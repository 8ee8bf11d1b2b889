import { describe, expect, it } from 'vitest';
import { applySqlRewrites, removeDistinctTokens, replaceCurrentYear } from '../../src/compare/sql-rewrites.js';
import { PRESETS } from '../../src/compare/policy.js';

describe('removeDistinctTokens (Spider parse.py remove_distinct)', () => {
  it.each([
    ['SELECT COUNT(DISTINCT x) FROM t', 'SELECT COUNT( x) FROM t'],
    ['select distinct a from t', 'select  a from t'],
    ["SELECT a FROM t WHERE b = 'distinct'", "SELECT a FROM t WHERE b = 'distinct'"],
    ['SELECT "DISTINCT", distinctive FROM t', 'SELECT "DISTINCT", distinctive FROM t'],
    ['SELECT a FROM t -- distinct\n', 'SELECT a FROM t -- distinct\n'],
    ['SELECT DISTINCT a FROM t; SELECT DISTINCT b FROM u', 'SELECT  a FROM t;'],
    // No `distinct` letters: only a `;` can change the text.
    ['SELECT a FROM t; SELECT b FROM u', 'SELECT a FROM t;'],
    ["SELECT a FROM t WHERE b = ';'", "SELECT a FROM t WHERE b = ';'"],
    ['SELECT a FROM t', 'SELECT a FROM t'],
    ['SELECT DiStInCt a FROM t', 'SELECT  a FROM t'],
    // Letters that only look alike are not the keyword.
    ['SELECT dİstinct a FROM t', 'SELECT dİstinct a FROM t'],
  ])('%s', (input, output) => {
    expect(removeDistinctTokens(input)).toBe(output);
  });
});

describe('replaceCurrentYear (Spider replace_cur_year)', () => {
  it('replaces any case and spacing, with the whitespace after it', () => {
    expect(replaceCurrentYear('SELECT year ( curdate ( ) )  - 5', 2020)).toBe('SELECT 2020- 5');
  });
});

describe('applySqlRewrites', () => {
  it.each([
    ['gold', 'SELECT a FROM t WHERE b > = 2 AND c ! = 3', 'SELECT a FROM t WHERE b >= 2 AND c != 3'],
    ['predicted', 'SELECT a FROM t WHERE b = value ', 'SELECT a FROM t WHERE b = 1 '],
    ['gold', 'SELECT a FROM t WHERE b = value ', 'SELECT a FROM t WHERE b = value '],
    ['predicted', 'SELECT value FROM t', 'SELECT 1 FROM t'],
    ['predicted', 'SELECT t.value FROM t', 'SELECT t.value FROM t'],
  ] as const)('spider preset, %s: %s', (role, input, output) => {
    expect(applySqlRewrites(input, role, PRESETS.spider.rewrites)).toBe(output);
  });

  it('the default preset changes nothing', () => {
    expect(applySqlRewrites('SELECT DISTINCT a FROM t WHERE b > = value ', 'predicted', PRESETS.default.rewrites)).toBe(
      'SELECT DISTINCT a FROM t WHERE b > = value ',
    );
  });
});

describe('applySqlRewrites: repeated golds', () => {
  it('a gold met again, under the same or another rewrite set, gets its own rewrite', () => {
    const gold = 'SELECT COUNT(DISTINCT a) FROM t WHERE b > = 2';
    const spider = PRESETS.spider.rewrites;
    expect(applySqlRewrites(gold, 'gold', spider)).toBe('SELECT COUNT( a) FROM t WHERE b >= 2');
    expect(applySqlRewrites(gold, 'gold', spider)).toBe('SELECT COUNT( a) FROM t WHERE b >= 2');
    expect(applySqlRewrites(gold, 'gold', { ...spider, removeDistinct: false })).toBe('SELECT COUNT(DISTINCT a) FROM t WHERE b >= 2');
    expect(applySqlRewrites(gold, 'gold', PRESETS.default.rewrites)).toBe(gold);
    expect(applySqlRewrites('SELECT a FROM t WHERE b = value ', 'predicted', spider)).toBe('SELECT a FROM t WHERE b = 1 ');
    expect(applySqlRewrites('SELECT a FROM t WHERE b = value ', 'gold', spider)).toBe('SELECT a FROM t WHERE b = value ');
  });

  it('an unfrozen rewrite set is read afresh on every call', () => {
    const rewrites = { ...PRESETS.spider.rewrites };
    expect(applySqlRewrites('SELECT DISTINCT a FROM t', 'gold', rewrites)).toBe('SELECT  a FROM t');
    rewrites.removeDistinct = false;
    expect(applySqlRewrites('SELECT DISTINCT a FROM t', 'gold', rewrites)).toBe('SELECT DISTINCT a FROM t');
  });
});
