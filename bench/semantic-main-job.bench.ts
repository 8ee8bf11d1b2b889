/**
 * The main job graded with L5 off and on. promptfooconfig.yaml's tests (the bundled warehouse
 * dataset through the test generator) and its two replay providers (the strong and weak
 * recordings), graded by the `ladder` assertion with the config's own ladder block (L6 on), as
 * promptfoo runs them: 4 rows at a time (promptfoo's default concurrency), one shared runtime per
 * pass, closed at its end as the ladder-summary extension closes it. Passes, in one process:
 *
 * 1. warm-up, L5 off (fixtures resolved, modules loaded; not timed);
 * 2. L5 off;
 * 3. L5 on (`semantic: true`, the commented line of the config), cold: an empty suite cache and an
 *    empty verdict cache — the first run of a dataset, every item building the suite of its golds;
 * 4. L5 on in a fresh runtime, the suites cached and the verdict cache emptied: the first run of a
 *    new model (every prediction judged, no suite built);
 * 5. L5 on again over both caches: the rerun of an unchanged run (every verdict a lookup);
 * 6. L5 on over the suite cache with `search: false` and no verdict cache: the search's share.
 *
 * Targets (L5 on against L5 off): cold ≤ ×10, suites cached ≤ ×3, rerun ≤ ×1.2. Each ratio is
 * printed with the load average before and after its pass (the machine is shared), and the
 * L5 verdicts of passes 3–5 are checked to be the same row by row (status and reason).
 *
 * promptfoo's own work per row (prompt rendering, storing results) is not in these times; it adds
 * the same to each pass, so the ratios here are upper bounds of what L5 does to `npm run eval`.
 * Prints pass counts per run, the items L5 rejects, the wall times and the ratios with the load
 * average before and after (one run), and the CPU of the L5-off, cold and suites-cached passes by
 * where it ran (this process, the engine's children, the draw children; from `/proc`, on Linux).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse } from 'yaml';
import { ladder } from '../assertions/ladder.js';
import { findPackageRoot } from '../src/fixtures/package-root.js';
import type { AssertionContext, GradingResult } from '../src/promptfoo/adapter.js';
import { loadTests, type PromptfooTestCase } from '../src/promptfoo/dataset-tests.js';
import ReplayProvider from '../src/promptfoo/replay-provider.js';
import { closeSharedEngine } from '../src/promptfoo/runtime.js';
import { drawChildPids } from '../src/semantic/generation/draw-children.js';
import type { BenchReport } from './report.js';
import { END_TO_END, SCORES } from '../src/rungs/scores.js';
import { targetNote } from './targets.js';

/** promptfoo's default number of rows evaluated at once. */
const PROMPTFOO_CONCURRENCY = 4;

interface MainJobConfig {
  readonly providers: readonly { readonly label: string; readonly config: { readonly predictions: string } }[];
  readonly tests: readonly { readonly config: { readonly file: string; readonly ladder: Record<string, unknown> } }[];
}

interface RowOutcome {
  readonly provider: string;
  readonly id: string;
  readonly result: GradingResult;
}

interface PassOutcome {
  readonly ms: number;
  readonly rows: readonly RowOutcome[];
  /** CPU the pass used, by process kind. */
  readonly cpu: CpuSplit | undefined;
}

/** Runs `work` over `items`, `limit` at a time, results in input order. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** A rung's status in the row's ladder metadata (a skipped rung scores 0 in `namedScores`, so counts read statuses). */
function statusOf(result: GradingResult, scoreName: string): string | undefined {
  return (result.metadata?.['text2sqlLadder'] as { statuses?: Record<string, string> } | undefined)?.statuses?.[scoreName];
}

/** Which L5 step rejected a row: the distilled suite, or the counterexample search alone. */
function rejectedBy(result: GradingResult): 'suite' | 'search' {
  const rungs = (result.metadata?.['text2sqlLadder'] as { rungs?: { rung: string; details?: { suite?: { status?: string } | null } }[] } | undefined)?.rungs ?? [];
  return rungs.find((r) => r.rung === 'semantic')?.details?.suite?.status === 'fail' ? 'suite' : 'search';
}

const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** CPU seconds so far: this process, its children it has reaped (the engine's, closed after each pass), the draw children still running. */
interface CpuSplit {
  readonly process: number;
  readonly engine: number;
  readonly draws: number;
}

/** Clock ticks per second of `/proc/<pid>/stat` (Linux's USER_HZ). */
const TICKS = 100;

/** {@link CpuSplit} now, from `/proc`; undefined where it cannot be read (not Linux). */
function cpuNow(): CpuSplit | undefined {
  const fields = (pid: number | 'self'): string[] => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  try {
    const self = fields('self');
    let draws = 0;
    for (const pid of drawChildPids()) {
      const child = fields(pid);
      draws += (Number(child[11]) + Number(child[12])) / TICKS;
    }
    return { process: (Number(self[11]) + Number(self[12])) / TICKS, engine: (Number(self[13]) + Number(self[14])) / TICKS, draws };
  } catch {
    return undefined;
  }
}

/** The CPU a pass used, by where it ran (`undefined` without `/proc`). */
function cpuSpent(before: CpuSplit | undefined, after: CpuSplit | undefined): CpuSplit | undefined {
  if (before === undefined || after === undefined) return undefined;
  // A draw child that started during the pass counts from zero.
  return { process: after.process - before.process, engine: after.engine - before.engine, draws: Math.max(0, after.draws - before.draws) };
}

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const root = findPackageRoot();
  const config = parse(readFileSync(path.join(root, 'promptfooconfig.yaml'), 'utf8')) as MainJobConfig;
  const generator = config.tests[0]!.config;
  const tests = (await loadTests({ ...generator, file: path.join(root, generator.file) })) as PromptfooTestCase[];
  const providers = config.providers.map((p) => ({ label: p.label, provider: new ReplayProvider({ config: { predictions: path.join(root, p.config.predictions) } }) }));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'ladder-bench-main-job-'));
  const rows = providers.flatMap((p) => tests.map((test) => ({ ...p, test })));

  const pass = async (ladderConfig: Record<string, unknown>): Promise<PassOutcome> => {
    const cpuBefore = cpuNow();
    const started = performance.now();
    const graded = await pool(rows, PROMPTFOO_CONCURRENCY, async ({ label, provider, test }) => {
      const response = await provider.callApi('', { vars: test.vars });
      if ('error' in response) throw new Error(`${label} ${String(test.vars['id'])}: ${response.error}`);
      const context = { vars: test.vars, test: { metadata: test.metadata }, config: ladderConfig, providerResponse: { metadata: response.metadata } } as unknown as AssertionContext;
      return { provider: label, id: String(test.vars['id']), result: await ladder(response.output, context) };
    });
    await closeSharedEngine();
    return { ms: performance.now() - started, rows: graded, cpu: cpuSpent(cpuBefore, cpuNow()) };
  };

  try {
    const off = generator.ladder;
    const on = { ...generator.ladder, semantic: { cacheDir } };
    const timed = async (ladderConfig: Record<string, unknown>): Promise<PassOutcome & { load: string }> => {
      const before = loadAverage();
      const outcome = await pass(ladderConfig);
      return { ...outcome, load: `${before} → ${loadAverage()}` };
    };
    await pass(off);
    const offPass = await timed(off);
    const cold = await timed(on);
    rmSync(path.join(cacheDir, 'verdicts'), { recursive: true, force: true });
    const suitesCached = await timed(on);
    const rerun = await timed(on);
    const suiteOnly = await timed({ ...generator.ladder, semantic: { cacheDir, search: false, verdictCache: false } });

    const ratio = (p: PassOutcome): number => p.ms / offPass.ms;
    const lines: string[] = [];
    const figures: Record<string, number> = {
      rows: rows.length,
      offSeconds: offPass.ms / 1000,
      coldSeconds: cold.ms / 1000,
      suitesCachedSeconds: suitesCached.ms / 1000,
      rerunSeconds: rerun.ms / 1000,
      suiteOnlySeconds: suiteOnly.ms / 1000,
      coldVsOffRatio: ratio(cold),
      suitesCachedVsOffRatio: ratio(suitesCached),
      rerunVsOffRatio: ratio(rerun),
      searchShareRatio: suitesCached.ms / suiteOnly.ms,
    };
    const l5Verdicts = (p: PassOutcome): string[] => p.rows.map((r) => {
      const rung = (r.result.metadata?.['text2sqlLadder'] as { rungs?: { rung: string; status?: string; reason?: string }[] } | undefined)?.rungs?.find((x) => x.rung === 'semantic');
      return `${r.provider} ${r.id} ${rung?.status ?? '-'} ${rung?.reason ?? ''}`;
    });
    // What the verdict cache did per pass: hits, stores, and why a verdict was not stored.
    const cacheUse = (p: PassOutcome): string => {
      const counts = new Map<string, number>();
      for (const r of p.rows) {
        const rung = (r.result.metadata?.['text2sqlLadder'] as { rungs?: { rung: string; details?: { verdictCache?: { status: string; reason?: string } } }[] } | undefined)?.rungs?.find((x) => x.rung === 'semantic');
        const use = rung?.details?.verdictCache;
        if (use === undefined) continue;
        const name = use.reason === undefined ? use.status : `${use.status} (${use.reason})`;
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      return [...counts].map(([name, n]) => `${n} ${name}`).join(', ') || 'no L5 verdict';
    };
    const sameVerdicts = l5Verdicts(cold).join('\n') === l5Verdicts(suitesCached).join('\n') && l5Verdicts(cold).join('\n') === l5Verdicts(rerun).join('\n');
    const x = (value: number): string => `×${value.toFixed(2)}`;
    lines.push(`${tests.length} tests x ${providers.length} providers, ${PROMPTFOO_CONCURRENCY} rows at a time; L5 off ${figures['offSeconds']!.toFixed(1)} s (load ${offPass.load})`);
    lines.push(`  cold (suite and verdict caches empty): ${figures['coldSeconds']!.toFixed(1)} s, ${x(figures['coldVsOffRatio']!)} L5 off (${targetNote(Number(figures['coldVsOffRatio']!.toFixed(2)), { max: 10 })}; load ${cold.load})`);
    lines.push(`  suites cached, verdict cache empty: ${figures['suitesCachedSeconds']!.toFixed(1)} s, ${x(figures['suitesCachedVsOffRatio']!)} (${targetNote(Number(figures['suitesCachedVsOffRatio']!.toFixed(2)), { max: 3 })}; load ${suitesCached.load})`);
    lines.push(`  rerun, both caches: ${figures['rerunSeconds']!.toFixed(1)} s, ${x(figures['rerunVsOffRatio']!)} (${targetNote(Number(figures['rerunVsOffRatio']!.toFixed(2)), { max: 1.2 })}; load ${rerun.load})`);
    lines.push(`  the search's share: suites cached with the search ${figures['suitesCachedSeconds']!.toFixed(1)} s vs the suite only ${figures['suiteOnlySeconds']!.toFixed(1)} s (${x(figures['searchShareRatio']!)}; load ${suiteOnly.load})`);
    // Where the CPU went: what is left when a target is missed.
    const split = (name: string, key: string, p: PassOutcome): void => {
      if (p.cpu === undefined) return;
      const total = p.cpu.process + p.cpu.engine + p.cpu.draws;
      const share = (part: number): string => `${total > 0 ? Math.round((100 * part) / total) : 0} %`;
      lines.push(`  CPU ${name}: ${total.toFixed(1)} s — this process ${p.cpu.process.toFixed(1)} s (${share(p.cpu.process)}), engine children ${p.cpu.engine.toFixed(1)} s (${share(p.cpu.engine)}), draw children ${p.cpu.draws.toFixed(1)} s (${share(p.cpu.draws)})`);
      figures[`${key}CpuSeconds`] = total;
      figures[`${key}DrawCpuShare`] = total > 0 ? p.cpu.draws / total : 0;
    };
    split('L5 off', 'off', offPass);
    split('cold', 'cold', cold);
    split('suites cached', 'suitesCached', suitesCached);
    lines.push(`  verdict cache: cold ${cacheUse(cold)}; suites cached ${cacheUse(suitesCached)}; rerun ${cacheUse(rerun)}`);
    lines.push(`  L5 verdicts (status and reason, row by row) the same cold, suites cached and from the verdict cache: ${sameVerdicts ? 'yes' : 'NO (a verdict a time budget stopped is neither cached nor reproducible: see the verdict cache line)'}`);
    const [l4, l5] = [SCORES.execution.scoreName, SCORES.semantic.scoreName];
    for (const { label } of providers) {
      const score = (p: PassOutcome, name: string): number =>
        p.rows.filter((r) => r.provider === label && (name === END_TO_END ? r.result.namedScores?.[name] === 1 : statusOf(r.result, name) === 'pass')).length;
      const rejected = (p: PassOutcome): string[] =>
        p.rows.filter((r) => r.provider === label && statusOf(r.result, l5) === 'fail').map((r) => `${r.id} (${rejectedBy(r.result)})`);
      const l5Scored = cold.rows.filter((r) => r.provider === label && ['pass', 'fail'].includes(statusOf(r.result, l5) ?? '')).length;
      lines.push(
        `${label}: L4 pass ${score(offPass, l4)}, L5 pass ${score(cold, l5)}/${l5Scored}, end_to_end off ${score(offPass, END_TO_END)} / on ${score(cold, END_TO_END)} of ${tests.length}; L5 rejects ${rejected(cold).join(', ') || 'none'}`,
      );
      figures[`${label}L4Pass`] = score(offPass, l4);
      figures[`${label}L5Pass`] = score(cold, l5);
      figures[`${label}EndToEndOff`] = score(offPass, END_TO_END);
      figures[`${label}EndToEndOn`] = score(cold, END_TO_END);
    }
    figures['sameVerdicts'] = sameVerdicts ? 1 : 0;
    return { name: 'semantic-main-job', lines, figures };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
