import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { equivalenceKey, findNeighbours, sameQueryText, listNeighbourCandidates, numberPerturbations, stringPerturbations } from '../../src/semantic/neighbours/neighbours.js';
import { createPrng } from '../../src/semantic/model/prng.js';
import { readSchema, type DatabaseSchema } from '../../src/semantic/model/schema-reader.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { CONSTRAINT_SCHEMA } from './schema-sql.js';

let temp: TempSqlite;
let schema: DatabaseSchema;
let engine: SqliteEngine;
beforeAll(() => {
  temp = createTempSqlite(CONSTRAINT_SCHEMA, { prefix: 'ladder-neighbours-' });
  schema = readSchema(temp.file);
  engine = createSqliteEngine({ poolSize: 1 });
});
afterAll(async () => {
  await engine.close();
  temp.remove();
});

const texts = (gold: string, kind?: string): string[] =>
  listNeighbourCandidates(gold, schema, { maxSpanTokens: 2 }).filter((n) => kind === undefined || n.kind === kind).map((n) => n.sql);

describe('listNeighbourCandidates (CONSTRAINT_SCHEMA)', () => {
  it('lists every one-edit neighbour of a small gold, structured drops first', () => {
    const candidates = listNeighbourCandidates('SELECT name FROM dept WHERE budget > 100', schema, { maxSpanTokens: 2 });
    expect(candidates.filter((n) => n.kind !== 'drop_span').map((n) => [n.kind, n.sql])).toEqual([
      // No DISTINCT: dept.name is UNIQUE NOT NULL, so the rows are unique already.
      ['drop_clause', 'SELECT name FROM dept'],
      ['swap_comparison', 'SELECT name FROM dept WHERE budget = 100'],
      ['swap_comparison', 'SELECT name FROM dept WHERE budget != 100'],
      ['swap_comparison', 'SELECT name FROM dept WHERE budget < 100'],
      ['swap_comparison', 'SELECT name FROM dept WHERE budget <= 100'],
      ['swap_comparison', 'SELECT name FROM dept WHERE budget >= 100'],
      ['literal', 'SELECT name FROM dept WHERE budget > 101'],
      ['literal', 'SELECT name FROM dept WHERE budget > 99'],
      ['literal', 'SELECT name FROM dept WHERE budget > 62'],
      ['literal', 'SELECT name FROM dept WHERE budget > -49'],
      ['literal', 'SELECT name FROM dept WHERE budget > -73'],
      ['swap_column', 'SELECT dept_id FROM dept WHERE budget > 100'],
      ['swap_column', 'SELECT budget FROM dept WHERE budget > 100'],
      ['swap_column', 'SELECT head_id FROM dept WHERE budget > 100'],
      ['swap_column', 'SELECT name FROM dept WHERE dept_id > 100'],
      ['swap_column', 'SELECT name FROM dept WHERE name > 100'],
      ['swap_column', 'SELECT name FROM dept WHERE head_id > 100'],
    ]);
    expect(candidates.filter((n) => n.kind === 'drop_span').length).toBe(15);
    expect(candidates.find((n) => n.sql === 'SELECT name FROM dept WHERE budget > 99')).toEqual({
      sql: 'SELECT name FROM dept WHERE budget > 99',
      kind: 'literal',
      start: 37,
      end: 40,
      replacement: '99',
      description: '`100` → `99`',
    });
  });

  it.each([
    ['swap_logic', "SELECT email FROM emp WHERE grade = 'A' OR salary < 2000", ["SELECT email FROM emp WHERE grade = 'A' AND salary < 2000"]],
    ['swap_in', 'SELECT email FROM emp WHERE emp_id IN (SELECT emp_id FROM assignment)', ['SELECT email FROM emp WHERE emp_id NOT IN (SELECT emp_id FROM assignment)']],
    ['swap_like', "SELECT email FROM emp WHERE email NOT LIKE 'a%'", ["SELECT email FROM emp WHERE email LIKE 'a%'"]],
    ['swap_null_test', 'SELECT email FROM emp WHERE grade IS NULL', ['SELECT email FROM emp WHERE grade IS NOT NULL']],
    ['swap_between', 'SELECT email FROM emp WHERE salary BETWEEN 2000 AND 3000', ['SELECT email FROM emp WHERE salary NOT BETWEEN 2000 AND 3000']],
    ['swap_exists', 'SELECT name FROM dept d WHERE EXISTS (SELECT 1 FROM emp e WHERE e.dept_id = d.dept_id)', ['SELECT name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.dept_id = d.dept_id)']],
    ['swap_order', 'SELECT email FROM emp ORDER BY salary DESC', ['SELECT email FROM emp ORDER BY salary ASC']],
    ['add_desc', 'SELECT email FROM emp ORDER BY salary, hired', ['SELECT email FROM emp ORDER BY salary DESC, hired', 'SELECT email FROM emp ORDER BY salary, hired DESC']],
    ['limit', 'SELECT email FROM emp ORDER BY salary LIMIT 1', ['SELECT email FROM emp ORDER BY salary LIMIT 2', 'SELECT email FROM emp ORDER BY salary LIMIT 0']],
    ['swap_arithmetic', 'SELECT salary * 12 FROM emp', ['SELECT salary + 12 FROM emp', 'SELECT salary - 12 FROM emp', 'SELECT salary / 12 FROM emp']],
    ['drop_predicate', "SELECT email FROM emp WHERE grade = 'A' AND salary < 2000", ["SELECT email FROM emp WHERE salary < 2000", "SELECT email FROM emp WHERE grade = 'A'"]],
    ['drop_join_condition', 'SELECT a.code FROM assignment a JOIN project p ON p.dept_id = a.dept_id AND p.code = a.code', ['SELECT a.code FROM assignment a JOIN project p']],
    ['drop_item', 'SELECT email, salary FROM emp', ['SELECT salary FROM emp', 'SELECT email FROM emp']],
    ['swap_join', 'SELECT e.email FROM dept d LEFT JOIN emp e ON e.dept_id = d.dept_id', ['SELECT e.email FROM dept d JOIN emp e ON e.dept_id = d.dept_id']],
    ['swap_aggregate', 'SELECT MAX(salary) FROM emp', ['SELECT COUNT(salary) FROM emp', 'SELECT MIN(salary) FROM emp', 'SELECT AVG(salary) FROM emp', 'SELECT SUM(salary) FROM emp']],
  ])('%s', (kind, gold, expected) => {
    expect(texts(gold, kind)).toEqual(expected);
  });

  it('perturbs string literals by substrings, case and % (double-quoted strings too, as SQLite reads them)', () => {
    expect(texts(`SELECT email FROM emp WHERE grade = "Bb"`, 'literal')).toEqual([
      'SELECT email FROM emp WHERE grade = "b"',
      'SELECT email FROM emp WHERE grade = "B"',
      'SELECT email FROM emp WHERE grade = ""',
      'SELECT email FROM emp WHERE grade = "BB"',
      'SELECT email FROM emp WHERE grade = "bb"',
      'SELECT email FROM emp WHERE grade = "%Bb"',
      'SELECT email FROM emp WHERE grade = "Bb%"',
      'SELECT email FROM emp WHERE grade = "%Bb%"',
    ]);
    expect(stringPerturbations('a%', createPrng(1))).toEqual(['%', 'a', '', 'A%', '%a', '%a%']);
    expect(numberPerturbations(0.5, createPrng(1))).toEqual(['0.6', '0.4', '-0.179936', '-0.393702']);
  });

  it('leaves out edits that provably change nothing', () => {
    // COUNT(*) → COUNT(); an unused output alias; a qualifier; DISTINCT on one aggregate row, on
    // selected GROUP BY keys, on a selected key, inside IN; LEFT ↔ INNER on a NOT NULL foreign key.
    expect(texts('SELECT COUNT(*) AS n FROM emp').filter((t) => t.includes('COUNT()') || !t.includes(' n ') && t.startsWith('SELECT COUNT(*) FROM'))).toEqual([]);
    expect(texts('SELECT COUNT(*) FROM emp', 'add_distinct')).toEqual([]);
    expect(texts('SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id', 'add_distinct')).toEqual([]);
    expect(texts('SELECT emp_id, email FROM emp', 'add_distinct')).toEqual([]);
    expect(texts('SELECT email FROM emp WHERE salary > 3000', 'add_distinct')).toEqual([]);
    expect(texts('SELECT grade FROM emp WHERE emp_id IN (SELECT emp_id FROM assignment)', 'add_distinct')).toEqual(['SELECT DISTINCT grade FROM emp WHERE emp_id IN (SELECT emp_id FROM assignment)']);
    expect(texts('SELECT e.email FROM emp e LEFT JOIN dept d ON d.dept_id = e.dept_id', 'swap_join')).toEqual([]);
    expect(texts('SELECT e.email FROM emp e LEFT JOIN dept d ON d.dept_id = e.dept_id').filter((t) => t.includes('emp e JOIN dept'))).toEqual([]);
    expect(texts('SELECT e.email FROM emp e WHERE e.salary > 1').filter((t) => t.startsWith('SELECT email FROM'))).toEqual([]);
  });

  it('keys texts that differ only in spelling alike', () => {
    expect(equivalenceKey('select A as x, b from [T] where a <> 1;')).toBe(`select a x , b from "t" where a != 1`);
    expect(equivalenceKey('SELECT a FROM t ORDER BY a ASC')).toBe(equivalenceKey('select a from t order by a'));
  });

  it.each([
    ["SELECT a AS x FROM t INNER JOIN u ON t.id == u.id WHERE b <> 'X' -- note\n;", "select a x from t join u on t.id = u.id where b != 'X'", true],
    ['SELECT * FROM a LEFT OUTER JOIN b ON a.k = b.k ORDER BY 1 ASC', 'select * from a left join b on a.k = b.k order by 1', true],
    ["SELECT a FROM t WHERE b = 'X'", "SELECT a FROM t WHERE b = 'x'", false],
    ['SELECT a FROM t WHERE b > 1', 'SELECT a FROM t WHERE b >= 1', false],
    ['SELECT a FROM t LIMIT 1', 'SELECT a FROM t', false],
    // SQLite folds the case of ASCII letters only: with a non-ASCII character, the case counts.
    ['SELECT Äge FROM t', 'select äge from t', false],
    ['SELECT Äge  FROM t;', 'SELECT Äge FROM t', true],
  ])('sameQueryText(%j, %j) is %s', (a, b, same) => {
    expect(sameQueryText(a, b)).toBe(same);
  });
});

describe('findNeighbours', () => {
  it('keeps the candidates SQLite prepares, with counts of what it left out', async () => {
    const set = await findNeighbours({ engine, db: temp.file, gold: 'SELECT name FROM dept WHERE budget > 100', schema, maxSpanTokens: 2 });
    expect(set.neighbours.map((n) => n.sql)).toEqual([
      'SELECT name FROM dept',
      'SELECT name FROM dept WHERE budget = 100',
      'SELECT name FROM dept WHERE budget != 100',
      'SELECT name FROM dept WHERE budget < 100',
      'SELECT name FROM dept WHERE budget <= 100',
      'SELECT name FROM dept WHERE budget >= 100',
      'SELECT name FROM dept WHERE budget > 101',
      'SELECT name FROM dept WHERE budget > 99',
      'SELECT name FROM dept WHERE budget > 62',
      'SELECT name FROM dept WHERE budget > -49',
      'SELECT name FROM dept WHERE budget > -73',
      'SELECT name FROM dept WHERE 100',
      'SELECT name FROM dept WHERE budget',
      'SELECT dept_id FROM dept WHERE budget > 100',
      'SELECT budget FROM dept WHERE budget > 100',
      'SELECT head_id FROM dept WHERE budget > 100',
      'SELECT name FROM dept WHERE dept_id > 100',
      'SELECT name FROM dept WHERE name > 100',
      'SELECT name FROM dept WHERE head_id > 100',
    ]);
    expect(set.neighbours.map((n) => n.index)).toEqual(Array.from({ length: 19 }, (_, i) => i));
    expect({ candidates: set.candidates, unprepared: set.unprepared, equivalent: set.equivalent, capped: set.capped, provablyEquivalent: set.provablyEquivalent }).toEqual({
      candidates: 32,
      unprepared: 13,
      equivalent: 0,
      capped: 0,
      provablyEquivalent: { cosmetic: 0, redundantDistinct: 1, keyJoin: 0, domain: 0 },
    });
  });

  it('applies the rewrite to every candidate and caps the list by the seed', async () => {
    const set = await findNeighbours({ engine, db: temp.file, gold: 'SELECT name FROM dept WHERE budget > 100', schema, maxSpanTokens: 2, maxNeighbours: 3, rewrite: (sql) => sql.replace('budget > 101', 'budget > 100') });
    expect(set.neighbours.length).toBe(3);
    // The rewrite turned one candidate back into the gold.
    expect({ capped: set.capped, unprepared: set.unprepared, listed: set.candidates }).toEqual({ capped: 15, unprepared: 13, listed: 32 });
  });
});
