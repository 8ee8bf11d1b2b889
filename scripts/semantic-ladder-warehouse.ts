/**
 * The main job's grading with L5 off and on: both recorded warehouse runs through `runLadder`
 * (L1–L4 + L7 as the main job, then the same with the `L5_semantic` rung), as the promptfoo
 * `ladder` assertion runs them — one runtime, the fixture's invariants, suites built per item on
 * first use (cold cache; with `--prepare`, one suite for every gold of the dataset built first, as a
 * front end that knows the dataset does) and read from the cache on a second pass (warm). Prints L4 and L5 pass
 * counts per run, every item L4 accepts and L5 rejects with its reason, and the wall times with
 * their ratios (one run; load average before and after).
 *
 *   npx tsx scripts/semantic-ladder-warehouse.ts [--prepare] [--search-max-seconds 600] [--suite-max-seconds 600] [--cache-dir DIR]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { resolvePolicy } from '../src/compare/policy.js';
import { loadDataset, type DatasetItem } from '../src/dataset/load.js';
import { runLadder } from '../src/rungs/ladder.js';
import { createLadderRungs, type LadderRungTable } from '../src/rungs/ladder-rungs.js';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';
import { readSemanticOptions } from '../src/semantic/semantic-options.js';
import { createSemanticRung } from '../src/semantic/semantic-rung.js';

const { values } = parseArgs({
  options: {
    'search-max-seconds': { type: 'string', default: '600' },
    'suite-max-seconds': { type: 'string', default: '600' },
    'cache-dir': { type: 'string' },
    prepare: { type: 'boolean', default: false },
  },
});
const root = path.resolve(import.meta.dirname, '..');
const cacheDir = values['cache-dir'] ?? mkdtempSync(path.join(os.tmpdir(), 'ladder-l5-main-'));
const runtime = createLadderRuntime({ engine: { poolSize: 2 } });
const items = (await loadDataset(path.join(root, 'datasets', 'warehouse.yaml'))).items.filter((item) => item.scored);
const invariants = await runtime.fixtureInvariants('warehouse');
const options = readSemanticOptions({ cacheDir, suite: { maxSeconds: Number(values['suite-max-seconds']) }, search: { maxSeconds: Number(values['search-max-seconds']) } });
const OFF = createLadderRungs({ answer: true });
const ON = createLadderRungs({ answer: true, semantic: createSemanticRung(options, runtime.semantic()) });

const recordings = Object.fromEntries(
  ['strong', 'weak'].map((name) => {
    const lines = readFileSync(path.join(root, `providers/recordings/warehouse-${name}.jsonl`), 'utf8').split('\n').filter((l) => l !== '');
    return [name, new Map(lines.map((l) => JSON.parse(l) as { id: string; output: unknown }).map((p) => [p.id, p.output]))];
  }),
) as Record<string, Map<string, unknown>>;

async function grade(item: DatasetItem, output: unknown, rungs: LadderRungTable) {
  const fixture = await runtime.resolveFixture(item.db, item.role);
  const snapshots = item.snapshots === undefined ? fixture.snapshots : fixture.snapshots.filter((s) => item.snapshots!.includes(s.name));
  return runLadder(
    {
      output,
      expectedBehavior: item.expected_behavior,
      golds: item.gold_sql,
      snapshots,
      dialect: 'sqlite',
      engine: runtime.engine(),
      executionCache: runtime.goldCache,
      question: item.question,
      answerOptions: {},
      invariants,
      ...(item.gold_result_ordered !== undefined ? { goldOrdered: item.gold_result_ordered } : {}),
      ...(item.as_of_date !== undefined ? { asOfDate: item.as_of_date } : {}),
    },
    rungs,
  );
}

async function pass(label: string, rungs: LadderRungTable) {
  const started = performance.now();
  const out: Record<string, { l4: number; l5: number; l5n: number; e2e: number; rejected: string[] }> = {};
  for (const [name, recording] of Object.entries(recordings)) {
    const row = { l4: 0, l5: 0, l5n: 0, e2e: 0, rejected: [] as string[] };
    for (const item of items) {
      const result = await grade(item, recording.get(item.id), rungs);
      if (result.results.execution?.status === 'pass') row.l4 += 1;
      const l5 = result.results.semantic;
      if (l5?.status === 'pass' || l5?.status === 'fail') row.l5n += 1;
      if (l5?.status === 'pass') row.l5 += 1;
      // A suite rejection's search still runs (for a small witness); `details.suite.status` says which step rejected.
      if (l5?.status === 'fail') row.rejected.push(`${item.id} (${l5.details?.suite?.status === 'fail' ? 'suite' : 'search'}): ${l5.reason}`);
      if (result.endToEnd === 1) row.e2e += 1;
    }
    out[name] = row;
  }
  return { label, ms: performance.now() - started, out };
}

const load = [readFileSync('/proc/loadavg', 'utf8').trim()];
const off = await pass('L5 off', OFF);
let prepareMs = 0;
if (values.prepare && options.suite !== false) {
  const started = performance.now();
  const fixture = await runtime.resolveFixture('warehouse');
  const golds = [...new Set(items.filter((i) => i.role === undefined && i.snapshots === undefined).flatMap((i) => i.gold_sql))];
  await (await runtime.semantic()).prepareSuite({ engine: runtime.engine(), fixture: { snapshots: fixture.snapshots, invariants }, golds, policy: resolvePolicy('default'), settings: options.suite });
  prepareMs = performance.now() - started;
  console.log(`## dataset suite prepared (${golds.length} golds): ${(prepareMs / 1000).toFixed(1)} s`);
}
const cold = await pass(values.prepare ? 'L5 on, dataset suite prepared' : 'L5 on, cold suite cache', ON);
const warm = await pass('L5 on, warm suite cache', ON);
load.push(readFileSync('/proc/loadavg', 'utf8').trim());
for (const run of [off, cold, warm]) {
  console.log(`## ${run.label}: ${(run.ms / 1000).toFixed(1)} s`);
  for (const [name, row] of Object.entries(run.out)) {
    const l5 = run === off ? '' : `, L5 pass ${row.l5}/${row.l5n}`;
    console.log(`  ${name}: L4 pass ${row.l4}/${items.filter((i) => i.expected_behavior === 'answer').length}${l5}, end_to_end ${row.e2e}/${items.length}`);
    for (const line of row.rejected) console.log(`    L5 rejects ${line}`);
  }
}
console.log(`ratios: ${values.prepare ? '(prepare + first)' : 'cold'}/off ${((cold.ms + prepareMs) / off.ms).toFixed(1)}, warm/off ${(warm.ms / off.ms).toFixed(1)}; load average before / after: ${load.join(' / ')}`);
await runtime.close();
if (values['cache-dir'] === undefined) rmSync(cacheDir, { recursive: true, force: true });
