/**
 * `npm run bench compare` → comparison figures, one run:
 * 1. The spider CLI's whole-process wall time and peak memory on the shared Spider dev slice (SPIDER_SLICE_DIR)
 *    (DIN-SQL predictions, `--preset spider` and `--preset default`), against a whole-process floor:
 *    one Node process running the same 1014 statements (507 gold + 507 predicted) with
 *    better-sqlite3 directly. Processes are spawned alternately, three times each; medians are
 *    reported. Peak memory = the largest sum of VmRSS over the CLI process and its descendants
 *    (the engine's children), sampled from /proc every 20 ms. Skipped when the slice is missing.
 * 2. Column-map search time on adversarial tables: many identical columns, 30 shuffled columns,
 *    columns whose value sets coincide but rows do not.
 *
 * This file is also the entry of the floor process (`--compare-bench=floor`).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { compareResults } from '../src/compare/compare-results.js';
import { resolvePolicy } from '../src/compare/policy.js';
import type { Cell, QueryResult, Row } from '../src/engine/engine.js';
import type { BenchReport } from './report.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const thisFile = fileURLToPath(import.meta.url);
/** Repository root: this file runs from dist/bench/ (compiled) or bench/ (sources). */
const root = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
const SLICE = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? path.join(root, '../shared/data/spider-dev-slice'));
const CLI = path.resolve(here, '../bin/text2sql-ladder.js');
const RUNS = 3;

/** Floor process: the slice's gold and DIN-SQL statements through better-sqlite3 directly. */
function runFloor(): void {
  const gold = readFileSync(path.join(SLICE, 'dev_gold.sql'), 'utf8').split('\n').filter((line) => line !== '');
  const predicted = readFileSync(path.join(SLICE, 'predictions', 'DINSQL.sql'), 'utf8').split('\n');
  const connections = new Map<string, Database.Database>();
  let ok = 0;
  let statements = 0;
  gold.forEach((line, i) => {
    const [sql, dbId] = line.split('\t') as [string, string];
    const db = path.join(SLICE, 'database', dbId, `${dbId}.sqlite`);
    let connection = connections.get(db);
    if (!connection) {
      connection = new Database(db, { readonly: true, fileMustExist: true });
      connections.set(db, connection);
    }
    for (const text of [sql, predicted[i] ?? '']) {
      statements += 1;
      try {
        connection.prepare(text).raw(true).all();
        ok += 1;
      } catch {
        // Not executed (e.g. double-quoted strings, which better-sqlite3 rejects).
      }
    }
  });
  process.stdout.write(JSON.stringify({ statements, ok }));
}

/** Sum of VmRSS (bytes) over `pid` and its descendants. */
function treeRssBytes(pid: number): number {
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const current = stack.pop()!;
    try {
      const status = readFileSync(`/proc/${current}/status`, 'utf8');
      const kb = /VmRSS:\s+(\d+) kB/.exec(status);
      if (kb) total += Number(kb[1]) * 1024;
      for (const task of readdirSync(`/proc/${current}/task`)) {
        const children = readFileSync(`/proc/${current}/task/${task}/children`, 'utf8').trim();
        if (children !== '') stack.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // The process ended between two reads.
    }
  }
  return total;
}

/** Spawns a process; resolves with wall ms from spawn to exit and the peak tree RSS. */
function timeProcess(args: readonly string[]): Promise<{ ms: number; peakBytes: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    let peakBytes = 0;
    const sampler = setInterval(() => {
      if (child.pid !== undefined) peakBytes = Math.max(peakBytes, treeRssBytes(child.pid));
    }, 20);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}`));
      else resolve({ ms, peakBytes, stdout });
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function table(rows: readonly (readonly Cell[])[]): QueryResult {
  return { columns: (rows[0] ?? []).map((_, i) => `c${i}`), rows, doubleQuoteFallback: false, executedSql: '', elapsedMs: 0 };
}

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** Times compareResults on the adversarial column-map cases; ms per comparison (median of 5). */
function columnMapTimes(): { name: string; ms: number; match: string }[] {
  const random = prng(42);
  const policy = resolvePolicy('default');
  const cases: { name: string; gold: Row[]; pred: Row[] }[] = [];
  const identical: Row[] = Array.from({ length: 10_000 }, (_, r) => Array.from({ length: 16 }, () => r % 997));
  cases.push({ name: '16 identical columns × 10 000 rows', gold: identical, pred: identical.map((row) => [...row]) });
  const wide: Row[] = Array.from({ length: 1000 }, (_, r) => Array.from({ length: 30 }, (_, c) => (r * 31 + c * 7) % 97));
  const perm = shuffle([...Array(30).keys()], random);
  cases.push({ name: '30 shuffled columns × 1 000 rows', gold: wide, pred: wide.map((row) => perm.map((p) => row[p]!)) });
  const lowCardinality: Row[] = Array.from({ length: 1000 }, () => Array.from({ length: 30 }, () => Math.floor(random() * 3)));
  const perm2 = shuffle([...Array(30).keys()], random);
  cases.push({ name: '30 shuffled columns of 3 values × 1 000 rows', gold: lowCardinality, pred: lowCardinality.map((row) => perm2.map((p) => row[p]!)) });
  const columns = (): number[] => shuffle([...Array(1000).keys()], random);
  const goldCols = Array.from({ length: 10 }, columns);
  const predCols = Array.from({ length: 10 }, columns);
  const toRows = (cols: number[][]): Row[] => Array.from({ length: 1000 }, (_, r) => cols.map((col) => col[r]!));
  cases.push({ name: '10 columns, equal value sets, rows differ × 1 000 rows', gold: toRows(goldCols), pred: toRows(predCols) });
  return cases.map(({ name, gold, pred }) => {
    const times: number[] = [];
    let match = '';
    for (let i = 0; i < 5; i += 1) {
      const start = performance.now();
      match = String(compareResults(table(gold), table(pred), policy).match);
      times.push(performance.now() - start);
    }
    return { name, ms: median(times), match };
  });
}

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const lines: string[] = [];
  const figures: Record<string, number> = {};
  const mapTimes = columnMapTimes();
  lines.push('column-map search (compareResults, default preset), median of 5:');
  mapTimes.forEach((entry, i) => {
    lines.push(`  ${entry.name}: ${entry.ms.toFixed(1)} ms (match ${entry.match})`);
    figures[`columnMapCase${i + 1}Ms`] = Math.round(entry.ms * 10) / 10;
  });
  if (!existsSync(SLICE) || !existsSync(CLI)) {
    lines.push(`slice CLI timing skipped: ${existsSync(SLICE) ? `${CLI} not built` : `${SLICE} not found`}`);
    return { name: 'compare', lines, figures };
  }
  const cliArgs = (preset: string): string[] => [
    CLI, 'spider', '--gold', path.join(SLICE, 'dev_gold.sql'), '--pred', path.join(SLICE, 'predictions', 'DINSQL.sql'),
    '--db', path.join(SLICE, 'database'), '--preset', preset,
  ];
  const floor: number[] = [];
  const floorPeak: number[] = [];
  const spider: number[] = [];
  const spiderPeak: number[] = [];
  const byDefault: number[] = [];
  const defaultPeak: number[] = [];
  let floorOutput = { statements: 0, ok: 0 };
  for (let i = 0; i < RUNS; i += 1) {
    const f = await timeProcess([thisFile, '--compare-bench=floor']);
    floor.push(f.ms);
    floorPeak.push(f.peakBytes);
    floorOutput = JSON.parse(f.stdout) as typeof floorOutput;
    const s = await timeProcess(cliArgs('spider'));
    spider.push(s.ms);
    spiderPeak.push(s.peakBytes);
    const d = await timeProcess(cliArgs('default'));
    byDefault.push(d.ms);
    defaultPeak.push(d.peakBytes);
  }
  const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
  figures['floorProcessMs'] = Math.round(median(floor));
  figures['spiderCliProcessMs'] = Math.round(median(spider));
  figures['defaultCliProcessMs'] = Math.round(median(byDefault));
  figures['spiderCliVsFloorRatio'] = Math.round((median(spider) / median(floor)) * 100) / 100;
  figures['defaultCliVsFloorRatio'] = Math.round((median(byDefault) / median(floor)) * 100) / 100;
  figures['floorPeakRssBytes'] = median(floorPeak);
  figures['spiderCliPeakRssBytes'] = median(spiderPeak);
  figures['defaultCliPeakRssBytes'] = median(defaultPeak);
  lines.push(
    `slice, DIN-SQL predictions, whole-process wall time and peak tree RSS, median of ${RUNS}:`,
    `  floor (one node process, better-sqlite3 directly, ${floorOutput.statements} statements, ${floorOutput.ok} executed): ${figures['floorProcessMs']} ms, ${mib(median(floorPeak))} MiB`,
    `  text2sql-ladder spider --preset spider:  ${figures['spiderCliProcessMs']} ms, ${mib(median(spiderPeak))} MiB — ×${figures['spiderCliVsFloorRatio']} the floor`,
    `  text2sql-ladder spider --preset default: ${figures['defaultCliProcessMs']} ms, ${mib(median(defaultPeak))} MiB — ×${figures['defaultCliVsFloorRatio']} the floor (adds tie queries)`,
    '  (the official Python evaluator: about 2.0 s for the slice on this machine, per the slice README)',
  );
  return { name: 'compare', lines, figures };
}

const mode = process.argv.find((arg) => arg.startsWith('--compare-bench='))?.slice('--compare-bench='.length);
if (mode === 'floor') runFloor();
