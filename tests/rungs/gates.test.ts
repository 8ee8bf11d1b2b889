import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { isLadderError } from '../../src/errors.js';
import { engineAcceptedBy, gateStep, judgeSafety, runGate, runGates } from '../../src/rungs/gates.js';
import { createParseMemo } from '../../src/rungs/parse-memo.js';
import { createRungResult } from '../../src/rungs/rung-result.js';
import { makeDb, tempDir } from '../compare/helpers.js';

let engine: SqliteEngine;
let db: string;

beforeAll(() => {
  db = makeDb(path.join(tempDir('ladder-gates-'), 'shop.sqlite'), 'CREATE TABLE orders (id INTEGER, amount REAL); INSERT INTO orders VALUES (1, 2.5);');
  engine = createSqliteEngine({ poolSize: 1 });
});
afterAll(() => engine.close());

const statuses = (run: Awaited<ReturnType<typeof runGates>>): string => `${run.syntax.status}/${run.schema.status}/${run.safety.status} ${run.open ? 'open' : 'closed'}`;

describe('runGates: one rule for L1 → L2 → L3', () => {
  it.each<[string, string, string, string]>([
    ['one query', 'SELECT amount FROM orders', 'pass/pass/pass open', ''],
    ['a name error: L2 fails, L3 still judges the text', 'SELECT amont FROM orders', 'pass/fail/pass closed', ''],
    ['a second statement that writes: L1 fails, L3 names the UPDATE', 'SELECT 1; UPDATE orders SET amount = 0', 'fail/skipped/fail closed', 'multiple_statements@1:11 write_statement@1:11'],
    ['a write alone', 'DELETE FROM orders', 'fail/skipped/fail closed', 'write_statement@1:1'],
    ['unreadable text: L3 fails closed', 'SELEC amount FROM orders', 'fail/skipped/fail closed', 'not_analysed@1:1'],
    ['SQLite accepts what the AST layer cannot read (an empty IN list): L2 and L3 pass on the engine\'s word', 'SELECT amount FROM orders WHERE id IN ()', 'pass/pass/pass open', ''],
  ])('%s', async (_name, sql, expected, violations) => {
    const run = await runGates({ sql, dialect: 'sqlite', engine, db });
    expect(statuses(run)).toBe(expected);
    expect(run.safety.issues.map((issue) => `${issue.kind}@${issue.line}:${issue.column}`).join(' ')).toBe(violations);
  });

  it('engineAccepted is read once from L1 and handed to L2 and L3', async () => {
    const run = await runGates({ sql: 'SELECT amount FROM orders WHERE id IN ()', dialect: 'sqlite', engine, db });
    expect([run.engineAccepted, run.schema.reason, run.safety.reason]).toEqual([
      true,
      expect.stringMatching(/^passed by engine, not analysed: /),
      expect.stringMatching(/^passed by engine, not analysed: /),
    ]);
    expect(engineAcceptedBy(createRungResult({ rung: 'syntax', status: 'pass', reason: '', details: { answer: 'missing' } }))).toBe(false);
  });

  it('blocking names the first gate that did not pass; failed the first that failed', async () => {
    const run = await runGates({ sql: 'SELECT amont FROM orders', dialect: 'sqlite', engine, db });
    expect([run.blocking?.rung, run.failed?.rung, gateStep('schema'), gateStep('execution')]).toEqual(['schema', 'schema', 'L2', 'L4_execution']);
  });

  it('the three gates share one parse of the text', async () => {
    const parses = createParseMemo('sqlite');
    await runGates({ sql: 'SELECT amount FROM orders WHERE id = 1', dialect: 'sqlite', engine, db, parses });
    expect(parses.parses).toBe(1);
  });

  it('the safety policy reaches L3', async () => {
    const run = await runGates({ sql: 'SELECT amount FROM orders', dialect: 'sqlite', engine, db, safetyPolicy: { maxLimit: 10 } });
    expect([statuses(run), run.safety.issues[0]?.kind]).toEqual(['pass/pass/fail closed', 'limit_missing']);
  });

  it('without a database: the parser decides L1 and L2 needs a catalog', async () => {
    const run = await runGates({ sql: 'SELECT amount FROM orders', dialect: 'postgres', catalog: { tables: [{ name: 'orders', schema: 'public', kind: 'table', columns: [{ name: 'amount', type: 'numeric', primaryKey: false }] }] } });
    expect([statuses(run), run.engineAccepted]).toEqual(['pass/pass/pass open', false]);
    await expect(runGates({ sql: 'SELECT 1', dialect: 'postgres' })).rejects.toSatisfy((error: unknown) => isLadderError(error, 'invalid_argument'));
  });
});

describe('runGate: one gate alone (rung assertions, matchers)', () => {
  it('L2 alone runs even when L1 fails (and says why the names cannot be checked)', async () => {
    const result = await runGate('schema', { sql: 'SELECT 1; SELECT amont FROM orders', dialect: 'sqlite', engine, db });
    expect([result.status, result.issues[0]?.kind]).toEqual(['fail', 'not_analysed']);
  });

  it('L3 alone gets engineAccepted from L1 when SQLite decides', async () => {
    const result = await runGate('safety', { sql: 'SELECT amount FROM orders WHERE id IN ()', dialect: 'sqlite', engine, db });
    expect(result.reason).toMatch(/^passed by engine, not analysed: /);
  });

  it('judgeSafety is L3 without an engine, synchronously', () => {
    expect(judgeSafety({ sql: 'SELECT amount FROM orders WHERE id IN ()', dialect: 'sqlite' }).status).toBe('fail');
    expect(judgeSafety({ sql: 'PRAGMA query_only = 0', dialect: 'sqlite' }).issues.map((issue) => issue.kind)).toEqual(['pragma']);
  });
});
