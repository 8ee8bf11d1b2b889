/**
 * `npm run bench compare` → column-map search time on adversarial tables: many identical columns,
 * 30 shuffled columns, columns whose value sets coincide but rows do not. (The Spider CLI's
 * whole-process figures against the raw floor are in speed.bench.ts.)
 */
import { performance } from 'node:perf_hooks';
import { compareResults } from '../src/compare/compare-results.js';
import { resolvePolicy } from '../src/compare/policy.js';
import type { Cell, QueryResult, Row } from '../src/engine/engine.js';
import type { BenchReport } from './report.js';

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
  return { name: 'compare', lines, figures };
}
