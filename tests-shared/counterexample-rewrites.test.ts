/**
 * No false refutations: semantics-preserving rewrites of the Spider slice's golds (ten kinds,
 * gold-rewrites.ts), each first verified equal to its gold on the slice database, are searched
 * for a counterexample with the default policy (DISTINCT and row order meaningful) and NULLs
 * wherever the schema allows them. The search must refute none.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import { resolvePolicy } from '../src/compare/policy.js';
import type { Snapshot } from '../src/fixtures/snapshot.js';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../src/rungs/execution.js';
import { createCounterexampleSearcher, type CounterexampleSearcher } from '../src/semantic/search/counterexample-search.js';
import { readSchema, type DatabaseSchema } from '../src/semantic/model/schema-reader.js';
import { listSnapshots } from '../src/benchmarks/spider/list-snapshots.js';
import { readSpiderGold } from '../src/benchmarks/spider/read-spider-files.js';
import { buildGoldRewrites, REWRITE_KINDS, selectRewrites, type GoldRewrite } from './gold-rewrites.js';

const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? '../shared/data/spider-dev-slice');
/** Rewrites searched per kind (the forms of a kind in turn, gold order within a form). */
const PER_KIND = 20;
const policy = resolvePolicy('default');
let engine: SqliteEngine;
let rewrites: GoldRewrite[];
const snapshots = new Map<string, Snapshot[]>();
const searchers = new Map<string, CounterexampleSearcher>();

beforeAll(async () => {
  engine = createSqliteEngine();
  const gold = (await readSpiderGold(path.join(slice, 'dev_gold.sql'))).filter((g) => g.error === undefined);
  const schemas = new Map<string, DatabaseSchema>();
  for (const dbId of new Set(gold.map((g) => g.dbId))) {
    const snaps = await listSnapshots(path.join(slice, 'database'), dbId, { checksums: true });
    snapshots.set(dbId, snaps);
    schemas.set(dbId, readSchema(snaps[0]!.path));
  }
  const all = buildGoldRewrites(gold, schemas);
  rewrites = selectRewrites(all, PER_KIND);
});
afterAll(async () => {
  for (const searcher of searchers.values()) searcher.close();
  await engine.close();
});

describe('semantics-preserving rewrites of Spider golds are never refuted', () => {
  it(`builds at least 15 rewrites of each kind (${PER_KIND} searched per kind), each equal to its gold on the slice database`, async () => {
    const counts = Object.fromEntries(REWRITE_KINDS.map((kind) => [kind, rewrites.filter((r) => r.kind === kind).length]));
    expect(Object.values(counts).every((n) => n >= 15), JSON.stringify(counts)).toBe(true);
    expect(rewrites.length).toBeGreaterThanOrEqual(150);
    const cache = new GoldResultCache();
    const unequal: string[] = [];
    for (const r of rewrites) {
      const ex = await checkExecution({ predictedSql: r.rewrite, golds: [r.gold], snapshots: snapshots.get(r.dbId)!, engine, policy, cache });
      if (ex.status !== 'pass') unequal.push(`${r.kind}: ${r.rewrite} — ${ex.reason}`);
    }
    expect(unequal).toEqual([]);
  });

  it('refutes none of them (default policy, NULLs allowed, 100 databases each)', async () => {
    const refuted: string[] = [];
    for (const r of rewrites) {
      let searcher = searchers.get(r.dbId);
      if (searcher === undefined) {
        const snaps = snapshots.get(r.dbId)!;
        searcher = createCounterexampleSearcher({ engine, schemaDb: snaps[0]!.path, snapshots: snaps });
        searchers.set(r.dbId, searcher);
      }
      const outcome = await searcher.search({ golds: [r.gold], predictedSql: r.rewrite, policy, seed: 0, budget: { maxDatabases: 100, maxSeconds: 3600 } });
      if (outcome.verdict !== 'not_refuted_within_budget') refuted.push(`${r.kind}: ${r.gold} → ${r.rewrite}: ${outcome.reason}`);
    }
    expect(refuted).toEqual([]);
  }, 3_600_000);
});
