/**
 * PostgreSQL text without a server: the SQLite habits L1 names (sqlite-constructs.ts), the two forms
 * the parser reads after a rewrite that keeps every offset (postgres-parser-text.ts), unqualified
 * names found through the catalog's search path, and names written as PostgreSQL needs them.
 */
import { describe, expect, it } from 'vitest';
import { postgresErrorHint, sqliteHabitNote, sqliteOnlyConstructs } from '../../src/sql/sqlite-constructs.js';
import { postgresParserText } from '../../src/sql/postgres-parser-text.js';
import { parseSql } from '../../src/sql/parse.js';
import { createCatalogIndex } from '../../src/sql/catalog-index.js';
import { writtenName } from '../../src/sql/identifiers.js';
import type { Catalog } from '../../src/sql/catalog-types.js';

describe('sqliteOnlyConstructs', () => {
  it.each([
    ["SELECT strftime('%Y', d), julianday(d), ifnull(a, 0), group_concat(n) FROM t", ['strftime(…)@7', 'julianday(…)@26', 'ifnull(…)@40', 'group_concat(…)@54']],
    ["SELECT date(d, '-4 hours'), date(d) FROM t", ['date(x, modifier)@7']],
    ['SELECT * FROM t LIMIT 10, 20', ['LIMIT offset, count@16']],
    ["SELECT a FROM t WHERE b = 'x' COLLATE NOCASE", ['COLLATE NOCASE@30']],
    ['SELECT [name], `id` FROM t WHERE a == 1', ['[name]@7', '`name`@15', '==@35']],
    ["SELECT a FROM t WHERE b GLOB 'x*'", ['GLOB@24']],
    // Not habits: subscripts, qualified names, strings, comments, PostgreSQL's own functions.
    ["SELECT arr[1], x.strftime(1), 'strftime(', to_char(d, 'YYYY') /* ifnull( */ FROM t LIMIT 5", []],
  ])('%s', (sql, expected) => {
    expect(sqliteOnlyConstructs(sql).map((found) => `${found.construct}@${found.offset}`)).toEqual(expected);
  });

  it('reads what a PostgreSQL error says about a SQLite habit', () => {
    expect(postgresErrorHint('operator does not exist: boolean = integer')).toBe('PostgreSQL booleans compare with true / false (or NOT col), not the 0 / 1 SQLite stores');
    expect(postgresErrorHint('operator does not exist: timestamp with time zone - integer')).toBe("PostgreSQL adds and subtracts intervals on timestamps (ts - interval '30 days'), not numbers of days");
    expect(postgresErrorHint('division by zero')).toBeUndefined();
    expect(sqliteHabitNote('SELECT 1')).toBeUndefined();
    expect(sqliteHabitNote('SELECT ifnull(a, 0) FROM t WHERE b = 1', 'operator does not exist: boolean = integer')).toBe(
      "wrong dialect? ifnull(…) is SQLite's (PostgreSQL: coalesce(x, y)); PostgreSQL booleans compare with true / false (or NOT col), not the 0 / 1 SQLite stores",
    );
  });
});

describe('postgresParserText', () => {
  it.each([
    ['SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM t', 'SELECT percentile_cont(0.5                ORDER BY x) FROM t'],
    ['SELECT mode() WITHIN GROUP (ORDER BY x) FROM t', 'SELECT mode(                ORDER BY x) FROM t'],
    ["SELECT timestamptz '2024-01-01', timetz '10:00'", "SELECT timestamp   '2024-01-01', time   '10:00'"],
    ["SELECT timestamp with time zone '2024-01-01'", "SELECT timestamp                '2024-01-01'"],
    ["SELECT numeric '1.5', jsonb '{}'", "SELECT         '1.5',       '{}'"],
    ["SELECT 'WITHIN GROUP (' || x, t.timestamptz FROM t -- timestamptz '1'", "SELECT 'WITHIN GROUP (' || x, t.timestamptz FROM t -- timestamptz '1'"],
  ])('%s', (sql, expected) => {
    const rewritten = postgresParserText(sql);
    expect(rewritten).toBe(expected);
    expect(rewritten.length).toBe(sql.length);
  });

  it('lets the parser read the forms, with ranges into the original text', () => {
    const sql = 'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY total) FROM orders';
    const parsed = parseSql(sql, 'postgres');
    expect(parsed.ok).toBe(true);
    expect(parseSql("SELECT count(*) FROM t WHERE ts >= timestamptz '2024-01-01 00:00+00'", 'postgres').ok).toBe(true);
  });
});

describe('PostgreSQL names', () => {
  const catalog: Catalog = {
    searchPath: ['shop', 'public'],
    tables: [
      { name: 'orders', schema: 'public', kind: 'table', columns: [] },
      { name: 'orders', schema: 'shop', kind: 'table', columns: [] },
      { name: 'Staff', schema: 'hr', kind: 'table', columns: [] },
      { name: 'audit', schema: 'public', kind: 'table', columns: [] },
    ],
  };

  it('finds an unqualified name in the first schema of the search path that has it', () => {
    const index = createCatalogIndex(catalog, 'postgres');
    expect(index.findTable({ name: 'orders' })?.schema).toBe('shop');
    expect(index.findTable({ name: 'audit' })?.schema).toBe('public');
    expect(index.findTable({ name: 'Staff' })).toBeUndefined();
    expect(index.findTable({ schema: 'hr', name: 'Staff' })?.name).toBe('Staff');
    expect(index.tableNames()).toEqual(['public.orders', 'orders', 'hr.Staff', 'audit']);
  });

  it('without a search path, public is the default schema', () => {
    const { searchPath: _path, ...bare } = catalog;
    expect(createCatalogIndex(bare, 'postgres').findTable({ name: 'orders' })?.schema).toBe('public');
  });

  it('writes a name that unquoted would fold to another with double quotes', () => {
    expect(['Region Name', 'staff', 'hr.Staff', 'Orders', 'x1$'].map((name) => writtenName(name, 'postgres'))).toEqual(['"Region Name"', 'staff', 'hr."Staff"', '"Orders"', 'x1$']);
    expect(writtenName('Region Name', 'sqlite')).toBe('Region Name');
  });
});
