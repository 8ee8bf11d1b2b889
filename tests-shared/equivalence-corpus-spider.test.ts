/**
 * The equivalence corpus's pairs on Spider schemas (tests/semantic/equivalence-corpus/pairs.jsonl),
 * on the original databases of the shared slice instead of the repository's reproductions: every
 * gold is the Spider dev gold its `source` names, every equivalent pair returns the gold's result on
 * the original database (L4), and L5 with `nulls: 'observed'` refutes none of them and at least
 * 95 % of the near-misses.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSnapshots } from '../src/benchmarks/spider/list-snapshots.js';
import { readSpiderGold, type SpiderGoldItem } from '../src/benchmarks/spider/read-spider-files.js';
import { readLabelledPairs, type LabelledPair } from '../src/dataset/labelled-pairs.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../src/rungs/execution.js';
import { createSemanticService, type SemanticService } from '../src/semantic/semantic-service.js';
import { CORPUS_FILE, expectCorpusTarget, type CorpusDatabase } from '../tests/semantic/equivalence-corpus/run-corpus.js';

const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? '../shared/data/spider-dev-slice');
const work = mkdtempSync(path.join(os.tmpdir(), 'ladder-corpus-shared-'));
let engine: SqliteEngine;
let service: SemanticService;
let pairs: LabelledPair[];
let gold: SpiderGoldItem[];
/** Full Spider dev index → index in the slice. */
const sliceIndex = new Map<number, number>();
const databases = new Map<string, CorpusDatabase>();

beforeAll(async () => {
  engine = createSqliteEngine();
  service = createSemanticService();
  pairs = readLabelledPairs(CORPUS_FILE).filter((p) => p.source?.dataset === 'spider-dev');
  gold = await readSpiderGold(path.join(slice, 'dev_gold.sql'));
  (JSON.parse(readFileSync(path.join(slice, 'dev_indices.json'), 'utf8')) as number[]).forEach((dev, i) => sliceIndex.set(dev, i));
  for (const db of new Set(pairs.map((p) => p.db))) databases.set(db, { snapshots: await listSnapshots(path.join(slice, 'database'), db, { checksums: true }), invariants: [] });
});
afterAll(async () => {
  service.close();
  await engine.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the equivalence corpus on the original Spider databases', () => {
  it('each gold is the Spider dev gold its source names, on the same database', () => {
    const squash = (sql: string): string => sql.replace(/\s+/g, ' ').trim();
    const wrong = pairs.filter((p) => {
      const item = gold[sliceIndex.get(Number(p.source!.item)) ?? -1];
      return item === undefined || item.dbId !== p.db || squash(item.sql) !== squash(p.gold);
    });
    expect(pairs.length).toBeGreaterThanOrEqual(300);
    expect(wrong.map((p) => p.id)).toEqual([]);
  });

  it('every equivalent pair returns the gold\'s result on the original database', async () => {
    const unequal: string[] = [];
    for (const pair of pairs.filter((p) => p.label === 'equivalent')) {
      const l4 = await checkExecution({ predictedSql: pair.candidate, golds: [pair.gold], snapshots: databases.get(pair.db)!.snapshots, engine, policy: 'default' });
      if (l4.status !== 'pass') unequal.push(`${pair.id}: ${l4.reason}`);
    }
    expect(unequal).toEqual([]);
  });

  it('L5 with nulls: observed refutes no equivalent pair and at least 95 % of the near-misses', async () => {
    await expectCorpusTarget({ pairs, databases, engine, service, cacheDir: path.join(work, 'suites') });
  });
});
