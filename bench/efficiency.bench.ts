/**
 * `npm run bench efficiency` → L6 figures on the bundled warehouse fixture, one run:
 * 1. Stability: the question "How many orders were placed in March 2025?" answered by an indexed
 *    range query (gold) and by a `substr()` query that scans. The plan-based cost ratio
 *    (predicted / gold) is computed 3 times; BIRD's timing ratio (gold / predicted, 100 alternating
 *    rounds on the engine, 3σ outliers removed) is measured 3 times. Reported: each value and the
 *    spread (max / min) of each — the estimate's spread is 1 by construction, the timing's is not
 *    (*Text-to-SQL Evals* §5.3: wall-clock timings fluctuate).
 * 2. Throughput of the pure parts: alias resolutions (one SQL parse each), plan analyses and answers
 *    grounded, per second.
 */
import { performance } from 'node:perf_hooks';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import { checkEfficiency } from '../src/rungs/efficiency.js';
import { analyzePlan } from '../src/efficiency/plan-analysis.js';
import { parseStat1 } from '../src/efficiency/statistics.js';
import { collectTableAliases } from '../src/efficiency/table-aliases.js';
import { createEngineTimingSource, measureTimeRatio } from '../src/efficiency/ves.js';
import { groundNumbers } from '../src/answer/ground.js';
import type { BenchReport } from './report.js';

const GOLD = "SELECT count(*) FROM orders WHERE order_date >= '2025-03-01' AND order_date < '2025-04-01'";
const PREDICTED = "SELECT count(*) FROM orders WHERE substr(order_date, 1, 7) = '2025-03'";
const REPEATS = 3;

function spread(values: readonly number[]): number {
  return Math.max(...values) / Math.min(...values);
}

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const fixture = await resolveFixture('warehouse');
  const db = fixture.snapshots[0]!.path;
  const engine = createSqliteEngine();
  try {
    const costRatios: number[] = [];
    const timeRatios: number[] = [];
    for (let i = 0; i < REPEATS; i += 1) {
      const result = await checkEfficiency({ predictedSql: PREDICTED, goldSql: GOLD, snapshot: db, engine, execution: { status: 'pass' } });
      costRatios.push(result.details!.comparison.costRatio);
      timeRatios.push((await measureTimeRatio(createEngineTimingSource(engine, db, { predicted: PREDICTED, gold: GOLD }), 100)).ratio);
    }

    const statistics = parseStat1([
      { tbl: 'orders', idx: 'idx_orders_cust_date', stat: '2000 40 1' },
      { tbl: 'customers', idx: null, stat: '50' },
    ]);
    const sql = "SELECT o.id FROM orders AS o JOIN customers c ON c.id = o.customer_id WHERE c.region='EMEA' ORDER BY o.amount";
    const plan = [
      { id: 5, parent: 0, detail: 'SCAN c' },
      { id: 9, parent: 0, detail: 'SEARCH o USING INDEX idx_orders_cust_date (customer_id=?)' },
      { id: 21, parent: 0, detail: 'USE TEMP B-TREE FOR ORDER BY' },
    ];
    const parses = 200;
    let start = performance.now();
    for (let i = 0; i < parses; i += 1) collectTableAliases(sql);
    const aliasParsesPerSecond = parses / ((performance.now() - start) / 1000);
    const aliases = collectTableAliases(sql);
    const analyses = 20_000;
    start = performance.now();
    for (let i = 0; i < analyses; i += 1) analyzePlan(plan, { statistics, aliases });
    const analysesPerSecond = analyses / ((performance.now() - start) / 1000);

    const rows = Array.from({ length: 40 }, (_, i) => [`region ${i}`, 1_000_000 + i * 12_345, 0.5 + i / 100]);
    const answer = 'Revenue was $1.25M in region 20, 70% of target, up 12% on region 19; the year was 2024.';
    const groundings = 2000;
    start = performance.now();
    for (let i = 0; i < groundings; i += 1) groundNumbers({ answer, rows, question: 'Revenue by region in 2024?' });
    const groundingsPerSecond = groundings / ((performance.now() - start) / 1000);

    return {
      name: 'efficiency',
      lines: [
        `cost ratio predicted/gold (${REPEATS} runs): ${costRatios.map((r) => r.toFixed(3)).join(', ')} — spread ×${spread(costRatios).toFixed(3)}`,
        `BIRD time ratio gold/predicted (${REPEATS} × 100 rounds): ${timeRatios.map((r) => r.toFixed(3)).join(', ')} — spread ×${spread(timeRatios).toFixed(3)}`,
        `alias resolutions (SQL parse): ${Math.round(aliasParsesPerSecond)} /s; plan analyses: ${Math.round(analysesPerSecond)} /s; answers grounded (40-row result, derivations on): ${Math.round(groundingsPerSecond)} /s`,
      ],
      figures: {
        costRatio: costRatios[0]!,
        costRatioSpread: spread(costRatios),
        timeRatioMean: timeRatios.reduce((a, b) => a + b, 0) / timeRatios.length,
        timeRatioSpread: spread(timeRatios),
        aliasParsesPerSecond,
        planAnalysesPerSecond: analysesPerSecond,
        groundingsPerSecond,
      },
    };
  } finally {
    await engine.close();
  }
}
