/**
 * Test-suite accuracy on a Spider-format slice, through the semantic library: builds one distilled
 * suite per database (all its golds), then scores every prediction file with execution accuracy
 * (the database folder's snapshots) and test-suite accuracy (snapshots + distilled databases),
 * per Spider hardness level; lists the items EX accepted and the suite rejected, with the
 * distinguishing database's differing rows.
 *
 *   npx tsx scripts/semantic-spider.ts --data <Spider-format slice folder> \
 *     [--pred predictions/DINSQL.sql --pred predictions/C3_SQL.sql] [--seed 0] [--max-databases 300] \
 *     [--patience 100] [--nulls allowed|observed] [--cache-dir DIR] [--db-id car_1] [--out report.json] [--show 20]
 *
 * Prints the figures as Markdown; `--out` writes everything as JSON.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolvePolicy } from '../src/compare/policy.js';
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../src/rungs/execution.js';
import { HARDNESS_LEVELS, spiderHardness, type Hardness } from '../src/benchmarks/spider/hardness.js';
import { listSnapshots } from '../src/benchmarks/spider/list-snapshots.js';
import { readPredictions, readSpiderGold } from '../src/benchmarks/spider/read-spider-files.js';
import { buildTestSuite, evaluateOnSuite, type TestSuite } from '../src/semantic/suite/test-suite.js';
import { sampleRows, describeRows } from './semantic-report-helpers.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/spider-dev-slice' },
    pred: { type: 'string', multiple: true },
    seed: { type: 'string', default: '0' },
    'max-databases': { type: 'string', default: '300' },
    patience: { type: 'string', default: '100' },
    'max-seconds': { type: 'string', default: '3600' },
    nulls: { type: 'string', default: 'allowed' },
    'cache-dir': { type: 'string' },
    'db-id': { type: 'string', multiple: true },
    out: { type: 'string' },
    show: { type: 'string', default: '20' },
  },
});

const data = path.resolve(values.data!);
const predFiles = values.pred ?? ['predictions/DINSQL.sql', 'predictions/C3_SQL.sql'];
const policy = resolvePolicy('spider');
const gold = await readSpiderGold(path.join(data, 'dev_gold.sql'));
const predictions = await Promise.all(predFiles.map((f) => readPredictions(path.join(data, f))));
const engine = createSqliteEngine();
const started = performance.now();

// One suite per database, over all its golds.
const dbIds = [...new Set(gold.map((g) => g.dbId))].filter((id) => values['db-id'] === undefined || values['db-id'].includes(id)).sort();
const suites = new Map<string, TestSuite>();
for (const dbId of dbIds) {
  const snapshots = await listSnapshots(path.join(data, 'database'), dbId, { checksums: true });
  const golds = gold.filter((g) => g.dbId === dbId && g.error === undefined).map((g) => g.sql);
  const t0 = performance.now();
  const suite = await buildTestSuite({
    engine,
    schemaDb: snapshots[0]!.path,
    snapshots,
    golds,
    policy,
    seed: values.seed!,
    nulls: values.nulls as 'allowed' | 'observed',
    budget: { maxDatabases: Number(values['max-databases']), patience: Number(values.patience), maxSeconds: Number(values['max-seconds']) },
    ...(values['cache-dir'] ? { cacheDir: values['cache-dir'] } : {}),
  });
  suites.set(dbId, suite);
  process.stderr.write(`${dbId}: ${suite.golds.length} golds, ${suite.databases.length} kept databases of ${suite.draws} drawn, ${((performance.now() - t0) / 1000).toFixed(1)} s${suite.fromCache ? ' (cache)' : ''}\n`);
}
const buildSeconds = (performance.now() - started) / 1000;

interface ItemRow {
  readonly i: number;
  readonly dbId: string;
  readonly hardness: Hardness | null;
  readonly ex: 0 | 1 | null;
  readonly ts: 0 | 1 | null;
  readonly reason: string;
  readonly gold: string;
  readonly predicted: string;
  readonly failing: { database: string; path: string; missing: string[]; extra: string[]; rowCounts: Record<string, number> | null } | null;
}

const models: { file: string; rows: ItemRow[] }[] = [];
for (let m = 0; m < predFiles.length; m += 1) {
  const cache = new GoldResultCache();
  const rows: ItemRow[] = [];
  for (const item of gold) {
    const suite = suites.get(item.dbId);
    if (suite === undefined || item.error !== undefined) continue;
    const predicted = predictions[m]![item.index]?.sql ?? '';
    const hardness = spiderHardness(item.sql);
    if (predicted === '') {
      rows.push({ i: item.index, dbId: item.dbId, hardness, ex: 0, ts: 0, reason: 'no SQL', gold: item.sql, predicted, failing: null });
      continue;
    }
    const ex = await checkExecution({ predictedSql: predicted, golds: [item.sql], snapshots: suite.snapshots, engine, policy, cache });
    const exScore = ex.status === 'pass' ? 1 : ex.status === 'fail' ? 0 : null;
    let ts: 0 | 1 | null = exScore === 0 ? 0 : null;
    let reason = ex.reason;
    let failing: ItemRow['failing'] = null;
    if (exScore !== 0) {
      const result = await evaluateOnSuite({ engine, suite, golds: [item.sql], predictedSql: predicted, cache });
      ts = result.status === 'pass' ? 1 : result.status === 'fail' ? 0 : null;
      reason = result.reason;
      if (result.failing) {
        failing = {
          database: result.failing.database,
          path: result.failing.path,
          missing: describeRows(sampleRows(result.failing.verdict?.missingRows)),
          extra: describeRows(sampleRows(result.failing.verdict?.extraRows)),
          rowCounts: result.failing.rowCounts as Record<string, number> | null,
        };
      }
    }
    rows.push({ i: item.index, dbId: item.dbId, hardness, ex: exScore, ts, reason, gold: item.sql, predicted, failing });
  }
  models.push({ file: predFiles[m]!, rows });
}

// Figures.
const pct = (n: number, d: number): string => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);
const lines: string[] = [];
lines.push(`# Test-suite accuracy on ${path.basename(data)} (${gold.length} items, ${dbIds.length} databases)`, '');
lines.push(`Policy: spider preset. Seed ${values.seed}, budget per gold: ${values['max-databases']} databases, patience ${values.patience}, ${values['max-seconds']} s; nulls: ${values.nulls}. Suites built in ${buildSeconds.toFixed(0)} s.`, '');
for (const model of models) {
  lines.push(`## ${model.file}`, '', '| level | items | EX | test-suite | EX accepted, suite rejected |', '|---|---|---|---|---|');
  for (const level of [...HARDNESS_LEVELS, 'all'] as const) {
    const rows = model.rows.filter((r) => level === 'all' || r.hardness === level);
    const exScored = rows.filter((r) => r.ex !== null);
    const tsScored = rows.filter((r) => r.ts !== null);
    const rejected = rows.filter((r) => r.ex === 1 && r.ts === 0).length;
    lines.push(`| ${level} | ${rows.length} | ${pct(exScored.filter((r) => r.ex === 1).length, exScored.length)} | ${pct(tsScored.filter((r) => r.ts === 1).length, tsScored.length)} | ${rejected} |`);
  }
  lines.push('');
}

const allGolds = [...suites.values()].flatMap((s) => s.golds);
const kept = allGolds.map((g) => g.keptIndices.length).sort((a, b) => a - b);
const times = allGolds.map((g) => g.elapsedMs).sort((a, b) => a - b);
const neighbours = allGolds.reduce((n, g) => n + g.neighbours.length, 0);
const never = allGolds.reduce((n, g) => n + g.undistinguished, 0);
const bySnapshots = allGolds.reduce((n, g) => n + g.bySnapshots, 0);
const quantile = (xs: number[], q: number): number => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
lines.push('## Suites', '');
lines.push(`- golds: ${allGolds.length}; neighbours: ${neighbours}; distinguished by the original databases: ${pct(bySnapshots, neighbours)}; by the suites: ${pct(neighbours - never, neighbours)}; never distinguished: ${never} (${pct(never, neighbours)})`);
lines.push(`- generated databases kept per gold: median ${quantile(kept, 0.5)}, p95 ${quantile(kept, 0.95)}, max ${kept[kept.length - 1] ?? 0}; suite size per gold (original + kept): median ${quantile(kept, 0.5) + 1}`);
lines.push(`- lossless: every neighbour some drawn database distinguished is distinguished by a kept database or the original (by construction; checked: ${allGolds.every((g) => g.neighbours.every((n) => n.coverage === null || n.coverage.index === null || g.keptIndices.includes(n.coverage.index))) ? 'yes' : 'NO'})`);
lines.push(`- build time per gold: median ${(quantile(times, 0.5) / 1000).toFixed(2)} s, p95 ${(quantile(times, 0.95) / 1000).toFixed(2)} s; stop reasons: ${JSON.stringify(countBy(allGolds.map((g) => g.stopReason)))}`);
lines.push('');

const show = Number(values.show);
for (const model of models) {
  const rejected = model.rows.filter((r) => r.ex === 1 && r.ts === 0);
  lines.push(`## ${model.file}: ${rejected.length} items EX accepted and the suite rejected (first ${Math.min(show, rejected.length)})`, '');
  for (const row of rejected.slice(0, show)) {
    lines.push(`- item ${row.i} (${row.dbId}, ${row.hardness ?? '?'}): ${row.reason}`);
    lines.push(`  - gold: \`${row.gold}\``);
    lines.push(`  - predicted: \`${row.predicted}\``);
    if (row.failing) {
      if (row.failing.missing.length > 0) lines.push(`  - gold rows the prediction lacks: ${row.failing.missing.join('; ')}`);
      if (row.failing.extra.length > 0) lines.push(`  - rows only the prediction returns: ${row.failing.extra.join('; ')}`);
    }
  }
  lines.push('');
}
process.stdout.write(`${lines.join('\n')}\n`);
if (values.out) writeFileSync(values.out, JSON.stringify({ models, suites: [...suites.entries()].map(([dbId, s]) => ({ dbId, key: s.key, dir: s.dir, draws: s.draws, databases: s.databases.length, golds: s.golds.map((g) => ({ sql: g.sql, kept: g.keptIndices, neighbours: g.neighbours.length, bySnapshots: g.bySnapshots, byGenerated: g.byGenerated, undistinguished: g.undistinguished, elapsedMs: g.elapsedMs, stopReason: g.stopReason })) })) }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 1));
await engine.close();

function countBy(items: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[item] = (out[item] ?? 0) + 1;
  return out;
}
