/**
 * Counterexample search on a Spider-format slice: for every prediction that execution accuracy
 * accepts (the database folder's snapshots, spider policy), search for a small database that
 * refutes it, and report refuted counts per Spider hardness level, witness sizes, search times and
 * the first witnesses in full.
 *
 *   npx tsx scripts/counterexample-spider.ts --data <Spider-format folder> \
 *     [--pred predictions/DINSQL.sql --pred predictions/C3_SQL.sql] [--seed 0] [--max-databases 100] \
 *     [--max-seconds 3600] [--nulls allowed|observed] [--empty-vs-null-row same|different] \
 *     [--db-id car_1] [--out report.json] [--show 20]
 *
 * Prints Markdown; `--out` writes every outcome (with witness scripts for replay) as JSON.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import { resolvePolicy } from '../src/compare/policy.js';
import { applySqlRewrites } from '../src/compare/sql-rewrites.js';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { checkExecution } from '../src/rungs/execution.js';
import { createCounterexampleSearcher, type CounterexampleSearcher, type SearchOutcome } from '../src/semantic/search/counterexample-search.js';
import type { EmptyVsNullRow } from '../src/semantic/model/empty-vs-null-row.js';
import { renderWitness } from '../src/semantic/search/witness-format.js';
import { HARDNESS_LEVELS, spiderHardness, type Hardness } from '../src/benchmarks/spider/hardness.js';
import { listSnapshots } from '../src/benchmarks/spider/list-snapshots.js';
import { readPredictions, readSpiderGold } from '../src/benchmarks/spider/read-spider-files.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/spider-dev-slice' },
    pred: { type: 'string', multiple: true },
    seed: { type: 'string', default: '0' },
    'max-databases': { type: 'string', default: '100' },
    'max-seconds': { type: 'string', default: '3600' },
    nulls: { type: 'string', default: 'allowed' },
    'empty-vs-null-row': { type: 'string', default: 'same' },
    'db-id': { type: 'string', multiple: true },
    out: { type: 'string' },
    show: { type: 'string', default: '20' },
  },
});

const data = path.resolve(values.data!);
const predFiles = values.pred ?? ['predictions/DINSQL.sql', 'predictions/C3_SQL.sql'];
const policy = resolvePolicy('spider');
const gold = await readSpiderGold(path.join(data, 'dev_gold.sql'));
const engine = createSqliteEngine();
const searchers = new Map<string, { searcher: CounterexampleSearcher; snapshots: Awaited<ReturnType<typeof listSnapshots>> }>();
const searcherFor = async (dbId: string): Promise<{ searcher: CounterexampleSearcher; snapshots: Awaited<ReturnType<typeof listSnapshots>> }> => {
  let entry = searchers.get(dbId);
  if (entry === undefined) {
    const snapshots = await listSnapshots(path.join(data, 'database'), dbId, { checksums: true });
    entry = { searcher: createCounterexampleSearcher({ engine, schemaDb: snapshots[0]!.path, snapshots, nulls: values.nulls as 'allowed' | 'observed' }), snapshots };
    searchers.set(dbId, entry);
  }
  return entry;
};

interface Row {
  readonly model: string;
  readonly i: number;
  readonly dbId: string;
  readonly hardness: Hardness | null;
  readonly gold: string;
  readonly predicted: string;
  readonly goldAsRun: string;
  readonly predictedAsRun: string;
  readonly outcome: SearchOutcome;
  readonly ms: number;
}

const rows: Row[] = [];
for (const file of predFiles) {
  const predictions = await readPredictions(path.join(data, file));
  const cache = new GoldResultCache();
  for (const item of gold) {
    if (item.error !== undefined) continue;
    if (values['db-id'] !== undefined && !values['db-id'].includes(item.dbId)) continue;
    const predicted = predictions[item.index]?.sql ?? '';
    if (predicted === '') continue;
    const { searcher, snapshots } = await searcherFor(item.dbId);
    const ex = await checkExecution({ predictedSql: predicted, golds: [item.sql], snapshots, engine, policy, cache });
    if (ex.status !== 'pass') continue;
    const t0 = performance.now();
    const outcome = await searcher.search({
      golds: [item.sql],
      predictedSql: predicted,
      policy,
      seed: values.seed!,
      emptyVsNullRow: values['empty-vs-null-row'] as EmptyVsNullRow,
      budget: { maxDatabases: Number(values['max-databases']), maxSeconds: Number(values['max-seconds']) },
    });
    const ms = performance.now() - t0;
    rows.push({ model: path.basename(file, '.sql'), i: item.index, dbId: item.dbId, hardness: spiderHardness(item.sql), gold: item.sql, predicted, goldAsRun: applySqlRewrites(item.sql, 'gold', policy.rewrites), predictedAsRun: applySqlRewrites(predicted, 'predicted', policy.rewrites), outcome, ms });
    process.stderr.write(`${path.basename(file)} ${item.index} ${outcome.verdict} ${ms.toFixed(0)} ms\n`);
  }
}

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
const lines: string[] = [];
lines.push(`# Counterexample search on ${path.basename(data)}`, '');
lines.push(`Policy: spider preset. Seed ${values.seed}; budget ${values['max-databases']} databases, ${values['max-seconds']} s; nulls: ${values.nulls}; emptyVsNullRow: ${values['empty-vs-null-row']}. Load average at the end: ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}.`, '');
for (const file of predFiles) {
  const model = path.basename(file, '.sql');
  const mine = rows.filter((r) => r.model === model);
  lines.push(`## ${model}`, '', '| level | EX accepted | refuted | not refuted | not searched |', '|---|---|---|---|---|');
  for (const level of [...HARDNESS_LEVELS, 'all'] as const) {
    const at = mine.filter((r) => level === 'all' || r.hardness === level);
    const count = (v: string): number => at.filter((r) => r.outcome.verdict === v).length;
    lines.push(`| ${level} | ${at.length} | ${count('refuted')} | ${count('not_refuted_within_budget')} | ${count('not_searched')} |`);
  }
  lines.push('');
}
const refuted = rows.filter((r) => r.outcome.verdict === 'refuted');
const witnesses = refuted.flatMap((r) => (r.outcome.verdict === 'refuted' ? r.outcome.witnesses : []));
const small = witnesses.filter((w) => w.maxRowsPerTable <= 3).length;
const times = rows.map((r) => r.ms);
lines.push('## Witnesses and times', '');
lines.push(`- refutations: ${refuted.length}; witnesses with ≤ 3 rows per table: ${small} of ${witnesses.length} (${witnesses.length === 0 ? 'n/a' : ((100 * small) / witnesses.length).toFixed(1)}%); rows per witness: median ${quantile(witnesses.map((w) => w.totalRows), 0.5)}, max ${Math.max(0, ...witnesses.map((w) => w.totalRows))}`);
lines.push(`- search time per pair (${rows.length} pairs): median ${(quantile(times, 0.5) / 1000).toFixed(3)} s, p95 ${(quantile(times, 0.95) / 1000).toFixed(3)} s, max ${(Math.max(0, ...times) / 1000).toFixed(3)} s; refuted pairs median ${(quantile(refuted.map((r) => r.ms), 0.5) / 1000).toFixed(3)} s`);
lines.push(`- found in tier: ${JSON.stringify(countBy(witnesses.map((w) => w.draw.tier)))}`, '');
const show = Number(values.show);
lines.push(`## First ${Math.min(show, refuted.length)} refutations`, '');
for (const r of refuted.slice(0, show)) {
  if (r.outcome.verdict !== 'refuted') continue;
  lines.push(`### ${r.model} item ${r.i} (${r.dbId}, ${r.hardness ?? '?'})`, '', `- gold: \`${r.gold}\``, `- predicted: \`${r.predicted}\``, `- ${r.outcome.reason}`, '', '```', renderWitness(r.outcome.witness), '```', '');
}
process.stdout.write(`${lines.join('\n')}\n`);
if (values.out) {
  writeFileSync(
    values.out,
    JSON.stringify(
      rows.map((r) => ({ ...r, outcome: r.outcome })),
      (_k, v: unknown) => (typeof v === 'bigint' ? `${v.toString()}n` : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v),
      1,
    ),
  );
}
for (const { searcher } of searchers.values()) searcher.close();
await engine.close();

function countBy(items: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[item] = (out[item] ?? 0) + 1;
  return out;
}
