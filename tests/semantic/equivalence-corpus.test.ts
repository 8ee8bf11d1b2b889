/**
 * The equivalence corpus (tests/semantic/equivalence-corpus/pairs.jsonl; format:
 * src/dataset/labelled-pairs.ts and docs/semantic.md): rewrites of real golds that are equivalent
 * by construction, and near-misses made from them by one edit, on the bundled warehouse fixture and
 * on the schemas of the Spider slice. The Spider schemas are reproduced in
 * equivalence-corpus/spider-schemas/ with rows of our own (same storage classes, NULLs only where
 * the original holds them), so this test reads nothing outside the repository; the same pairs run
 * on the original databases in tests-shared/equivalence-corpus-spider.test.ts.
 *
 * Target, with `nulls: 'observed'` and the defaults otherwise: no equivalent pair refuted, at least
 * 95 % of the near-misses refuted. This file checks the corpus itself; the pairs are judged in
 * equivalence-corpus-l5-*.test.ts, a share of the databases each (so that a run spreads them over
 * its workers).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLabelledPairs, type LabelledPair } from '../../src/dataset/labelled-pairs.js';
import { createSqliteEngine, type SqliteEngine } from '../../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../../src/rungs/execution.js';
import { createTempSqlite, type TempSqlite } from '../helpers/temp-sqlite.js';
import { CATEGORIES, CORPUS_FILE, openRepositoryDatabases, replayWitness, type CorpusDatabase } from './equivalence-corpus/run-corpus.js';

let engine: SqliteEngine;
let temp: TempSqlite;
let pairs: LabelledPair[];
let databases: Map<string, CorpusDatabase>;

beforeAll(async () => {
  pairs = readLabelledPairs(CORPUS_FILE);
  temp = createTempSqlite('', { prefix: 'ladder-corpus-', name: 'unused.sqlite' });
  databases = await openRepositoryDatabases(temp.dir);
  engine = createSqliteEngine();
}, 600_000);
afterAll(async () => {
  await engine.close();
  temp.remove();
});

describe('the equivalence corpus', () => {
  it('holds at least 200 equivalent pairs in every category, each near-miss beside the pair it edits', () => {
    const equivalent = pairs.filter((p) => p.label === 'equivalent');
    expect(equivalent.length).toBeGreaterThanOrEqual(200);
    expect([...new Set(pairs.map((p) => p.category))].sort()).toEqual([...CATEGORIES].sort());
    for (const category of CATEGORIES) expect(equivalent.filter((p) => p.category === category).length, category).toBeGreaterThanOrEqual(15);
    for (const p of pairs.filter((q) => q.label === 'not_equivalent' && q.nearMissOf !== undefined)) {
      const of = pairs.find((q) => q.id === p.nearMissOf)!;
      expect({ gold: p.gold, db: p.db, of: of.label }, p.id).toEqual({ gold: of.gold, db: of.db, of: 'equivalent' });
    }
    expect([...new Set(pairs.map((p) => p.db))].every((db) => databases.has(db))).toBe(true);
  });

  it('every pair runs on its database, and every equivalent pair matches on the snapshots (L4)', async () => {
    const problems: string[] = [];
    for (const pair of pairs) {
      const db = databases.get(pair.db)!;
      const l4 = await checkExecution({ predictedSql: pair.candidate, golds: [pair.gold], snapshots: db.snapshots, engine, policy: 'default' });
      if (l4.status === 'unscored' || l4.details.snapshots.some((s) => s.predictedError !== undefined)) problems.push(`${pair.id}: ${l4.reason}`);
      else if (pair.label === 'equivalent' && l4.status !== 'pass') problems.push(`${pair.id}: ${l4.reason}`);
    }
    expect(problems).toEqual([]);
  }, 600_000);

  it('every witness of the corpus tells its pair apart', async () => {
    const withWitness = pairs.filter((p) => p.witness !== undefined);
    expect(withWitness.every((p) => p.label === 'not_equivalent')).toBe(true);
    const agree: string[] = [];
    for (const [k, pair] of withWitness.entries()) {
      const replay = await replayWitness(pair, databases.get(pair.db)!.snapshots[0]!.path, path.join(temp.dir, `witness-${k}.sqlite`), engine);
      if (replay.match !== false) agree.push(`${pair.id}: ${replay.detail}`);
    }
    expect(agree).toEqual([]);
  });
});
