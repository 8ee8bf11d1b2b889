/**
 * `npm run bench speed` → whole-process speed figures, from one run, each the median of
 * BENCH_RUNS (default 5) alternating runs after a warm-up, with the load average:
 * 1. The Spider CLI on the shared Spider slice (gold + DIN-SQL predictions), `--preset spider` and
 *    `--preset default`, against the raw floor (raw-floor.ts: one Node process, better-sqlite3,
 *    `prepare().raw().all()` per gold and prediction, the same legacy double-quote retry).
 * 2. Start-up: `--version` and `check` of one query against `node -e 0`.
 * 3. The main job (promptfooconfig.yaml) against the promptfoo floor: the same config with the
 *    ladder taken out (same prompts, providers, vars and test loader; the assertion
 *    `javascript: true`; no extensions). The main job runs twice per round: with the parse store
 *    (filled by the warm-up run, as by a user's previous run) and with it off.
 * 4. Scale: the slice repeated to 500, 1 000, 2 500, 5 000 and 10 000 items (each copy a distinct
 *    text, so that no cache answers it) with `--preset spider`: items/s and peak RSS of the process
 *    tree at 10 000, and the marginal cost per item 500→2 500 against 2 500→10 000 (the target);
 *    the cost per item of each step between sizes shows where it changes (a warm-up falls over the
 *    first steps and then stays flat; a cost that grows with the run's length rises in the last).
 *    Beside it, alternated in the same rounds, the single-process control (in-process-spider.ts) at
 *    500, 2 500 and 10 000, whose marginal ratio is the per-item code's alone.
 * Ratios are the median of the round-by-round ratios. Skipped with a message when the slice is
 * missing (the start-up and main-job figures do not need it).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import type { BenchReport } from './report.js';
import { targetNote } from './targets.js';
import { alternate, loadAverage, median, medianCpuMs, pairedCpuRatio, pairedRatio, round2, type ProcessRun, type ProcessSpec } from './whole-process.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Repository root: this file runs from dist/bench/. */
const root = path.resolve(here, '../..');
const SLICE = path.resolve(process.env['SPIDER_SLICE_DIR'] ?? path.join(root, '../shared/data/spider-dev-slice'));
const CLI = path.join(root, 'dist/cli/text2sql-ladder.js');
const FLOOR = path.join(here, 'raw-floor.js');
const IN_PROCESS = path.join(here, 'in-process-spider.js');
const RUNS = Math.max(1, Number(process.env['BENCH_RUNS'] ?? 5));
const node = process.execPath;

const ms = (runs: readonly ProcessRun[]): number => Math.round(median(runs.map((run) => run.ms)));
const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
/** `10000` → `10 000`, as the other lines write item counts. */
const grouped = (count: number): string => String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

/**
 * ` (CPU 1 118 ms)` or, against a floor, ` (CPU 1 118 ms, ×6.9 the floor's)`: the median user +
 * system CPU of the process tree, and the median round-by-round CPU ratio; records both in
 * `figures` under `${key}CpuMs` / `${key}CpuRatio`. Empty where the CPU cannot be measured.
 */
function cpuNote(figures: Record<string, number>, key: string, runs: readonly ProcessRun[], floor?: readonly ProcessRun[]): string {
  const cpu = medianCpuMs(runs);
  if (cpu === undefined) return '';
  figures[`${key}CpuMs`] = cpu;
  const ratio = floor === undefined ? undefined : pairedCpuRatio(runs, floor);
  if (ratio === undefined) return ` (CPU ${cpu} ms)`;
  figures[`${key}CpuRatio`] = round2(ratio);
  return ` (CPU ${cpu} ms, ×${round2(ratio)} the floor's)`;
}

/** Spider CLI arguments on a gold / prediction file pair. */
function spiderArgs(gold: string, pred: string, preset: string): string[] {
  return [CLI, 'spider', '--gold', gold, '--pred', pred, '--db', path.join(SLICE, 'database'), '--preset', preset];
}

/**
 * Copy `copy` (0-based) of a statement: `copy` extra spaces after its first word. SQLite reads
 * every copy the same way, but each copy is a new text, so no copy is answered from the gold-result
 * cache or a parse cache: with the slice repeated verbatim, later items would cost less for that
 * reason alone, and the marginal cost per item would fall with the run's size.
 */
export function distinctCopy(sql: string, copy: number): string {
  return copy === 0 ? sql : sql.replace(/\s/, (space) => space + ' '.repeat(copy));
}

/** Writes the slice's gold and DIN-SQL lines repeated to `count` items (each copy distinct, see {@link distinctCopy}); returns the two files. */
function repeatedSlice(dir: string, count: number): { gold: string; pred: string } {
  const gold = readFileSync(path.join(SLICE, 'dev_gold.sql'), 'utf8').split('\n').filter((line) => line.trim() !== '');
  const pred = readFileSync(path.join(SLICE, 'predictions', 'DINSQL.sql'), 'utf8').split('\n').slice(0, gold.length);
  const files = { gold: path.join(dir, `gold-${count}.sql`), pred: path.join(dir, `pred-${count}.sql`) };
  const copyOf = (i: number): number => Math.floor(i / gold.length);
  writeFileSync(files.gold, `${Array.from({ length: count }, (_, i) => distinctCopy(gold[i % gold.length]!, copyOf(i))).join('\n')}\n`);
  writeFileSync(files.pred, `${Array.from({ length: count }, (_, i) => distinctCopy(pred[i % gold.length]!, copyOf(i))).join('\n')}\n`);
  return files;
}

/** A promptfoo eval of `config` with its own state folder and output (the environment of scripts/eval.sh, plus `env`). */
function promptfooSpec(config: string, work: string, tag: string, env: NodeJS.ProcessEnv = {}): ProcessSpec {
  const state = path.join(work, `state-${tag}`);
  const script = [
    '. scripts/promptfoo-env.sh',
    `export PROMPTFOO_CONFIG_DIR=${JSON.stringify(state)} LADDER_SUMMARY_JSON=${JSON.stringify(path.join(work, `${tag}-summary.json`))}`,
    `mkdir -p "$PROMPTFOO_CONFIG_DIR"`,
    `exec "$PROMPTFOO_BIN" eval -c ${JSON.stringify(config)} --no-cache --no-progress-bar --no-table -o ${JSON.stringify(path.join(work, `${tag}.json`))}`,
  ].join('; ');
  return { command: 'bash', args: ['-c', script], cwd: root, env: { ...process.env, ...env } };
}

/**
 * The promptfoo floor config: promptfooconfig.yaml with the ladder taken out — the same prompts,
 * providers, `defaultTest` vars and test loader, each test's assertion `javascript: true`, and no
 * extensions. Relative paths become absolute, since the floor is written to `work`.
 */
export function promptfooFloorConfig(work: string): string {
  const main = parse(readFileSync(path.join(root, 'promptfooconfig.yaml'), 'utf8')) as {
    prompts: { id: string }[];
    providers: { id: string; config?: { predictions?: string } }[];
    tests: { path: string; config: { file: string } }[];
    extensions?: unknown;
  };
  const absolute = (id: string): string => id.replace(/^file:\/\/(?!\/)/, `file://${root}/`);
  const floor = {
    ...main,
    prompts: main.prompts.map((prompt) => ({ ...prompt, id: absolute(prompt.id) })),
    providers: main.providers.map((provider) => ({
      ...provider,
      id: absolute(provider.id),
      ...(provider.config?.predictions !== undefined ? { config: { ...provider.config, predictions: path.resolve(root, provider.config.predictions) } } : {}),
    })),
    tests: main.tests.map((test) => ({
      path: absolute(test.path),
      config: { file: path.resolve(root, test.config.file), assert: [{ type: 'javascript', value: 'true' }] },
    })),
  };
  delete floor.extensions;
  const file = path.join(work, 'floor.yaml');
  writeFileSync(file, stringify(floor));
  return file;
}

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const lines: string[] = [];
  const figures: Record<string, number> = {};
  const work = mkdtempSync(path.join(os.tmpdir(), 'ladder-speed-bench-'));
  const load = loadAverage;
  try {
    // 2. Start-up.
    const query = path.join(work, 'query.sql');
    writeFileSync(query, 'SELECT count(*) FROM products\n');
    const startup = await alternate(
      {
        bare: { command: node, args: ['-e', '0'] },
        version: { command: node, args: [CLI, '--version'] },
        check: { command: node, args: [CLI, 'check', '--db', 'warehouse'], stdinFile: query, cwd: root },
      },
      RUNS,
    );
    figures['nodeBareMs'] = ms(startup.bare);
    figures['versionMs'] = ms(startup.version);
    figures['checkMs'] = ms(startup.check);
    figures['versionVsNodeRatio'] = round2(pairedRatio(startup.version, startup.bare));
    figures['checkVsNodeRatio'] = round2(pairedRatio(startup.check, startup.bare));
    lines.push(
      `start-up, median of ${RUNS} alternating runs (${load()}):`,
      `  node -e 0: ${figures['nodeBareMs']} ms${cpuNote(figures, 'nodeBare', startup.bare)}`,
      `  text2sql-ladder --version: ${figures['versionMs']} ms — ×${figures['versionVsNodeRatio']} node -e 0 (${targetNote(figures['versionVsNodeRatio']!, { max: 2 })})${cpuNote(figures, 'version', startup.version, startup.bare)}`,
      `  text2sql-ladder check --db warehouse (one query on stdin): ${figures['checkMs']} ms — ×${figures['checkVsNodeRatio']} node -e 0 (${targetNote(figures['checkVsNodeRatio']!, { max: 6 })})${cpuNote(figures, 'check', startup.check, startup.bare)}`,
    );

    // 3. Main job against the promptfoo floor.
    // The main job's caches (parse store, parser code cache, fixture builds) in a folder of the
    // bench's own: the warm-up run fills them, as a user's first run does.
    const caches = { TEXT2SQL_LADDER_CACHE_DIR: path.join(work, 'cache') };
    const mainConfig = path.join(root, 'promptfooconfig.yaml');
    const jobs = await alternate(
      {
        floor: promptfooSpec(promptfooFloorConfig(work), work, 'floor'),
        main: promptfooSpec(mainConfig, work, 'main', caches),
        mainStoreOff: promptfooSpec(mainConfig, work, 'main-store-off', { ...caches, TEXT2SQL_LADDER_PARSE_STORE: 'off' }),
      },
      RUNS,
    );
    figures['promptfooFloorMs'] = ms(jobs.floor);
    figures['mainJobMs'] = ms(jobs.main);
    figures['mainJobVsPromptfooFloorRatio'] = round2(pairedRatio(jobs.main, jobs.floor));
    figures['mainJobStoreOffMs'] = ms(jobs.mainStoreOff);
    figures['mainJobStoreOffVsPromptfooFloorRatio'] = round2(pairedRatio(jobs.mainStoreOff, jobs.floor));
    lines.push(
      `main job, median of ${RUNS} alternating runs (${load()}):`,
      `  promptfoo floor (same prompt, replay providers and loader; assertion javascript: true): ${figures['promptfooFloorMs']} ms${cpuNote(figures, 'promptfooFloor', jobs.floor)}`,
      `  main job (promptfooconfig.yaml, compiled dist/; parse store from the previous run): ${figures['mainJobMs']} ms — ×${figures['mainJobVsPromptfooFloorRatio']} the floor (${targetNote(figures['mainJobVsPromptfooFloorRatio']!, { max: 1.3 })})${cpuNote(figures, 'mainJob', jobs.main, jobs.floor)}`,
      `  main job, parse store off (every text parsed, as on a first run): ${figures['mainJobStoreOffMs']} ms — ×${figures['mainJobStoreOffVsPromptfooFloorRatio']} the floor${cpuNote(figures, 'mainJobStoreOff', jobs.mainStoreOff, jobs.floor)}`,
    );

    if (!existsSync(SLICE)) {
      lines.push(`Spider CLI and scale figures skipped: ${SLICE} not found`);
      return { name: 'speed', lines, figures };
    }
    // 1. Spider CLI against the raw floor.
    const gold = path.join(SLICE, 'dev_gold.sql');
    const pred = path.join(SLICE, 'predictions', 'DINSQL.sql');
    const cli = await alternate(
      {
        floor: { command: node, args: [FLOOR, gold, pred, path.join(SLICE, 'database')] },
        spider: { command: node, args: spiderArgs(gold, pred, 'spider') },
        byDefault: { command: node, args: spiderArgs(gold, pred, 'default') },
      },
      RUNS,
    );
    const floorOutput = JSON.parse(cli.floor[0]!.stdout) as { statements: number; ok: number };
    figures['rawFloorMs'] = ms(cli.floor);
    figures['spiderPresetMs'] = ms(cli.spider);
    figures['defaultPresetMs'] = ms(cli.byDefault);
    figures['spiderPresetVsFloorRatio'] = round2(pairedRatio(cli.spider, cli.floor));
    figures['defaultPresetVsFloorRatio'] = round2(pairedRatio(cli.byDefault, cli.floor));
    lines.push(
      `Spider CLI on the slice (507 items, DIN-SQL), median of ${RUNS} alternating runs (${load()}):`,
      `  raw floor (one node process, better-sqlite3, prepare().raw().all(), legacy double-quote retry; ${floorOutput.statements} statements, ${floorOutput.ok} executed): ${figures['rawFloorMs']} ms${cpuNote(figures, 'rawFloor', cli.floor)}`,
      `  spider --preset spider:  ${figures['spiderPresetMs']} ms, ${mib(median(cli.spider.map((r) => r.peakTreeBytes)))} MiB tree — ×${figures['spiderPresetVsFloorRatio']} the floor (${targetNote(figures['spiderPresetVsFloorRatio']!, { max: 2.5 })})${cpuNote(figures, 'spiderPreset', cli.spider, cli.floor)}`,
      `  spider --preset default: ${figures['defaultPresetMs']} ms, ${mib(median(cli.byDefault.map((r) => r.peakTreeBytes)))} MiB tree — ×${figures['defaultPresetVsFloorRatio']} the floor (${targetNote(figures['defaultPresetVsFloorRatio']!, { max: 3.5 })})${cpuNote(figures, 'defaultPreset', cli.byDefault, cli.floor)}`,
    );

    // 4. Scale.
    const sizes = [500, 2_500, 10_000] as const;
    const steps = [500, 1_000, 2_500, 5_000, 10_000] as const;
    type Size = (typeof steps)[number];
    const files = Object.fromEntries(steps.map((size) => [size, repeatedSlice(work, size)])) as Record<Size, { gold: string; pred: string }>;
    const spec = (size: Size): ProcessSpec => ({ command: node, args: spiderArgs(files[size].gold, files[size].pred, 'spider') });
    const oneProcess = (size: Size): ProcessSpec => ({ command: node, args: [IN_PROCESS, files[size].gold, files[size].pred, path.join(SLICE, 'database')] });
    const scale = await alternate(
      {
        n500: spec(500), n1000: spec(1_000), n2500: spec(2_500), n5000: spec(5_000), n10000: spec(10_000),
        p500: oneProcess(500), p2500: oneProcess(2_500), p10000: oneProcess(10_000),
      },
      RUNS,
    );
    const [t500, t2500, t10000] = sizes.map((size) => median(scale[`n${size}`].map((r) => r.ms))) as [number, number, number];
    figures['scale500Ms'] = Math.round(t500);
    figures['scale2500Ms'] = Math.round(t2500);
    figures['scale10000Ms'] = Math.round(t10000);
    figures['scale10000ItemsPerSecond'] = Math.round(10_000 / (t10000 / 1000));
    figures['scale10000PeakTreeMiB'] = mib(Math.max(...scale.n10000.map((r) => r.peakTreeBytes)));
    figures['marginalMsPerItem500to2500'] = round2((t2500 - t500) / 2_000);
    figures['marginalMsPerItem2500to10000'] = round2((t10000 - t2500) / 7_500);
    figures['marginalRatio'] = round2((t10000 - t2500) / 7_500 / ((t2500 - t500) / 2_000));
    lines.push(
      `scale: the slice repeated (each copy distinct: no cache hits), spider --preset spider, median of ${RUNS} alternating runs (${load()}):`,
      `  500 items ${figures['scale500Ms']} ms${cpuNote(figures, 'scale500', scale.n500)} | 2 500 items ${figures['scale2500Ms']} ms${cpuNote(figures, 'scale2500', scale.n2500)} | 10 000 items ${figures['scale10000Ms']} ms${cpuNote(figures, 'scale10000', scale.n10000)} (${figures['scale10000ItemsPerSecond']} items/s, peak RSS of the process tree ${figures['scale10000PeakTreeMiB']} MiB; ${targetNote(figures['scale10000PeakTreeMiB']!, { max: 400 }, 'MiB')})`,
      `  marginal cost per item: 500→2 500 ${figures['marginalMsPerItem500to2500']} ms, 2 500→10 000 ${figures['marginalMsPerItem2500to10000']} ms — ratio ${figures['marginalRatio']} (${targetNote(figures['marginalRatio']!, { min: 0.9, max: 1.1 })})`,
    );
    const stepMs = steps.map((size) => median(scale[`n${size}`].map((r) => r.ms)));
    const stepCosts = steps.slice(1).map((size, i) => {
      const from = steps[i]!;
      const perItem = round2((stepMs[i + 1]! - stepMs[i]!) / (size - from));
      figures[`stepMsPerItem${from}to${size}`] = perItem;
      return `${grouped(from)}→${grouped(size)} ${perItem} ms`;
    });
    lines.push(`  cost per item by step: ${stepCosts.join(', ')}`);
    const cpus = sizes.map((size) => medianCpuMs(scale[`n${size}`]));
    if (cpus.every((cpu) => cpu !== undefined)) {
      const [c500, c2500, c10000] = cpus as [number, number, number];
      figures['marginalCpuMsPerItem500to2500'] = round2((c2500 - c500) / 2_000);
      figures['marginalCpuMsPerItem2500to10000'] = round2((c10000 - c2500) / 7_500);
      figures['marginalCpuRatio'] = round2((c10000 - c2500) / 7_500 / ((c2500 - c500) / 2_000));
      lines.push(
        `  marginal CPU per item: 500→2 500 ${figures['marginalCpuMsPerItem500to2500']} ms, 2 500→10 000 ${figures['marginalCpuMsPerItem2500to10000']} ms — ratio ${figures['marginalCpuRatio']}`,
      );
    }
    const [p500, p2500, p10000] = sizes.map((size) => median(scale[`p${size}`].map((r) => r.ms))) as [number, number, number];
    figures['oneProcess500Ms'] = Math.round(p500);
    figures['oneProcess2500Ms'] = Math.round(p2500);
    figures['oneProcess10000Ms'] = Math.round(p10000);
    figures['oneProcessMarginalRatio'] = round2((p10000 - p2500) / 7_500 / ((p2500 - p500) / 2_000));
    lines.push(
      `  one process (in-process-spider.ts: the same evaluation, each statement answered in this process, no child or IPC): 500 items ${figures['oneProcess500Ms']} ms${cpuNote(figures, 'oneProcess500', scale.p500)} | 2 500 items ${figures['oneProcess2500Ms']} ms${cpuNote(figures, 'oneProcess2500', scale.p2500)} | 10 000 items ${figures['oneProcess10000Ms']} ms${cpuNote(figures, 'oneProcess10000', scale.p10000)} — marginal cost per item ${round2((p2500 - p500) / 2_000)} ms, then ${round2((p10000 - p2500) / 7_500)} ms, ratio ${figures['oneProcessMarginalRatio']} (the per-item code alone)`,
    );
    return { name: 'speed', lines, figures };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
