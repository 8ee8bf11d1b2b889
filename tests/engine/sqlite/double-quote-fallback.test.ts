import { describe, expect, it } from 'vitest';
import { missingColumnName, rewriteDoubleQuoted } from '../../../src/engine/sqlite/double-quote-fallback.js';

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
