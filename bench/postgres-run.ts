/**
 * The PostgreSQL bench's 1 000-item run, as a process of its own so that its whole tree (this
 * process and the private server it starts, backends included) can be timed and measured: the
 * main job's ladder (L1–L4, L6, L7) over the twin dataset's items with the strong recording,
 * cycled to `N` items, each copy's golds made distinct text (a trailing comment) so that the gold
 * cache answers none of them. The server folder must hold the built twin (the bench builds it
 * first); the run starts the server warm and stops it.
 *
 *   node dist/bench/postgres-run.js CACHE_DIR N   → prints {"items","endToEnd","loopMs"}
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../src/dataset/load.js';
import { EfficiencyCache } from '../src/efficiency/efficiency-cache.js';
import { runLadder } from '../src/rungs/ladder.js';
import { createLadderRungs } from '../src/rungs/ladder-rungs.js';
import { createLadderRuntime } from '../src/runtime/ladder-runtime.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const [cacheDir, count] = process.argv.slice(2) as [string, string];
const total = Number(count);

const runtime = createLadderRuntime({ postgres: { cacheDir: path.join(cacheDir, 'server') }, fixtures: { fixturesDir: path.join(root, 'fixtures'), cacheDir: path.join(cacheDir, 'fixtures') } });
try {
  const fixture = await runtime.resolveFixture('warehouse_pg');
  const engine = await runtime.postgresEngine();
  const { items } = await loadDataset(path.join(root, 'datasets', 'warehouse_pg.yaml'));
  const outputs = new Map(
    readFileSync(path.join(root, 'providers', 'recordings', 'warehouse_pg-strong.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; output: string })
      .map((row) => [row.id, row.output]),
  );
  const efficiencyCache = new EfficiencyCache();
  const rungs = createLadderRungs({ efficiency: true, answer: true });
  let endToEnd = 0;
  const started = performance.now();
  for (let index = 0; index < total; index += 1) {
    const item = items[index % items.length]!;
    const copy = Math.floor(index / items.length);
    const golds = item.gold_sql.map((sql) => (copy === 0 ? sql : `${sql}\n-- copy ${copy}`));
    const result = await runLadder(
      { output: outputs.get(item.id), expectedBehavior: item.expected_behavior, golds, snapshots: fixture.snapshots, dialect: 'postgres', engine, question: item.question, executionCache: runtime.goldCache, efficiencyCache, efficiencyOptions: {}, ...(item.as_of_date === undefined ? {} : { asOfDate: item.as_of_date }) },
      rungs,
    );
    if (result.endToEnd === 1) endToEnd += 1;
  }
  process.stdout.write(JSON.stringify({ items: total, endToEnd, loopMs: Math.round(performance.now() - started) }));
} finally {
  await runtime.close();
}
