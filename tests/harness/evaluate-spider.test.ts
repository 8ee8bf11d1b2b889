import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateSpider, summarize, type SpiderItemVerdict } from '../../src/harness/evaluate-spider.js';
import { parseSpiderGold, parseSpiderPredictions } from '../../src/benchmarks/spider/read-spider-files.js';
import { resolvePolicy } from '../../src/compare/policy.js';
import { createSqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import type { Engine } from '../../src/engine/engine.js';
import { makeDb, tempDir } from '../compare/helpers.js';

let engine: Engine;
let dbDir: string;

beforeAll(() => {
  dbDir = path.join(tempDir('ladder-eval-spider-'), 'database');
  mkdirSync(path.join(dbDir, 'ok'), { recursive: true });
  mkdirSync(path.join(dbDir, 'bad'), { recursive: true });
  mkdirSync(path.join(dbDir, 'shop'), { recursive: true });
  makeDb(path.join(dbDir, 'shop', 'shop.sqlite'), 'CREATE TABLE Orders (order_id INTEGER, customer_id INTEGER); CREATE TABLE customers (customer_id INTEGER, country TEXT); CREATE VIEW v AS SELECT country FROM customers; INSERT INTO customers VALUES (1, \'UK\'); INSERT INTO Orders VALUES (1, 1);');
  makeDb(path.join(dbDir, 'ok', 'ok.sqlite'), 'CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);');
  writeFileSync(path.join(dbDir, 'bad', 'bad.sqlite'), 'this is not a database, just text that fills the header'.repeat(4));
  engine = createSqliteEngine({ poolSize: 1 });
});
afterAll(async () => {
  await engine.close();
});

describe('evaluateSpider', () => {
  it('an unreadable database errors its items (the machine\'s fault: not a gold error, in no rate); the rest is scored', async () => {
    const gold = parseSpiderGold('SELECT a FROM t\tbad\nSELECT a FROM t\tok\nSELECT count(*) FROM t\tok\n');
    const predictions = parseSpiderPredictions('SELECT a FROM t\nSELECT a FROM t\tother\nSELECT count(a) FROM t WHERE a > 1\n');
    const output = await evaluateSpider({ gold, predictions, dbDir, engine, policy: resolvePolicy('default'), concurrency: 2 });
    expect(output.items.map((item) => [item.exec, item.flags])).toEqual([
      [null, ['internal_error']],
      [1, ['db_id_mismatch']],
      [0, []],
    ]);
    expect(output.items[0]!.error).toBe(`not graded, the machine failed: cannot open ${path.join(dbDir, 'bad', 'bad.sqlite')}: file is not a database`);
    expect([output.summary.internalErrors, output.summary.goldErrors, output.summary.levels.all.scored]).toEqual([1, 0, 2]);
    expect(output.items[2]!.error).toBe('snapshot ok: gold [2] vs predicted [1]');
    expect(output.warnings).toEqual([]);
  });

  it('hardness looks names up in the database as the official reader does', async () => {
    const golds = [
      'SELECT T2.country FROM orders AS T1 JOIN customers AS T2 ON T1.customer_id = T2.customer_id',
      // An alias without AS: the official reader cannot read it (without the schema it counts as a table).
      'SELECT c.country FROM orders o JOIN customers c ON c.customer_id = o.customer_id',
      // A view is no table to the official reader.
      'SELECT country FROM v',
      'SELECT count(*) FROM customers',
    ];
    const output = await evaluateSpider({
      gold: parseSpiderGold(golds.map((sql) => `${sql}\tshop\n`).join('') + 'SELECT count(*) FROM customers\tbad\n'),
      predictions: parseSpiderPredictions(`${golds.join('\n')}\nSELECT 1\n`),
      dbDir,
      engine,
      policy: resolvePolicy('spider'),
    });
    expect(output.items.map((item) => [item.hardness, item.exec])).toEqual([
      ['easy', 1],
      [null, 1],
      [null, 1],
      ['easy', 1],
      // A database whose names cannot be read: the text's hardness, names unchecked.
      ['easy', null],
    ]);
  });

  it('extra prediction lines are reported and ignored', async () => {
    const output = await evaluateSpider({
      gold: parseSpiderGold('SELECT a FROM t\tok\n'),
      predictions: parseSpiderPredictions('SELECT a FROM t\nSELECT 1\nSELECT 2\n'),
      dbDir,
      engine,
      policy: resolvePolicy('spider'),
    });
    expect([output.items[0]!.exec, output.warnings]).toEqual([1, ['prediction file has 3 lines, gold has 1 items: the last 2 lines are ignored']]);
  });
});

describe('evaluateSpider: start of a database', () => {
  it("sends an item's statements without waiting for its database's catalog (read for hardness)", async () => {
    const events: string[] = [];
    let releaseCatalog!: () => void;
    const catalogHeld = new Promise<void>((resolve) => (releaseCatalog = resolve));
    const recording: Engine = {
      ...engine,
      dialect: engine.dialect,
      execute: (request) => {
        events.push(`execute ${request.sql}`);
        // The statements are out: let the catalog answer now.
        releaseCatalog();
        return engine.execute(request);
      },
      prepare: (request) => engine.prepare(request),
      explain: (request) => engine.explain(request),
      catalog: async (db) => {
        events.push('catalog asked');
        await catalogHeld;
        events.push('catalog answered');
        return engine.catalog(db);
      },
      close: () => Promise.resolve(),
    };
    const output = await evaluateSpider({
      gold: parseSpiderGold('SELECT count(*) FROM t\tok\n'),
      predictions: parseSpiderPredictions('SELECT count(a) FROM t\n'),
      dbDir,
      engine: recording,
      policy: resolvePolicy('spider'),
    });
    expect(events).toEqual(['catalog asked', 'execute SELECT count(*) FROM t', 'execute SELECT count(a) FROM t', 'catalog answered']);
    expect(output.items.map((item) => [item.exec, item.hardness])).toEqual([[1, 'easy']]);
  });
});

describe('evaluateSpider: one item never costs the run', () => {
  it('an item whose evaluation throws is errored (internal_error, unscored, in no rate); the others are scored', async () => {
    const throwing: Engine = {
      ...engine,
      dialect: engine.dialect,
      execute: (request) => (request.sql.includes('BOOM') ? Promise.reject(new TypeError('boom')) : engine.execute(request)),
      prepare: (request) => engine.prepare(request),
      explain: (request) => engine.explain(request),
      catalog: (db) => engine.catalog(db),
      close: () => Promise.resolve(),
    };
    const output = await evaluateSpider({
      gold: parseSpiderGold('SELECT a FROM t\tok\nSELECT a FROM t\tok\n'),
      predictions: parseSpiderPredictions("SELECT a FROM t WHERE 1 = 1 OR 'BOOM' = 0\nSELECT a FROM t\n"),
      dbDir,
      engine: throwing,
      policy: resolvePolicy('default'),
    });
    expect(output.items.map((item) => [item.exec, item.flags, item.error])).toEqual([
      [null, ['internal_error'], 'internal error while evaluating this item: TypeError: boom'],
      [1, [], null],
    ]);
    expect(output.summary.internalErrors).toBe(1);
  });

  it('--diagnostics on a 2 500-term prediction: the item is scored and its diagnostics end within budget', async () => {
    const chain = Array.from({ length: 2_500 }, (_, i) => `a = ${i}`).join(' OR ');
    const output = await evaluateSpider({
      gold: parseSpiderGold('SELECT a FROM t\tok\nSELECT a FROM t\tok\n'),
      predictions: parseSpiderPredictions(`SELECT a FROM t WHERE ${chain}\nSELECT a FROM t\n`),
      dbDir,
      engine,
      policy: resolvePolicy('default'),
      diagnostics: true,
    });
    expect(output.items.map((item) => item.exec)).toEqual([0, 1]);
    // SQLite refuses the prediction (an expression deeper than 1 000); the analysis does not read it.
    expect(output.items[0]!.error).toMatch(/Expression tree is too large \(maximum depth 1000\)/);
    expect(output.items[0]!.diagnostics).toMatchObject({ components_skipped: true, exact_match_skipped: true, ast_skipped: true });
    expect(output.items[1]!.diagnostics).toMatchObject({ components_skipped: false, exact_match_normalized: 1 });
    expect(output.summary.diagnostics?.items).toBe(2);
  });
});

describe('parseSpiderPredictions: tabs', () => {
  it.each([
    ['a db_id column', 'SELECT a FROM t\tconcert_singer', { sql: 'SELECT a FROM t', dbId: 'concert_singer' }],
    ['a tab inside the SQL, none after', 'SELECT a\tFROM t', { sql: 'SELECT a\tFROM t' }],
    ['a tab before the last word of the SQL', 'SELECT a FROM\tsinger', { sql: 'SELECT a FROM\tsinger' }],
    ['a tab before a value', 'SELECT a FROM t WHERE b =\t1', { sql: 'SELECT a FROM t WHERE b =\t1' }],
    ['tabs inside the SQL and a db_id column', 'SELECT a\tFROM t\tWHERE b = 1\tshop', { sql: 'SELECT a\tFROM t\tWHERE b = 1', dbId: 'shop' }],
  ])('%s', (_case, line, expected) => {
    expect(parseSpiderPredictions(`${line}\n`)).toEqual([{ index: 0, line: 1, ...expected }]);
  });
});

describe('summarize', () => {
  it('accuracy per level is correct / scored; counts are kept apart', () => {
    const item = (exec: 1 | 0 | null, hardness: SpiderItemVerdict['hardness'], flags: string[] = []): SpiderItemVerdict => ({
      i: 0, db_id: 'x', exec, error: null, flags, goldIndex: 0, hardness,
    });
    const summary = summarize([
      item(1, 'easy', ['empty_gold']),
      item(0, 'easy', ['prediction_error']),
      item(null, 'hard', ['gold_error']),
      item(1, 'extra'),
      item(null, null, ['undecided']),
    ]);
    expect(summary).toEqual({
      levels: {
        easy: { count: 2, scored: 2, correct: 1, accuracy: 0.5 },
        medium: { count: 0, scored: 0, correct: 0, accuracy: 0 },
        hard: { count: 1, scored: 0, correct: 0, accuracy: 0 },
        extra: { count: 1, scored: 1, correct: 1, accuracy: 1 },
        all: { count: 5, scored: 3, correct: 2, accuracy: 2 / 3 },
      },
      executed: 2,
      predictionErrors: 1,
      goldErrors: 1,
      malformedGoldLines: 0,
      emptyGoldMatches: 1,
      undecided: 1,
      unknownHardness: 1,
      internalErrors: 0,
      missingPredictions: 0,
    });
  });
});
