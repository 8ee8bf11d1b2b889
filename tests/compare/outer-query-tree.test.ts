import { describe, expect, it } from 'vitest';
import { readOuterQuery, readOuterQueryFromTree, tokensDecideOuterQuery } from '../../src/compare/outer-query-tree.js';
import { readOuterQueryFromTokens } from '../../src/sql/outer-query.js';

/** The tree's reading, as plain data (the reference). */
function fromTree(sql: string): unknown {
  const read = readOuterQueryFromTree(sql);
  return read.kind === 'query' ? JSON.parse(JSON.stringify(read.query)) : read;
}

/** Shapes the token reader decides: its answer must be the tree's, field for field. */
const DECIDED = [
  'SELECT name FROM t ORDER BY age DESC LIMIT 2',
  'SELECT a FROM t',
  'SELECT a FROM t;',
  'SELECT a FROM t;;',
  'SELECT count(*) FROM t ORDER BY count(*) DESC LIMIT 1',
  'SELECT T1.name, T2.x FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id ORDER BY T1.name ASC',
  // Subqueries with their own ORDER BY / LIMIT.
  'SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3)',
  'SELECT a FROM t WHERE b = (SELECT b FROM u ORDER BY c DESC LIMIT 1) ORDER BY a',
  'SELECT a, (SELECT max(x) FROM u ORDER BY 1) AS m FROM t ORDER BY m',
  'SELECT rank() OVER (ORDER BY a) FROM t',
  'SELECT rank() OVER (PARTITION BY b ORDER BY a DESC) AS r FROM t ORDER BY r',
  // Compounds with a final ORDER BY.
  'SELECT a FROM t UNION SELECT b FROM u ORDER BY a LIMIT 3',
  'SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY 1 DESC',
  'SELECT a, b FROM t INTERSECT SELECT c, d FROM u ORDER BY b',
  'SELECT a FROM t EXCEPT SELECT b FROM u',
  'SELECT a FROM t UNION SELECT b FROM u UNION SELECT c FROM v ORDER BY a',
  'SELECT a AS x FROM t EXCEPT SELECT b FROM u WHERE b IN (SELECT c FROM v ORDER BY c LIMIT 2) ORDER BY x',
  // LIMIT / OFFSET forms.
  'SELECT a FROM t ORDER BY a LIMIT 1 OFFSET 2',
  'SELECT a FROM t ORDER BY a LIMIT 5, 10',
  'SELECT a FROM t ORDER BY a LIMIT (SELECT 1)',
  'SELECT a FROM t ORDER BY a LIMIT -1',
  'SELECT a FROM t ORDER BY a LIMIT 2 OFFSET x',
  'SELECT a FROM t LIMIT 3',
  'SELECT a FROM t ORDER BY a LIMIT 1 ;',
  // ORDER BY expressions, COLLATE, NULLS, directions.
  'SELECT a FROM t ORDER BY a + b * 2, lower(c) DESC',
  'SELECT a FROM t ORDER BY a COLLATE NOCASE DESC NULLS FIRST, b NULLS LAST',
  'SELECT a FROM t ORDER BY a ASC NULLS LAST',
  'SELECT a FROM t ORDER BY CASE WHEN a > 1 THEN 0 ELSE 1 END, a',
  "SELECT a FROM t ORDER BY 'x'",
  'SELECT a FROM t ORDER BY (a)',
  'SELECT a FROM t ORDER BY -a',
  // Aliases: AS, implicit, quoted, strings; stars.
  'SELECT a AS x, b y, count(*) c, max(d) AS "M d", e AS [E], f AS `F`, g AS \'G\' FROM t ORDER BY x, "M d", [E], `F`',
  'SELECT DISTINCT name FROM t ORDER BY age',
  'SELECT ALL name FROM t ORDER BY name',
  'SELECT *, age * 2 AS a2 FROM t ORDER BY a2',
  'SELECT t.*, u.x FROM t JOIN u ORDER BY u.x',
  'SELECT "t".* FROM t ORDER BY 1',
  "SELECT 'lit' AS k, 1 n, x IS NULL, y NOTNULL, CASE WHEN a THEN b END z, CASE a WHEN 1 THEN 2 END FROM t ORDER BY z",
  'SELECT a COLLATE nocase, b LIKE c, d BETWEEN 1 AND 2 FROM t ORDER BY 1',
  'SELECT CAST(a AS INTEGER) AS i FROM t ORDER BY i',
  'SELECT a - b, -c, a || b, (a) p FROM t ORDER BY p',
  // Numbers as positions.
  'SELECT a, b FROM t ORDER BY 2, 1 DESC',
  'SELECT a FROM t ORDER BY 0',
  'SELECT a FROM t ORDER BY 3',
  // Comments, quoted identifiers, strings with keywords.
  "SELECT a /* ORDER BY x */ FROM t -- ORDER BY y\n ORDER BY \"a\" DESC",
  "SELECT 'order by' AS s FROM t ORDER BY s",
  'SELECT "order", [limit] FROM t ORDER BY "order" LIMIT 1',
  'SELECT a\n  FROM t\n  ORDER BY\n    a   DESC ,  b',
  'SELECT a FROM t /* open comment at the end ORDER BY',
  // Clauses between the select list and ORDER BY.
  'SELECT a, count(*) FROM t WHERE b > 1 GROUP BY a HAVING count(*) > 2 ORDER BY count(*) DESC LIMIT 1',
  'SELECT a FROM t WINDOW w AS (ORDER BY b) ORDER BY a',
  'SELECT 1',
  'SELECT 1 ORDER BY 1',
  // WITH clauses before the outermost query.
  'WITH c AS (SELECT 1 AS x) SELECT x FROM c ORDER BY x',
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5 ORDER BY 1 LIMIT 9) SELECT x AS y FROM c ORDER BY y DESC LIMIT 2',
  'WITH a AS MATERIALIZED (SELECT 1 AS x), b (y) AS NOT MATERIALIZED (SELECT 2) SELECT x FROM a UNION SELECT y FROM b ORDER BY 1',
  'WITH a AS (SELECT 1 AS x) SELECT DISTINCT x FROM a ORDER BY x LIMIT 1 OFFSET 1',
  // Keywords SQLite accepts as names: the parse reads them once quoted, with the original offsets.
  'SELECT a FROM Match ORDER BY a',
  'SELECT T1.a FROM t AS T1 LEFT JOIN u AS T2 ON T1.a = T2.a WHERE T1.b LIKE \'%x%\' ORDER BY T1.a LIMIT 1',
  'SELECT random(), count() FROM t ORDER BY 1',
  'SELECT 1e5, 1.5, .5, 2E FROM t ORDER BY 1',
  'SELECT DISTINCT t.*, b "B" FROM t UNION SELECT 1, 2 ORDER BY 2 NULLS LAST LIMIT 5, 10;',
];

/** Shapes the token reader leaves to the parse (it cannot be sure of the tree). */
const DEFERRED = [
  'VALUES (1), (2) ORDER BY 1',
  'WITH c AS (VALUES (1)) VALUES (2) ORDER BY 1',
  'WITH c AS (SELECT 1) INSERT INTO t SELECT * FROM c',
  'WITH c AS SELECT 1 SELECT 1',
  'WITH ORDER AS (SELECT 1) SELECT 1 ORDER BY 1',
  'SELECT a FROM t UNION VALUES (1) ORDER BY 1',
  'SELECT a FROM t; SELECT b FROM u ORDER BY b',
  'SELECT a FROM (SELECT b FROM t ORDER BY b',
  'SELECT a) FROM t ORDER BY a',
  'SELECT a FROM t ORDER BY 1.0',
  'SELECT a FROM t ORDER BY 0x1',
  'SELECT a FROM t ORDER BY 1e0',
  'SELECT a FROM t ORDER BY a LIMIT 1.5',
  'SELECT a FROM t ORDER BY NULL',
  'SELECT a FROM t ORDER BY true',
  'SELECT a FROM t ORDER BY current_date',
  'SELECT a AS first FROM t ORDER BY first',
  'SELECT a first FROM t ORDER BY 1',
  "SELECT a 'x' FROM t ORDER BY 1",
  'SELECT current_date d FROM t ORDER BY d',
  'SELECT rank() OVER w FROM t WINDOW w AS (ORDER BY a) ORDER BY 1',
  'SELECT xéy FROM t ORDER BY xéy',
  'SELECT * FROM t ORDER BY a LIMIT 1 LIMIT 2',
  'SELECT a FROM t ORDER BY a, ',
  'SELECT a FROM t ORDER BY desc',
  'SELECT FROM t ORDER BY a',
  'SELECT a, FROM t ORDER BY a',
  'SELECT a AS FROM t ORDER BY a',
  // Valid SQLite that sql-parser-cst rejects: the tree gives no answer, so the tokens give none.
  'SELECT a FROM t WHERE a IN () ORDER BY a',
  'SELECT a FROM t WHERE a NOT IN () AND b IN (SELECT b FROM u ORDER BY b)',
  'SELECT 5. FROM t ORDER BY 1',
  'SELECT a FROM t WHERE a = 0x1F ORDER BY a',
  'SELECT a FROM t WHERE a = 1_000 ORDER BY a',
  `SELECT a FROM t ORDER BY a ${'-- padding\n'.repeat(20_000)}`,
];

describe('readOuterQueryFromTokens', () => {
  it('reads a simple ordered query (exact shape)', () => {
    expect(readOuterQueryFromTokens('SELECT name FROM t ORDER BY age DESC LIMIT 2')).toEqual({
      compound: false,
      selectList: { distinct: false, items: [{ expr: [7, 11], star: false }], end: 11 },
      orderBy: [{ expr: [28, 31], identifier: 'age', descending: true, nulls: null }],
      limit: { range: [37, 44], count: 2, offset: 'absent' },
    });
  });

  it('reads `LIMIT offset, count`, aliases, stars and NULLS (exact shape)', () => {
    expect(readOuterQueryFromTokens('SELECT DISTINCT t.*, b "B" FROM t UNION SELECT 1, 2 ORDER BY 2 NULLS LAST LIMIT 5, 10;')).toEqual({
      compound: true,
      selectList: { distinct: true, items: [{ expr: [16, 19], star: true }, { expr: [21, 22], alias: 'B', star: false }], end: 26 },
      orderBy: [{ expr: [61, 62], ordinal: 2, descending: false, nulls: 'last' }],
      limit: { range: [74, 85], count: 10, offset: 5 },
    });
  });

  it.each(DECIDED)('gives the tree\'s answer: %s', (sql) => {
    const tokens = readOuterQueryFromTokens(sql);
    expect(tokens).toBeDefined();
    expect(JSON.parse(JSON.stringify(tokens))).toEqual(fromTree(sql));
  });

  it.each(DEFERRED)('defers to the parse: %s', (sql) => {
    expect(readOuterQueryFromTokens(sql)).toBeUndefined();
    expect(tokensDecideOuterQuery(sql)).toBe(false);
  });
});

describe('readOuterQuery', () => {
  it('falls back to the tree when the tokens defer (the tree reads `1.0` as position 1)', () => {
    const sql = 'SELECT x FROM c ORDER BY 1.0 LIMIT 1';
    expect(readOuterQueryFromTokens(sql)).toBeUndefined();
    expect(readOuterQuery(sql)).toEqual({
      kind: 'query',
      query: {
        compound: false,
        selectList: { distinct: false, items: [{ expr: [7, 8], star: false }], end: 8 },
        orderBy: [{ expr: [25, 28], ordinal: 1, descending: false, nulls: null }],
        limit: { range: [29, 36], count: 1, offset: 'absent' },
      },
    });
  });

  it('says why the tree cannot give the query', () => {
    expect(readOuterQuery('SELECT FROM WHERE')).toEqual({ kind: 'unreadable' });
    expect(readOuterQuery('SELECT 1; SELECT 2')).toEqual({ kind: 'unreadable' });
    expect(readOuterQuery('INSERT INTO t VALUES (1)')).toEqual({ kind: 'unsupported', statementType: 'insert_stmt' });
  });

  it('does not parse when the tokens decide', () => {
    let parses = 0;
    const parse = (): never => {
      parses += 1;
      throw new Error('no parse expected');
    };
    expect(readOuterQuery('SELECT a FROM t ORDER BY a', parse).kind).toBe('query');
    expect(parses).toBe(0);
  });
});
