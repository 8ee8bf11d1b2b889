/**
 * Counterexample search cost, with the default budget (100 databases, 60 s, 150 shrinking trials):
 * 1. Per pair on the shared Spider slice (SPIDER_SLICE_DIR): every predicted query of both prediction files
 *    that execution accuracy accepts (spider policy), searched against its gold; median, p95 and
 *    max wall time per pair, refuted and not. `BENCH_COUNTEREXAMPLE_EVERY=n` searches every n-th
 *    accepted pair (default 1: all).
 * 2. What the search adds to judging: the bundled warehouse's strong recorded run judged with
 *    execution accuracy on its three snapshots alone, then with a search after each accepted
 *    prediction (ratio of the two wall times, one run).
 * The load average is printed with the figures (the machine is shared).
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import { resolvePolicy } from '../src/compare/policy.js';
import { loadDataset } from '../src/dataset/load.js';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { findPackageRoot } from '../src/fixtures/package-root.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import { checkExecution } from '../src/rungs/execution.js';
import { createCounterexampleSearcher, type CounterexampleSearcher } from '../src/semantic/search/counterexample-search.js';
import { readFixtureInvariants } from '../src/semantic/model/invariants.js';
import { listSnapshots } from '../src/benchmarks/spider/list-snapshots.js';
import { readPredictions, readSpiderGold } from '../src/benchmarks/spider/read-spider-files.js';
import { parseProviderOutput } from '../src/sql/provider-output.js';
import type { BenchReport } from './report.js';

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
const load = (): string => os.loadavg().map((x) => x.toFixed(2)).join(' ');

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const root = findPackageRoot();
  const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? path.join(root, '../shared/data/spider-dev-slice'));
  const every = Math.max(1, Number(process.env['BENCH_COUNTEREXAMPLE_EVERY'] ?? 1));
  const engine = createSqliteEngine();
  const searchers: CounterexampleSearcher[] = [];
  const lines: string[] = [];
  const figures: Record<string, number> = {};
  try {
    // 1. Per pair on the Spider slice.
    if (existsSync(path.join(slice, 'dev_gold.sql'))) {
      const policy = resolvePolicy('spider');
      const gold = await readSpiderGold(path.join(slice, 'dev_gold.sql'));
      const bySchema = new Map<string, { snapshots: Awaited<ReturnType<typeof listSnapshots>>; searcher: CounterexampleSearcher }>();
      const times: number[] = [];
      const refutedTimes: number[] = [];
      let accepted = 0;
      const loadBefore = load();
      for (const file of ['DINSQL.sql', 'C3_SQL.sql']) {
        const predictions = await readPredictions(path.join(slice, 'predictions', file));
        const cache = new GoldResultCache();
        for (const item of gold) {
          const predictedSql = predictions[item.index]?.sql ?? '';
          if (item.error !== undefined || predictedSql === '') continue;
          let entry = bySchema.get(item.dbId);
          if (entry === undefined) {
            const snapshots = await listSnapshots(path.join(slice, 'database'), item.dbId, { checksums: true });
            entry = { snapshots, searcher: createCounterexampleSearcher({ engine, schemaDb: snapshots[0]!.path, snapshots }) };
            searchers.push(entry.searcher);
            bySchema.set(item.dbId, entry);
          }
          const ex = await checkExecution({ predictedSql, golds: [item.sql], snapshots: entry.snapshots, engine, policy, cache });
          if (ex.status !== 'pass') continue;
          accepted += 1;
          if (accepted % every !== 0) continue;
          const t0 = performance.now();
          const outcome = await entry.searcher.search({ golds: [item.sql], predictedSql, policy });
          const ms = performance.now() - t0;
          times.push(ms);
          if (outcome.verdict === 'refuted') refutedTimes.push(ms);
        }
      }
      Object.assign(figures, {
        spiderPairs: times.length,
        spiderRefuted: refutedTimes.length,
        searchPerPairMedianMs: Math.round(quantile(times, 0.5)),
        searchPerPairP95Ms: Math.round(quantile(times, 0.95)),
        searchPerPairMaxMs: Math.round(Math.max(0, ...times)),
        refutedPairMedianMs: Math.round(quantile(refutedTimes, 0.5)),
      });
      lines.push(
        `Spider slice, ${times.length} accepted pairs searched (every ${every}), ${refutedTimes.length} refuted: per pair median ${figures['searchPerPairMedianMs']} ms, p95 ${figures['searchPerPairP95Ms']} ms, max ${figures['searchPerPairMaxMs']} ms; refuted pairs median ${figures['refutedPairMedianMs']} ms (load average ${loadBefore} → ${load()})`,
      );
    } else {
      lines.push(`Spider slice not found at ${slice}: per-pair figures skipped`);
    }

    // 2. Judging with the search on vs off (warehouse, strong recorded run).
    const fixture = await resolveFixture('warehouse');
    const dataset = await loadDataset(path.join(root, 'datasets', 'warehouse.yaml'));
    const items = dataset.items.filter((item) => item.gold_sql.length > 0 && item.expected_behavior === 'answer');
    const policy = resolvePolicy('default');
    const searcher = createCounterexampleSearcher({ engine, schemaDb: fixture.snapshots[0]!.path, snapshots: fixture.snapshots, invariants: readFixtureInvariants(path.join(root, 'fixtures', 'warehouse', 'fixture.yaml')) });
    searchers.push(searcher);
    const recorded = new Map(
      readFileSync(path.join(root, 'providers', 'recordings', 'warehouse-strong.jsonl'), 'utf8').trim().split('\n').map((line) => {
        const r = JSON.parse(line) as { id: string; output: unknown };
        return [r.id, r.output] as const;
      }),
    );
    const predictions = items.flatMap((item) => {
      const answer = parseProviderOutput(recorded.get(item.id) ?? '');
      return answer.kind === 'sql' ? [{ item, sql: answer.sql }] : [];
    });
    const judge = async (search: boolean): Promise<{ ms: number; refuted: number }> => {
      const cache = new GoldResultCache();
      let refuted = 0;
      const start = performance.now();
      for (const p of predictions) {
        const ex = await checkExecution({ predictedSql: p.sql, golds: p.item.gold_sql, snapshots: fixture.snapshots, engine, policy, cache });
        if (!search || ex.status !== 'pass') continue;
        const outcome = await searcher.search({ golds: p.item.gold_sql, predictedSql: p.sql, policy });
        if (outcome.verdict === 'refuted') refuted += 1;
      }
      return { ms: performance.now() - start, refuted };
    };
    await judge(false);
    const off = await judge(false);
    const on = await judge(true);
    Object.assign(figures, { warehouseJudgeOffMs: Math.round(off.ms), warehouseJudgeOnMs: Math.round(on.ms), searchOnVsOffRatio: on.ms / off.ms, warehouseRefuted: on.refuted });
    lines.push(
      `warehouse strong run, ${predictions.length} predictions: execution accuracy alone ${figures['warehouseJudgeOffMs']} ms, with a search after each accepted prediction ${figures['warehouseJudgeOnMs']} ms (ratio ${(on.ms / off.ms).toFixed(1)}; ${on.refuted} refuted; load average ${load()})`,
    );
    return { name: 'counterexample', lines, figures };
  } finally {
    for (const s of searchers) s.close();
    await engine.close();
  }
}
