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

describe('L3 names the statements and judges the probes', () => {
  it('a multi-statement output with a write: L3 names the write by its text', async () => {
    const run = await runGates({ sql: "SELECT 1; UPDATE orders SET amount = 0 WHERE id = 1; SELECT 'a;b'", dialect: 'sqlite', engine, db });
    expect(run.safety.reason).toBe(
      'statement 2 of 3 (UPDATE orders SET amount = 0 WHERE id = 1): write_statement; multiple_statements: 3 statements; exactly one query is allowed at 1:11 (+1 more)',
    );
    expect(run.safety.details.statements?.map((statement) => `${statement.index} ${statement.keyword} ${statement.line}:${statement.column} [${statement.findings.join(',')}]`)).toEqual([
      '1 SELECT 1:1 []',
      '2 UPDATE 1:11 [write_statement]',
      '3 SELECT 1:54 []',
    ]);
  });

  it('a single write is quoted; an unreadable write (cut off) is named by its first keyword', async () => {
    const alone = await runGates({ sql: 'DELETE FROM orders WHERE id = 1', dialect: 'sqlite', engine, db });
    expect(alone.safety.reason).toBe('write_statement: DELETE is not a read-only query at 1:1 in (DELETE FROM orders WHERE id = 1)');
    const cut = await runGates({ sql: 'DELETE FROM orders WHERE', dialect: 'sqlite', engine, db });
    expect(cut.safety.reason).toBe(
      'the statement (DELETE FROM orders WHERE): write_statement; not_analysed: cannot be analysed, failing closed: Syntax Error: Unexpected end of input at 1:25',
    );
    // The rung's own violations are unchanged: the keyword class is named, not invented as a finding.
    expect(cut.safety.issues.map((issue) => issue.kind)).toEqual(['not_analysed']);
  });

  it('a read-only query keeps its reason; a failure inside one query is not rewritten', async () => {
    const query = await runGates({ sql: 'SELECT amount FROM orders', dialect: 'sqlite', engine, db });
    expect([query.safety.reason, query.safety.details.statements]).toEqual(['one read-only query; no unsafe construct', undefined]);
    const limited = await runGates({ sql: 'SELECT amount FROM orders', dialect: 'sqlite', engine, db, safetyPolicy: { maxLimit: 10 } });
    expect(limited.safety.details.statements).toBeUndefined();
  });

  it('an unsafe probe fails L3 naming the probe; the answer itself passes L1 and L2', async () => {
    const run = await runGates({ sql: 'SELECT amount FROM orders', dialect: 'sqlite', engine, db, probes: ['SELECT COUNT(*) FROM orders', 'DROP TABLE orders', 'SELECT amont FROM orders'] });
    expect(statuses(run)).toBe('pass/pass/fail closed');
    expect(run.safety.reason).toBe('probe 2 of 3: ddl_statement: DROP TABLE is not a read-only query at 1:1 in (DROP TABLE orders)');
    expect(run.safety.details.probes?.map((probe) => `${probe.index} ${probe.syntax}/${probe.schema}/${probe.safety}`)).toEqual(['1 pass/pass/pass', '2 fail/skipped/fail', '3 pass/fail/pass']);
  });

  it('safe probes are counted in the reason and leave the gates open', async () => {
    const run = await runGates({ sql: 'SELECT amount FROM orders', dialect: 'sqlite', engine, db, probes: ['SELECT 1'] });
    expect([statuses(run), run.safety.reason]).toEqual(['pass/pass/pass open', 'one read-only query; no unsafe construct; 1 probe checked, none unsafe']);
  });

  it('runGate(safety) judges the probes too', async () => {
    const alone = await runGate('safety', { sql: 'SELECT 1', dialect: 'sqlite', engine, db, probes: ['ATTACH DATABASE \'x.db\' AS x'] });
    expect([alone.status, alone.reason]).toEqual(['fail', "probe 1 of 1: attach: ATTACH DATABASE is not a read-only query at 1:1 in (ATTACH DATABASE 'x.db' AS x)"]);
  });
});
