/**
 * parser-text.ts: what the parser reads is what SQLite reads. Each case is valid SQLite (checked
 * against the bundled SQLite in the last test) that sql-parser-cst rejected or misread as given.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseSql } from '../../src/sql/parse.js';
import { parserText } from '../../src/sql/parser-text.js';
import { checkSafety } from '../../src/rungs/safety.js';
import { checkSchema } from '../../src/rungs/schema.js';

const CATALOG = {
  tables: [{ name: 'café', kind: 'table' as const, schema: 'main', columns: [{ name: 'xéy', type: 'INTEGER', primaryKey: false }, { name: 'a', type: 'INTEGER', primaryKey: false }] }],
};

const VALID_SQLITE: readonly [string, string][] = [
  ['a bare CR between tokens', 'SELECT\ra\rFROM café'],
  ['a form feed', 'SELECT\fa FROM café'],
  ['a byte-order mark before the statement', '\uFEFFSELECT a FROM café'],
  ['an unterminated block comment at the end', 'SELECT a FROM café /* the end'],
  ['a lone surrogate in an alias', 'SELECT a AS b\uD800 FROM café'],
  ['a non-ASCII identifier as a column', 'SELECT xéy FROM café'],
  ['a non-ASCII alias used in ORDER BY', 'SELECT a AS xéy FROM café ORDER BY xéy'],
];

describe('parserText', () => {
  it.each([
    ['nothing to do', 'SELECT 1', 'SELECT 1'],
    ['CR and form feed become spaces, CRLF stays', 'SELECT\r1\f,\r\n2', 'SELECT 1 ,\r\n2'],
    ['a BOM between tokens becomes a space, inside a string it stays', "\uFEFFSELECT '\uFEFF'", " SELECT '\uFEFF'"],
    ['an open trailing comment is closed', 'SELECT 1 -- a\n/* b', 'SELECT 1 -- a\n/* b*/'],
    ['a non-ASCII character after a bare word\'s first is a digit', 'SELECT xéy, "xéy", \'é\'', 'SELECT x0y, "xéy", \'é\''],
  ])('%s', (_case, sql, text) => {
    expect(parserText(sql, true).text).toBe(text);
  });

  it('keeps word characters and open comments for the other dialects', () => {
    expect(parserText('SELECT xéy /* open', false).text).toBe('SELECT xéy /* open');
  });
});

describe('parsing what SQLite reads', () => {
  it.each(VALID_SQLITE)('parses %s, keeps the identifiers as written, and L2 / L3 pass under a policy', (_case, sql) => {
    const parsed = parseSql(sql, 'sqlite');
    expect(parsed.ok).toBe(true);
    expect(checkSchema({ sql, dialect: 'sqlite', catalog: CATALOG })).toMatchObject({ status: 'pass' });
    expect(checkSafety({ sql, dialect: 'sqlite', policy: { allowedTables: ['café'] } })).toMatchObject({ status: 'pass' });
  });

  it('reads `SELECT xéy FROM café` as one column xéy, not x AS éy', () => {
    const result = checkSchema({ sql: 'SELECT xéy FROM café', dialect: 'sqlite', catalog: CATALOG });
    expect(result.reason).toBe('every name resolves (1 table, 1 column reference)');
  });

  it('agrees with SQLite on every case', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE café (xéy INTEGER, a INTEGER)');
      for (const [, sql] of VALID_SQLITE) expect(() => db.prepare(sql), sql).not.toThrow();
    } finally {
      db.close();
    }
  });
});
