/**
 * `npm run bench` → engine figures, measured in one run:
 * 1. Deadline latency: time from a statement's deadline to its `timeout` result (target ≤ 250 ms),
 *    over several runs of a recursive CTE that would count for minutes.
 * 2. Slice throughput: whole-process wall time to execute every gold and predicted statement of
 *    the shared Spider dev slice (dev_gold.sql + predictions/*.sql, each on
 *    database/<db_id>/<db_id>.sqlite) through the engine's pool, against a floor: a separate Node
 *    process running the same statements with better-sqlite3 directly, in one thread. Both are
 *    spawned as separate processes and timed from spawn to exit, alternately, five times each;
 *    medians and minimums are reported (on a shared machine the minimum is the best estimate of
 *    the uncontended time). Skipped with a message when the slice is missing.
 *
 * This file is also the entry of those two processes (`--engine-bench=floor|pool`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import type { BenchReport } from './report.js';
import { targetNote } from './targets.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const thisFile = fileURLToPath(import.meta.url);
/** Repository root: this file runs from dist/bench/ (compiled) or bench/ (sources). */
const root = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
const SLICE = path.resolve(root, '../shared/data/spider-dev-slice');
const RUNS = 5;
const DEADLINE_RUNS = 5;
const DEADLINE_MS = 300;
const ENDLESS_SQL = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000000) SELECT count(*) FROM c';

interface Statement {
  readonly sql: string;
  readonly db: string;
}

/** Every gold and predicted statement of the slice, each with its database file. */
function sliceStatements(): Statement[] {
  const gold = readFileSync(path.join(SLICE, 'dev_gold.sql'), 'utf8').split('\n').filter((line) => line !== '');
  const dbs = gold.map((line) => {
    const dbId = line.split('\t')[1]!;
    return path.join(SLICE, 'database', dbId, `${dbId}.sqlite`);
  });
  const statements: Statement[] = gold.map((line, i) => ({ sql: line.split('\t')[0]!, db: dbs[i]! }));
  for (const file of readdirSync(path.join(SLICE, 'predictions')).filter((name) => name.endsWith('.sql')).sort()) {
    const predicted = readFileSync(path.join(SLICE, 'predictions', file), 'utf8').split('\n').slice(0, dbs.length);
    predicted.forEach((sql, i) => statements.push({ sql, db: dbs[i]! }));
  }
  return statements;
}

/** Floor process: better-sqlite3 directly, one thread, read-only connections cached per db. */
function runFloor(): void {
  const connections = new Map<string, Database.Database>();
  let ok = 0;
  const statements = sliceStatements();
  for (const { sql, db } of statements) {
    let connection = connections.get(db);
    if (!connection) {
      connection = new Database(db, { readonly: true, fileMustExist: true });
      connections.set(db, connection);
    }
    try {
      connection.prepare(sql).raw(true).all();
      ok += 1;
    } catch {
      // Counted as not executed, like the pool's failures.
    }
  }
  process.stdout.write(JSON.stringify({ statements: statements.length, ok }));
}

/** Pool process: createSqliteEngine with its defaults, every statement submitted at once. */
async function runPool(): Promise<void> {
  const engine = createSqliteEngine();
  const statements = sliceStatements();
  // Children start as statements wait (see sqlite-pool.ts): count the most that were alive.
  let children = 0;
  const outcomes = await Promise.all(
    statements.map((statement) =>
      engine.execute(statement).finally(() => {
        children = Math.max(children, engine.childPids.length);
      }),
    ),
  );
  await engine.close();
  process.stdout.write(JSON.stringify({ statements: statements.length, ok: outcomes.filter((outcome) => outcome.ok).length, poolSize: engine.options.poolSize, children }));
}

/** Spawns this file in a mode; resolves with wall ms from spawn to exit and its JSON output. */
function timeProcess(mode: 'floor' | 'pool'): Promise<{ ms: number; output: { statements: number; ok: number; poolSize?: number; children?: number } }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [thisFile, `--engine-bench=${mode}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`engine bench ${mode} process exited with ${code}`));
      else resolve({ ms, output: JSON.parse(stdout) as { statements: number; ok: number; poolSize?: number; children?: number } });
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Deadline → `timeout` latency on a warm one-child pool (the replacement is warmed between runs). */
async function measureDeadline(): Promise<number[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ladder-engine-bench-'));
  const file = path.join(dir, 'bench.sqlite');
  const setup = new Database(file);
  setup.exec('CREATE TABLE t (x INTEGER)');
  setup.close();
  const engine = createSqliteEngine({ poolSize: 1, timeoutMs: DEADLINE_MS });
  const latencies: number[] = [];
  try {
    for (let run = 0; run < DEADLINE_RUNS; run += 1) {
      const warm = await engine.execute({ db: file, sql: 'SELECT 1' });
      if (!warm.ok) throw new Error(`warm-up failed: ${warm.error.message}`);
      const started = performance.now();
      const outcome = await engine.execute({ db: file, sql: ENDLESS_SQL });
      const latency = performance.now() - started - DEADLINE_MS;
      if (outcome.ok || outcome.error.code !== 'timeout') throw new Error(`expected a timeout, got ${JSON.stringify(outcome)}`);
      latencies.push(latency);
    }
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return latencies;
}

/** Bench entry (bench/run.ts). */
export async function run(): Promise<BenchReport> {
  const lines: string[] = [];
  const figures: Record<string, number> = {};

  const latencies = await measureDeadline();
  figures['timeoutLatencyMedianMs'] = round(median(latencies));
  figures['timeoutLatencyMaxMs'] = round(Math.max(...latencies));
  lines.push(
    `deadline → timeout result: median ${figures['timeoutLatencyMedianMs']} ms, max ${figures['timeoutLatencyMaxMs']} ms over ${DEADLINE_RUNS} runs (deadline ${DEADLINE_MS} ms; ${targetNote(figures['timeoutLatencyMedianMs'], { max: 250 }, 'ms')})`,
  );

  if (!existsSync(SLICE)) {
    lines.push(`slice throughput skipped: ${SLICE} not found`);
    return { name: 'engine', lines, figures };
  }
  const floor: number[] = [];
  const pool: number[] = [];
  let floorOutput: { statements: number; ok: number } | undefined;
  let poolOutput: { statements: number; ok: number; poolSize?: number; children?: number } | undefined;
  for (let i = 0; i < RUNS; i += 1) {
    const f = await timeProcess('floor');
    floor.push(f.ms);
    floorOutput = f.output;
    const p = await timeProcess('pool');
    pool.push(p.ms);
    poolOutput = p.output;
  }
  figures['sliceStatements'] = poolOutput!.statements;
  figures['floorProcessMs'] = round(median(floor));
  figures['poolProcessMs'] = round(median(pool));
  figures['poolVsFloorRatio'] = round(median(pool) / median(floor));
  figures['floorProcessMinMs'] = round(Math.min(...floor));
  figures['poolProcessMinMs'] = round(Math.min(...pool));
  figures['poolVsFloorMinRatio'] = round(Math.min(...pool) / Math.min(...floor));
  figures['loadAverage1m'] = round(os.loadavg()[0]!);
  figures['poolExecuted'] = poolOutput!.ok;
  figures['floorExecuted'] = floorOutput!.ok;
  lines.push(
    `slice: ${poolOutput!.statements} statements (507 gold + ${poolOutput!.statements - 507} predicted), whole-process wall time over ${RUNS} alternating runs (load average ${figures['loadAverage1m']}):`,
    `  floor (one node process, better-sqlite3 directly): median ${figures['floorProcessMs']} ms, min ${figures['floorProcessMinMs']} ms, ${floorOutput!.ok} executed (no double-quote fallback)`,
    `  pool  (createSqliteEngine, poolSize ${poolOutput!.poolSize}, ${poolOutput!.children} children used): median ${figures['poolProcessMs']} ms, min ${figures['poolProcessMinMs']} ms, ${poolOutput!.ok} executed (legacy double quotes)`,
    `  pool / floor = ${figures['poolVsFloorRatio']} (medians), ${figures['poolVsFloorMinRatio']} (minimums)`,
  );
  return { name: 'engine', lines, figures };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

const mode = process.argv.find((arg) => arg.startsWith('--engine-bench='))?.slice('--engine-bench='.length);
if (mode === 'floor') runFloor();
else if (mode === 'pool') await runPool();
