/**
 * Test suites on the bundled warehouse: build time per gold (median, p95) of a fresh suite for the
 * dataset's 91 golds, time to draw one database, and the cost of judging the strong recorded run
 * on the test suite against execution accuracy on the three snapshots alone (the ratio is what
 * turning the semantic rung on adds to the executing part of an eval).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import { resolvePolicy } from '../src/compare/policy.js';
import { loadDataset } from '../src/dataset/load.js';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { findPackageRoot } from '../src/fixtures/package-root.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import { checkExecution } from '../src/rungs/execution.js';
import { createGeneratorPlan, generateDatabase } from '../src/semantic/generation/generate-database.js';
import { bindInvariants, readFixtureInvariants } from '../src/semantic/model/invariants.js';
import { createPrng } from '../src/semantic/model/prng.js';
import { readSchema } from '../src/semantic/model/schema-reader.js';
import { buildTestSuite, evaluateOnSuite } from '../src/semantic/suite/test-suite.js';
import { parseProviderOutput } from '../src/sql/provider-output.js';
import type { BenchReport } from './report.js';

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const root = findPackageRoot();
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'ladder-bench-semantic-'));
  const engine = createSqliteEngine();
  try {
    const fixture = await resolveFixture('warehouse');
    const manifest = path.join(root, 'fixtures', 'warehouse', 'fixture.yaml');
    const dataset = await loadDataset(path.join(root, 'datasets', 'warehouse.yaml'));
    const items = dataset.items.filter((item) => item.gold_sql.length > 0 && item.expected_behavior === 'answer');
    const policy = resolvePolicy('default');
    const invariants = readFixtureInvariants(manifest);

    // Drawing alone.
    const schema = readSchema(fixture.snapshots[0]!.path);
    const plan = createGeneratorPlan({ schema, snapshots: fixture.snapshots.map((s) => s.path), invariants: bindInvariants(schema, invariants) });
    const drawStart = performance.now();
    for (let i = 0; i < 50; i += 1) generateDatabase(plan, { rng: createPrng(`bench/${i}`), file: path.join(cacheDir, 'draw.sqlite') });
    const drawMs = (performance.now() - drawStart) / 50;

    const buildStart = performance.now();
    const suite = await buildTestSuite({
      engine,
      schemaDb: fixture.snapshots[0]!.path,
      snapshots: fixture.snapshots,
      golds: items.flatMap((item) => item.gold_sql),
      invariants,
      policy,
      seed: 0,
      budget: { maxSeconds: 3600 },
      cacheDir,
    });
    const buildMs = performance.now() - buildStart;
    const perGold = suite.golds.map((g) => g.elapsedMs);

    // Judging the strong run: snapshots only (L4) vs snapshots + suite.
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
    const time = async (fn: (p: (typeof predictions)[number], cache: GoldResultCache) => Promise<unknown>): Promise<number> => {
      const cache = new GoldResultCache();
      const start = performance.now();
      for (const p of predictions) await fn(p, cache);
      return performance.now() - start;
    };
    await time((p, cache) => checkExecution({ predictedSql: p.sql, golds: p.item.gold_sql, snapshots: fixture.snapshots, engine, policy, cache }));
    const l4Ms = await time((p, cache) => checkExecution({ predictedSql: p.sql, golds: p.item.gold_sql, snapshots: fixture.snapshots, engine, policy, cache }));
    const l5Ms = await time((p, cache) => evaluateOnSuite({ engine, suite, golds: p.item.gold_sql, predictedSql: p.sql, cache }));
    const figures = {
      golds: suite.golds.length,
      buildSeconds: buildMs / 1000,
      buildPerGoldMedianMs: quantile(perGold, 0.5),
      buildPerGoldP95Ms: quantile(perGold, 0.95),
      drawMs,
      keptDatabases: suite.databases.length,
      judgeSnapshotsMs: l4Ms,
      judgeSuiteMs: l5Ms,
      suiteVsSnapshotsRatio: l5Ms / l4Ms,
    };
    return {
      name: 'semantic',
      lines: [
        `warehouse, ${figures.golds} golds: suite built in ${figures.buildSeconds.toFixed(1)} s (${figures.keptDatabases} generated databases kept); per gold median ${figures.buildPerGoldMedianMs} ms, p95 ${figures.buildPerGoldP95Ms} ms`,
        `one generated database: ${drawMs.toFixed(1)} ms (mean of 50 draws)`,
        `strong run, ${predictions.length} predictions: snapshots only ${l4Ms.toFixed(0)} ms, snapshots + suite ${l5Ms.toFixed(0)} ms (ratio ${figures.suiteVsSnapshotsRatio.toFixed(2)})`,
      ],
      figures,
    };
  } finally {
    await engine.close();
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
