/**
 * The bundled warehouse fixture through the semantic library: fixture strength of the dataset's
 * golds on the three snapshots and with the distilled test suite, suite size and build time per
 * gold, and the strong and weak recorded runs judged by execution accuracy on the snapshots (L4)
 * and on the test suite (L5), with every item L4 accepts and L5 rejects.
 *
 *   npx tsx scripts/semantic-warehouse.ts [--seed 0] [--max-databases 300] [--patience 100] [--cache-dir DIR] [--out report.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import { resolvePolicy } from '../src/compare/policy.js';
import { loadDataset } from '../src/dataset/load.js';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import { checkExecution } from '../src/rungs/execution.js';
import { fixtureStrength } from '../src/semantic/suite/fixture-strength.js';
import { readFixtureInvariants } from '../src/semantic/model/invariants.js';
import { buildTestSuite, evaluateOnSuite } from '../src/semantic/suite/test-suite.js';
import { parseProviderOutput } from '../src/sql/provider-output.js';
import { describeRows, sampleRows } from './semantic-report-helpers.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '0' },
    'max-databases': { type: 'string', default: '300' },
    patience: { type: 'string', default: '100' },
    'cache-dir': { type: 'string' },
    out: { type: 'string' },
  },
});

const root = path.resolve(import.meta.dirname, '..');
const policy = resolvePolicy('default');
const engine = createSqliteEngine();
const fixture = await resolveFixture('warehouse');
const dataset = await loadDataset(path.join(root, 'datasets', 'warehouse.yaml'));
const items = dataset.items.filter((item) => item.gold_sql.length > 0 && item.expected_behavior === 'answer');
const golds = items.flatMap((item) => item.gold_sql.map((sql, g) => ({ sql, id: item.gold_sql.length > 1 ? `${item.id}#${g}` : item.id })));
const started = performance.now();
const suite = await buildTestSuite({
  engine,
  schemaDb: fixture.snapshots[0]!.path,
  snapshots: fixture.snapshots,
  golds: golds.map((g) => g.sql),
  invariants: readFixtureInvariants(path.join(root, 'fixtures', 'warehouse', 'fixture.yaml')),
  policy,
  seed: values.seed!,
  budget: { maxDatabases: Number(values['max-databases']), patience: Number(values.patience), maxSeconds: 3600 },
  ...(values['cache-dir'] ? { cacheDir: values['cache-dir'] } : {}),
});
const buildSeconds = (performance.now() - started) / 1000;
const before = fixtureStrength(suite, golds, 'snapshots');
const after = fixtureStrength(suite, golds, 'suite');

const pct = (n: number, d: number): string => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
const lines: string[] = [];
lines.push(`# Warehouse fixture: ${items.length} answer items, ${suite.golds.length} distinct golds`, '');
lines.push(`Suite: seed ${values.seed}, ${suite.databases.length} generated databases kept of ${suite.draws} drawn; built in ${buildSeconds.toFixed(1)} s${suite.fromCache ? ' (loaded from the cache; original build ' + (suite.buildMs / 1000).toFixed(1) + ' s)' : ''}.`, '');
lines.push('| | neighbours | distinguished | strength | mean per gold |', '|---|---|---|---|---|');
lines.push(`| snapshots (base, later, edge) | ${before.neighbours} | ${before.distinguished} | ${pct(before.distinguished, before.neighbours)} | ${pct(before.meanStrength, 1)} |`);
lines.push(`| snapshots + distilled suite | ${after.neighbours} | ${after.distinguished} | ${pct(after.distinguished, after.neighbours)} | ${pct(after.meanStrength, 1)} |`, '');
const kept = suite.golds.map((g) => g.keptIndices.length);
const times = suite.golds.map((g) => g.elapsedMs);
lines.push(`Generated databases per gold: median ${quantile(kept, 0.5)}, p95 ${quantile(kept, 0.95)}, max ${Math.max(...kept)}. Build time per gold: median ${(quantile(times, 0.5) / 1000).toFixed(2)} s, p95 ${(quantile(times, 0.95) / 1000).toFixed(2)} s.`, '');

const runs: Record<string, unknown> = {};
for (const run of ['strong', 'weak']) {
  const recorded = new Map(
    readFileSync(path.join(root, 'providers', 'recordings', `warehouse-${run}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; output: unknown })
      .map((r) => [r.id, r.output] as const),
  );
  const cache = new GoldResultCache();
  let l4 = 0;
  let l5 = 0;
  let scored = 0;
  const rejected: { id: string; predicted: string; reason: string; missing: string[]; extra: string[]; golds: readonly string[] }[] = [];
  for (const item of items) {
    const answer = parseProviderOutput(recorded.get(item.id) ?? '');
    scored += 1;
    if (answer.kind !== 'sql') continue;
    const snapshots = item.snapshots ? fixture.snapshots.filter((s) => item.snapshots!.includes(s.name)) : fixture.snapshots;
    const goldOrdered = item.gold_result_ordered;
    const ex = await checkExecution({ predictedSql: answer.sql, golds: item.gold_sql, snapshots, engine, policy, cache, ...(goldOrdered === undefined ? {} : { goldOrdered }) });
    if (ex.status !== 'pass') continue;
    l4 += 1;
    const result = await evaluateOnSuite({ engine, suite: { ...suite, snapshots }, golds: item.gold_sql, predictedSql: answer.sql, cache, ...(goldOrdered === undefined ? {} : { goldOrdered }) });
    if (result.status === 'pass') l5 += 1;
    else rejected.push({ id: item.id, predicted: answer.sql, reason: result.reason, missing: describeRows(sampleRows(result.failing?.verdict?.missingRows)), extra: describeRows(sampleRows(result.failing?.verdict?.extraRows)), golds: item.gold_sql });
  }
  runs[run] = { scored, l4, l5, rejected };
  lines.push(`## ${run} run: L4 ${l4}/${scored} (${pct(l4, scored)}), L5 ${l5}/${scored} (${pct(l5, scored)}); ${rejected.length} items L4 accepts and L5 rejects`, '');
  for (const r of rejected) {
    lines.push(`- ${r.id}: ${r.reason}`, `  - predicted: \`${r.predicted.replace(/\s+/g, ' ')}\``);
    for (const [g, sql] of r.golds.entries()) lines.push(`  - gold ${g}: \`${sql.replace(/\s+/g, ' ')}\``);
    if (r.missing.length > 0) lines.push(`  - gold rows the prediction lacks: ${r.missing.join('; ')}`);
    if (r.extra.length > 0) lines.push(`  - rows only the prediction returns: ${r.extra.join('; ')}`);
  }
  lines.push('');
}
lines.push('## Neighbours no database distinguishes (likely equivalent)', '');
for (const gold of after.golds) for (const s of gold.survivors) lines.push(`- ${gold.id}: ${s.kind}: ${s.description}`);
process.stdout.write(`${lines.join('\n')}\n`);
if (values.out) writeFileSync(values.out, JSON.stringify({ before, after, runs, suite: { key: suite.key, databases: suite.databases.length, draws: suite.draws } }, null, 1));
await engine.close();
