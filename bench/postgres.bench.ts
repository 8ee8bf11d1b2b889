/**
 * `npm run bench postgres` → the PostgreSQL engine's figures, from one run, with the load average:
 * 1. Per-statement cost against a floor (target ≤ ×2): every gold of the twin dataset
 *    (datasets/warehouse_pg.yaml) and every SQL of its strong and weak recordings, on the twin's
 *    base snapshot, run one after another through the engine (text check, read-only transaction
 *    with its SET LOCALs, Parse / Describe / Bind / Execute with the caps, rollback, cells decoded)
 *    and through one node-postgres client of the same reader role on the same server and
 *    database, `client.query({ text, rowMode: 'array' })` with no ladder work. Both sides run in
 *    this process, alternately, {@link ROUNDS} rounds after a warm-up of each; the ratio is the
 *    median of the round-by-round ratios.
 * 2. The private server's cold start (`initdb`, start, the roles; then building the twin's three
 *    snapshots) and warm start (start; then verifying the three checksums), and its stop.
 * 3. A 1 000-item run (bench/postgres-run.ts: the main job's ladder over the twin dataset with the
 *    strong recording, cycled) as a process of its own, from spawn to exit, server start and stop
 *    included: items/s, and the peak of the summed resident memory of its process tree, the
 *    private server's processes included (shared buffers count in every process that touched them).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadDataset } from '../src/dataset/load.js';
import { connect } from '../src/engine/postgres/pg-server.js';
import { createPostgresEngine, type PostgresEngine } from '../src/engine/postgres/postgres-engine.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import { parseProviderOutput } from '../src/sql/provider-output.js';
import type { BenchReport } from './report.js';
import { targetNote } from './targets.js';
import { loadAverage, median, round2, timeProcess } from './whole-process.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Repository root: this file runs from dist/bench/. */
const root = path.resolve(here, '../..');
const ROUNDS = Math.max(1, Number(process.env['BENCH_RUNS'] ?? 5));
const COLD_STARTS = 2;
const WARM_STARTS = 3;
const RUN_ITEMS = 1_000;

/** The golds of the twin dataset and the SQL of its two recordings, in file order. */
async function twinStatements(): Promise<string[]> {
  const { items } = await loadDataset(path.join(root, 'datasets', 'warehouse_pg.yaml'));
  const statements = items.flatMap((item) => item.gold_sql);
  for (const model of ['strong', 'weak']) {
    for (const line of readFileSync(path.join(root, 'providers', 'recordings', `warehouse_pg-${model}.jsonl`), 'utf8').trim().split('\n')) {
      const answer = parseProviderOutput((JSON.parse(line) as { output: unknown }).output);
      if (answer.kind === 'sql') statements.push(answer.sql);
    }
  }
  return statements;
}

/** Builds or verifies the twin on `engine`; milliseconds. */
async function resolveTwin(engine: PostgresEngine, cacheDir: string): Promise<{ ms: number; db: string }> {
  const started = performance.now();
  const fixture = await resolveFixture('warehouse_pg', { fixturesDir: path.join(root, 'fixtures'), cacheDir: path.join(cacheDir, 'fixtures'), postgres: () => engine });
  return { ms: performance.now() - started, db: fixture.snapshots[0]!.path };
}

/** One start of the private server in `cacheDir`, the twin resolved on it, and the stop. */
async function start(cacheDir: string): Promise<{ serverMs: number; initialized: boolean; fixtureMs: number; stopMs: number }> {
  const engine = createPostgresEngine({ cacheDir: path.join(cacheDir, 'server'), poolSize: 1 });
  const server = await engine.server();
  const twin = await resolveTwin(engine, cacheDir);
  const stopping = performance.now();
  await engine.close();
  return { serverMs: server.start!.ms, initialized: server.start!.initialized, fixtureMs: twin.ms, stopMs: performance.now() - stopping };
}

const span = (values: readonly number[], digits = 2): string => {
  const round = (value: number): string => (value / 1000).toFixed(digits);
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? `${round(low)} s` : `${round(low)}–${round(high)} s`;
};

export async function run(): Promise<BenchReport> {
  const lines: string[] = [`at start: ${loadAverage()} (${os.cpus().length} cores)`];
  const figures: Record<string, number> = {};
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'ladder-pg-bench-'));
  // As root the server runs as another user, who must be able to enter the folders.
  chmodSync(scratch, 0o755);
  try {
    // 2. Cold and warm starts (the last cold folder stays for the rest).
    const cold: Awaited<ReturnType<typeof start>>[] = [];
    let cacheDir = '';
    for (let index = 0; index < COLD_STARTS; index += 1) {
      if (cacheDir !== '') rmSync(cacheDir, { recursive: true, force: true });
      cacheDir = mkdtempSync(path.join(scratch, 'c'));
      chmodSync(cacheDir, 0o755);
      cold.push(await start(cacheDir));
    }
    const warm: Awaited<ReturnType<typeof start>>[] = [];
    for (let index = 0; index < WARM_STARTS; index += 1) warm.push(await start(cacheDir));
    figures['coldServerMs'] = Math.round(median(cold.map((run) => run.serverMs)));
    figures['coldFixtureMs'] = Math.round(median(cold.map((run) => run.fixtureMs)));
    figures['warmServerMs'] = Math.round(median(warm.map((run) => run.serverMs)));
    figures['warmFixtureMs'] = Math.round(median(warm.map((run) => run.fixtureMs)));
    figures['stopMs'] = Math.round(median([...cold, ...warm].map((run) => run.stopMs)));
    lines.push(
      `private server, cold (initdb, start, roles): ${span(cold.map((run) => run.serverMs))}; the twin built (3 databases): ${span(cold.map((run) => run.fixtureMs))} (${COLD_STARTS} runs${cold.every((run) => run.initialized) ? '' : '; initdb did NOT run every time'})`,
      `private server, warm (start, roles): ${span(warm.map((run) => run.serverMs))}; the twin verified (3 checksums): ${span(warm.map((run) => run.fixtureMs))}; stop: ${span([...cold, ...warm].map((run) => run.stopMs))} (${WARM_STARTS} runs${warm.some((run) => run.initialized) ? '; initdb ran on a warm start' : ''})`,
    );

    // 1. Per-statement cost against one pg client.
    const statements = await twinStatements();
    const engine = createPostgresEngine({ cacheDir: path.join(cacheDir, 'server'), poolSize: 1 });
    try {
      const { db } = await resolveTwin(engine, cacheDir);
      const client: pg.Client = await connect(await engine.server(), 'reader', db);
      try {
        let engineOk = 0;
        let floorOk = 0;
        const viaEngine = async (): Promise<number> => {
          engineOk = 0;
          const started = performance.now();
          for (const sql of statements) if ((await engine.execute({ db, sql })).ok) engineOk += 1;
          return performance.now() - started;
        };
        const viaClient = async (): Promise<number> => {
          floorOk = 0;
          const started = performance.now();
          for (const sql of statements) {
            try {
              await client.query({ text: sql, rowMode: 'array' });
              floorOk += 1;
            } catch {
              // Counted as not executed, as the engine's failures are.
            }
          }
          return performance.now() - started;
        };
        await viaEngine();
        await viaClient();
        const rounds: { engine: number; floor: number }[] = [];
        for (let round = 0; round < ROUNDS; round += 1) rounds.push({ engine: await viaEngine(), floor: await viaClient() });
        const ratio = round2(median(rounds.map((round) => round.engine / round.floor)));
        const perStatement = (ms: number): number => round2(ms / statements.length);
        figures['statements'] = statements.length;
        figures['engineMsPerStatement'] = perStatement(median(rounds.map((round) => round.engine)));
        figures['floorMsPerStatement'] = perStatement(median(rounds.map((round) => round.floor)));
        figures['engineVsFloorRatio'] = ratio;
        lines.push(
          `per statement, ${statements.length} statements (the twin's golds, strong and weak predictions; ${engineOk} ran on the engine, ${floorOk} on the client): engine ${figures['engineMsPerStatement']} ms, one pg client ${figures['floorMsPerStatement']} ms — ratio ${ratio} (median of ${ROUNDS} alternating rounds; ${targetNote(ratio, { max: 2 })})`,
          `  rounds (engine / floor ms): ${rounds.map((round) => `${Math.round(round.engine)}/${Math.round(round.floor)}`).join(', ')}`,
        );
      } finally {
        await client.end();
      }
    } finally {
      await engine.close();
    }

    // 3. The 1 000-item run, server included.
    const runLoad = loadAverage();
    const timed = await timeProcess({ command: process.execPath, args: [path.join(here, 'postgres-run.js'), cacheDir, String(RUN_ITEMS)] });
    const out = JSON.parse(timed.stdout) as { items: number; endToEnd: number; loopMs: number };
    figures['run1000Ms'] = Math.round(timed.ms);
    figures['run1000ItemsPerSecond'] = round2(RUN_ITEMS / (timed.ms / 1000));
    figures['run1000LoopItemsPerSecond'] = round2(RUN_ITEMS / (out.loopMs / 1000));
    figures['run1000PeakTreeMiB'] = Math.round(timed.peakTreeBytes / 2 ** 20);
    if (timed.cpuMs !== undefined) figures['run1000CpuMs'] = timed.cpuMs;
    lines.push(
      `1 000-item run (the main job's ladder on the twin, strong recording cycled; ${out.endToEnd} end-to-end passes; ${runLoad} at its start): ${(timed.ms / 1000).toFixed(1)} s from spawn to exit, ${figures['run1000ItemsPerSecond']} items/s (${figures['run1000LoopItemsPerSecond']} items/s without the server's start and stop); peak resident memory of the process tree, server included: ${figures['run1000PeakTreeMiB']} MiB${timed.cpuMs === undefined ? '' : `; CPU ${(timed.cpuMs / 1000).toFixed(1)} s`}`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  lines.push(`at end: ${loadAverage()}`);
  return { name: 'postgres', lines, figures };
}
