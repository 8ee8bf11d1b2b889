/**
 * The PostgreSQL engine's parts that need no server: cells from text, the lexer, the text gate,
 * script splitting, error codes, options and the manifest. The server's tests are in
 * tests-postgres/ (npm run test:postgres).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectOuterOrderBy, hasOrderByTokens } from '../../../src/compare/gold-ordering.js';
import { planTieQuery } from '../../../src/compare/tie-groups.js';
import { ArrayCell, DecimalCell, JsonCell, TemporalCell } from '../../../src/engine/engine.js';
import { decoderFor, parseArray } from '../../../src/engine/postgres/pg-cells.js';
import { postgresError } from '../../../src/engine/postgres/pg-errors.js';
import { checkPostgresQueryText } from '../../../src/engine/postgres/pg-query-gate.js';
import { splitScript } from '../../../src/engine/postgres/pg-scripts.js';
import { resolvePostgresEngineOptions, resolvePostgresRequest } from '../../../src/engine/postgres/postgres-engine-options.js';
import { readManifest } from '../../../src/fixtures/manifest.js';
import { tokenizePostgres } from '../../../src/sql/postgres-lexer.js';

describe('cells from PostgreSQL text', () => {
  it.each([
    [23, '42', 42],
    [20, '9007199254740991', 9_007_199_254_740_991],
    [20, '9007199254740993', 9_007_199_254_740_993n],
    [701, '0.30000000000000004', 0.30000000000000004],
    [701, '-Infinity', -Infinity],
    [16, 't', true],
    [16, 'f', false],
    [25, 'text', 'text'],
    [2950, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
  ])('type %i: %s', (oid, text, cell) => {
    expect(decoderFor(oid)(text)).toEqual(cell);
  });

  it('keeps numeric, dates, json and bytea exact', () => {
    expect(decoderFor(1700)('123456789012345678901234567890.1234567890')).toEqual(new DecimalCell('123456789012345678901234567890.1234567890'));
    expect(decoderFor(1184)('2024-03-01 12:00:00.123456+00')).toEqual(new TemporalCell('timestamptz', '2024-03-01 12:00:00.123456+00'));
    expect(decoderFor(1186)('1 year 2 mons')).toEqual(new TemporalCell('interval', '1 year 2 mons'));
    expect(decoderFor(3802)('{"a": 1}')).toEqual(new JsonCell('{"a": 1}', true));
    expect(decoderFor(17)('\\x00ff')).toEqual(new Uint8Array([0, 255]));
  });

  it('reads arrays: NULLs, quoting, nesting, bounds, element types', () => {
    expect(decoderFor(1007)('{1,NULL,3}')).toEqual(new ArrayCell([1, null, 3]));
    expect(decoderFor(1009)('{"a b","q\\"r",NULL,"NULL"}')).toEqual(new ArrayCell(['a b', 'q"r', null, 'NULL']));
    expect(decoderFor(1007)('{{1,2},{3,4}}')).toEqual(new ArrayCell([new ArrayCell([1, 2]), new ArrayCell([3, 4])]));
    expect(decoderFor(1231)('[0:1]={1.50,2}')).toEqual(new ArrayCell([new DecimalCell('1.50'), new DecimalCell('2')]));
    expect(decoderFor(1007)('{}')).toEqual(new ArrayCell([]));
    expect(parseArray('{(0,0),(1,1);(2,2),(3,3)}', (text) => text, ';')).toEqual(new ArrayCell(['(0,0),(1,1)', '(2,2),(3,3)']));
  });

  it('reads an array of a type that is not built in once its pg_type row is known', () => {
    expect(decoderFor(70_001, new Map([[70_001, { element: 70_000, delimiter: ',' }], [70_000, { element: 0, delimiter: ',' }]]))('{pending,shipped}')).toEqual(new ArrayCell(['pending', 'shipped']));
    expect(decoderFor(70_000)('pending')).toBe('pending');
  });
});

describe('the PostgreSQL lexer', () => {
  it.each([
    ["SELECT 'a;b'", 2],
    ["SELECT E'it\\'s; x'", 2],
    ['SELECT $$a;b$$, $tag$ $$ ; $tag$', 4],
    ['SELECT "a;""b" /* c; /* nested; */ still; */ FROM t', 4],
    ['SELECT $1, x$y FROM t', 6],
  ])('%s gives %i tokens', (sql, count) => {
    expect(tokenizePostgres(sql)).toHaveLength(count);
  });

  it('finds ORDER BY only outside strings, dollar quotes and comments', () => {
    expect(hasOrderByTokens("SELECT $$ order by $$ FROM t", 'postgres')).toBe(false);
    expect(hasOrderByTokens("SELECT E'\\' order by x' FROM t", 'postgres')).toBe(false);
    expect(hasOrderByTokens('SELECT a FROM t ORDER BY a', 'postgres')).toBe(true);
  });
});

describe("the gold's ORDER BY read in PostgreSQL", () => {
  it('parses PostgreSQL syntax the SQLite reader cannot', () => {
    expect(detectOuterOrderBy("SELECT a::numeric FROM t ORDER BY a DESC NULLS LAST", undefined, 'postgres')).toEqual({ ordered: true, source: 'ast' });
    expect(detectOuterOrderBy('SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b', undefined, 'postgres')).toEqual({ ordered: true, source: 'ast' });
    expect(detectOuterOrderBy('SELECT * FROM (SELECT a FROM t ORDER BY a) s', undefined, 'postgres')).toEqual({ ordered: false, source: 'ast' });
  });

  it('plans tie queries, and leaves OFFSET / FETCH cuts unknown', () => {
    expect(planTieQuery('SELECT name FROM t ORDER BY age::int LIMIT 2', ['name'], undefined, 'postgres')).toMatchObject({ kind: 'ordered', hiddenExpressions: ['age::int'], limit: 2 });
    expect(planTieQuery('SELECT name FROM t ORDER BY age FETCH FIRST 2 ROWS ONLY', ['name'], undefined, 'postgres')).toEqual({ kind: 'unknown', reason: 'LIMIT / OFFSET is not an integer literal' });
  });
});

describe('the text gate', () => {
  it.each([
    ['SELECT 1', undefined],
    ['(SELECT 1) UNION (SELECT 2)', undefined],
    ['TABLE t', undefined],
    ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', undefined],
    ['  -- only a comment\n;', 'empty_statement'],
    ['SELECT 1; SELECT 2', 'multiple_statements'],
    ["SELECT 'a;' ; ", undefined],
    ['SET ROLE postgres', 'not_a_query'],
    ['COPY t TO PROGRAM $$id$$', 'not_a_query'],
    ['DO $$ BEGIN PERFORM 1; END $$', 'not_a_query'],
    ['SELECT 1\0; DROP TABLE t', 'syntax_error'],
  ])('%s → %s', (sql, code) => {
    expect(checkPostgresQueryText(sql)?.code).toBe(code);
  });
});

describe('fixture scripts', () => {
  it('splits statements, COPY blocks and meta-commands by line', () => {
    const script = [
      '-- dump',
      '\\restrict abc',
      "CREATE TABLE t (a int, b text DEFAULT ';');",
      'COPY t (a, b) FROM stdin;',
      '1\tx;y',
      '2\t\\N',
      '\\.',
      'CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$;',
      '\\! echo hi',
      'VACUUM t;',
      '\\unrestrict abc',
    ].join('\n');
    expect(splitScript(script)).toEqual([
      { kind: 'sql', text: "CREATE TABLE t (a int, b text DEFAULT ';')", line: 3, alone: false },
      { kind: 'copy', text: 'COPY t (a, b) FROM stdin', data: '1\tx;y\n2\t\\N\n', line: 4 },
      { kind: 'sql', text: 'CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$', line: 8, alone: false },
      { kind: 'meta', text: '\\! echo hi', line: 9 },
      { kind: 'sql', text: 'VACUUM t', line: 10, alone: true },
    ]);
  });
});

describe('ownership statements of a dump', () => {
  it('are skipped, as pg_restore --no-owner does', async () => {
    const sent: string[] = [];
    // A server that answers every statement of a message, the markers' reads with the setting on.
    const client = {
      query: async (text: string) => {
        sent.push(text);
        return text.split(';\n').map(() => ({ rows: [{ scs: 'on' }] }));
      },
    } as unknown as import('pg').Client;
    const { runScript, SCRIPT_LINE_PREFIX } = await import('../../../src/engine/postgres/pg-scripts.js');
    await runScript(client, 'CREATE TABLE public.t (a int);\nALTER TABLE public.t OWNER TO postgres;\nALTER SCHEMA "my schema" OWNER TO "Some Role";\nALTER TABLE t ADD COLUMN b int;\n');
    // One message: each statement after the marker naming its line, then the last read of the setting.
    expect(sent).toHaveLength(1);
    const statements = sent[0]!.split(';\n');
    expect(statements.filter((statement) => !statement.startsWith('SELECT '))).toEqual(['CREATE TABLE public.t (a int)', 'ALTER TABLE t ADD COLUMN b int']);
    expect(statements.filter((statement) => statement.includes(SCRIPT_LINE_PREFIX)).map((marker) => /line (\d+)'/.exec(marker)?.[1])).toEqual(['1', '4']);
  });
});

describe('SQLSTATE to neutral codes', () => {
  it.each([
    ['42601', 'syntax_error'],
    ['42P01', 'unknown_table'],
    ['42703', 'unknown_column'],
    ['42883', 'unknown_function'],
    ['42501', 'permission_denied'],
    ['25006', 'not_a_query'],
    ['57014', 'timeout'],
    ['53400', 'memory_limit'],
    ['22012', 'query_error'],
    ['08006', 'engine_failure'],
  ])('%s → %s', (sqlstate, code) => {
    expect(postgresError({ code: sqlstate, message: 'm', position: '3' })).toEqual({ code, message: 'm', engineCode: sqlstate, position: 3 });
  });
});

describe('createPostgresEngine options', () => {
  it('applies defaults', () => {
    expect(resolvePostgresEngineOptions({ cacheDir: '/tmp/x' })).toMatchObject({ url: undefined, databases: 'scratch', cacheDir: '/tmp/x', timeoutMs: 10_000, maxRows: 100_000, workMemBytes: 16 * 2 ** 20, tempFileLimitBytes: 256 * 2 ** 20 });
  });

  it.each([
    [{ timeout: 5 }, 'createPostgresEngine: timeout is not an option (did you mean timeoutMs?)'],
    [{ DATABASE_URL: 'postgres://x' }, 'DATABASE_URL is not an option (did you mean url?)'],
    [{ url: 'mysql://x' }, 'createPostgresEngine: url must be a postgres:// or postgresql:// URL; received a string ("mysql://x")'],
    [{ databases: 'existing' }, 'databases must be absent unless url is given'],
    [{ maxMemoryBytes: 1024 }, 'maxMemoryBytes must be an integer ≥ 67108864 (bytes); received a number (1024)'],
  ])('%o → %s', (options, message) => {
    expect(() => resolvePostgresEngineOptions(options)).toThrow(message);
  });

  it('validates requests', () => {
    const defaults = resolvePostgresEngineOptions({ cacheDir: '/tmp/x' });
    expect(resolvePostgresRequest({ db: 'shop', sql: 'SELECT 1', doubleQuotes: 'legacy' }, defaults)).toEqual({ db: 'shop', sql: 'SELECT 1', timeoutMs: 10_000, maxRows: 100_000 });
    expect(() => resolvePostgresRequest({ db: '', sql: 'SELECT 1' }, defaults)).toThrow('request.db must be a database name');
    expect(() => resolvePostgresRequest({ db: 'x', sql: 1 }, defaults)).toThrow('request.sql must be a string; received a number (1)');
  });
});

describe('PostgreSQL fixture manifests', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pg-manifest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = (name: string, text: string): string => {
    mkdirSync(path.join(dir, name), { recursive: true });
    writeFileSync(path.join(dir, name, 'schema.sql'), 'CREATE TABLE t (a int);');
    writeFileSync(path.join(dir, name, 'fixture.yaml'), text);
    return path.join(dir, name, 'fixture.yaml');
  };

  it('reads dialect, collation and search_path', () => {
    const file = manifest('pg', 'name: pg\ndialect: postgres\ncollation: icu:und\nsearch_path: [shop, public]\nsnapshots:\n  base: { scripts: [schema.sql] }\n');
    expect(readManifest(file)).toMatchObject({ dialect: 'postgres', collation: 'icu:und', searchPath: ['shop', 'public'] });
    const sqlite = manifest('lite', 'name: lite\nsnapshots:\n  base: { scripts: [schema.sql] }\n');
    expect(readManifest(sqlite)).toMatchObject({ dialect: 'sqlite', collation: 'C' });
  });

  it.each([
    ['bad1', 'dialect: mysql', ':2: dialect must be "sqlite" or "postgres", received "mysql"'],
    ['bad2', 'dialect: postgres\npage_size: 4096', ':3: page_size is for SQLite fixtures'],
    ['bad3', 'collation: C', ':2: collation is for PostgreSQL fixtures (dialect: postgres)'],
    ['bad4', 'dialect: postgres\nroles:\n  a: { tables: [t], rows: { u: "x = 1" } }', ':4: role "a": rows: u is not a table the role may read (list it in tables or columns)'],
  ])('%s is refused with its line', (name, extra, message) => {
    const file = manifest(name, `name: ${name}\n${extra}\nsnapshots:\n  base: { scripts: [schema.sql] }\n`);
    expect(() => readManifest(file)).toThrow(message);
  });
});
