import { describe, expect, it } from 'vitest';
import { columnsByTableOf, normalizeSql, normalizeTree, type NormalizationPass } from '../../src/sql/normalize.js';
import { parseSql } from '../../src/sql/parse.js';
import { renderSql, type SqlNode } from '../../src/sql/sql-tree.js';

function text(sql: string, passes?: readonly NormalizationPass[]): string {
  const result = normalizeSql(sql, 'sqlite', passes ? { passes } : {});
  if (!result.ok) throw new Error(result.reason);
  return result.text;
}

describe('normalizeSql', () => {
  it('reproduces Text-to-SQL Evals §4.1: the two spellings normalize to one text', () => {
    const a = "select region, sum(amount) as total from orders where created_at >= '2024-01-01' group by region";
    const b = "SELECT o.region, SUM(o.amount) total FROM orders AS o WHERE '2024-01-01' <= o.created_at GROUP BY 1";
    expect(text(a)).toBe("select region, sum (amount) from orders where created_at >= '2024-01-01' group by region");
    expect(text(b)).toBe(text(a));
  });

  it.each([
    ['keyword case and whitespace', 'SELECT  a\n FROM   t', 'select a from t'],
    ['identifier quoting', 'SELECT "A", `b`, [C] FROM "T"', 'select a, b, c from t'],
    ['string quoting (sqlite double-quoted value)', 'SELECT a FROM t WHERE name = "APG"', "select a from t where name = 'APG'"],
    ['<> becomes !=', 'SELECT a FROM t WHERE a <> 1', 'select a from t where a != 1'],
    ['INNER JOIN is JOIN, LEFT OUTER JOIN is LEFT JOIN', 'SELECT t.a FROM t INNER JOIN u ON t.a = u.a LEFT OUTER JOIN v ON v.b = t.a', 'select t.a from t join u on t.a = u.a left join v on t.a = v.b'],
    ['literal on the left is mirrored', 'SELECT a FROM t WHERE 3 < a', 'select a from t where a > 3'],
    ['two columns ordered by text', 'SELECT a FROM t WHERE z >= b', 'select a from t where b <= z'],
    ['positional ORDER BY', 'SELECT a, b FROM t ORDER BY 2 DESC', 'select a, b from t order by b desc'],
    ['alias in ORDER BY', 'SELECT count(*) AS n FROM t ORDER BY n', 'select count (*) from t order by count (*)'],
    ['alias in HAVING', 'SELECT a, count(*) AS n FROM t GROUP BY a HAVING n > 1', 'select a, count (*) from t group by a having count (*) > 1'],
    ['AND operands sorted', 'SELECT a FROM t WHERE c = 1 AND b = 2', 'select a from t where b = 2 and c = 1'],
    ['single-table qualifier dropped', 'SELECT t.a FROM t WHERE t.b = 1', 'select a from t where b = 1'],
    ['alias replaced by table name with joins', 'SELECT x.a FROM t AS x JOIN u AS y ON x.id = y.tid', 'select t.a from t join u on t.id = u.tid'],
    ['self-join gets canonical aliases', 'SELECT p.a FROM t AS p JOIN t AS q ON p.id = q.pid', 'select t_1.a from t as t_1 join t as t_2 on t_1.id = t_2.pid'],
  ])('%s', (_name, input, expected) => {
    expect(text(input)).toBe(expected);
  });

  it('keeps correlated references qualified with the outer table', () => {
    expect(text('SELECT a.x FROM t AS a WHERE EXISTS (SELECT 1 FROM u AS b WHERE b.y = a.x)')).toBe(
      'select x from t where exists (select 1 from u where t.x = y)',
    );
  });

  it('does not resolve ORDER BY positions inside a compound select', () => {
    expect(text('SELECT a FROM t UNION SELECT b FROM u ORDER BY 1')).toBe('select a from t union select b from u order by 1');
  });

  it('qualifies bare columns by the one table in scope that has them, given the columns per table', () => {
    const columnsByTable = columnsByTableOf({
      tables: [
        { name: 'Singer', columns: [{ name: 'Singer_ID' }, { name: 'Name' }, { name: 'Age' }] },
        { name: 'concert', columns: [{ name: 'concert_id' }, { name: 'singer_id' }, { name: 'year' }] },
      ],
    });
    const normalize = (sql: string) => {
      const result = normalizeSql(sql, 'sqlite', { columnsByTable });
      if (!result.ok) throw new Error(result.reason);
      return result.text;
    };
    expect(normalize('SELECT name, year FROM singer JOIN concert ON singer.singer_id = concert.singer_id WHERE singer_id > 3')).toBe(
      'select singer.name, concert.year from singer join concert on concert.singer_id = singer.singer_id where singer_id > 3',
    );
    expect(normalize('SELECT T1.name AS n FROM singer AS T1 JOIN concert AS T2 USING (singer_id) ORDER BY n')).toBe(
      'select singer.name from singer join concert using (singer_id) order by singer.name',
    );
    // a correlated bare column is qualified by the outer table; the inner table's stays bare
    expect(normalize('SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert WHERE age > 2)')).toBe(
      'select name from singer where singer_id in (select singer_id from concert where singer.age > 2)',
    );
  });

  it('keeps a double-quoted token that names a known column as a column', () => {
    const columnsByTable = columnsByTableOf({ tables: [{ name: 't', columns: [{ name: 'a' }, { name: 'b' }] }] });
    const result = normalizeSql('SELECT a FROM t WHERE a = "b" AND b = "x"', 'sqlite', { columnsByTable });
    expect(result.ok && result.text).toBe("select a from t where a = b and b = 'x'");
  });

  it('runs only the selected passes', () => {
    expect(text('SELECT sum(x) AS total FROM t ORDER BY total', ['canonicalTokens'])).toBe('select sum (x) as total from t order by total');
  });

  it('reports a parse error as ok: false with the reason, never throws', () => {
    const result = normalizeSql('SELEC a FROM t', 'sqlite');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/^parse error: /);
    const two = normalizeSql('SELECT 1; SELECT 2', 'sqlite');
    expect(two).toEqual({ ok: false, reason: 'expected one statement, found 2' });
  });

  // Each query below is changed by the pass it is listed with, so every pass does real work on a
  // tree of its own: a fresh parse (not the shared parse cache, whose first result every later
  // caller would get back), deep-frozen so that an assignment anywhere in it throws, and compared
  // with a copy taken before the pass ran.
  const PURITY_CASES: readonly (readonly [NormalizationPass, string])[] = [
    ['canonicalTokens', 'SELECT "A" FROM T INNER JOIN u ON T.a <> u.a WHERE name = "APG"'],
    ['tableAliases', 'SELECT o.a, p.b FROM orders AS o JOIN orders AS p ON o.id = p.id'],
    ['selectAliases', 'SELECT a, count(*) AS n FROM t GROUP BY 1 HAVING n > 1 ORDER BY n'],
    ['outputAliases', 'SELECT a AS x, b AS y FROM t'],
    ['comparisons', "SELECT a FROM t WHERE '2024' <= a AND z >= b"],
    ['conjunctions', 'SELECT a FROM t WHERE c = 1 AND b = 2 OR e = 3 OR d = 4'],
  ];

  function freshStatement(sql: string): SqlNode {
    const parsed = parseSql(sql, 'sqlite');
    if (!parsed.ok || parsed.kind !== 'cst') throw new Error(`cannot parse ${sql}`);
    return parsed.program.statements[0] as unknown as SqlNode;
  }

  function deepFreeze<T>(value: T): T {
    if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
      Object.freeze(value);
      for (const inner of Object.values(value)) deepFreeze(inner);
    }
    return value;
  }

  it.each(PURITY_CASES)('pass %s does not change its input tree', (pass, sql) => {
    const tree = freshStatement(sql);
    const before = structuredClone(tree);
    deepFreeze(tree);
    const out = normalizeTree(tree, 'sqlite', { passes: [pass], columnsByTable: new Map([['t', new Set(['a', 'b'])]]) });
    expect(tree).toStrictEqual(before);
    expect(renderSql(out)).not.toBe(renderSql(before));
  });

  it('all passes together do not change the input tree, and a second run gives the same text', () => {
    for (const [, sql] of PURITY_CASES) {
      const tree = freshStatement(sql);
      const before = structuredClone(tree);
      const first = renderSql(normalizeTree(deepFreeze(tree), 'sqlite'));
      expect(tree).toStrictEqual(before);
      expect(renderSql(normalizeTree(freshStatement(sql), 'sqlite'))).toBe(first);
    }
  });
});
