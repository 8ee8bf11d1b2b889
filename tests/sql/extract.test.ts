import { describe, expect, it } from 'vitest';
import { MAX_OUTPUT_CHARS, extractSql } from '../../src/sql/extract.js';

const NO_KEYWORD = 'no SQL found: no fenced block and no line starts with a SQL statement keyword';

describe('extractSql: fenced blocks', () => {
  it.each([
    ['a fence tagged sql', '```sql\nSELECT 1;\n```', 'SELECT 1', 1],
    ['a fence tagged SQL in capitals', '```SQL\nselect * from t\n```', 'select * from t', 1],
    ['a fence tagged sqlite', '```sqlite\nWITH x AS (SELECT 1) SELECT * FROM x;\n```', 'WITH x AS (SELECT 1) SELECT * FROM x', 1],
    ['a fence without tag', '```\nSELECT 1\n```', 'SELECT 1', 1],
    ['a tilde fence', '~~~sql\nSELECT 1\n~~~', 'SELECT 1', 1],
    ['an indented fence', '  ```sql\n  SELECT a\n  FROM t\n  ```', 'SELECT a\n  FROM t', 1],
    ['prose before and after a fence', 'Here is the query:\n```sql\nSELECT a FROM t;\n```\nThis returns a.', 'SELECT a FROM t', 1],
    ['the last of several tagged fences', '```sql\nSELECT 1;\n```\nor better\n```sql\nSELECT 2;\n```', 'SELECT 2', 2],
    ['a tagged fence over an untagged one', '```sql\nSELECT 1\n```\n```\nSELECT 2\n```', 'SELECT 1', 1],
    ['an unterminated sql fence (output cut off)', 'Sure:\n```sql\nSELECT 1', 'SELECT 1', 1],
    ['a one-line fence', 'Sure! ```sql SELECT 1 ```', 'SELECT 1', 1],
    ['a one-line fence without tag', '```SELECT 1```', 'SELECT 1', 1],
    ['a fence keeping two statements', '```sql\nSELECT 1; DROP TABLE t;\n```', 'SELECT 1; DROP TABLE t', 1],
  ])('%s', (_shape, output, sql, candidates) => {
    expect(extractSql(output)).toEqual({ found: true, sql, source: 'fence', candidates });
  });
});

describe('extractSql: plain text', () => {
  it.each([
    ['bare SQL', 'SELECT 1', 'SELECT 1'],
    ['a trailing semicolon', 'SELECT 1;', 'SELECT 1'],
    ['doubled trailing semicolons', 'SELECT 1;;', 'SELECT 1'],
    ['surrounding whitespace', '\n\n  SELECT 1 ;  \n', 'SELECT 1'],
    ['prose before and after, blank lines', 'Here is the query:\n\nSELECT a FROM t;\n\nThis returns a.', 'SELECT a FROM t'],
    ['prose lines right before and after', 'The answer:\nSELECT a\nFROM t\nWHERE b = 1;\nThis should work.', 'SELECT a\nFROM t\nWHERE b = 1'],
    ['a sentence right after, no semicolon', 'SELECT name FROM singer WHERE x = 1\nThis returns the names.', 'SELECT name FROM singer WHERE x = 1'],
    ['an explanation after a blank line', 'Query:\nSELECT name FROM singer\n\nExplanation: this selects names.', 'SELECT name FROM singer'],
    ['SQL after a colon on the same line', 'Here is the query: SELECT a FROM t;', 'SELECT a FROM t'],
    ['SQL after a label', 'SQL: SELECT count(*) FROM singer', 'SELECT count(*) FROM singer'],
    ['a clause after a blank line', 'SELECT a, b\nFROM t\n\nORDER BY a', 'SELECT a, b\nFROM t\n\nORDER BY a'],
    ['a column named like an article', 'SELECT a\nFROM t', 'SELECT a\nFROM t'],
    ['a semicolon and sentence inside a string', "SELECT 'done; really. Truly done.'\nFROM t; -- end", "SELECT 'done; really. Truly done.'\nFROM t"],
    ['a comment after the semicolon', "SELECT ';' FROM t; -- done", "SELECT ';' FROM t"],
    ['two statements kept for the syntax rung', 'SELECT 1; DROP TABLE t;', 'SELECT 1; DROP TABLE t'],
    ['a word "sql" on its own line first', 'sql\nSELECT 1', 'SELECT 1'],
  ])('%s', (_shape, output, sql) => {
    expect(extractSql(output)).toEqual({ found: true, sql, source: 'text', candidates: 0 });
  });
});

describe('extractSql: no SQL found', () => {
  it.each([
    ['empty output', '', 'no SQL found: output is empty'],
    ['whitespace', '  \n\t', 'no SQL found: output is empty'],
    ['null', null, 'no SQL found: output is null, not text'],
    ['a number', 42, 'no SQL found: output is number, not text'],
    ['an object', { sql: 'SELECT 1' }, 'no SQL found: output is object, not text'],
    ['a refusal in prose', 'I cannot answer that.', NO_KEYWORD],
    ['prose starting with a keyword', 'Select the rows you need.', NO_KEYWORD],
    ['prose with a keyword after a colon', 'Note: select the rows you need.', NO_KEYWORD],
    ['a fence in another language', '```python\nprint(1)\n```', NO_KEYWORD],
    ['an untagged fence holding prose', '```\nHere is some text\n```', NO_KEYWORD],
    ['an empty sql fence', '```sql\n\n```', 'no SQL found: the last SQL fenced block is empty'],
  ])('%s', (_shape, output, reason) => {
    expect(extractSql(output)).toEqual({ found: false, reason });
  });
});

describe('extractSql: fence edge cases read in one pass', () => {
  it.each([
    ['an unclosed opener before a closed fence', '```sql\nSELECT 0\n~~~\nSELECT 1\n~~~', 'SELECT 1', 1],
    ['a closer must repeat the marker exactly', '````sql\nSELECT 1\n```\nSELECT 2\n````', 'SELECT 1\n```\nSELECT 2', 1],
    ['the last of two one-line fences', 'First ```sql SELECT 1``` then ```sql SELECT 2```', 'SELECT 2', 2],
    ['a one-line fence closed by a longer run', '```sql SELECT 1 ````', 'SELECT 1', 1],
  ])('%s', (_shape, output, sql, candidates) => {
    expect(extractSql(output)).toEqual({ found: true, sql, source: 'fence', candidates });
  });

  it('takes an output over MAX_OUTPUT_CHARS whole, without searching it', () => {
    const output = `${'x'.repeat(MAX_OUTPUT_CHARS)} SELECT 1`;
    expect(extractSql(output)).toEqual({ found: true, sql: output, source: 'text', candidates: 0 });
  });
});
