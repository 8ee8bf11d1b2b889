/**
 * SQLite keywords used as identifiers: every one of the 147 keywords in three uses — column alias
 * (`SELECT a AS k FROM t`), table alias (`SELECT k.a FROM t AS k`) and column name (`CREATE TABLE
 * kw_k (k INTEGER)`, then `SELECT k FROM kw_k`) — keeping the uses SQLite's prepare accepts
 * (260 of 441, on 89 keywords). No accepted use may fail a rung because of the AST layer: L1
 * (with the engine), L2 (analysed, names resolved as SQLite resolves them), L3 under a LIMIT and
 * an allowed-tables policy, and the diagnostics (components, exact match, AST distance, schema
 * linking) all read them.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/engine/engine.js';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { scoreAstDistance } from '../../src/rungs/ast-distance.js';
import { scoreComponents } from '../../src/rungs/components.js';
import { scoreExactMatch } from '../../src/rungs/exact-match.js';
import { checkSafety, type SafetyDetails } from '../../src/rungs/safety.js';
import { checkSchema } from '../../src/rungs/schema.js';
import { scoreSchemaLinking } from '../../src/rungs/schema-linking.js';
import { checkSyntax, type SyntaxDetails } from '../../src/rungs/syntax.js';
import { parseSql } from '../../src/sql/parse.js';
import { collectReferences } from '../../src/sql/references.js';
import { SQLITE_IDENTIFIER_KEYWORDS, SQLITE_KEYWORDS } from '../../src/sql/sqlite-keywords.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';

type Use = 'columnAlias' | 'tableAlias' | 'columnName';

/** The uses SQLite 3.53.2 accepts, per keyword (the 58 keywords missing here are accepted in none). */
const EXPECTED_ACCEPTED: Readonly<Record<string, readonly Use[]>> = (() => {
  const all: Use[] = ['columnAlias', 'tableAlias', 'columnName'];
  const table: Record<string, readonly Use[]> = {};
  for (const word of SQLITE_IDENTIFIER_KEYWORDS) table[word] = all;
  table['cast'] = ['columnAlias'];
  table['raise'] = ['columnAlias'];
  for (const word of ['current_date', 'current_time', 'current_timestamp']) table[word] = ['columnAlias', 'columnName'];
  return table;
})();

/** CTIME_KW keywords: as a bare column name SQLite reads the clock, not the column. */
const CLOCK_WORDS = new Set(['current_date', 'current_time', 'current_timestamp']);

const probe = new Database(':memory:');
probe.exec('CREATE TABLE t (a INTEGER)');
const accepts = (sql: string): boolean => {
  try {
    probe.prepare(sql);
    return true;
  } catch {
    return false;
  }
};

interface Case {
  readonly word: string;
  readonly use: Use;
  readonly sql: string;
  /** The table the query reads. */
  readonly table: string;
}

/** Every (keyword, use) pair with SQLite's verdict; creates the keyword tables SQLite accepts on `probe`. */
const measured = SQLITE_KEYWORDS.map((keyword) => {
  const word = keyword.toLowerCase();
  const createSql = `CREATE TABLE "kw_${word}" (${word} INTEGER)`;
  const created = accepts(createSql);
  if (created) probe.exec(createSql);
  const uses: Record<Use, string | null> = {
    columnAlias: `SELECT a AS ${word} FROM t`,
    tableAlias: `SELECT ${word}.a FROM t AS ${word}`,
    columnName: created ? `SELECT ${word} FROM kw_${word}` : null,
  };
  const accepted = (Object.entries(uses) as [Use, string | null][]).filter(([, sql]) => sql !== null && accepts(sql));
  return { word, created, accepted: accepted.map(([use, sql]) => ({ word, use, sql: sql!, table: use === 'columnName' ? `kw_${word}` : 't' })) };
});
const cases: Case[] = measured.flatMap((entry) => entry.accepted);

describe('SQLite keywords (sqlite.org/lang_keywords.html)', () => {
  it('the list has the 147 keywords of a default build, each distinct', () => {
    expect(SQLITE_KEYWORDS.length).toBe(147);
    expect(new Set(SQLITE_KEYWORDS).size).toBe(147);
  });

  it('SQLite accepts 260 of the 441 uses, on 89 keywords: the identifier keywords and their uses are as listed', () => {
    const acceptedUses = Object.fromEntries(measured.filter((entry) => entry.accepted.length > 0).map((entry) => [entry.word, entry.accepted.map((c) => c.use)]));
    expect(cases.length).toBe(260);
    expect(acceptedUses).toEqual(EXPECTED_ACCEPTED);
    expect(new Set(Object.keys(acceptedUses))).toEqual(SQLITE_IDENTIFIER_KEYWORDS);
    expect(SQLITE_IDENTIFIER_KEYWORDS.size).toBe(89);
  });

  it('a reserved keyword is rejected in all three uses (e.g. from, select, where)', () => {
    for (const word of ['from', 'select', 'where', 'order', 'group', 'join']) {
      expect(measured.find((entry) => entry.word === word)).toEqual({ word, created: false, accepted: [] });
    }
  });
});

describe('keywords as identifiers: no rung fails because of the parser (260 uses)', () => {
  let engine: SqliteEngine;
  let db: TempSqlite;
  let catalog: Catalog;

  beforeAll(async () => {
    const script = ['CREATE TABLE t (a INTEGER);', ...measured.filter((entry) => entry.created).map((entry) => `CREATE TABLE "kw_${entry.word}" ("${entry.word}" INTEGER);`)].join('\n');
    db = createTempSqlite(script, { prefix: 'ladder-keywords-' });
    engine = createSqliteEngine({ poolSize: 1 });
    catalog = await engine.catalog(db.file);
  });

  afterAll(async () => {
    await engine.close();
    db.remove();
  });

  it.each(cases.map((c) => [`${c.word} as ${c.use}`, c] as const))('%s: parses, L1–L3 pass analysed, names resolve', async (_label, c) => {
    const parsed = parseSql(c.sql, 'sqlite');
    expect(parsed.ok).toBe(true);

    const syntax = await checkSyntax({ sql: c.sql, dialect: 'sqlite', engine, db: db.file });
    expect([syntax.status, (syntax.details as SyntaxDetails).ast]).toEqual(['pass', true]);

    // engineAccepted is left out on purpose: L2 must read the text itself.
    const schema = checkSchema({ sql: c.sql, dialect: 'sqlite', catalog });
    expect([schema.status, schema.details.analysed, schema.reason]).toEqual(['pass', true, schema.reason]);
    expect(schema.details.tables).toEqual([c.table]);

    const references = collectReferences({ sql: c.sql, dialect: 'sqlite', catalog });
    if (!references.ok) throw new Error(references.reason);
    const resolved = references.columns.map((column) => [column.name, column.resolution.kind === 'table' ? `${column.resolution.table.name}.${column.resolution.column}` : column.resolution.kind]);
    if (c.use === 'columnAlias') {
      expect([resolved, references.outputColumns]).toEqual([[['a', 't.a']], [c.word]]);
    } else if (c.use === 'tableAlias') {
      expect([resolved, references.tables.map((table) => [table.name, table.alias])]).toEqual([[['a', 't.a']], [['t', c.word]]]);
    } else {
      expect(resolved).toEqual(CLOCK_WORDS.has(c.word) ? [] : [[c.word, `${c.table}.${c.word}`]]);
    }

    const limited = `${c.sql} LIMIT 5`;
    const safety = checkSafety({ sql: limited, dialect: 'sqlite', policy: { maxLimit: 10, allowedTables: [c.table] } });
    expect([safety.status, (safety.details as SafetyDetails).analysed, safety.reason]).toEqual(['pass', true, safety.reason]);
    const outside = checkSafety({ sql: limited, dialect: 'sqlite', policy: { allowedTables: ['other'] } });
    expect(outside.issues.map((issue) => issue.kind)).toEqual(['table_not_allowed']);

    const gold = [c.sql];
    expect(scoreComponents({ predictedSql: c.sql, goldSqls: gold, dialect: 'sqlite' }).status).toBe('pass');
    expect(scoreExactMatch({ predictedSql: c.sql, goldSqls: gold, dialect: 'sqlite' }).namedScores).toEqual({ exact_match_raw: 1, exact_match_normalized: 1 });
    expect(scoreAstDistance({ predictedSql: c.sql, goldSqls: gold, dialect: 'sqlite' }).status).toBe('pass');
    const linking = scoreSchemaLinking({ goldSqls: gold, predictedSql: c.sql, dialect: 'sqlite', catalog });
    expect([linking.status, linking.details?.problems]).toEqual(['pass', []]);
  });
});
