import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractGoldLiterals } from '../../src/semantic/model/gold-literals.js';
import { readSchema, type DatabaseSchema } from '../../src/semantic/model/schema-reader.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { CONSTRAINT_SCHEMA } from './schema-sql.js';

let temp: TempSqlite;
let schema: DatabaseSchema;
beforeAll(() => {
  temp = createTempSqlite(CONSTRAINT_SCHEMA, { prefix: 'ladder-literals-' });
  schema = readSchema(temp.file);
});
afterAll(() => temp.remove());

const brief = (sql: string) => extractGoldLiterals(sql, schema).map((l) => [l.text, l.operator, l.columns.map((c) => `${c.table}.${c.column}`).join('|'), l.wrapped, typeof l.value]);

describe('extractGoldLiterals (CONSTRAINT_SCHEMA)', () => {
  it('ties each constant to the column it is compared with, through aliases, IN lists, BETWEEN, LIKE and functions', () => {
    expect(
      brief(`SELECT e.email FROM emp e JOIN dept d ON d.dept_id = e.dept_id WHERE d.name LIKE 'Res%' AND e.salary >= 3000 AND e.grade IN ('A', "B") AND e.hired BETWEEN '2020-01-01' AND '2021-12-31' AND LOWER(e.email) = 'ada@example.com' AND -5 < e.salary AND 2.5 = d.budget`),
    ).toEqual([
      ["'Res%'", 'like', 'dept.name', false, 'string'],
      ['3000', '>=', 'emp.salary', false, 'bigint'],
      ["'A'", 'in', 'emp.grade', false, 'string'],
      ['"B"', 'in', 'emp.grade', false, 'string'],
      ["'2020-01-01'", 'between', 'emp.hired', false, 'string'],
      ["'2021-12-31'", 'between', 'emp.hired', false, 'string'],
      ["'ada@example.com'", '=', 'emp.email', true, 'string'],
      ['-5', '>', 'emp.salary', false, 'bigint'],
      ['2.5', '=', 'dept.budget', false, 'number'],
    ]);
  });

  it('maps an unqualified name shared by two tables to both, and a view column by name', () => {
    expect(brief('SELECT 1 FROM emp, project WHERE dept_id = 2')).toEqual([['2', '=', 'emp.dept_id|project.dept_id', false, 'bigint']]);
    expect(brief("SELECT * FROM v_emp WHERE dept = 'Sales'")).toEqual([["'Sales'", '=', '', false, 'string']]);
  });

  it('falls back to a token scan when the AST layer cannot read the gold', () => {
    expect(brief('SELECT * FROM emp WHERE salary > 10 AND')).toEqual([['10', '>', 'emp.salary', false, 'bigint']]);
  });
});
