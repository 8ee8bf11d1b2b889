import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteLibraryVersion } from '../../src/fixtures/build.js';
import { resolveFixture } from '../../src/fixtures/registry.js';
import { generateDatabase, GENERATOR_VERSION } from '../../src/semantic/generation/generate-database.js';
import { createGeneratorPlan, type GeneratorPlan } from '../../src/semantic/generation/generator-plan.js';
import { removeRows } from '../../src/semantic/generation/edit-database.js';
import { fileContractViolation } from '../../src/semantic/generation/database-contract.js';
import { bindInvariants, readFixtureInvariants, type BoundInvariant } from '../../src/semantic/model/invariants.js';
import { createPrng } from '../../src/semantic/model/prng.js';
import { readSchema, type DatabaseSchema } from '../../src/semantic/model/schema-reader.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { CONSTRAINT_SCHEMA } from './schema-sql.js';

let temp: TempSqlite;
let schema: DatabaseSchema;
let plan: GeneratorPlan;

beforeAll(() => {
  temp = createTempSqlite(CONSTRAINT_SCHEMA, { prefix: 'ladder-generate-' });
  schema = readSchema(temp.file);
  plan = createGeneratorPlan({ schema, snapshots: [temp.file] });
});
afterAll(() => temp.remove());

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function query<T = unknown[]>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).raw(true).all() as T[];
  } finally {
    db.close();
  }
}

describe('generateDatabase on a schema with every constraint kind (CONSTRAINT_SCHEMA)', () => {
  it('rejects a bad rows range', () => {
    expect(() => generateDatabase(plan, { rng: createPrng(1), file: path.join(temp.dir, 'x.sqlite'), rows: { min: 3, max: 1 } })).toThrow(
      new RangeError('rows must be { min, max } with integers 0 ≤ min ≤ max; received {"min":3,"max":1}'),
    );
  });

  it.each(Array.from({ length: 12 }, (_, i) => i))('draw %i keeps the contract of generated databases (integrity, keys, CHECK, types, foreign keys)', (i) => {
    const file = path.join(temp.dir, `draw-${i}.sqlite`);
    const outcome = generateDatabase(plan, { rng: createPrng(`constraints/${i}`), file, ...(i % 3 === 0 ? { rows: { min: 1, max: 3 } } : {}) });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.database.checksum).toBe(sha256(file));
    expect(fileContractViolation(plan.contract, file)).toBeNull();
    // CHECK constraints, UNIQUE keys and the trigger-free copy.
    expect(query(file, "SELECT COUNT(*) FROM emp WHERE salary NOT BETWEEN 1000 AND 9000 OR grade NOT IN ('A', 'B', 'C')")).toEqual([[0]]);
    expect(query(file, 'SELECT COUNT(*) FROM (SELECT lower(email) FROM emp GROUP BY lower(email) HAVING COUNT(*) > 1)')).toEqual([[0]]);
    expect(query(file, 'SELECT COUNT(*) FROM dept WHERE budget < 0')).toEqual([[0]]);
    expect(query(file, "SELECT type, name FROM sqlite_schema WHERE type IN ('view', 'trigger') ORDER BY name")).toEqual([['view', 'v_emp']]);
    expect(query(file, 'SELECT COUNT(*) FROM emp WHERE code IS NOT upper(email)')).toEqual([[0]]);
    // The broken foreign key (audit.ghost_id → a table that does not exist) holds only NULL.
    expect(query(file, 'SELECT COUNT(*) FROM audit WHERE ghost_id IS NOT NULL')).toEqual([[0]]);
    if (i % 3 === 0) {
      for (const [table, count] of Object.entries(outcome.database.rowCounts)) expect(count, table).toBeLessThanOrEqual(3);
    }
  });

  it('regenerates byte-identical files from the same stream (checksum pinned for this SQLite version)', () => {
    const a = generateDatabase(plan, { rng: createPrng('pinned'), file: path.join(temp.dir, 'pinned-a.sqlite'), rows: { min: 2, max: 4 } });
    const b = generateDatabase(plan, { rng: createPrng('pinned'), file: path.join(temp.dir, 'pinned-b.sqlite'), rows: { min: 2, max: 4 } });
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(b.database.checksum).toBe(a.database.checksum);
    // A new SQLite (better-sqlite3 upgrade) or generator version may change the bytes: update both pins together.
    expect({ sqlite: sqliteLibraryVersion(), generator: GENERATOR_VERSION, rows: a.database.rowCounts, checksum: a.database.checksum }).toEqual({
      sqlite: '3.53.2',
      generator: 3,
      rows: PINNED_ROWS,
      checksum: PINNED_CHECKSUM,
    });
    const other = generateDatabase(plan, { rng: createPrng('pinned-2'), file: path.join(temp.dir, 'pinned-c.sqlite'), rows: { min: 2, max: 4 } });
    expect(other.ok && other.database.checksum !== a.database.checksum).toBe(true);
  });

  it('fills a self-reference and a cycle (dept.head_id → emp → dept) from rows that exist', () => {
    const file = path.join(temp.dir, 'cycle.sqlite');
    const outcome = generateDatabase(plan, { rng: createPrng('cycle'), file, rows: { min: 5, max: 8 } });
    expect(outcome.ok).toBe(true);
    expect(query(file, 'SELECT COUNT(*) FROM dept WHERE head_id IS NOT NULL AND head_id NOT IN (SELECT emp_id FROM emp)')).toEqual([[0]]);
    expect(query(file, 'SELECT COUNT(*) FROM emp WHERE manager_id IS NOT NULL AND manager_id NOT IN (SELECT emp_id FROM emp)')).toEqual([[0]]);
    expect(query<[number]>(file, 'SELECT COUNT(*) FROM emp WHERE manager_id IS NOT NULL')[0]![0]).toBeGreaterThan(0);
  });

  it('says why when no database can keep an invariant, and leaves no file', () => {
    const invariants = bindInvariants(schema, [
      { kind: 'values', column: 'emp.hired', values: ['2020-01-15'] },
      { kind: 'derive', column: 'emp.hired', sql: "'2031-01-01'" },
    ]);
    const broken = createGeneratorPlan({ schema, snapshots: [temp.file], invariants });
    const file = path.join(temp.dir, 'impossible.sqlite');
    const outcome = generateDatabase(broken, { rng: createPrng('impossible'), file, rows: { min: 2, max: 2 }, maxAttempts: 2 });
    expect(outcome).toEqual({ ok: false, attempts: 2, reason: 'invariants: invariant values emp.hired: 2 violating rows', rejected: { invariants: 2 } });
    expect(existsSync(file)).toBe(false);
  });
});

describe('generateDatabase on the bundled warehouse fixture with its declared invariants', () => {
  let warehouse: { schema: DatabaseSchema; plan: GeneratorPlan; invariants: BoundInvariant[]; dir: string };
  beforeAll(async () => {
    const fixture = await resolveFixture('warehouse');
    const whSchema = readSchema(fixture.snapshots[0]!.path);
    const invariants = bindInvariants(whSchema, readFixtureInvariants(path.resolve('fixtures/warehouse/fixture.yaml')));
    warehouse = { schema: whSchema, invariants, plan: createGeneratorPlan({ schema: whSchema, snapshots: fixture.snapshots.map((s) => s.path), invariants }), dir: temp.dir };
  });

  it.each(Array.from({ length: 8 }, (_, i) => i))('draw %i keeps every invariant (order totals, line counts, value domains, formats)', (i) => {
    const file = path.join(warehouse.dir, `warehouse-${i}.sqlite`);
    const outcome = generateDatabase(warehouse.plan, { rng: createPrng(`warehouse/${i}`), file });
    expect(outcome.ok).toBe(true);
    expect(fileContractViolation(warehouse.plan.contract, file)).toBeNull();
    expect(
      query(file, 'SELECT COUNT(*) FROM orders o WHERE order_total IS NOT (SELECT SUM(quantity * unit_price - COALESCE(discount, 0)) FROM order_items i WHERE i.order_id = o.order_id)'),
    ).toEqual([[0]]);
    // Lookup table: every region row is a row of the snapshots.
    expect(query(file, "SELECT COUNT(*) FROM regions WHERE (region_id, name, code) NOT IN (VALUES (1, 'North America', 'NA'), (2, 'EMEA', 'EMEA'), (3, 'APAC', 'APAC'), (4, 'LATAM', 'LATAM'), (5, 'Oceania', 'OCE'))")).toEqual([[0]]);
  });
});

const PINNED_ROWS = { dept: 3, emp: 3, project: 4, assignment: 2, audit: 2 };
const PINNED_CHECKSUM = '6d581e6950b952e0e7fa1cfe79da8888b96ed459a8993f9b32894dae1c782b66';

describe('removeRows (the shrinking step of a counterexample search)', () => {
  it('deletes rows with everything that needs them, recomputes derived columns and verifies', async () => {
    const fixture = await resolveFixture('warehouse');
    const whSchema = readSchema(fixture.snapshots[0]!.path);
    const invariants = bindInvariants(whSchema, readFixtureInvariants(path.resolve('fixtures/warehouse/fixture.yaml')));
    const whPlan = createGeneratorPlan({ schema: whSchema, snapshots: fixture.snapshots.map((s) => s.path), invariants });
    const source = path.join(temp.dir, 'shrink-source.sqlite');
    const drawn = generateDatabase(whPlan, { rng: createPrng('shrink'), file: source, rows: { min: 2, max: 3 } });
    expect(drawn.ok).toBe(true);
    const [orderId] = query<[bigint | number]>(source, 'SELECT order_id FROM orders ORDER BY order_id LIMIT 1')[0]!;
    const before = query<[number, number]>(source, `SELECT (SELECT COUNT(*) FROM order_items), (SELECT COUNT(*) FROM order_items WHERE order_id = ${orderId})`)[0]!;
    const shrunk = path.join(temp.dir, 'shrink-out.sqlite');
    const outcome = removeRows(whPlan, source, [{ table: 'orders', rowids: [BigInt(orderId)] }], shrunk);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.database.rowCounts['orders']).toBe((drawn.ok ? drawn.database.rowCounts['orders']! : 0) - 1);
    expect(outcome.database.rowCounts['order_items']).toBe(before[0] - before[1]);
    expect(fileContractViolation(whPlan.contract, shrunk)).toBeNull();
    expect(() => removeRows(whPlan, source, [{ table: 'nope', rowids: [1n] }], shrunk)).toThrow(new RangeError('removeRows: no table nope in the schema'));
  });
});
