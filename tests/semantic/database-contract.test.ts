/**
 * The contract of generated databases (src/semantic/generation/database-contract.ts): one database per rule
 * that breaks exactly that rule is caught under that rule (the test of a rule fails when the rule
 * is removed from the check), and the writers — drawing rows, filling deferred keys, repairing
 * orphans, shrinking edits — follow the NULL policy so that the check finds nothing in a correct
 * build.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractViolation, createDatabaseContract, fileContractViolation, type DatabaseContract } from '../../src/semantic/generation/database-contract.js';
import { editDatabase } from '../../src/semantic/generation/edit-database.js';
import { generateDatabase } from '../../src/semantic/generation/generate-database.js';
import { createGeneratorPlan, type GeneratorPlan } from '../../src/semantic/generation/generator-plan.js';
import { bindInvariants } from '../../src/semantic/model/invariants.js';
import { createPrng } from '../../src/semantic/model/prng.js';
import { readSchema } from '../../src/semantic/model/schema-reader.js';
import type { NullPolicy } from '../../src/semantic/generation/value-pools.js';
import { sqliteScratch } from '../../src/semantic/scratch/sqlite-scratch.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';

/**
 * A parent and a child whose foreign key the schema lets be NULL but no snapshot row leaves NULL
 * (as Has_Pet.StuID or concert.Stadium_ID in Spider); a self-reference likewise; a CHECK, a
 * UNIQUE code, an INTEGER column holding integers only.
 */
const SCHEMA = `
CREATE TABLE owner (owner_id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, age INTEGER CHECK (age >= 0), nickname TEXT);
CREATE TABLE pet (pet_id INTEGER PRIMARY KEY, owner_id INTEGER REFERENCES owner(owner_id), kind TEXT, mentor_id INTEGER REFERENCES pet(pet_id));
INSERT INTO owner VALUES (1, 'a1', 30, NULL), (2, 'b2', 41, 'Bo'), (3, 'c3', 25, 'Cy');
INSERT INTO pet VALUES (10, 1, 'cat', 10), (11, 1, 'dog', 10), (12, 2, 'dog', 11), (13, 3, 'cat', 12);
`;

let temp: TempSqlite;
const plans = new Map<NullPolicy, GeneratorPlan>();
const contract = (nulls: NullPolicy): DatabaseContract => plans.get(nulls)!.contract;

beforeAll(() => {
  temp = createTempSqlite(SCHEMA, { prefix: 'ladder-contract-' });
  const schema = readSchema(temp.file);
  const invariants = bindInvariants(schema, [{ kind: 'values', column: 'pet.kind', values: ['cat', 'dog'] }]);
  for (const nulls of ['allowed', 'observed'] as const) plans.set(nulls, createGeneratorPlan({ schema, snapshots: [temp.file], invariants, nulls }));
});
afterAll(() => temp.remove());

/** A database with the schema's tables (optionally without its constraints) and these rows. */
function database(name: string, rows: string, options: { readonly schema?: string; readonly setup?: (db: Database.Database) => void } = {}): string {
  const file = path.join(temp.dir, `${name}.sqlite`);
  const db = new Database(file);
  try {
    db.exec(options.schema ?? SCHEMA.split('\nINSERT')[0]!);
    options.setup?.(db);
    db.exec(rows);
  } finally {
    db.close();
  }
  return file;
}

const LAX_SCHEMA = `
CREATE TABLE owner (owner_id INTEGER, code TEXT, age INTEGER, nickname TEXT);
CREATE TABLE pet (pet_id INTEGER, owner_id INTEGER, kind TEXT, mentor_id INTEGER);
`;
const CLEAN = "INSERT INTO owner VALUES (1, 'a1', 30, NULL), (2, 'b2', 41, 'Bo'); INSERT INTO pet VALUES (10, 1, 'cat', 10), (11, 2, 'dog', 10);";

describe('the contract of generated databases, rule by rule', () => {
  it('holds on a database every rule allows, under both NULL policies', () => {
    const file = database('clean', CLEAN);
    expect(fileContractViolation(contract('observed'), file)).toBeNull();
    expect(fileContractViolation(contract('allowed'), file)).toBeNull();
  });

  it.each([
    ['notNull', 'a NOT NULL column holds NULL', "INSERT INTO owner VALUES (1, NULL, 30, NULL); INSERT INTO pet VALUES (10, 1, 'cat', 10);", 'owner: 1 row with NULL in owner_id or code'],
    ['notNull', 'a primary-key column holds NULL', "INSERT INTO owner VALUES (1, 'a1', 30, NULL); INSERT INTO pet VALUES (NULL, 1, 'cat', NULL);", 'pet: 1 row with NULL in pet_id'],
    ['unique', 'a UNIQUE column repeats', "INSERT INTO owner VALUES (1, 'a1', 30, NULL), (2, 'a1', 31, NULL); INSERT INTO pet VALUES (10, 1, 'cat', 10);", 'owner(code): 1 value repeated'],
    ['unique', 'a primary key repeats', "INSERT INTO owner VALUES (1, 'a1', 30, NULL), (1, 'b2', 31, NULL); INSERT INTO pet VALUES (10, 1, 'cat', 10);", 'owner(owner_id): 1 value repeated'],
    ['types', 'an INTEGER column holding integers in the snapshot holds text', "INSERT INTO owner VALUES (1, 'a1', 'thirty', NULL); INSERT INTO pet VALUES (10, 1, 'cat', 10);", 'owner.age holds text (allowed: integer)'],
    ['invariants', 'a declared invariant is broken', "INSERT INTO owner VALUES (1, 'a1', 30, NULL); INSERT INTO pet VALUES (10, 1, 'fish', 10);", 'invariant values pet.kind: 1 violating row'],
    ['nullsObserved', 'a foreign key no snapshot leaves NULL is NULL', "INSERT INTO owner VALUES (1, 'a1', 30, NULL); INSERT INTO pet VALUES (10, NULL, 'cat', 10);", 'pet.owner_id: 1 NULL, and no snapshot holds one there'],
  ] as const)('%s: %s', (rule, _what, rows, detail) => {
    const file = database(`broken-${rule}-${detail.length}`, rows, { schema: LAX_SCHEMA });
    expect(fileContractViolation(contract('observed'), file)).toEqual({ rule, detail });
  });

  it('foreignKeys: a foreign key has no parent', () => {
    const file = database('broken-fk', "INSERT INTO owner VALUES (1, 'a1', 30, NULL); INSERT INTO pet VALUES (10, 7, 'cat', 10);", { setup: (db) => db.pragma('foreign_keys = OFF') });
    expect(fileContractViolation(contract('observed'), file)).toEqual({ rule: 'foreignKeys', detail: '1 row without a parent (first in pet)' });
  });

  it('check: a row breaks a CHECK constraint (integrity_check reports it)', () => {
    const file = database('broken-check', "INSERT INTO owner VALUES (1, 'a1', -4, NULL); INSERT INTO pet VALUES (10, 1, 'cat', 10);", { setup: (db) => db.pragma('ignore_check_constraints = ON') });
    expect(fileContractViolation(contract('observed'), file)).toEqual({ rule: 'check', detail: 'CHECK constraint failed in owner' });
  });

  it('integrity: a damaged index is reported under integrity', () => {
    const file = database('broken-index', "CREATE INDEX owner_age ON owner(age); INSERT INTO owner VALUES (1, 'a1', 57, NULL); INSERT INTO pet VALUES (10, 1, 'cat', 10);");
    const db = new Database(file, { readonly: true });
    const root = Number(db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'owner_age'").pluck().get());
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    db.close();
    // The index holds one entry, age 57 (one byte): make it 58, so the index no longer matches the table.
    const bytes = readFileSync(file);
    const start = (root - 1) * pageSize;
    const page = bytes.subarray(start, start + pageSize);
    expect(page.filter((b) => b === 57).length).toBe(1);
    page[page.indexOf(57)] = 58;
    writeFileSync(file, bytes);
    expect(fileContractViolation(contract('observed'), file)).toEqual({ rule: 'integrity', detail: 'row 1 missing from index owner_age' });
  });

  it('nullsObserved depends on the option: the same NULL keeps the contract under nulls: allowed', () => {
    const file = database('null-owner', "INSERT INTO owner VALUES (1, 'a1', 30, NULL); INSERT INTO pet VALUES (10, NULL, 'cat', 10);", { schema: LAX_SCHEMA });
    expect(fileContractViolation(contract('allowed'), file)).toBeNull();
    // A column the snapshots do leave NULL (owner.nickname) may be NULL under either policy.
    expect(fileContractViolation(contract('observed'), database('null-nickname', CLEAN))).toBeNull();
  });

  it('checks an open database the same way (the generator checks before writing the file)', () => {
    const db = sqliteScratch.create();
    try {
      db.exec(LAX_SCHEMA);
      db.exec("INSERT INTO owner VALUES (1, 'a1', 30, NULL); INSERT INTO pet VALUES (10, NULL, 'cat', 10);");
      expect(contractViolation(contract('observed'), db)?.rule).toBe('nullsObserved');
    } finally {
      db.close();
    }
  });

  it('is built from the pools: the columns that may hold NULL and their storage classes', () => {
    const observed = contract('observed');
    const pick = (key: string): unknown => {
      const c = observed.columns.get(key)!;
      return { nullable: c.nullable, storage: [...c.storageClasses].sort() };
    };
    expect({ owner: pick('pet.owner_id'), nickname: pick('owner.nickname'), age: pick('owner.age'), kind: pick('pet.kind') }).toEqual({
      owner: { nullable: false, storage: ['integer'] },
      nickname: { nullable: true, storage: ['text'] },
      age: { nullable: false, storage: ['integer'] },
      kind: { nullable: false, storage: ['text'] },
    });
    expect(createDatabaseContract({ schema: observed.schema, invariants: [], pools: plans.get('allowed')!.pools, nulls: 'allowed' }).columns.get('pet.owner_id')!.nullable).toBe(true);
  });
});

describe('the writers keep the NULL policy (nulls: observed)', () => {
  /** Draws with 0–2 rows per table: some draws leave the owners empty. */
  const draws = (nulls: NullPolicy, count: number): { nullOwners: number; emptyParents: number; rejected: Record<string, number> } => {
    let nullOwners = 0;
    let emptyParents = 0;
    const rejected: Record<string, number> = {};
    for (let i = 0; i < count; i += 1) {
      const file = path.join(temp.dir, `draw-${nulls}.sqlite`);
      const outcome = generateDatabase(plans.get(nulls)!, { rng: createPrng(`writers/${i}`), file, rows: { min: 0, max: 2 } });
      for (const [rule, n] of Object.entries(outcome.rejected)) rejected[rule] = (rejected[rule] ?? 0) + n;
      if (!outcome.ok) continue;
      const db = new Database(file, { readonly: true });
      try {
        nullOwners += Number(db.prepare('SELECT COUNT(*) FROM pet WHERE owner_id IS NULL OR mentor_id IS NULL').pluck().get());
        if (Number(db.prepare('SELECT COUNT(*) FROM owner').pluck().get()) === 0) emptyParents += 1;
      } finally {
        db.close();
      }
    }
    return { nullOwners, emptyParents, rejected };
  };

  it('never writes a NULL foreign key, not even when the parent table is empty, and nothing is rejected', () => {
    const observed = draws('observed', 60);
    expect(observed.emptyParents).toBeGreaterThan(0);
    expect({ nullOwners: observed.nullOwners, rejected: observed.rejected }).toEqual({ nullOwners: 0, rejected: {} });
    // The same draws under nulls: allowed do write NULL foreign keys: the test can see them.
    expect(draws('allowed', 60).nullOwners).toBeGreaterThan(0);
  });

  it('repairs an orphan by deleting it under nulls: observed and by setting NULL under nulls: allowed (shrinking edits)', () => {
    const source = database('orphan-source', CLEAN);
    const rowsAfter = (nulls: NullPolicy): unknown[] => {
      const out = path.join(temp.dir, `orphan-${nulls}.sqlite`);
      const outcome = editDatabase(plans.get(nulls)!, source, [{ kind: 'delete', table: 'owner', rows: [[2n]] }], out);
      expect(outcome.ok).toBe(true);
      const db = new Database(out, { readonly: true });
      try {
        return db.prepare('SELECT pet_id, owner_id FROM pet ORDER BY pet_id').raw(true).all();
      } finally {
        db.close();
      }
    };
    expect(rowsAfter('observed')).toEqual([[10, 1]]);
    expect(rowsAfter('allowed')).toEqual([[10, 1], [11, null]]);
  });
});
