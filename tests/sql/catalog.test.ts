import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { isLadderError } from '../../src/errors.js';
import { catalogFromDdl, catalogFromObject, loadCatalog } from '../../src/sql/catalog.js';
import { checkSchema } from '../../src/rungs/schema.js';
import { buildStaticTestDb, type StaticTestDb } from '../rungs/static-test-db.js';

const shape = (catalog: { tables: readonly { name: string; schema: string; kind: string; columns: readonly { name: string }[] }[] }) =>
  catalog.tables.map((table) => `${table.kind} ${table.schema}.${table.name}(${table.columns.map((column) => column.name).join(',')})`);

describe('catalogFromDdl', () => {
  it('reads tables, schema-qualified tables, CREATE TABLE AS and views (declared and derived columns)', () => {
    const catalog = catalogFromDdl(`
      CREATE TABLE orders (order_id INTEGER PRIMARY KEY, amount REAL, region TEXT);
      CREATE TABLE hr.staff (id INTEGER, name TEXT, PRIMARY KEY (id));
      CREATE INDEX idx ON orders (region);
      INSERT INTO orders VALUES (1, 2, 'x');
      CREATE TABLE totals AS SELECT region, sum(amount) AS total FROM orders GROUP BY region;
      CREATE VIEW big (id, amt) AS SELECT order_id, amount FROM orders WHERE amount > 100;
      CREATE VIEW all_orders AS SELECT * FROM orders;
    `);
    expect(shape(catalog)).toEqual([
      'table main.orders(order_id,amount,region)',
      'table hr.staff(id,name)',
      'table main.totals(region,total)',
      'view main.big(id,amt)',
      'view main.all_orders(order_id,amount,region)',
    ]);
    expect(catalog.tables[0]!.columns.map((column) => [column.type, column.primaryKey])).toEqual([['INTEGER', true], ['REAL', false], ['TEXT', false]]);
  });

  it('postgres DDL lands in public', () => {
    expect(shape(catalogFromDdl('CREATE TABLE t (a int)', 'postgres'))).toEqual(['table public.t(a)']);
  });

  it('throws input_invalid with a position for DDL that does not parse', () => {
    let caught: unknown;
    try {
      catalogFromDdl('CREATE TABLE (');
    } catch (error) {
      caught = error;
    }
    expect(isLadderError(caught, 'input_invalid')).toBe(true);
    expect((caught as Error).message).toMatch(/^DDL does not parse: 1:14: /);
  });
});

describe('catalogFromObject', () => {
  it('reads lists and name → type objects; qualified keys keep their schema', () => {
    const catalog = catalogFromObject({ orders: ['order_id', 'amount'], 'hr.staff': { id: 'INTEGER', name: 'TEXT' } });
    expect(shape(catalog)).toEqual(['table main.orders(order_id,amount)', 'table hr.staff(id,name)']);
    expect(catalog.tables[1]!.columns[0]!.type).toBe('INTEGER');
  });

  it('a Catalog passes through', () => {
    const given = { tables: [{ name: 't', schema: 'main', kind: 'table' as const, columns: [] }] };
    expect(catalogFromObject(given)).toBe(given);
  });

  it.each<[string, unknown, string]>([
    ['an array', [], 'catalog must be an object of table → columns; received an array ([])'],
    ['a bad value', { orders: 3 }, 'catalog.orders must be a list of column names or a { column: type } object; received a number (3)'],
    ['a bad Catalog', { tables: [{ name: 1 }] }, 'catalog.tables[0] must be { name, schema, kind, columns[] }; received an object'],
  ])('rejects %s', (_name, value, message) => {
    expect(() => catalogFromObject(value as never)).toThrow(message);
  });
});

describe('loadCatalog', () => {
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

  it('reads tables and views from a SQLite database, usable by L2', async () => {
    const catalog = await loadCatalog(engine, fixture.file);
    expect(shape(catalog).sort()).toEqual([
      'table main.Match(match_id,winner)',
      'table main.customers(customer_id,name,segment)',
      'table main.orders(order_id,customer_id,amount,region)',
      'table main.salaries(employee_id,amount)',
      'view main.big_orders(order_id,amount)',
    ]);
    expect(checkSchema({ sql: 'SELECT amount FROM big_orders JOIN orders USING (order_id)', dialect: 'sqlite', catalog }).status).toBe('fail');
    expect(checkSchema({ sql: 'SELECT big_orders.amount FROM big_orders JOIN orders USING (order_id)', dialect: 'sqlite', catalog }).status).toBe('pass');
  });
});

describe('catalogFromDdl: SQLite keywords as column names', () => {
  it('reads columns and view outputs named left, window, full, natural', () => {
    const catalog = catalogFromDdl('CREATE TABLE t (left INTEGER, window TEXT, full REAL); CREATE VIEW v AS SELECT left AS natural FROM t', 'sqlite');
    expect(catalog.tables.map((table) => [table.name, table.columns.map((column) => column.name)])).toEqual([
      ['t', ['left', 'window', 'full']],
      ['v', ['natural']],
    ]);
  });
});
