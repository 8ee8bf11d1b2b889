/** L1 on the static test database (static-test-db.ts), with SQLite's prepare as the authority. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { isLadderError } from '../../src/errors.js';
import { checkSyntax } from '../../src/rungs/syntax.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Dialect } from '../../src/sql/parse.js';
import { buildStaticTestDb, type StaticTestDb } from './static-test-db.js';
import { recordingMemo } from '../helpers/recording-memo.js';
import { useGenerousParseBudget } from '../helpers/depth-limit.js';

let fixture: StaticTestDb;
let engine: SqliteEngine;

beforeAll(() => {
  fixture = buildStaticTestDb();
  engine = createSqliteEngine({ poolSize: 1 });
});

afterAll(async () => {
  await engine.close();
  fixture.remove();
});

function summary(result: Awaited<ReturnType<typeof checkSyntax>>): string[] {
  return [result.status, ...result.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}`)];
}

describe('checkSyntax: argument validation', () => {
  it('rejects a non-string sql, an unknown dialect, engine without db, a foreign engine dialect', async () => {
    await expect(checkSyntax({ sql: 1 as never, dialect: 'sqlite' })).rejects.toThrow('sql must be a string; received number');
    await expect(checkSyntax({ sql: 'SELECT 1', dialect: 'tsql' as never })).rejects.toSatisfy((error) => isLadderError(error, 'invalid_argument'));
    await expect(checkSyntax({ sql: 'SELECT 1', dialect: 'sqlite', engine })).rejects.toSatisfy((error) => isLadderError(error, 'invalid_option'));
    await expect(checkSyntax({ sql: 'SELECT 1', dialect: 'postgres', engine, db: fixture.file })).rejects.toSatisfy((error) => isLadderError(error, 'invalid_option'));
  });

  it('a missing database is misuse, not a failing result', async () => {
    await expect(checkSyntax({ sql: 'SELECT 1', dialect: 'sqlite', engine, db: '/nonexistent/x.sqlite' })).rejects.toSatisfy((error) => isLadderError(error, 'db_not_found'));
  });
});

describe('checkSyntax: sqlite with the engine as authority', () => {
  it.each<[string, string, string[]]>([
    ['a query', 'SELECT name FROM customers', ['pass']],
    ['a compound query', 'SELECT amount FROM orders EXCEPT SELECT amount FROM salaries', ['pass']],
    ['VALUES', 'VALUES (1, 2)', ['pass']],
    ['legacy double-quoted string', 'SELECT name FROM customers WHERE segment = "retail"', ['pass']],
    ['SELEC x is not a query (the engine gate reads its first word)', 'SELEC x', ['fail', 'not_a_query@1:1']],
    ['syntax error on line 2', 'SELECT name\nFROM customers WHERE', ['fail', 'syntax_error@2:21']],
    ['two statements', 'SELECT 1; SELECT 2', ['fail', 'multiple_statements@1:11']],
    ['a write', 'DELETE FROM orders', ['fail', 'not_a_query@1:1']],
    ['a pragma', 'PRAGMA query_only = 0', ['fail', 'not_a_query@1:1']],
    ['only a comment', '-- nothing', ['fail', 'empty_statement@1:1']],
    ['unknown function', 'SELECT no_such_fn(1) FROM orders', ['fail', 'unknown_function@1:8']],
    ['misuse of aggregate', 'SELECT name FROM customers WHERE count(*) > 1', ['fail', 'query_error@1:1']],
    ['unknown table is L2, not L1', 'SELECT * FROM ordrs', ['pass']],
    ['unknown column is L2, not L1', 'SELECT amont FROM orders', ['pass']],
    ['a table named Match: a keyword SQLite accepts as a name', 'SELECT winner FROM Match', ['pass']],
    ['an empty IN list: the AST layer fails, SQLite accepts', 'SELECT winner FROM Match WHERE winner IN ()', ['pass']],
    ['a NUL byte: SQLite would run only the text before it', 'SELECT name FROM customers\0; DELETE FROM orders', ['fail', 'syntax_error@1:27']],
    ['a chain deeper than SQLite allows', `SELECT 1 WHERE ${Array.from({ length: 1_500 }, () => '1').join(' OR ')}`, ['fail', 'query_error@1:1']],
    ['SQL over the size limit, before any engine or parser reads it', `SELECT 1 /*${'x'.repeat(100_000)}*/`, ['fail', 'sql_too_large@1:1']],
  ])('%s', async (_name, sql, expected) => {
    expect(summary(await checkSyntax({ sql, dialect: 'sqlite', engine, db: fixture.file }))).toEqual(expected);
  });

  it('keeps the facts: authority, AST availability, the engine error left to L2', async () => {
    const match = await checkSyntax({ sql: 'SELECT winner FROM Match', dialect: 'sqlite', engine, db: fixture.file });
    expect([match.details.authority, match.details.ast, match.details.engineAccepted]).toEqual(['engine', true, true]);
    const unreadable = await checkSyntax({ sql: 'SELECT winner FROM Match WHERE winner IN ()', dialect: 'sqlite', engine, db: fixture.file });
    expect([unreadable.details.authority, unreadable.details.ast, unreadable.details.engineAccepted]).toEqual(['engine', false, true]);
    const unknown = await checkSyntax({ sql: 'SELECT * FROM ordrs', dialect: 'sqlite', engine, db: fixture.file });
    expect(unknown.details.engineError).toEqual({ code: 'unknown_table', message: 'no such table: ordrs' });
    expect(unknown.details.engineAccepted).toBe(false);
  });
});

describe('checkSyntax: the pass reason under legacy double quotes', () => {
  it('says SQLite prepares the text only once a double-quoted name is read as a string', async () => {
    const legacy = await checkSyntax({ sql: 'SELECT "full_name", "nick" FROM Match', dialect: 'sqlite', engine, db: fixture.file });
    expect([legacy.status, legacy.reason]).toEqual(['pass', 'one query; SQLite prepares it only once "full_name", "nick" are read as a string, as legacy SQLite reads a double-quoted name that is no column']);
    const plain = await checkSyntax({ sql: 'SELECT "winner" FROM Match', dialect: 'sqlite', engine, db: fixture.file });
    expect([plain.status, plain.reason]).toEqual(['pass', 'one query; SQLite prepares it']);
  });
});

describe('checkSyntax: budgets without an engine', () => {
  // The depth limit decides, not the 2 s parse budget a loaded machine can run out of first.
  useGenerousParseBudget();

  it('fails a tree deeper than the analysis reads as not_analysed, not as a syntax error', async () => {
    const result = await checkSyntax({ sql: `SELECT 1 WHERE ${Array.from({ length: 10_000 }, () => '1').join(' OR ')}`, dialect: 'postgres' });
    expect(summary(result)).toEqual(['fail', 'not_analysed@1:1']);
    expect(result.reason).toBe('not analysed within budget: the parse tree is more than 1100 levels deep');
  });

  it('fails an oversized text with sql_too_large', async () => {
    const result = await checkSyntax({ sql: `SELECT ${'1+'.repeat(60_000)}1`, dialect: 'sqlite' });
    expect(summary(result)).toEqual(['fail', 'sql_too_large@1:1']);
    expect(result.reason).toBe('not analysed within budget: the SQL text is 120008 characters; the analysis reads at most 100000');
  });
});

describe('checkSyntax: parser-based dialects', () => {
  it.each<[string, Dialect, string, string[]]>([
    ['sqlite without engine', 'sqlite', 'SELECT 1', ['pass']],
    ['sqlite without engine, SELEC', 'sqlite', 'SELEC x', ['fail', 'syntax_error@1:1']],
    ['postgres query', 'postgres', 'SELECT count(*) FILTER (WHERE a > 1) FROM t', ['pass']],
    ['postgres SELEC', 'postgres', 'SELEC x', ['fail', 'syntax_error@1:1']],
    ['postgres not a query', 'postgres', 'SET ROLE admin', ['fail', 'not_a_query@1:1']],
    ['postgres two statements', 'postgres', 'SELECT 1;\nDROP TABLE t', ['fail', 'multiple_statements@2:1']],
    ['mysql backticks', 'mysql', 'SELECT `a` FROM `t` LIMIT 5, 10', ['pass']],
    ['mysql error position', 'mysql', 'SELECT a FROM t WHERE', ['fail', 'syntax_error@1:22']],
    ['bigquery query', 'bigquery', 'SELECT a FROM `proj.ds.t` QUALIFY ROW_NUMBER() OVER (ORDER BY a) = 1', ['pass']],
    ['bigquery not a query', 'bigquery', 'DELETE FROM t WHERE true', ['fail', 'not_a_query@1:1']],
    ['snowflake query', 'snowflake', 'SELECT a FROM db.sch.t LIMIT 10', ['pass']],
    ['snowflake SELEC', 'snowflake', 'SELEC x', ['fail', 'syntax_error@1:7']],
    ['snowflake two statements', 'snowflake', 'SELECT 1; SELECT 2', ['fail', 'multiple_statements@1:1']],
  ])('%s', async (_name, dialect, sql, expected) => {
    expect(summary(await checkSyntax({ sql, dialect }))).toEqual(expected);
  });
});

describe('checkSyntax: a JOIN without ON or USING', () => {
  it.each<[string, Dialect, string, string[]]>([
    ['postgres JOIN', 'postgres', 'SELECT c.country\nFROM orders o JOIN customers c WHERE o.status = 1', ['fail', 'syntax_error@2:15']],
    ['postgres LEFT OUTER JOIN in a subquery', 'postgres', 'SELECT * FROM (SELECT 1 FROM a LEFT OUTER JOIN b) s', ['fail', 'syntax_error@1:32']],
    ['postgres two joins, both reported', 'postgres', 'SELECT 1 FROM a INNER JOIN b JOIN c ON b.x = c.x FULL JOIN d', ['fail', 'syntax_error@1:17', 'syntax_error@1:50']],
    ['bigquery JOIN', 'bigquery', 'SELECT 1 FROM a JOIN b', ['fail', 'syntax_error@1:17']],
    ['postgres CROSS JOIN and comma', 'postgres', 'SELECT 1 FROM a CROSS JOIN b, c', ['pass']],
    ['postgres JOIN ON and USING', 'postgres', 'SELECT 1 FROM a JOIN b ON a.x = b.x LEFT JOIN c USING (x)', ['pass']],
    ['bigquery CROSS JOIN UNNEST', 'bigquery', 'SELECT x FROM t CROSS JOIN UNNEST(t.xs) AS x', ['pass']],
    ['mysql: a cross product, valid', 'mysql', 'SELECT 1 FROM a JOIN b', ['pass']],
    ['sqlite without engine: a cross product, valid', 'sqlite', 'SELECT 1 FROM a JOIN b', ['pass']],
  ])('%s', async (_name, dialect, sql, expected) => {
    expect(summary(await checkSyntax({ sql, dialect }))).toEqual(expected);
  });

  it('names the join, the database and the fix in the reason', async () => {
    const result = await checkSyntax({ sql: 'SELECT 1 FROM a LEFT JOIN b JOIN c', dialect: 'postgres' });
    expect(result.reason).toBe('syntax error: LEFT JOIN without ON or USING: PostgreSQL requires a join condition (CROSS JOIN for a cross product) (+1 more)');
    expect(result.issues.map((issue) => issue.message)).toEqual([
      'LEFT JOIN without ON or USING: PostgreSQL requires a join condition (CROSS JOIN for a cross product)',
      'JOIN without ON or USING: PostgreSQL requires a join condition (CROSS JOIN for a cross product)',
    ]);
  });
});

describe('checkSyntax: the engine round trip overlaps the parse', () => {
  it("starts the parse before SQLite's prepare, awaits it once SQLite has answered, then reads it", async () => {
    const events: string[] = [];
    const memo = recordingMemo(events);
    const sql = 'SELECT name FROM customers';
    const watching: Engine = {
      ...engine,
      dialect: 'sqlite',
      prepare: (request) => (events.push(`prepare: ${request.sql}`), engine.prepare(request).then((outcome) => (events.push('prepared'), outcome))),
      execute: (r) => engine.execute(r),
      explain: (r) => engine.explain(r),
      catalog: (db) => engine.catalog(db),
      close: async () => undefined,
    };
    const result = await checkSyntax({ sql, dialect: 'sqlite', engine: watching, db: fixture.file, parses: memo });
    expect(events).toEqual([`ahead: ${sql}`, `prepare: ${sql}`, 'prepared', `wait: ${sql}`, `parse: ${sql}`]);
    expect(memo.parses).toBe(1);
    expect(result.reason).toBe('one query; SQLite prepares it');
  });

  it('parses at once, and starts nothing ahead, without an engine', async () => {
    const events: string[] = [];
    const result = await checkSyntax({ sql: 'SELECT 1', dialect: 'sqlite', parses: recordingMemo(events) });
    expect(events).toEqual(['parse: SELECT 1']);
    expect(result.reason).toBe('one query; parses in the dialect');
  });
});
