import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeneratorPlan, type GeneratorPlan } from '../../src/semantic/generation/generator-plan.js';
import { fileContractViolation } from '../../src/semantic/generation/database-contract.js';
import { extractGoldLiterals } from '../../src/semantic/model/gold-literals.js';
import { readSchema, type DatabaseSchema } from '../../src/semantic/model/schema-reader.js';
import { shrinkWitness } from '../../src/semantic/search/shrink-witness.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';

/** The shop with more rows than a reader needs: one open order above 10 is what matters. */
const WITNESS = `
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
CREATE TABLE orders (
  order_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
  amount REAL NOT NULL CHECK (amount >= 0),
  status TEXT NOT NULL CHECK (status IN ('paid', 'open', 'void'))
);
INSERT INTO customers VALUES (17, 'Annabel', 'Oslo'), (42, 'Bo', 'Rome'), (73, 'Cyrano', 'Lima');
INSERT INTO orders VALUES (100, 17, 12.5, 'paid'), (101, 42, 30.25, 'open'), (102, 42, 7.0, 'open'), (103, 73, 4.25, 'void'), (104, 17, 55.0, 'paid');
`;
const GOLD = "SELECT COUNT(*) FROM orders WHERE status = 'open' AND amount > 10";

let temp: TempSqlite;
let schema: DatabaseSchema;
let plan: GeneratorPlan;

beforeAll(() => {
  temp = createTempSqlite(WITNESS, { prefix: 'ladder-shrink-' });
  schema = readSchema(temp.file);
  plan = createGeneratorPlan({ schema, snapshots: [temp.file], literals: extractGoldLiterals(GOLD, schema) });
});
afterAll(() => temp.remove());

function rows(file: string, sql: string): unknown[][] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).raw(true).all() as unknown[][];
  } finally {
    db.close();
  }
}

describe('shrinkWitness (schema WITNESS, refuting while an open order above 10 exists)', () => {
  const stillRefutes = async (file: string): Promise<boolean> => (rows(file, GOLD)[0]![0] as number) > 0;

  it('removes every row that does not matter and plains the values that do not', async () => {
    const result = await shrinkWitness({ plan, source: temp.file, trialFile: path.join(temp.dir, 'trial.sqlite'), bestFile: path.join(temp.dir, 'best.sqlite'), stillRefutes, maxTrials: 200, deadline: Infinity });
    expect({ before: result.rowsBefore, after: result.rowsAfter, stoppedBy: result.stoppedBy }).toEqual({ before: 8, after: 2, stoppedBy: 'done' });
    // The key renamed to 1 (with its reference), the name and city to 'a'; 30.25 keeps its side of 10.
    expect(rows(result.file, 'SELECT * FROM customers')).toEqual([[1, 'a', 'a']]);
    expect(rows(result.file, 'SELECT * FROM orders')).toEqual([[1, 1, 11, 'open']]);
    expect(fileContractViolation(plan.contract, result.file)).toBeNull();
    expect(rows(temp.file, 'SELECT COUNT(*) FROM orders')).toEqual([[5]]);
  });

  it('stops at its trial budget with the smallest database found so far', async () => {
    const result = await shrinkWitness({ plan, source: temp.file, trialFile: path.join(temp.dir, 'trial2.sqlite'), bestFile: path.join(temp.dir, 'best2.sqlite'), stillRefutes, maxTrials: 3, deadline: Infinity });
    expect({ trials: result.trials, stoppedBy: result.stoppedBy }).toEqual({ trials: 3, stoppedBy: 'trials' });
    expect(await stillRefutes(result.file)).toBe(true);
  });
});

/** Two open orders of two customers: the second customer is needed until the reference moves. */
const TWO_PARENTS = `
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(customer_id), status TEXT NOT NULL);
INSERT INTO customers VALUES (17, 'Annabel'), (42, 'Bo');
INSERT INTO orders VALUES (101, 17, 'open'), (102, 42, 'open');
`;

describe('shrinkWitness (schema TWO_PARENTS, refuting while two open orders exist)', () => {
  it('removes a parent row left unused once a reference is simplified to another parent', async () => {
    const two = createTempSqlite(TWO_PARENTS, { prefix: 'ladder-shrink-two-' });
    try {
      const twoPlan = createGeneratorPlan({ schema: readSchema(two.file), snapshots: [two.file] });
      const twoOpen = async (file: string): Promise<boolean> => (rows(file, "SELECT COUNT(*) FROM orders WHERE status = 'open'")[0]![0] as number) >= 2;
      const result = await shrinkWitness({ plan: twoPlan, source: two.file, trialFile: path.join(two.dir, 'trial.sqlite'), bestFile: path.join(two.dir, 'best.sqlite'), stillRefutes: twoOpen, maxTrials: 200, deadline: Infinity });
      expect({ before: result.rowsBefore, after: result.rowsAfter, stoppedBy: result.stoppedBy }).toEqual({ before: 4, after: 3, stoppedBy: 'done' });
      expect(rows(result.file, 'SELECT * FROM customers')).toEqual([[1, 'a']]);
      expect(rows(result.file, 'SELECT * FROM orders')).toEqual([[1, 1, 'open'], [2, 1, 'open']]);
    } finally {
      two.remove();
    }
  });
});
