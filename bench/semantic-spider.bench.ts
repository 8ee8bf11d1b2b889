/**
 * `spider --test-suite` against the same run without it, whole commands (the built CLI, spawn to
 * exit), on the shared Spider slice (SPIDER_SLICE_DIR) with the DIN-SQL predictions and
 * `--preset spider`:
 * 1. without `--test-suite` (after one untimed run that warms the file cache);
 * 2. with `--test-suite`, cold: an empty cache folder (`TEXT2SQL_LADDER_CACHE_DIR`), so every suite
 *    is built and every verdict judged;
 * 3. with `--test-suite` again on the caches the first run left: suites and verdicts read back.
 *
 * Targets: cold ≤ ×40, rerun ≤ ×3 the run without `--test-suite`. Each ratio is printed with the
 * load average before and after its run, and the two L5 runs' outputs are checked to be the same.
 * `BENCH_SPIDER_ITEMS=n` keeps the slice's first n items (default: all).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findPackageRoot } from '../src/fixtures/package-root.js';
import type { BenchReport } from './report.js';
import { targetNote } from './targets.js';
import { loadAverage, timeProcess, type ProcessRun } from './whole-process.js';

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const root = findPackageRoot();
  const slice = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? path.join(root, '../shared/data/spider-dev-slice'));
  if (!existsSync(path.join(slice, 'dev_gold.sql'))) return { name: 'semantic-spider', lines: [`Spider slice not found at ${slice}: skipped`], figures: {} };
  const work = mkdtempSync(path.join(os.tmpdir(), 'ladder-bench-spider-ts-'));
  try {
    const limit = Number(process.env['BENCH_SPIDER_ITEMS'] ?? Infinity);
    const cut = (file: string, name: string): string => {
      const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '');
      const out = path.join(work, name);
      writeFileSync(out, `${lines.slice(0, Number.isFinite(limit) ? limit : lines.length).join('\n')}\n`);
      return out;
    };
    const gold = cut(path.join(slice, 'dev_gold.sql'), 'gold.sql');
    const pred = cut(path.join(slice, 'predictions', 'DINSQL.sql'), 'pred.sql');
    const items = readFileSync(gold, 'utf8').trim().split('\n').length;
    const cli = path.join(root, 'dist', 'cli', 'text2sql-ladder.js');
    const cache = path.join(work, 'cache');
    const env = { ...process.env, TEXT2SQL_LADDER_CACHE_DIR: cache };
    const args = (testSuite: boolean, out: string): string[] => [cli, 'spider', '--gold', gold, '--pred', pred, '--db', path.join(slice, 'database'), '--preset', 'spider', '--out', out, ...(testSuite ? ['--test-suite'] : [])];
    const timed = async (testSuite: boolean, out: string): Promise<{ run: ProcessRun; load: string }> => {
      const before = loadAverage();
      const run = await timeProcess({ command: process.execPath, args: args(testSuite, path.join(work, out)), env });
      return { run, load: `${before} → ${loadAverage()}` };
    };
    await timed(false, 'warm.jsonl');
    const plain = await timed(false, 'plain.jsonl');
    const cold = await timed(true, 'cold.jsonl');
    const rerun = await timed(true, 'rerun.jsonl');
    const verdicts = (out: string): string => {
      const lines = readFileSync(path.join(work, out), 'utf8').trim().split('\n');
      return JSON.stringify(lines.map((line) => (JSON.parse(line) as { semantic?: unknown }).semantic ?? null));
    };
    const same = verdicts('cold.jsonl') === verdicts('rerun.jsonl');
    const figures = {
      items,
      plainMs: Math.round(plain.run.ms),
      coldMs: Math.round(cold.run.ms),
      rerunMs: Math.round(rerun.run.ms),
      coldVsPlainRatio: cold.run.ms / plain.run.ms,
      rerunVsPlainRatio: rerun.run.ms / plain.run.ms,
      sameVerdicts: same ? 1 : 0,
    };
    const x = (value: number): string => `×${value.toFixed(1)}`;
    return {
      name: 'semantic-spider',
      lines: [
        `spider --preset spider, DIN-SQL predictions, ${items} items; without --test-suite ${figures.plainMs} ms (${plain.load})`,
        `  --test-suite cold (empty cache folder): ${figures.coldMs} ms, ${x(figures.coldVsPlainRatio)} (${targetNote(Number(figures.coldVsPlainRatio.toFixed(1)), { max: 40 })}; ${cold.load})`,
        `  --test-suite rerun on the caches the first run left: ${figures.rerunMs} ms, ${x(figures.rerunVsPlainRatio)} (${targetNote(Number(figures.rerunVsPlainRatio.toFixed(1)), { max: 3 })}; ${rerun.load})`,
        `  L5 verdicts of the two --test-suite runs the same: ${same ? 'yes' : 'NO'}`,
      ],
      figures,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
