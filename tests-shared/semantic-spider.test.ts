/**
 * Test-suite accuracy on the shared Spider slice, through the
 * semantic library: one distilled suite per database, then for both prediction files every item
 * that execution accuracy accepts and the suite rejects is replayed with the stock Python
 * `sqlite3` module, on the distinguishing database rebuilt from its SQL dump. A rejection counts
 * only if Python's SQLite, too, returns different results for the gold and the prediction under
 * the same policy (and the same gold result as our engine).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareResults } from '../src/compare/compare-results.js';
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import { resolvePolicy } from '../src/compare/policy.js';
import { applySqlRewrites } from '../src/compare/sql-rewrites.js';
import type { QueryResult } from '../src/engine/engine.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../src/rungs/execution.js';
import { dumpDatabase } from '../src/semantic/generation/dump-database.js';
import { buildTestSuite, evaluateOnSuite, type TestSuite } from '../src/semantic/suite/test-suite.js';
import { listSnapshots } from '../src/benchmarks/spider/list-snapshots.js';
import { readPredictions, readSpiderGold, type SpiderGoldItem } from '../src/benchmarks/spider/read-spider-files.js';
import { fromPythonResult, type PythonResult } from './python-results.js';

const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? '../shared/data/spider-dev-slice');
const policy = resolvePolicy('spider');
const work = mkdtempSync(path.join(os.tmpdir(), 'ladder-semantic-shared-'));
let engine: SqliteEngine;
let gold: SpiderGoldItem[];
/** Suites by `nulls` policy and db_id. */
const suites = new Map<string, TestSuite>();
const NULL_POLICIES = ['allowed', 'observed'] as const;

beforeAll(async () => {
  engine = createSqliteEngine();
  gold = await readSpiderGold(path.join(slice, 'dev_gold.sql'));
  for (const nulls of NULL_POLICIES) for (const dbId of [...new Set(gold.map((g) => g.dbId))].sort()) {
    const snapshots = await listSnapshots(path.join(slice, 'database'), dbId, { checksums: true });
    suites.set(
      `${nulls}/${dbId}`,
      await buildTestSuite({
        nulls,
        engine,
        schemaDb: snapshots[0]!.path,
        snapshots,
        golds: gold.filter((g) => g.dbId === dbId && g.error === undefined).map((g) => g.sql),
        policy,
        seed: 0,
        // No time budget: the suites must not depend on the machine's load.
        budget: { maxDatabases: 300, patience: 100, maxSeconds: 3600 },
        cacheDir: path.join(work, 'suites'),
      }),
    );
  }
});
afterAll(async () => {
  await engine.close();
  rmSync(work, { recursive: true, force: true });
});

interface Rejection {
  readonly item: number;
  readonly goldSql: string;
  readonly predictedSql: string;
  readonly database: string;
  readonly dump: string;
  readonly engineGold: QueryResult;
}

describe('test-suite rejections on the Spider slice replay in stock Python sqlite3', () => {
  it.each([
    ['DINSQL', 'allowed', 48],
    ['C3_SQL', 'allowed', 56],
    ['DINSQL', 'observed', 25],
    ['C3_SQL', 'observed', 37],
  ] as const)('%s, NULLs %s: %i items EX accepts and the suite rejects, every one replayed', async (model, nulls, expectedRejections) => {
    const predictions = await readPredictions(path.join(slice, 'predictions', `${model}.sql`));
    const cache = new GoldResultCache();
    const rejections: Rejection[] = [];
    for (const item of gold) {
      const suite = suites.get(`${nulls}/${item.dbId}`)!;
      const predictedSql = predictions[item.index]?.sql ?? '';
      if (item.error !== undefined || predictedSql === '') continue;
      const ex = await checkExecution({ predictedSql, golds: [item.sql], snapshots: suite.snapshots, engine, policy, cache });
      if (ex.status !== 'pass') continue;
      const result = await evaluateOnSuite({ engine, suite, golds: [item.sql], predictedSql, cache });
      if (result.status !== 'fail' || result.failing === null) continue;
      const goldRun = await engine.execute({ db: result.failing.path, sql: applySqlRewrites(item.sql, 'gold', policy.rewrites) });
      expect(goldRun.ok).toBe(true);
      rejections.push({
        item: item.index,
        goldSql: applySqlRewrites(item.sql, 'gold', policy.rewrites),
        predictedSql: applySqlRewrites(predictedSql, 'predicted', policy.rewrites),
        database: result.failing.database,
        dump: dumpDatabase(result.failing.path),
        engineGold: (goldRun as { ok: true; result: QueryResult }).result,
      });
    }
    const jobs = path.join(work, `${model}-${nulls}-jobs.json`);
    writeFileSync(jobs, JSON.stringify(rejections.map((r) => ({ dump: r.dump, queries: [r.goldSql, r.predictedSql] }))));
    const python = spawnSync('python3', [path.resolve(import.meta.dirname, 'replay-sqlite.py'), jobs], { encoding: 'utf8', maxBuffer: 512 * 2 ** 20 });
    expect(python.status, python.stderr).toBe(0);
    const replay = JSON.parse(python.stdout) as { sqlite_version: string; results: (PythonResult | { error: string })[][] };
    const notReplayed: string[] = [];
    rejections.forEach((rejection, k) => {
      const [goldOut, predOut] = replay.results[k]!;
      if (!goldOut || 'error' in goldOut) return void notReplayed.push(`item ${rejection.item}: gold fails in Python: ${JSON.stringify(goldOut)}`);
      const pyGold = fromPythonResult(goldOut);
      if (compareResults(rejection.engineGold, pyGold, policy, { goldSql: rejection.goldSql }).match !== true) {
        return void notReplayed.push(`item ${rejection.item}: Python's gold result differs from the engine's`);
      }
      // A prediction that fails in Python is a rejection too (it fails on the engine's side as well, or differs).
      if (!predOut || 'error' in predOut) return;
      if (compareResults(pyGold, fromPythonResult(predOut), policy, { goldSql: rejection.goldSql }).match !== false) {
        notReplayed.push(`item ${rejection.item} on ${rejection.database}: gold and prediction agree in Python ${replay.sqlite_version}`);
      }
    });
    expect(notReplayed).toEqual([]);
    expect(rejections.length).toBe(expectedRejections);
  });
});
