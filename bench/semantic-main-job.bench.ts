/**
 * The main job graded with L5 off and on. promptfooconfig.yaml's tests (the bundled warehouse
 * dataset through the test generator) and its two replay providers (the strong and weak
 * recordings), graded by the `ladder` assertion with the config's own ladder block (L6 on), as
 * promptfoo runs them: 4 rows at a time (promptfoo's default concurrency), one shared runtime per
 * pass, closed at its end as the ladder-summary extension closes it. Passes, in one process:
 *
 * 1. warm-up, L5 off (fixtures resolved, modules loaded; not timed);
 * 2. L5 off;
 * 3. L5 on (`semantic: true`, the commented line of the config), an empty suite cache: the first
 *    run of a dataset, every item building the suite of its own golds;
 * 4. L5 on again, in a fresh runtime over the same suite cache: every later run.
 * 5. L5 on over the same cache with `search: false` (the suite only): the search's own share,
 *    the main job with the search on vs off.
 *
 * promptfoo's own work per row (prompt rendering, storing results) is not in these times; it adds
 * the same to each pass, so the ratios here are upper bounds of what L5 does to `npm run eval`.
 * Prints pass counts per run, the items L5 rejects, the wall times and the ratios with the load
 * average before and after (one run).
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
import type { BenchReport } from './report.js';
import { END_TO_END, SCORES } from '../src/rungs/scores.js';

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
    const started = performance.now();
    const graded = await pool(rows, PROMPTFOO_CONCURRENCY, async ({ label, provider, test }) => {
      const response = await provider.callApi('', { vars: test.vars });
      if ('error' in response) throw new Error(`${label} ${String(test.vars['id'])}: ${response.error}`);
      const context = { vars: test.vars, test: { metadata: test.metadata }, config: ladderConfig, providerResponse: { metadata: response.metadata } } as unknown as AssertionContext;
      return { provider: label, id: String(test.vars['id']), result: await ladder(response.output, context) };
    });
    await closeSharedEngine();
    return { ms: performance.now() - started, rows: graded };
  };

  try {
    const off = generator.ladder;
    const on = { ...generator.ladder, semantic: { cacheDir } };
    const loadBefore = loadAverage();
    await pass(off);
    const offPass = await pass(off);
    const cold = await pass(on);
    const warm = await pass(on);
    const warmSuiteOnly = await pass({ ...generator.ladder, semantic: { cacheDir, search: false } });
    const loadAfter = loadAverage();

    const lines: string[] = [];
    const times = { offSeconds: offPass.ms / 1000, onColdSeconds: cold.ms / 1000, onWarmSeconds: warm.ms / 1000, coldVsOffRatio: cold.ms / offPass.ms, warmVsOffRatio: warm.ms / offPass.ms, warmSuiteOnlySeconds: warmSuiteOnly.ms / 1000, searchOnVsOffRatio: warm.ms / warmSuiteOnly.ms };
    const figures: Record<string, number> = { rows: rows.length, ...times };
    lines.push(`${tests.length} tests x ${providers.length} providers, ${PROMPTFOO_CONCURRENCY} rows at a time`);
    lines.push(`L5 off ${times.offSeconds.toFixed(1)} s; L5 on, empty suite cache ${times.onColdSeconds.toFixed(1)} s (${times.coldVsOffRatio.toFixed(1)}x); L5 on, warm cache ${times.onWarmSeconds.toFixed(1)} s (${times.warmVsOffRatio.toFixed(1)}x); the search's share: warm with the search ${times.onWarmSeconds.toFixed(1)} s vs warm suite only (search: false) ${times.warmSuiteOnlySeconds.toFixed(1)} s (${times.searchOnVsOffRatio.toFixed(1)}x)`);
    const [l4, l5] = [SCORES.execution.scoreName, SCORES.semantic.scoreName];
    for (const { label } of providers) {
      const score = (p: PassOutcome, name: string): number =>
        p.rows.filter((r) => r.provider === label && (name === END_TO_END ? r.result.namedScores?.[name] === 1 : statusOf(r.result, name) === 'pass')).length;
      const rejected = (p: PassOutcome): string[] =>
        p.rows.filter((r) => r.provider === label && statusOf(r.result, l5) === 'fail').map((r) => `${r.id} (${rejectedBy(r.result)})`);
      const l5Scored = cold.rows.filter((r) => r.provider === label && ['pass', 'fail'].includes(statusOf(r.result, l5) ?? '')).length;
      lines.push(
        `${label}: L4 pass ${score(offPass, l4)}, L5 pass ${score(cold, l5)}/${l5Scored} (warm ${score(warm, l5)}), end_to_end off ${score(offPass, END_TO_END)} / on ${score(cold, END_TO_END)} of ${tests.length}; L5 rejects ${rejected(cold).join(', ') || 'none'}${rejected(warm).join(',') === rejected(cold).join(',') ? '' : ` (warm: ${rejected(warm).join(', ')})`}`,
      );
      figures[`${label}L4Pass`] = score(offPass, l4);
      figures[`${label}L5Pass`] = score(cold, l5);
      figures[`${label}EndToEndOff`] = score(offPass, END_TO_END);
      figures[`${label}EndToEndOn`] = score(cold, END_TO_END);
    }
    lines.push(`load average before / after: ${loadBefore} / ${loadAfter}`);
    return { name: 'semantic-main-job', lines, figures };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
