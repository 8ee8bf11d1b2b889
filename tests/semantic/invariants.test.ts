import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFixture, type ResolvedFixture } from '../../src/fixtures/registry.js';
import { bindInvariants, canonicalInvariants, readFixtureInvariants, validateInvariantShape } from '../../src/semantic/model/invariants.js';
import { invariantViolationSql } from '../../src/semantic/model/invariant-sql.js';
import { readSchema, type DatabaseSchema } from '../../src/semantic/model/schema-reader.js';
import { isLadderError } from '../../src/errors.js';

const WAREHOUSE_MANIFEST = path.resolve('fixtures/warehouse/fixture.yaml');
let warehouse: ResolvedFixture;
let schema: DatabaseSchema;
let dir: string;

beforeAll(async () => {
  warehouse = await resolveFixture('warehouse');
  schema = readSchema(warehouse.snapshots[0]!.path);
  dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-invariants-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function manifest(body: string): string {
  const file = path.join(dir, `fixture-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `name: x\nsnapshots:\n  base: { scripts: [a.sql] }\n${body}`);
  return file;
}

describe('validateInvariantShape', () => {
  it.each([
    [{ kind: 'range', column: 'a.b' }, 'options.semantic.invariants[0] must give at least one of min, max, integer, multiple_of'],
    [{ kind: 'range', column: 'a.b', min: '1' }, 'options.semantic.invariants[0].min must be a finite number; received a string ("1")'],
    [{ kind: 'format', column: 'a.b', format: 'day' }, 'options.semantic.invariants[0].format must be one of "date", "timestamp", "time"; received a string ("day")'],
    [{ kind: 'lookup' }, 'options.semantic.invariants[0].table must be a non-empty string; received undefined'],
    [{ kind: 'guess' }, 'options.semantic.invariants[0].kind must be one of "values", "range", "format", "derive", "children", "check", "lookup"; received a string ("guess")'],
    ['range', 'options.semantic.invariants[0] must be an object with a kind; received a string ("range")'],
  ])('names the field with its prefix: %j', (raw, message) => {
    let thrown: unknown;
    try {
      validateInvariantShape(raw, { prefix: 'options.semantic.invariants[0].' });
    } catch (error) {
      thrown = error;
    }
    expect(isLadderError(thrown, 'invalid_option')).toBe(true);
    expect((thrown as Error).message).toBe(message);
  });
});

describe('readFixtureInvariants', () => {
  it('reads the warehouse declarations with their lines', () => {
    const invariants = readFixtureInvariants(WAREHOUSE_MANIFEST);
    expect(invariants.map((i) => i.kind)).toEqual([
      'derive', 'children', 'derive', 'check', 'check', 'check', 'lookup', 'values', 'values', 'values', 'values', 'values', 'check',
      'range', 'range', 'range', 'range', 'range', 'format', 'format', 'format', 'format', 'format', 'format', 'format',
    ]);
    expect(invariants[0]).toEqual({
      kind: 'derive',
      column: 'orders.order_total',
      sql: '(SELECT SUM(quantity * unit_price - COALESCE(discount, 0)) FROM order_items i WHERE i.order_id = orders.order_id)',
      note: "denormalised gross revenue of the order's lines",
      source: { file: WAREHOUSE_MANIFEST, line: 52 },
    });
    expect(invariants.find((i) => i.kind === 'range' && i.column === 'order_items.unit_price')).toMatchObject({ min: 0, multipleOf: 0.25 });
  });

  it('has none without an invariants key', () => {
    expect(readFixtureInvariants(manifest(''))).toEqual([]);
  });

  it.each([
    ['invariants: 3\n', 4, 'invariants: must be a list of { kind, … } entries'],
    ['invariants:\n  - kind: guess\n    column: a.b\n', 5, 'invariants: kind must be one of values, range, format, derive, children, check, lookup; received a string ("guess")'],
    ['invariants:\n  - kind: values\n    column: a.b\n    in: [1]\n', 7, 'invariants: values: unknown key "in"; allowed keys: kind, note, column, values'],
    ['invariants:\n  - kind: range\n    column: a.b\n    min: 3\n    max: 1\n', 5, 'invariants: range: min must be at most max (1); received a number (3)'],
    ['invariants:\n  - kind: range\n    column: a.b\n    multiple_of: 0\n', 5, 'invariants: range: multiple_of must be a number > 0; received a number (0)'],
    ['invariants:\n  - kind: format\n    column: ab\n    format: date\n', 5, 'invariants: format: column must be "table.column"; received a string ("ab")'],
    ['invariants:\n  - kind: children\n    column: a.b\n    min: -1\n', 5, 'invariants: children: min must be an integer ≥ 0; received a number (-1)'],
    ['invariants:\n  - kind: check\n    table: a\n', 5, 'invariants: check: sql must be a non-empty string; received undefined'],
  ])('reports a malformed entry with file:line: %#', (body, line, message) => {
    const file = manifest(body);
    expect(() => readFixtureInvariants(file)).toThrow(`${file}:${line}: ${message}`);
  });
});

describe('bindInvariants', () => {
  it.each([
    [{ kind: 'values', column: 'ordres.status', values: ['A'] }, 'invariant values ordres.status: no table ordres in the schema (tables: regions, customers, users, products, orders, order_items, refunds)'],
    [{ kind: 'values', column: 'orders.state', values: ['A'] }, 'invariant values orders.state: no column state in orders (columns: order_id, customer_id, user_id, order_date, ordered_at, status, channel, order_total, deleted_at)'],
    [{ kind: 'children', column: 'orders.status', min: 1 }, 'invariant children orders.status: orders.status is not a single-column foreign key'],
  ])('names the invariant and the missing name: %#', (invariant, message) => {
    expect(() => bindInvariants(schema, [validateInvariantShape(invariant)])).toThrow(message);
  });

  it('resolves names to the schema spelling, case-insensitively', () => {
    expect(bindInvariants(schema, [{ kind: 'format', column: 'ORDERS.Order_Date', format: 'date' }])).toEqual([
      { kind: 'format', column: 'ORDERS.Order_Date', format: 'date', tableName: 'orders', columnName: 'order_date' },
    ]);
  });
});

describe('invariantViolationSql', () => {
  const bound = (raw: object) => bindInvariants(schema, [validateInvariantShape(raw)])[0]!;
  it.each([
    [{ kind: 'values', column: 'orders.status', values: ['A', 'B'] }, `SELECT COUNT(*) FROM "orders" WHERE "status" IS NULL OR "status" NOT IN ('A', 'B')`],
    [{ kind: 'values', column: 'customers.segment', values: ['SMB', null] }, `SELECT COUNT(*) FROM "customers" WHERE "segment" IS NOT NULL AND "segment" NOT IN ('SMB')`],
    [{ kind: 'range', column: 'order_items.quantity', min: 1, integer: true }, `SELECT COUNT(*) FROM "order_items" WHERE "quantity" IS NOT NULL AND (typeof("quantity") NOT IN ('integer', 'real') OR "quantity" < 1 OR "quantity" <> CAST("quantity" AS INTEGER))`],
    [{ kind: 'format', column: 'orders.order_date', format: 'date' }, `SELECT COUNT(*) FROM "orders" WHERE "order_date" IS NOT NULL AND (typeof("order_date") <> 'text' OR date("order_date") IS NOT "order_date")`],
    [{ kind: 'derive', column: 'orders.order_date', sql: 'date(ordered_at)' }, `SELECT COUNT(*) FROM "orders" WHERE "order_date" IS NOT (date(ordered_at))`],
    [{ kind: 'derive', column: 'orders.user_id', sql: '(SELECT user_id FROM users ORDER BY ladder_random() LIMIT 1)' }, null],
    [{ kind: 'check', table: 'products', sql: 'brand = UPPER(brand)' }, `SELECT COUNT(*) FROM "products" WHERE NOT (brand = UPPER(brand))`],
    [{ kind: 'children', column: 'order_items.order_id', min: 1, max: 3 }, `SELECT COUNT(*) FROM "orders" AS parent WHERE (SELECT COUNT(*) FROM "order_items" AS child WHERE child."order_id" = parent."order_id") < 1 OR (SELECT COUNT(*) FROM "order_items" AS child WHERE child."order_id" = parent."order_id") > 3`],
    [{ kind: 'lookup', table: 'regions' }, null],
  ])('%j', (raw, sql) => {
    expect(invariantViolationSql(bound(raw), schema)).toBe(sql);
  });

  it.each(['base', 'later', 'edge'])('every warehouse invariant holds on snapshot %s (the declarations are true of the data)', (name) => {
    const invariants = bindInvariants(schema, readFixtureInvariants(WAREHOUSE_MANIFEST));
    const db = new Database(warehouse.snapshots.find((s) => s.name === name)!.path, { readonly: true });
    try {
      const violations = invariants.flatMap((invariant) => {
        const sql = invariantViolationSql(invariant, schema);
        const n = sql === null ? 0 : (db.prepare(sql).pluck().get() as number);
        return n === 0 ? [] : [`${invariant.kind} ${'column' in invariant ? invariant.column : invariant.table}: ${n}`];
      });
      expect(violations).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('keys invariants without their sources and notes', () => {
    expect(canonicalInvariants([{ kind: 'lookup', table: 'regions', note: 'x', source: { file: 'f', line: 3 } }])).toBe('[{"kind":"lookup","table":"regions"}]');
  });
});
