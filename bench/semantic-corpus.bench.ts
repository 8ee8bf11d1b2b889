/**
 * The counterexample search per pair on the equivalence corpus (tests/semantic/equivalence-corpus:
 * the reproduced Spider schemas built into a temporary folder, and the bundled warehouse), with the
 * corpus's options (`nulls: 'observed'`, the default policy, the library's search budget: 100
 * databases, 60 s). Equivalent pairs and near-misses are reported apart: an equivalent pair is a
 * full search (every database of the budget drawn and judged), a near-miss stops at its first
 * verified witness (then shrinks it). Median, p90 and max wall time per pair, the load average
 * before and after. `BENCH_CORPUS_EVERY=n` searches every n-th pair (default 3).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { resolvePolicy } from '../src/compare/policy.js';
import { readLabelledPairs } from '../src/dataset/labelled-pairs.js';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import type { Snapshot } from '../src/fixtures/snapshot.js';
import { findPackageRoot } from '../src/fixtures/package-root.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import { createCounterexampleSearcher, type CounterexampleSearcher } from '../src/semantic/search/counterexample-search.js';
import { readFixtureInvariants } from '../src/semantic/model/invariants.js';
import type { BenchReport } from './report.js';
import { loadAverage } from './whole-process.js';

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)] ?? 0;

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const root = findPackageRoot();
  const corpus = path.join(root, 'tests', 'semantic', 'equivalence-corpus');
  const every = Math.max(1, Number(process.env['BENCH_CORPUS_EVERY'] ?? 3));
  const work = mkdtempSync(path.join(os.tmpdir(), 'ladder-bench-corpus-'));
  const engine = createSqliteEngine();
  const searchers = new Map<string, CounterexampleSearcher>();
  try {
    const databases = new Map<string, { snapshots: readonly Snapshot[]; invariants: ReturnType<typeof readFixtureInvariants> }>();
    for (const file of readdirSync(path.join(corpus, 'spider-schemas')).filter((f) => f.endsWith('.sql'))) {
      const db = file.slice(0, -'.sql'.length);
      const target = path.join(work, `${db}.sqlite`);
      const handle = new Database(target);
      try {
        handle.exec(readFileSync(path.join(corpus, 'spider-schemas', file), 'utf8'));
      } finally {
        handle.close();
      }
      databases.set(db, { snapshots: [{ name: db, path: target }], invariants: [] });
    }
    const warehouse = await resolveFixture('warehouse');
    databases.set('warehouse', { snapshots: warehouse.snapshots, invariants: readFixtureInvariants(path.join(root, 'fixtures', 'warehouse', 'fixture.yaml')) });

    // Every n-th pair of each label (the file interleaves a rewrite with its near-miss).
    const all = readLabelledPairs(path.join(corpus, 'pairs.jsonl'));
    const pairs = (['equivalent', 'not_equivalent'] as const).flatMap((label) => all.filter((p) => p.label === label).filter((_, i) => i % every === 0));
    const policy = resolvePolicy('default');
    const times = { equivalent: [] as number[], not_equivalent: [] as number[] };
    const refuted = { equivalent: 0, not_equivalent: 0 };
    const loadBefore = loadAverage();
    for (const pair of pairs) {
      const database = databases.get(pair.db)!;
      let searcher = searchers.get(pair.db);
      if (searcher === undefined) {
        searcher = createCounterexampleSearcher({ engine, schemaDb: database.snapshots[0]!.path, snapshots: database.snapshots, invariants: database.invariants, nulls: 'observed' });
        searchers.set(pair.db, searcher);
      }
      const started = performance.now();
      const outcome = await searcher.search({ golds: [pair.gold], predictedSql: pair.candidate, policy });
      times[pair.label].push(performance.now() - started);
      if (outcome.verdict === 'refuted') refuted[pair.label] += 1;
    }
    const loadAfter = loadAverage();
    const figures: Record<string, number> = {};
    const lines = [`equivalence corpus, every ${every === 1 ? '' : `${every}${every === 2 ? 'nd' : every === 3 ? 'rd' : 'th'} `}pair of each label, the search alone (nulls observed, default budget); ${loadBefore} → ${loadAfter}`];
    for (const [label, name] of [['equivalent', 'equivalent pairs (full search)'], ['not_equivalent', 'near-misses (stopped at the first witness)']] as const) {
      const xs = times[label];
      const key = label === 'equivalent' ? 'equivalent' : 'nearMiss';
      Object.assign(figures, { [`${key}Pairs`]: xs.length, [`${key}Refuted`]: refuted[label], [`${key}MedianMs`]: Math.round(quantile(xs, 0.5)), [`${key}P90Ms`]: Math.round(quantile(xs, 0.9)), [`${key}MaxMs`]: Math.round(Math.max(0, ...xs)) });
      lines.push(`  ${name}: ${xs.length} pairs (${refuted[label]} refuted), per pair median ${figures[`${key}MedianMs`]} ms, p90 ${figures[`${key}P90Ms`]} ms, max ${figures[`${key}MaxMs`]} ms`);
    }
    return { name: 'semantic-corpus', lines, figures };
  } finally {
    for (const s of searchers.values()) s.close();
    await engine.close();
    rmSync(work, { recursive: true, force: true });
  }
}
