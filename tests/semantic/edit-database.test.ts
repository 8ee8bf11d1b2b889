import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDatabase, readStoredTables, removeRows, writeReorderedCopy } from '../../src/semantic/generation/edit-database.js';
import { createGeneratorPlan, type GeneratorPlan } from '../../src/semantic/generation/generator-plan.js';
import { fileContractViolation } from '../../src/semantic/generation/database-contract.js';
import { readSchema, type DatabaseSchema } from '../../src/semantic/model/schema-reader.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';

/** Parents with an INT (not INTEGER) key, children referencing them, a WITHOUT ROWID table, a UNIQUE code. */
const SCHEMA = `
CREATE TABLE team (team_id INT PRIMARY KEY, code TEXT NOT NULL UNIQUE, size INTEGER CHECK (size >= 0));
CREATE TABLE player (player_id INTEGER PRIMARY KEY, team_id INT NOT NULL REFERENCES team(team_id), name TEXT);
CREATE TABLE tag (team_id INT NOT NULL REFERENCES team(team_id), label TEXT NOT NULL, PRIMARY KEY (team_id, label)) WITHOUT ROWID;
INSERT INTO team VALUES (10, 'red', 5), (20, 'blue', 7), (30, 'green', 0);
INSERT INTO player VALUES (1, 10, 'Ann'), (2, 20, 'Bo'), (3, 20, 'Cy');
INSERT INTO tag VALUES (10, 'x'), (20, 'y'), (20, 'z');
`;

let temp: TempSqlite;
let schema: DatabaseSchema;
let plan: GeneratorPlan;

beforeAll(() => {
  temp = createTempSqlite(SCHEMA, { prefix: 'ladder-edit-' });
  schema = readSchema(temp.file);
  plan = createGeneratorPlan({ schema, snapshots: [temp.file] });
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

describe('editDatabase (edit-database.ts, schema SCHEMA)', () => {
  it('deletes a parent with its NOT NULL children, and WITHOUT ROWID rows by key', () => {
    const out = path.join(temp.dir, 'delete.sqlite');
    const outcome = editDatabase(plan, temp.file, [
      { kind: 'delete', table: 'team', rows: [[2n]] },
      { kind: 'delete', table: 'tag', rows: [[10n, 'x']] },
    ], out);
    expect(outcome.ok && outcome.database.rowCounts).toEqual({ team: 2, player: 1, tag: 0 });
    expect(rows(out, 'SELECT team_id, code FROM team ORDER BY rowid')).toEqual([[10, 'red'], [30, 'green']]);
    expect(fileContractViolation(plan.contract, out)).toBeNull();
  });

  it('sets a key cell and carries the new value into the cells that referenced it', () => {
    const out = path.join(temp.dir, 'set.sqlite');
    const outcome = editDatabase(plan, temp.file, [{ kind: 'set', table: 'team', row: [2n], column: 'team_id', value: 2n }], out);
    expect(outcome.ok).toBe(true);
    expect(rows(out, 'SELECT team_id FROM player ORDER BY player_id')).toEqual([[10], [2], [2]]);
    expect(rows(out, 'SELECT team_id, label FROM tag')).toEqual([[2, 'y'], [2, 'z'], [10, 'x']]);
    expect(fileContractViolation(plan.contract, out)).toBeNull();
  });

  it('refuses an edit that breaks a UNIQUE or CHECK constraint, and names unknown tables and columns', () => {
    const out = path.join(temp.dir, 'bad.sqlite');
    expect(editDatabase(plan, temp.file, [{ kind: 'set', table: 'team', row: [1n], column: 'code', value: 'blue' }], out)).toEqual({
      ok: false, attempts: 1, rejected: {}, reason: 'edit breaks a constraint: UNIQUE constraint failed: team.code',
    });
    expect(editDatabase(plan, temp.file, [{ kind: 'set', table: 'team', row: [1n], column: 'size', value: -1n }], out)).toEqual({
      ok: false, attempts: 1, rejected: {}, reason: 'edit breaks a constraint: CHECK constraint failed: size >= 0',
    });
    expect(() => editDatabase(plan, temp.file, [{ kind: 'delete', table: 'nope', rows: [] }], out)).toThrow(new RangeError('editDatabase: no table nope in the schema'));
    expect(() => editDatabase(plan, temp.file, [{ kind: 'set', table: 'team', row: [1n], column: 'nope', value: 1n }], out)).toThrow(new RangeError('editDatabase: no insertable column nope in table team'));
  });

  it('maps a column (a permutation of UNIQUE keys too) with its references, keeping rowids', () => {
    const out = path.join(temp.dir, 'map.sqlite');
    const outcome = editDatabase(plan, temp.file, [
      { kind: 'map', table: 'team', column: 'team_id', pairs: [[10n, 20n], [20n, 10n], [30n, 3n]] },
      { kind: 'map', table: 'team', column: 'code', pairs: [['red', 'blue'], ['blue', 'red']] },
    ], out);
    expect(outcome.ok).toBe(true);
    expect(rows(out, 'SELECT rowid, team_id, code FROM team ORDER BY rowid')).toEqual([[1, 20, 'blue'], [2, 10, 'red'], [3, 3, 'green']]);
    expect(rows(out, 'SELECT player_id, team_id FROM player ORDER BY player_id')).toEqual([[1, 20], [2, 10], [3, 10]]);
    expect(fileContractViolation(plan.contract, out)).toBeNull();
  });

  it('removeRows names rows by rowid, and sends WITHOUT ROWID tables to editDatabase', () => {
    const out = path.join(temp.dir, 'remove.sqlite');
    const outcome = removeRows(plan, temp.file, [{ table: 'player', rowids: [1n, 3n] }], out);
    expect(outcome.ok && { tier: outcome.database.tier, rows: outcome.database.rowCounts }).toEqual({ tier: 'shrunk', rows: { team: 3, player: 1, tag: 3 } });
    expect(() => removeRows(plan, temp.file, [{ table: 'tag', rowids: [1n] }], out)).toThrow(new RangeError('removeRows: table tag is WITHOUT ROWID; name its rows by key with editDatabase'));
  });
});

describe('readStoredTables and writeReorderedCopy', () => {
  it('reads rows with their keys, and writes them back reversed, rotated or sorted', () => {
    const stored = readStoredTables(temp.file, schema);
    expect(stored.map((t) => ({ name: t.name, keys: t.rows.map((r) => r.key) }))).toEqual([
      { name: 'team', keys: [[1n], [2n], [3n]] },
      { name: 'player', keys: [[1n], [2n], [3n]] },
      { name: 'tag', keys: [[10n, 'x'], [20n, 'y'], [20n, 'z']] },
    ]);
    const reversed = path.join(temp.dir, 'reversed.sqlite');
    writeReorderedCopy(schema, temp.file, reversed);
    // A rowid table is scanned the other way round (an index scan is not: the covering key index
    // still reads 10, 20, 30); the INTEGER PRIMARY KEY and WITHOUT ROWID tables keep their key order.
    expect(rows(reversed, 'SELECT team_id, size FROM team')).toEqual([[30, 0], [20, 7], [10, 5]]);
    expect(rows(reversed, 'SELECT team_id FROM team')).toEqual([[10], [20], [30]]);
    expect(rows(reversed, 'SELECT player_id FROM player')).toEqual([[1], [2], [3]]);
    expect(rows(reversed, 'SELECT label FROM tag')).toEqual([['x'], ['y'], ['z']]);
    const rotated = path.join(temp.dir, 'rotated.sqlite');
    writeReorderedCopy(schema, temp.file, rotated, 'rotate');
    expect(rows(rotated, 'SELECT team_id, size FROM team')).toEqual([[20, 7], [30, 0], [10, 5]]);
    const sorted = path.join(temp.dir, 'sorted.sqlite');
    writeReorderedCopy(schema, temp.file, sorted, 'descending');
    expect(rows(sorted, 'SELECT code FROM team NOT INDEXED')).toEqual([['green'], ['blue'], ['red']]);
    expect(fileContractViolation(plan.contract, reversed)).toBeNull();
  });
});
