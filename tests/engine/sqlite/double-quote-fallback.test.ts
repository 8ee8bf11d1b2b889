import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { missingColumnName, restoreResolvingIdentifiers, rewriteDoubleQuoted } from '../../../src/engine/sqlite/double-quote-fallback.js';

describe('missingColumnName', () => {
  it.each([
    ['no such column: "APG" - should this be a string literal in single-quotes?', 'APG'],
    ['no such column: "a b"', 'a b'],
    ['no such column: APG', 'APG'],
    ['no such column: T1.x', 'T1.x'],
    ['no such table: APG', undefined],
    ['near "APG": syntax error', undefined],
  ])('%j → %j', (message, expected) => {
    expect(missingColumnName(message)).toBe(expected);
  });
});

describe('rewriteDoubleQuoted', () => {
  it.each([
    ['SELECT * FROM t WHERE c = "APG"', 'APG', "SELECT * FROM t WHERE c = 'APG'"],
    ['SELECT "APG" , x FROM t WHERE c = "APG" OR d = "APGX"', 'APG', "SELECT 'APG' , x FROM t WHERE c = 'APG' OR d = \"APGX\""],
    [`SELECT * FROM t WHERE c = "O'Brien"`, "O'Brien", "SELECT * FROM t WHERE c = 'O''Brien'"],
    ['SELECT * FROM t WHERE c = "say ""hi"""', 'say "hi"', `SELECT * FROM t WHERE c = 'say "hi"'`],
    [`SELECT '"APG"' FROM t -- "APG"\nWHERE c = "APG"`, 'APG', `SELECT '"APG"' FROM t -- "APG"\nWHERE c = 'APG'`],
    ['SELECT t."APG", "APG".x FROM t', 'APG', undefined],
    ['SELECT * FROM t WHERE c = "apg"', 'APG', undefined],
    ['SELECT * FROM t WHERE c = APG', 'APG', undefined],
  ])('%j (token %j)', (sql, name, expected) => {
    expect(rewriteDoubleQuoted(sql, name)).toBe(expected);
  });
});

describe('restoreResolvingIdentifiers', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t1 (a TEXT); CREATE TABLE t2 (b TEXT, c TEXT)');
  const prepares = (sql: string): boolean => {
    try {
      db.prepare(sql);
      return true;
    } catch {
      return false;
    }
  };
  it.each([
    // The outer "b" names no column of t1 (a string); the inner one is t2.b (an identifier), as Python's stock sqlite3 reads it.
    [
      'SELECT a FROM t1 WHERE a = "b" OR EXISTS (SELECT 1 FROM t2 WHERE t2.c = "b")',
      "SELECT a FROM t1 WHERE a = 'b' OR EXISTS (SELECT 1 FROM t2 WHERE t2.c = 'b')",
      "SELECT a FROM t1 WHERE a = 'b' OR EXISTS (SELECT 1 FROM t2 WHERE t2.c = \"b\")",
    ],
    ['SELECT a FROM t1 WHERE a = "x" OR a = "x"', "SELECT a FROM t1 WHERE a = 'x' OR a = 'x'", "SELECT a FROM t1 WHERE a = 'x' OR a = 'x'"],
    ['SELECT a FROM t1 WHERE a = "x"', "SELECT a FROM t1 WHERE a = 'x'", "SELECT a FROM t1 WHERE a = 'x'"],
  ])('%s', (original, rewritten, expected) => {
    expect(restoreResolvingIdentifiers(original, rewritten, prepares)).toBe(expected);
  });
});
