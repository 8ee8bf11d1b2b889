/**
 * Counterexample search on the shared Spider slice (SPIDER_SLICE_DIR): for both
 * prediction files, every prediction that execution accuracy accepts is searched (spider policy,
 * seed 0, 100 databases, no time budget so the outcome does not depend on the machine's load).
 * Every witness is replayed with the stock Python `sqlite3` module on the database rebuilt from
 * its SQL script: Python's SQLite must return the engine's gold result and a different result
 * for the prediction (or fail on it, where the engine's run failed). Refuted counts per Spider
 * hardness level are pinned, and at least 80% of the witnesses hold at most 3 rows per table.
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
import type { Snapshot } from '../src/fixtures/snapshot.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../src/rungs/execution.js';
import { createCounterexampleSearcher, type CounterexampleSearcher } from '../src/semantic/search/counterexample-search.js';
import type { Witness } from '../src/rungs/semantic-details.js';
import { isEmptyVsNullRow } from '../src/semantic/model/empty-vs-null-row.js';
import { HARDNESS_LEVELS, spiderHardness } from '../src/benchmarks/spider/hardness.js';
import { listSnapshots } from '../src/benchmarks/spider/list-snapshots.js';
import { readPredictions, readSpiderGold, type SpiderGoldItem } from '../src/benchmarks/spider/read-spider-files.js';
import { fromPythonResult, type PythonResult } from './python-results.js';

const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? '../shared/data/spider-dev-slice');
const policy = resolvePolicy('spider');
const work = mkdtempSync(path.join(os.tmpdir(), 'ladder-counterexample-shared-'));
let engine: SqliteEngine;
let gold: SpiderGoldItem[];
const snapshots = new Map<string, Snapshot[]>();
const searchers = new Map<string, CounterexampleSearcher>();

beforeAll(async () => {
  engine = createSqliteEngine();
  gold = await readSpiderGold(path.join(slice, 'dev_gold.sql'));
  for (const dbId of [...new Set(gold.map((g) => g.dbId))].sort()) snapshots.set(dbId, await listSnapshots(path.join(slice, 'database'), dbId, { checksums: true }));
});
afterAll(async () => {
  for (const searcher of searchers.values()) searcher.close();
  await engine.close();
  rmSync(work, { recursive: true, force: true });
});

function searcherFor(dbId: string, nulls: 'allowed' | 'observed'): CounterexampleSearcher {
  const key = `${nulls}/${dbId}`;
  let searcher = searchers.get(key);
  if (searcher === undefined) {
    const snaps = snapshots.get(dbId)!;
    searcher = createCounterexampleSearcher({ engine, schemaDb: snaps[0]!.path, snapshots: snaps, nulls, workDir: path.join(work, key) });
    searchers.set(key, searcher);
  }
  return searcher;
}

interface Refutation {
  readonly item: number;
  readonly goldSql: string;
  readonly predictedSql: string;
  readonly witness: Witness;
}

describe('counterexample search on the Spider slice: every witness replays in stock Python sqlite3', () => {
  it.each([
    ['DINSQL', 'allowed', { easy: 3, medium: 36, hard: 17, extra: 13 }],
    ['C3_SQL', 'allowed', { easy: 3, medium: 52, hard: 23, extra: 19 }],
    ['DINSQL', 'observed', { easy: 1, medium: 24, hard: 14, extra: 11 }],
    ['C3_SQL', 'observed', { easy: 1, medium: 38, hard: 12, extra: 15 }],
  ] as const)('%s, NULLs %s: refuted per hardness level %j, every witness replayed', async (model, nulls, expected) => {
    const predictions = await readPredictions(path.join(slice, 'predictions', `${model}.sql`));
    const cache = new GoldResultCache();
    const refutations: Refutation[] = [];
    const byLevel: Record<string, number> = Object.fromEntries(HARDNESS_LEVELS.map((level) => [level, 0]));
    for (const item of gold) {
      const predictedSql = predictions[item.index]?.sql ?? '';
      if (item.error !== undefined || predictedSql === '') continue;
      const ex = await checkExecution({ predictedSql, golds: [item.sql], snapshots: snapshots.get(item.dbId)!, engine, policy, cache });
      if (ex.status !== 'pass') continue;
      const outcome = await searcherFor(item.dbId, nulls).search({ golds: [item.sql], predictedSql, policy, seed: 0, budget: { maxDatabases: 100, maxSeconds: 3600 } });
      if (outcome.verdict !== 'refuted') continue;
      const level = spiderHardness(item.sql) ?? 'extra';
      byLevel[level] = (byLevel[level] ?? 0) + 1;
      refutations.push({ item: item.index, goldSql: applySqlRewrites(item.sql, 'gold', policy.rewrites), predictedSql: applySqlRewrites(predictedSql, 'predicted', policy.rewrites), witness: outcome.witness });
    }
    const jobs = path.join(work, `${model}-${nulls}-jobs.json`);
    writeFileSync(jobs, JSON.stringify(refutations.map((r) => ({ dump: r.witness.script, queries: [r.goldSql, r.predictedSql] }))));
    const python = spawnSync('python3', [path.resolve(import.meta.dirname, 'replay-sqlite.py'), jobs], { encoding: 'utf8', maxBuffer: 512 * 2 ** 20 });
    expect(python.status, python.stderr).toBe(0);
    const replay = JSON.parse(python.stdout) as { sqlite_version: string; results: (PythonResult | { error: string })[][] };
    const notReplayed: string[] = [];
    refutations.forEach((r, k) => {
      const [goldOut, predOut] = replay.results[k]!;
      if (!goldOut || 'error' in goldOut) return void notReplayed.push(`item ${r.item}: gold fails in Python: ${JSON.stringify(goldOut)}`);
      const pyGold = fromPythonResult(goldOut);
      if (compareResults(r.witness.goldResults[0]!, pyGold, policy, { goldSql: r.goldSql }).match !== true) {
        return void notReplayed.push(`item ${r.item}: Python's gold result differs from the engine's`);
      }
      if (!predOut || 'error' in predOut) {
        if (r.witness.predicted.ok) notReplayed.push(`item ${r.item}: the prediction fails only in Python: ${JSON.stringify(predOut)}`);
        return;
      }
      const pyPred = fromPythonResult(predOut);
      if (compareResults(pyGold, pyPred, policy, { goldSql: r.goldSql }).match !== false || isEmptyVsNullRow(pyGold, pyPred)) {
        notReplayed.push(`item ${r.item}: gold and prediction agree in Python ${replay.sqlite_version}`);
      }
    });
    expect(notReplayed).toEqual([]);
    const small = refutations.filter((r) => r.witness.maxRowsPerTable <= 3).length;
    expect(small / Math.max(1, refutations.length)).toBeGreaterThanOrEqual(0.8);
    expect(byLevel).toEqual(expected);
  }, 3_600_000);
});
