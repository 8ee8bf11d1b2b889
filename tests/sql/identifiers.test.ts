import { describe, expect, it } from 'vitest';
import { createCatalogIndex } from '../../src/sql/catalog-index.js';
import { identifierKey, isQuotedIdentifier, quoteIdentifier } from '../../src/sql/identifiers.js';
import type { Dialect } from '../../src/sql/parse.js';

describe('identifierKey: dialect case rules', () => {
  it.each<[string, boolean, Dialect, string]>([
    ['Orders', false, 'sqlite', 'orders'],
    ['Orders', true, 'sqlite', 'orders'],
    ['Orders', false, 'postgres', 'orders'],
    ['Orders', true, 'postgres', 'Orders'],
    ['Orders', false, 'snowflake', 'ORDERS'],
    ['Orders', true, 'snowflake', 'Orders'],
    ['Orders', true, 'mysql', 'orders'],
    ['Orders', false, 'bigquery', 'orders'],
  ])('%s (quoted %s, %s) → %s', (name, quoted, dialect, key) => {
    expect(identifierKey(name, quoted, dialect)).toBe(key);
  });

  it.each<[string, boolean]>([['"x"', true], ['[x]', true], ['`x`', true], ['x', false]])('isQuotedIdentifier(%s) = %s', (text, quoted) => {
    expect(isQuotedIdentifier(text)).toBe(quoted);
  });
});

describe('createCatalogIndex: schema-qualified names compared whole', () => {
  const table = (name: string, schema: string) => ({ name, schema, kind: 'table' as const, columns: [{ name: 'Id', type: '', primaryKey: true }] });
  const catalog = { tables: [table('orders', 'main'), table('staff', 'hr')] };

  it.each<[string, Dialect, { schema?: string; name: string }, string | undefined]>([
    ['unqualified in the default schema', 'sqlite', { name: 'orders' }, 'main.orders'],
    ['main-qualified', 'sqlite', { schema: 'main', name: 'orders' }, 'main.orders'],
    ['another schema is not the default one', 'sqlite', { schema: 'hr', name: 'orders' }, undefined],
    ['qualified in its schema', 'sqlite', { schema: 'hr', name: 'staff' }, 'hr.staff'],
    ['SQLite finds a unique unqualified name in another schema (as it searches attached ones)', 'sqlite', { name: 'staff' }, 'hr.staff'],
    ['PostgreSQL does not look outside public', 'postgres', { name: 'staff' }, undefined],
  ])('%s', (_name, dialect, lookup, expected) => {
    const found = createCatalogIndex(catalog, dialect).findTable(lookup);
    expect(found ? `${found.schema}.${found.name}` : undefined).toBe(expected);
  });

  it('column lookup follows the dialect: exact for a quoted PostgreSQL name', () => {
    const index = createCatalogIndex(catalog, 'postgres');
    const orders = catalog.tables[0]!;
    expect(index.findColumn(orders, 'Id')?.name).toBe('Id');
    expect(index.findColumn(orders, 'id')).toBeUndefined();
    expect(createCatalogIndex(catalog, 'sqlite').tableNames()).toEqual(['orders', 'hr.staff']);
  });
});

describe('quoteIdentifier', () => {
  it('double-quotes a name and doubles its quotes, and SQLite reads it back as that name', async () => {
    expect(quoteIdentifier('order')).toBe('"order"');
    expect(quoteIdentifier('a"b')).toBe('"a""b"');
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE ${quoteIdentifier('we"ird table')} (${quoteIdentifier('select')} INTEGER)`);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['we"ird table']);
    db.close();
  });
});
