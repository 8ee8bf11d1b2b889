import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExecution } from '../../src/rungs/execution.js';
import { GoldResultCache } from '../../src/compare/gold-result-cache.js';
import type { Snapshot } from '../../src/fixtures/snapshot.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import { LadderError, isLadderError } from '../../src/errors.js';
import { makeDb, tempDir } from '../compare/helpers.js';

let engine: Engine;
let base: Snapshot;
let edge: Snapshot;
let broken: Snapshot;

beforeAll(() => {
  const dir = tempDir('ladder-exec-');
  const schema = 'CREATE TABLE orders (id INTEGER, status TEXT, amount REAL);';
  base = { name: 'base', path: makeDb(path.join(dir, 'base.sqlite'), `${schema} INSERT INTO orders VALUES (1,'paid',10.5),(2,'paid',20),(3,'paid',5);`) };
  edge = { name: 'edge', path: makeDb(path.join(dir, 'edge.sqlite'), `${schema} INSERT INTO orders VALUES (1,'paid',10.5),(2,'refunded',20),(3,'paid',5),(4,'paid',7);`) };
  // Same schema but the table has another name: a gold that names `orders` cannot run here.
  broken = { name: 'broken', path: makeDb(path.join(dir, 'broken.sqlite'), 'CREATE TABLE other (id INTEGER);') };
  engine = createSqliteEngine({ poolSize: 2 });
});
afterAll(async () => {
  await engine.close();
});

describe('checkExecution — argument validation', () => {
  it.each([
    ['empty golds', { golds: [] }, 'golds must be a non-empty array of SQL strings'],
    ['non-string gold', { golds: [1] }, 'golds must be a non-empty array of SQL strings'],
    ['no snapshots', { snapshots: [] }, 'snapshots must be a non-empty array of { name, path, checksum? }'],
  ])('%s', async (_name, override, message) => {
    await expect(checkExecution({ predictedSql: 'SELECT 1', golds: ['SELECT 1'], snapshots: [base], engine, ...(override as object) })).rejects.toThrow(
      new LadderError('invalid_argument', message),
    );
  });
});

describe('checkExecution — a missing database is misuse', () => {
  it('throws db_not_found naming the snapshot (never a gold error)', async () => {
    const missing = { name: 'gone', path: path.join(path.dirname(base.path), 'gone.sqlite') };
    const run = checkExecution({ predictedSql: 'SELECT 1', golds: ['SELECT 1'], snapshots: [base, missing], engine });
    await expect(run).rejects.toSatisfy((error: unknown) => isLadderError(error, 'db_not_found'));
    await expect(checkExecution({ predictedSql: 'SELECT 1', golds: ['SELECT 1'], snapshots: [missing], engine })).rejects.toThrow(
      `snapshot gone: database ${missing.path} does not exist (it is never created)`,
    );
  });
});

describe('checkExecution — the prediction as run, for later rungs', () => {
  it('keeps each snapshot\'s predicted columns and rows (after the rewrites), and both column lists per verdict', async () => {
    const result = await checkExecution({ predictedSql: 'SELECT id AS n, status FROM orders ORDER BY id LIMIT 2', golds: ['SELECT id, status FROM orders ORDER BY id LIMIT 2'], snapshots: [base, edge], engine });
    expect(result.details.predictedRuns.map((run) => (run.ok ? [run.snapshot, run.columns, run.rows.length] : [run.snapshot, run.error.code]))).toEqual([
      ['base', ['n', 'status'], 2],
      ['edge', ['n', 'status'], 2],
    ]);
    expect(result.details.snapshots.map((s) => s.columns)).toEqual([
      { gold: ['id', 'status'], predicted: ['n', 'status'] },
      { gold: ['id', 'status'], predicted: ['n', 'status'] },
    ]);
  });

  it('a prediction that fails on a snapshot is recorded there with its error', async () => {
    const result = await checkExecution({ predictedSql: 'SELECT nope FROM orders', golds: ['SELECT id FROM orders'], snapshots: [base], engine });
    expect(result.details.predictedRuns).toEqual([{ snapshot: 'base', ok: false, error: { code: 'unknown_column', message: 'no such column: nope' } }]);
  });
});

describe('checkExecution — several snapshots', () => {
  it('lucky data: passes on base, fails on edge; the first failing snapshot is named', async () => {
    const result = await checkExecution({
      predictedSql: 'SELECT id FROM orders',
      golds: ["SELECT id FROM orders WHERE status = 'paid'"],
      snapshots: [base, edge],
      engine,
    });
    expect([result.status, result.reason, result.details.firstFailingSnapshot]).toEqual(['fail', 'snapshot edge: prediction has 4 rows, gold has 3; 1 extra row: predicted [2]', 'edge']);
    expect(result.details.snapshots.map((s) => s.verdict?.match)).toEqual([true, false]);
    expect(result.details.snapshots[1]!.verdict!.extraRows.rows).toEqual([[2]]);
  });

  it('passes when the gold matches on every snapshot', async () => {
    const result = await checkExecution({
      predictedSql: "SELECT amount, id FROM orders WHERE status <> 'refunded'",
      golds: ["SELECT id, amount FROM orders WHERE status = 'paid'"],
      snapshots: [base, edge],
      engine,
    });
    expect([result.status, result.score, result.reason, result.details.goldIndex]).toEqual(['pass', 1, 'matches on 2 snapshots', 0]);
    expect(result.details.flags).toEqual(['columns_reordered']);
  });
});

describe('checkExecution — several golds', () => {
  it('passes when one gold matches everywhere and reports which', async () => {
    const result = await checkExecution({
      predictedSql: 'SELECT count(*) FROM orders',
      golds: ["SELECT count(*) FROM orders WHERE status = 'paid'", 'SELECT count(id) FROM orders'],
      snapshots: [base, edge],
      engine,
    });
    expect([result.status, result.reason, result.details.goldIndex]).toEqual(['pass', 'matches gold 1 on 2 snapshots', 1]);
  });

  it('a gold that errors on a snapshot is left out and reported', async () => {
    const result = await checkExecution({
      predictedSql: 'SELECT 1',
      golds: ['SELECT count(*) FROM orders', 'SELECT 1'],
      snapshots: [base, broken],
      engine,
    });
    expect([result.status, result.details.goldIndex, result.details.flags]).toEqual(['pass', 1, ['gold_error']]);
    expect(result.details.goldErrors).toEqual([{ goldIndex: 0, snapshot: 'broken', error: { code: 'unknown_table', message: 'no such table: orders' } }]);
  });

  it('no gold runs everywhere: unscored gold_error, never a prediction failure', async () => {
    const result = await checkExecution({ predictedSql: 'SELECT 1', golds: ['SELECT id FROM orders'], snapshots: [base, broken], engine });
    expect([result.status, result.reason, result.details.flags]).toEqual([
      'unscored',
      'gold_error: no gold runs on every snapshot (gold 0 on broken: no such table: orders)',
      ['gold_error'],
    ]);
  });
});

describe('checkExecution — prediction errors, policies, cache', () => {
  it('a prediction that fails to run fails the item with the engine message', async () => {
    const result = await checkExecution({ predictedSql: 'SELECT nosuch FROM orders', golds: ['SELECT id FROM orders'], snapshots: [base], engine });
    expect([result.status, result.reason, result.details.flags]).toEqual([
      'fail',
      'snapshot base: prediction failed (unknown_column): no such column: nosuch',
      ['prediction_error'],
    ]);
  });

  it('spider preset removes DISTINCT from both queries; keepDistinct keeps it', async () => {
    const input = { predictedSql: 'SELECT DISTINCT status FROM orders', golds: ['SELECT status FROM orders'], snapshots: [edge], engine };
    expect((await checkExecution({ ...input, policy: 'spider' })).status).toBe('pass');
    expect((await checkExecution({ ...input, policy: { preset: 'spider', keepDistinct: true } })).status).toBe('fail');
    expect((await checkExecution({ ...input, policy: 'default' })).status).toBe('fail');
  });

  it('gold results are cached per (snapshot, gold SQL)', async () => {
    const cache = new GoldResultCache();
    const input = { predictedSql: 'SELECT id FROM orders', golds: ['SELECT id FROM orders'], snapshots: [base, edge], engine, cache };
    await checkExecution(input);
    await checkExecution(input);
    expect([cache.misses, cache.hits, cache.size]).toEqual([2, 2, 2]);
  });

  it('a tie query that timed out is not kept with the cached gold: the next item runs it again', async () => {
    const cache = new GoldResultCache();
    const gold = 'SELECT id FROM orders ORDER BY status LIMIT 2';
    let tieQueries = 0;
    const flaky: Engine = {
      ...engine,
      execute: (request) => {
        if (request.sql === gold || request.sql === 'SELECT id FROM orders ORDER BY status LIMIT 2 ') return engine.execute(request);
        tieQueries += 1;
        return tieQueries === 1 ? Promise.resolve({ ok: false, error: { code: 'timeout', message: 'deadline passed' } }) : engine.execute(request);
      },
    };
    const input = { predictedSql: 'SELECT id FROM orders ORDER BY status LIMIT 2 ', golds: [gold], snapshots: [base], engine: flaky, cache };
    const first = await checkExecution(input);
    const second = await checkExecution(input);
    expect([tieQueries, first.details.flags.includes('ties_unknown'), second.details.flags.includes('ties_unknown')]).toEqual([2, true, false]);
  });

  it('empty vs empty passes with the empty_gold flag', async () => {
    const result = await checkExecution({
      predictedSql: "SELECT id FROM orders WHERE status = 'lost'",
      golds: ['SELECT id FROM orders WHERE amount < 0'],
      snapshots: [base],
      engine,
    });
    expect([result.status, result.reason, result.details.flags]).toEqual(['pass', 'matches (both results empty)', ['empty_gold']]);
  });

  it('an empty gold against an empty prediction of another shape fails, and still carries empty_gold', async () => {
    const result = await checkExecution({
      predictedSql: 'SELECT id, status FROM orders WHERE amount < 0',
      golds: ['SELECT id FROM orders WHERE amount < 0'],
      snapshots: [base],
      engine,
      policy: { emptyMatchesEmpty: 'same-columns' },
    });
    expect([result.status, result.reason, result.details.flags]).toEqual(['fail', 'snapshot base: prediction has 1 extra column (2 vs 1; allowExtraColumns is off)', ['empty_gold']]);
  });

  it('an empty gold against a prediction that fails to run carries empty_gold too', async () => {
    const result = await checkExecution({ predictedSql: 'SELECT nosuch FROM orders', golds: ['SELECT id FROM orders WHERE amount < 0'], snapshots: [base], engine });
    expect([result.status, result.details.flags]).toEqual(['fail', ['prediction_error', 'empty_gold']]);
  });

  it('legacy double quotes: the verdict says which side was rewritten and shows the SQL that ran', async () => {
    const gold = 'SELECT id FROM orders WHERE status = "paid"';
    const result = await checkExecution({ predictedSql: 'SELECT id FROM orders WHERE status = "paid"', golds: [gold], snapshots: [base, edge], engine });
    expect([result.status, result.details.flags, result.details.doubleQuotes]).toEqual(['pass', ['gold_rewritten', 'prediction_rewritten'], 'legacy']);
    expect(result.details.executedSql).toEqual({ predicted: "SELECT id FROM orders WHERE status = 'paid'", golds: ["SELECT id FROM orders WHERE status = 'paid'"] });
    const plain = await checkExecution({ predictedSql: "SELECT id FROM orders WHERE status = 'paid'", golds: [gold], snapshots: [base], engine });
    expect(plain.details.flags).toEqual(['gold_rewritten']);
  });

  it('strict double quotes: nothing is rewritten, the gold fails and the item is unscored', async () => {
    const result = await checkExecution({ predictedSql: "SELECT id FROM orders WHERE status = 'paid'", golds: ['SELECT id FROM orders WHERE status = "paid"'], snapshots: [base], engine, doubleQuotes: 'strict' });
    expect([result.status, result.details.flags, result.details.executedSql.golds]).toEqual(['unscored', ['gold_error'], ['SELECT id FROM orders WHERE status = "paid"']]);
  });

  it('a gold that reads the clock is flagged unless the item has an as_of_date; randomness always', async () => {
    const clock = "SELECT id FROM orders WHERE date('now') > '2000-01-01'";
    const input = { predictedSql: 'SELECT id FROM orders', golds: [clock], snapshots: [base], engine };
    const flagged = await checkExecution(input);
    expect([flagged.status, flagged.details.flags]).toEqual(['pass', ['clock_dependent_gold']]);
    expect(flagged.details.goldFindings.map((found) => [found.kind, found.construct, found.line, found.column])).toEqual([['clock_dependent_gold', "date('now')", 1, 29]]);
    const pinned = await checkExecution({ ...input, asOfDate: '2024-06-30' });
    expect([pinned.details.flags, pinned.details.goldFindings]).toEqual([[], []]);
    const random = await checkExecution({ ...input, golds: ['SELECT id FROM orders WHERE random() IS NOT NULL'], asOfDate: '2024-06-30' });
    expect(random.details.flags).toEqual(['random_dependent_gold']);
  });

  it('the gold\'s flags come from the gold checks, as audit reports them: LIMIT without ORDER BY, a tie at the cut, a NULL sort key, one all-NULL row', async () => {
    const run = (gold: string, predictedSql = gold) => checkExecution({ predictedSql, golds: [gold], snapshots: [base, edge], engine });
    expect((await run('SELECT id FROM orders LIMIT 2')).details.flags).toEqual(['limit_without_order_by']);
    // Every snapshot has several 'paid' rows: LIMIT 1 keeps one of them.
    expect((await run('SELECT id FROM orders ORDER BY status LIMIT 1')).details.flags).toEqual(['ordered', 'nondeterministic_gold']);
    expect((await run("SELECT id FROM orders ORDER BY CASE WHEN id = 3 THEN NULL ELSE amount END")).details.flags).toEqual(['ordered', 'null_sort_key']);
    const none = await run("SELECT MAX(amount) FROM orders WHERE status = 'void'");
    expect([none.status, none.details.flags]).toEqual(['pass', ['all_null_gold_row']]);
  });

  it('rejects a bad doubleQuotes, maxRows or asOfDate', async () => {
    const input = { predictedSql: 'SELECT 1', golds: ['SELECT 1'], snapshots: [base], engine };
    await expect(checkExecution({ ...input, doubleQuotes: 'loose' as never })).rejects.toThrow(new LadderError('invalid_argument', `doubleQuotes must be 'legacy' or 'strict'; received "loose"`));
    await expect(checkExecution({ ...input, maxRows: 0 })).rejects.toThrow(new LadderError('invalid_argument', 'maxRows must be an integer ≥ 1; received 0'));
    await expect(checkExecution({ ...input, asOfDate: '30/06/2024' })).rejects.toThrow(new LadderError('invalid_argument', 'asOfDate must be a date "YYYY-MM-DD"; received "30/06/2024"'));
  });

  it('a column search that runs out of budget leaves the item unscored (undecided)', async () => {
    const result = await checkExecution({
      predictedSql: "SELECT status, status, id FROM orders",
      golds: ["SELECT id, status, status FROM orders"],
      snapshots: [base],
      engine,
      policy: { columnSearchBudget: 1 },
    });
    expect([result.status, result.details.flags]).toEqual(['unscored', ['column_search_budget', 'undecided']]);
    expect(result.reason).toMatch(/^undecided on snapshot base: column-map search stopped after \d+ cell visits \(budget 1\)$/);
  });
});
