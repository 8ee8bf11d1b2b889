import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateSpider, summarize, type SpiderItemVerdict } from '../../src/spider/evaluate-spider.js';
import { parseSpiderGold, parseSpiderPredictions } from '../../src/spider/read-spider-files.js';
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
  makeDb(path.join(dbDir, 'ok', 'ok.sqlite'), 'CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);');
  writeFileSync(path.join(dbDir, 'bad', 'bad.sqlite'), 'this is not a database, just text that fills the header'.repeat(4));
  engine = createSqliteEngine({ poolSize: 1 });
});
afterAll(async () => {
  await engine.close();
});

describe('evaluateSpider', () => {
  it('an unreadable database is a gold error for its items; the rest is scored', async () => {
    const gold = parseSpiderGold('SELECT a FROM t\tbad\nSELECT a FROM t\tok\nSELECT count(*) FROM t\tok\n');
    const predictions = parseSpiderPredictions('SELECT a FROM t\nSELECT a FROM t\tother\nSELECT count(a) FROM t WHERE a > 1\n');
    const output = await evaluateSpider({ gold, predictions, dbDir, engine, policy: resolvePolicy('default'), concurrency: 2 });
    expect(output.items.map((item) => [item.exec, item.flags])).toEqual([
      [null, ['gold_error']],
      [1, ['db_id_mismatch']],
      [0, []],
    ]);
    expect(output.items[0]!.error).toMatch(/^gold_error: no gold runs on every snapshot \(gold 0 on bad: /);
    expect(output.items[2]!.error).toBe('snapshot ok: 1 missing row, 1 extra row');
    expect(output.warnings).toEqual([]);
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
      emptyGoldMatches: 1,
      undecided: 1,
      unknownHardness: 1,
    });
  });
});
