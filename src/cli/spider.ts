/**
 * `text2sql-ladder spider`: Spider-format execution accuracy, like the official test-suite
 * evaluator (`evaluation.py --etype exec`), under an explicit comparison policy.
 *
 *   text2sql-ladder spider --gold dev_gold.sql --pred pred.sql --db database/ \
 *     [--tables tables.json] [--preset default|spider|bird] [--keep-distinct] [--timeout-ms N] [--out verdicts.jsonl]
 *
 * Prints execution accuracy by hardness (easy, medium, hard, extra, all) and the counts, shows a
 * progress bar on a TTY (stderr), and writes one JSON line per item to `--out`.
 *
 * `--test-suite` adds L5 on the items EX accepted (src/harness/spider-test-suite.ts): test-suite
 * accuracy next to EX per hardness level, the items EX accepted and L5 rejected, and the refuted
 * ones with their witness (`--no-search` keeps only the distilled suite; budgets and seed by flag).
 *
 * Misuse (exit 2, one line, nothing run; cli-io.ts): a bad flag value, an unknown flag, a missing
 * required flag; `--out` in a folder that does not exist; a gold file that is empty, is JSON (e.g.
 * Spider's `dev.json`) or has no `sql<TAB>db_id` line at all; a `--db` folder that resolves none
 * of the gold's db_ids; a snapshot file that is empty or not a SQLite database; a prediction line
 * whose `<TAB>db_id` differs from the gold's (the files are not aligned). A malformed line among
 * good ones is a per-item problem, reported and not scored.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { createLadderRuntime } from '../runtime/ladder-runtime.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { isLadderError, LadderError } from '../errors.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { PRESET_NAMES, resolvePolicy, type PresetName } from '../compare/policy.js';
import { evaluateSpider, type SpiderSummary } from '../harness/evaluate-spider.js';
import { listSnapshots } from '../benchmarks/spider/list-snapshots.js';
import { readPredictions, readSpiderGold, type SpiderGoldItem, type SpiderPrediction } from '../benchmarks/spider/read-spider-files.js';
import { HARDNESS_LEVELS } from '../benchmarks/spider/hardness.js';
import { recordSpiderRunIdentity } from '../report/spider-run-identity.js';
import { SUMMARY_TERMS } from '../report/summary-terms.js';
import { applyCliConventions, cliIoOf, exitCodeForError, setExitCode } from './cli-io.js';
import { checkSqliteFile } from './database-file.js';
import { parseChoice, parseNonNegativeInteger, parsePositiveInteger } from './flags.js';
import { evaluateSpiderTestSuite, type SpiderSemanticSummary, type SpiderSemanticVerdict } from '../harness/spider-test-suite.js';
import { readSemanticOptions, type SemanticOptions } from '../semantic/semantic-rung.js';
import { oneLine, truncate } from '../format.js';

/** Parsed flags of the `spider` command. */
export interface SpiderCommandOptions {
  readonly gold: string;
  readonly pred: string;
  readonly db: string;
  readonly tables?: string;
  readonly preset: PresetName;
  readonly keepDistinct: boolean;
  readonly timeoutMs?: number;
  readonly out?: string;
  readonly concurrency?: number;
  readonly diagnostics?: boolean;
  readonly testSuite?: boolean;
  /** `--no-search` sets false (default true). */
  readonly search?: boolean;
  readonly suiteMaxDatabases?: number;
  readonly suiteMaxSeconds?: number;
  readonly searchMaxDatabases?: number;
  readonly searchMaxSeconds?: number;
  readonly seed?: string;
  /** Default `observed` (see {@link SPIDER_DEFAULT_NULLS}). */
  readonly nulls?: 'allowed' | 'observed';
  readonly emptyVsNullRow?: 'same' | 'different';
}

/** Registers `text2sql-ladder spider` on the program. */
export function registerSpiderCommand(program: Command): void {
  const command = program.command('spider');
  applyCliConventions(command)
    .description('Spider-format execution accuracy by hardness, under an explicit comparison policy')
    .requiredOption('--gold <file>', 'gold file: one "sql<TAB>db_id" per line')
    .requiredOption('--pred <file>', 'predictions: one SQL per line, optionally "<TAB>db_id", aligned with the gold')
    .requiredOption('--db <dir>', 'database folder: every <dir>/<db_id>/*.sqlite is a snapshot')
    .option('--tables <file>', 'Spider tables.json: db_ids outside it are reported as unknown')
    .option('--preset <name>', `comparison policy: ${PRESET_NAMES.join(', ')}`, parseChoice(PRESET_NAMES), 'default' as PresetName)
    .option('--keep-distinct', 'spider preset: do not remove DISTINCT from the queries (official --keep_distinct)', false)
    .option('--timeout-ms <n>', 'deadline per statement in milliseconds (default 10000)', parsePositiveInteger)
    .option('--out <file>', 'write one JSON line per item: {"i","db_id","exec","error","flags","goldIndex","hardness"}')
    .option('--concurrency <n>', 'items evaluated at once (default 8)', parsePositiveInteger)
    .option('--test-suite', 'L5 on the items EX accepts: test-suite accuracy by hardness (distilled test suite, then the counterexample search), rejected and refuted items listed', false)
    .option('--no-search', 'with --test-suite: the distilled suite only, no counterexample search')
    .option('--suite-max-databases <n>', 'with --test-suite: databases drawn per gold (default 300)', parseNonNegativeInteger)
    .option('--suite-max-seconds <n>', 'with --test-suite: seconds per gold for the suite (default 60)', parsePositiveInteger)
    .option('--search-max-databases <n>', 'with --test-suite: databases the search draws per item (default 100)', parsePositiveInteger)
    .option('--search-max-seconds <n>', 'with --test-suite: seconds the search spends per item (default 10)', parsePositiveInteger)
    .option('--seed <seed>', 'with --test-suite: seed of the generated databases (default 0)')
    .option('--nulls <policy>', `with --test-suite: NULLs only where the snapshots hold some (observed) or wherever the schema allows them (allowed) (default ${SPIDER_DEFAULT_NULLS})`, parseChoice(['allowed', 'observed'] as const))
    .option('--empty-vs-null-row <policy>', 'with --test-suite: whether an empty result and one row of NULLs differ (default same)', parseChoice(['same', 'different'] as const))
    .option('--diagnostics', 'add per-item diagnostics (component F1, exact match, AST distance, schema linking, result similarity) to the JSONL and their averages to the summary', false)
    .action(async (options: SpiderCommandOptions) => {
      setExitCode(command, await runSpiderCommand(options, cliIoOf(command)));
    });
}

/** Where the command writes (injectable for tests). */
export interface SpiderCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
}

/** Per-item problems listed on stderr before the rest are only counted. */
const MAX_LISTED_PROBLEMS = 20;

/**
 * Runs the command. Resolves to the exit code: 0 after a run (even with per-item problems),
 * 2 for misuse (unreadable files, bad options, a `--db` folder that does not exist or holds a
 * snapshot for none of the gold's db_ids).
 */
export async function runSpiderCommand(options: SpiderCommandOptions, io: SpiderCommandIo): Promise<number> {
  let runtime: LadderRuntime | undefined;
  let stopListening = (): void => {};
  try {
    const policy = resolvePolicy({ preset: options.preset, ...(options.keepDistinct ? { keepDistinct: true } : {}) });
    const semantic = semanticOptionsOf(options);
    // The command's runtime: its engine and gold cache (no fixtures: Spider folders hold plain files).
    // Its children boot while the files are read and checked.
    runtime = createLadderRuntime(options.timeoutMs === undefined ? {} : { engine: { timeoutMs: options.timeoutMs } });
    runtime.engine().warm(1);
    if (options.out !== undefined) await checkOutFolder(options.out);
    const [gold, knownDbIds, dbFolders] = await Promise.all([
      readSpiderGold(options.gold),
      options.tables === undefined ? Promise.resolve(undefined) : readTables(options.tables),
      folderNames(options.db),
    ]);
    // A `<TAB>word` ending a prediction is a db_id column only when it names a known database;
    // otherwise it is SQL (`FROM singer<TAB>T1`), so one such line cannot misalign the run.
    const dbIds = new Set([...gold.map((item) => item.dbId), ...(knownDbIds ?? []), ...dbFolders]);
    const predictions = await readPredictions(options.pred, { knownDbIds: dbIds });
    await checkGoldFile(options.gold, gold);
    checkAligned(options.gold, options.pred, gold, predictions);
    await checkDbDir(options.db, gold);
    const engine = runtime.engine();
    const bar = io.stderr.isTTY
      ? new cliProgress.SingleBar({ format: 'spider [{bar}] {value}/{total} items | {duration_formatted}', hideCursor: true, stream: io.stderr as NodeJS.WritableStream }, cliProgress.Presets.shades_classic)
      : undefined;
    bar?.start(gold.length, 0);
    let done = 0;
    stopListening = onInterrupt((signal) => {
      bar?.stop();
      const out = options.out === undefined ? 'no summary printed' : `--out ${options.out} was not written (a partial file would read as a whole run)`;
      io.stderr.write(`spider: interrupted by ${signal} after ${done} of ${gold.length} items; ${out}\n`);
    });
    const output = await evaluateSpider({
      gold,
      predictions,
      dbDir: options.db,
      engine,
      cache: runtime.goldCache,
      policy,
      ...(knownDbIds === undefined ? {} : { knownDbIds }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.diagnostics ? { diagnostics: true } : {}),
      onItem: (_verdict, finished) => {
        done = finished;
        bar?.update(finished);
      },
    });
    stopListening();
    bar?.stop();
    let testSuite: { items: readonly SpiderSemanticVerdict[]; summary: SpiderSemanticSummary } | undefined;
    if (semantic !== undefined) {
      const l5Bar = io.stderr.isTTY
        ? new cliProgress.SingleBar({ format: 'L5 {phase} [{bar}] {value}/{total} | {duration_formatted}', hideCursor: true, stream: io.stderr as NodeJS.WritableStream }, cliProgress.Presets.shades_classic)
        : undefined;
      let phase = '';
      testSuite = await evaluateSpiderTestSuite({
        gold,
        predictions,
        verdicts: output.items,
        dbDir: options.db,
        engine,
        policy,
        options: semantic,
        service: runtime.semantic(),
        cache: runtime.goldCache,
        onProgress: (event) => {
          if (event.phase !== phase) {
            l5Bar?.stop();
            phase = event.phase;
            l5Bar?.start(event.total, 0, { phase: event.phase === 'suite' ? 'suites' : 'items' });
          }
          l5Bar?.update(event.done);
        },
      });
      l5Bar?.stop();
    }
    for (const warning of output.warnings) io.stderr.write(`warning: ${warning}\n`);
    // Not scored, or the prediction did not run (no line, no SQL, an SQLite error, a timeout).
    const problems = output.items.filter((item) => item.exec === null || item.flags.includes('prediction_error'));
    for (const item of problems.slice(0, MAX_LISTED_PROBLEMS)) io.stderr.write(`item ${item.i}${item.db_id === '' ? '' : ` (${item.db_id})`}: ${item.error}\n`);
    if (problems.length > MAX_LISTED_PROBLEMS) {
      const where = options.out === undefined ? 'rerun with --out verdicts.jsonl to get every item' : `every item is in --out ${options.out}`;
      io.stderr.write(`… and ${problems.length - MAX_LISTED_PROBLEMS} more items with problems (${where})\n`);
    }
    if (options.out !== undefined) {
      // Fixed key order: the issue's fields first, then ours.
      const semanticOf = (i: number): Record<string, unknown> => {
        const l5 = testSuite?.items[i];
        return l5 === undefined ? {} : { ts: l5.ts, semantic: l5.status === null ? null : { status: l5.status, reason: l5.reason, rejectedBy: l5.rejectedBy, witnessMaxRows: l5.witnessMaxRows } };
      };
      const line = ({ i, db_id, exec, error, flags, goldIndex, hardness, diagnostics }: (typeof output.items)[number]): string =>
        JSON.stringify({ i, db_id, exec, error, flags, goldIndex, hardness, ...(diagnostics === undefined ? {} : { diagnostics }), ...semanticOf(i) });
      await writeFile(options.out, output.items.map(line).join('\n') + (output.items.length > 0 ? '\n' : ''));
      // The run's identity beside the JSONL (<out>.run.json), for `text2sql-ladder compare`.
      await recordSpiderRunIdentity(options.out, { gold, goldFile: options.gold, predFile: options.pred, dbDir: options.db, policy, settings: { preset: options.preset, keepDistinct: options.keepDistinct, timeoutMs: options.timeoutMs ?? null, diagnostics: options.diagnostics === true } });
    }
    io.stdout.write(formatSpiderSummary(output.summary, policy.preset, options.keepDistinct));
    if (testSuite !== undefined) io.stdout.write(formatTestSuiteSummary(output.summary, testSuite, semantic!, options.out));
    return 0;
  } catch (error) {
    return exitCodeForError(error, io);
  } finally {
    stopListening();
    await runtime?.close();
  }
}

const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * While a run is under way, SIGINT / SIGTERM / SIGHUP first let `report` say what is lost, then
 * end the process by the same signal (its exit code stays 128 + n; the engine children end with
 * their parent). Returns the function that stops listening.
 */
function onInterrupt(report: (signal: NodeJS.Signals) => void): () => void {
  const handler = (signal: NodeJS.Signals): void => {
    stop();
    report(signal);
    process.kill(process.pid, signal);
  };
  const stop = (): void => {
    for (const signal of INTERRUPTS) process.removeListener(signal, handler);
  };
  for (const signal of INTERRUPTS) process.on(signal, handler);
  return stop;
}

/**
 * Formats the summary as the official evaluator prints it (20-character columns, 3 decimals),
 * followed by the counts. A level with no scored item shows `n/a` (the official script prints
 * 0.000), so an empty level or a run that scored nothing is not read as 0% accuracy.
 */
export function formatSpiderSummary(summary: SpiderSummary, preset: string, keepDistinct: boolean): string {
  const levels = [...HARDNESS_LEVELS, 'all'] as const;
  const row = (name: string, cells: readonly string[]): string => `${name.padEnd(20)} ${cells.map((c) => c.padEnd(20)).join(' ')}`.trimEnd() + '\n';
  const all = summary.levels.all;
  let text = `preset: ${preset}${keepDistinct ? ' (keep distinct)' : ''}\n`;
  text += row('', [...levels]);
  text += row('count', levels.map((l) => String(summary.levels[l].count)));
  text += '=====================   EXECUTION ACCURACY     =====================\n';
  text += row('execution', levels.map((l) => (summary.levels[l].scored === 0 ? 'n/a' : summary.levels[l].accuracy.toFixed(3))));
  text += '\n';
  // The words shared with the ladder summary come from one place (src/report/summary-terms.ts).
  const T = SUMMARY_TERMS;
  text += `${T.scored.label} ${all.scored} of ${all.count} | ${T.correct.label} ${all.correct} | ${T.executed.label} ${summary.executed} | ${T.predictionErrors.label} ${summary.predictionErrors} | ${T.goldErrors.label} ${summary.goldErrors} | ${T.emptyGoldMatches.label} ${summary.emptyGoldMatches} | undecided ${summary.undecided}`;
  if (summary.malformedGoldLines > 0) text += ` | malformed gold lines ${summary.malformedGoldLines}`;
  if (summary.unknownHardness > 0) text += ` | hardness unknown ${summary.unknownHardness} (counted in all only)`;
  text += '\n';
  if (summary.diagnostics !== undefined) {
    const { macro, micro, counts, items } = summary.diagnostics;
    text += `\ndiagnostics over ${items} items (macro mean [items with a value]; micro F1 for clause components)\n`;
    for (const key of Object.keys(macro).sort()) {
      if (key.endsWith('_skipped')) continue;
      text += `${key.padEnd(40)} ${macro[key]!.toFixed(3)} [${counts[key]}]${micro[key] === undefined ? '' : `  micro ${micro[key]!.toFixed(3)}`}\n`;
    }
  }
  return text;
}

/**
 * The NULL policy of `spider --test-suite` unless `--nulls` says otherwise: `observed`, unlike the
 * library's `allowed`. Spider's test suites come from a generator that writes no NULL the original
 * database does not hold (the fuzzer released with "Semantic Evaluation for Text-to-SQL with
 * Distilled Test Suites" drops NULLs from its value pools), and the benchmark's golds assume the
 * data it ships: `COUNT(col)` for
 * `COUNT(*)` or `NOT IN` for `EXCEPT` is right on it. NULL wherever the schema allows one rejects
 * such predictions (docs/semantic.md gives the measured difference on Spider dev).
 */
export const SPIDER_DEFAULT_NULLS = 'observed' as const;

/** L5's options from the flags (`undefined` without `--test-suite`); suite flags without it are misuse. */
function semanticOptionsOf(options: SpiderCommandOptions): SemanticOptions | undefined {
  const l5Flags = { suiteMaxDatabases: '--suite-max-databases', suiteMaxSeconds: '--suite-max-seconds', searchMaxDatabases: '--search-max-databases', searchMaxSeconds: '--search-max-seconds', seed: '--seed', nulls: '--nulls', emptyVsNullRow: '--empty-vs-null-row' } as const;
  if (options.testSuite !== true) {
    const given = (Object.keys(l5Flags) as (keyof typeof l5Flags)[]).find((key) => options[key] !== undefined) ?? (options.search === false ? 'search' : undefined);
    if (given !== undefined) throw new LadderError('invalid_option', `${given === 'search' ? '--no-search' : l5Flags[given]} needs --test-suite`);
    return undefined;
  }
  const suite = { ...(options.suiteMaxDatabases === undefined ? {} : { maxDatabases: options.suiteMaxDatabases }), ...(options.suiteMaxSeconds === undefined ? {} : { maxSeconds: options.suiteMaxSeconds }) };
  const search = { ...(options.searchMaxDatabases === undefined ? {} : { maxDatabases: options.searchMaxDatabases }), ...(options.searchMaxSeconds === undefined ? {} : { maxSeconds: options.searchMaxSeconds }) };
  return readSemanticOptions({
    suite,
    search: options.search === false ? false : search,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    nulls: options.nulls ?? SPIDER_DEFAULT_NULLS,
    ...(options.emptyVsNullRow === undefined ? {} : { emptyVsNullRow: options.emptyVsNullRow }),
  });
}

/** Items listed per kind (rejected by the suite, refuted by the search) before the rest are counted. */
const MAX_LISTED_L5 = 20;

/**
 * The test-suite block after the EX table: test-suite accuracy per level in the same columns, the
 * EX matches L5 rejected and those the search refuted, then the rejected items (reason with the
 * witness's INSERT statements), at most {@link MAX_LISTED_L5} each.
 */
export function formatTestSuiteSummary(ex: SpiderSummary, testSuite: { readonly items: readonly SpiderSemanticVerdict[]; readonly summary: SpiderSemanticSummary }, options: SemanticOptions, out: string | undefined): string {
  const levels = [...HARDNESS_LEVELS, 'all'] as const;
  const row = (name: string, cells: readonly string[]): string => `${name.padEnd(20)} ${cells.map((c) => c.padEnd(20)).join(' ')}`.trimEnd() + '\n';
  const { summary } = testSuite;
  const steps = [options.suite === false ? null : 'distilled test suite', options.search === false ? null : 'counterexample search'].filter((s) => s !== null).join(' + ');
  const nulls = options.suite !== false ? options.suite.nulls : options.search !== false ? options.search.nulls : null;
  let text = `\n=====================   TEST-SUITE ACCURACY    =====================\n`;
  text += row('execution', levels.map((l) => (ex.levels[l].scored === 0 ? 'n/a' : ex.levels[l].accuracy.toFixed(3))));
  text += row('test-suite', levels.map((l) => (summary.levels[l].scored === 0 ? 'n/a' : summary.levels[l].accuracy.toFixed(3))));
  text += row('EX yes, L5 no', levels.map((l) => String(summary.levels[l].rejected)));
  if (options.search !== false) text += row('refuted', levels.map((l) => String(summary.levels[l].refuted)));
  const all = summary.levels.all;
  text += `\nL5 (${steps}${nulls === null ? '' : `; --nulls ${nulls}`}) on ${ex.levels.all.correct} EX matches: ${all.rejected} rejected`;
  if (options.search !== false) text += `, ${all.refuted} refuted by the search (${summary.smallWitnesses} with ≤ 3 rows per table)`;
  if (all.unscored > 0) text += `, ${all.unscored} not scored by L5 (kept as EX's)`;
  text += '\n';
  const rejected = testSuite.items.filter((item) => item.status === 'fail');
  if (rejected.length > 0) text += `\nEX accepted, L5 rejected (${rejected.length}):\n`;
  for (const item of rejected.slice(0, MAX_LISTED_L5)) text += `  item ${item.i} (${item.db_id}, ${item.hardness ?? 'unknown'}): ${truncate(oneLine(item.reason ?? ''), 400)}\n`;
  if (rejected.length > MAX_LISTED_L5) text += `  … and ${rejected.length - MAX_LISTED_L5} more (${out === undefined ? 'rerun with --out verdicts.jsonl to get every item' : `every item is in --out ${out}`})\n`;
  return text;
}

/**
 * Checks `--db` before the run: the folder must exist, and at least one db_id of the gold must
 * resolve to `DBDIR/<db_id>/*.sqlite` (a folder one level too deep, such as
 * `database/concert_singer`, resolves none and would otherwise give an all-unknown run).
 * @throws LadderError `db_not_found` naming `--db`, the folder, what it contains and the expected layout.
 */
async function checkDbDir(dbDir: string, gold: readonly SpiderGoldItem[]): Promise<void> {
  const layout = 'a database folder DBDIR with one sub-folder per db_id, DBDIR/<db_id>/*.sqlite';
  let entries: Dirent[];
  try {
    entries = await readdir(dbDir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'which does not exist' : code === 'ENOTDIR' ? 'which is not a folder' : `which cannot be read (${(error as Error).message})`;
    throw new LadderError('db_not_found', `--db: expected ${layout}; received ${dbDir}, ${why}`, { cause: error });
  }
  const dbIds = [...new Set(gold.flatMap((item) => (item.error === undefined ? [item.dbId] : [])))];
  if (dbIds.length === 0) return;
  const resolves = (dbId: string): Promise<boolean> =>
    listSnapshots(dbDir, dbId).then(
      () => true,
      (error: unknown) => {
        if (isLadderError(error)) return false;
        throw error;
      },
    );
  if ((await Promise.all(dbIds.map(resolves))).some(Boolean)) {
    await checkSnapshotFiles(dbDir, dbIds);
    return;
  }
  const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
  const shown = names.length === 0 ? 'nothing (empty folder)' : names.slice(0, 10).join(', ') + (names.length > 10 ? `, … (${names.length - 10} more)` : '');
  const none = dbIds.length === 1 ? `the gold's only db_id, ${JSON.stringify(dbIds[0])}, has no snapshot` : `none of the gold's ${dbIds.length} db_ids (${JSON.stringify(dbIds[0])}, …) has a snapshot`;
  let message = `--db: ${none} in ${dbDir}\n`;
  message += `  expected ${layout}, e.g. ${path.resolve(dbDir, dbIds[0]!, `${dbIds[0]}.sqlite`)}\n`;
  message += `  received ${dbDir}, which contains: ${shown}`;
  if (names.some((name) => name.endsWith('.sqlite'))) message += `\n  hint: it holds .sqlite files itself; --db is probably its parent folder, ${path.dirname(path.resolve(dbDir))}`;
  else if (names.includes('database/')) message += `\n  hint: --db is probably its database/ sub-folder, ${path.resolve(dbDir, 'database')}`;
  throw new LadderError('db_not_found', message);
}

async function readTables(file: string): Promise<Set<string>> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new LadderError('input_invalid', `cannot read tables file ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (!Array.isArray(data)) throw new LadderError('input_invalid', `${file}: expected a JSON array of schemas with "db_id"`);
  return new Set(data.flatMap((entry) => (typeof entry === 'object' && entry !== null && typeof (entry as { db_id?: unknown }).db_id === 'string' ? [(entry as { db_id: string }).db_id] : [])));
}

/**
 * `--out` is created, its folder is not: a missing folder is misuse, found before the run (not as
 * an ENOENT after it).
 * @throws LadderError `invalid_option` naming `--out` and the folder.
 */
async function checkOutFolder(out: string): Promise<void> {
  const folder = path.dirname(path.resolve(out));
  const found = await stat(folder).catch(() => undefined);
  if (found === undefined) throw new LadderError('invalid_option', `--out: the folder ${folder} does not exist (the file is created, its folder is not); received ${out}`);
  if (!found.isDirectory()) throw new LadderError('invalid_option', `--out: ${folder} is not a folder; received ${out}`);
}

/**
 * Whole-file problems of the gold file are misuse: no item at all, JSON (Spider's `dev.json` is the
 * usual mistake: the gold file is `dev_gold.sql`), or not one line in the `sql<TAB>db_id` format.
 * @throws LadderError `input_invalid` naming `--gold`, the file and what was found.
 */
async function checkGoldFile(file: string, gold: readonly SpiderGoldItem[]): Promise<void> {
  const expected = 'one "sql<TAB>db_id" per line (Spider\'s dev_gold.sql)';
  if (gold.length === 0) throw new LadderError('input_invalid', `--gold: ${file} holds no item (no non-blank line); expected ${expected}`);
  if (gold.some((item) => item.error === undefined)) return;
  const text = await readFile(file, 'utf8');
  const start = text.trimStart()[0];
  if (start === '[' || start === '{') {
    throw new LadderError('input_invalid', `--gold: ${file} is JSON (Spider's dev.json?); expected ${expected}`);
  }
  throw new LadderError('input_invalid', `--gold: no line of ${file} is "sql<TAB>db_id" (${gold[0]!.error ?? 'no tab'}); expected ${expected}`);
}

/**
 * A prediction line that names a db_id (`sql<TAB>db_id`) must name its gold item's: one that does
 * not means the two files are not aligned, and every verdict after it would be wrong.
 * @throws LadderError `input_invalid` naming both `file:line`s and the count of such lines.
 */
function checkAligned(goldFile: string, predFile: string, gold: readonly SpiderGoldItem[], predictions: readonly SpiderPrediction[]): void {
  const mismatched = gold.flatMap((item, index) => {
    const prediction = predictions[index];
    return item.error === undefined && prediction?.dbId !== undefined && prediction.dbId !== '' && prediction.dbId !== item.dbId ? [{ item, prediction }] : [];
  });
  const first = mismatched[0];
  if (first === undefined) return;
  const more = mismatched.length > 1 ? ` (${mismatched.length} lines differ)` : '';
  throw new LadderError(
    'input_invalid',
    `--pred: ${predFile}:${first.prediction.line} names db_id ${JSON.stringify(first.prediction.dbId)} but gold item ${first.item.index} (${goldFile}:${first.item.line}) is on ${JSON.stringify(first.item.dbId)}: the files are not aligned${more}`,
  );
}

/** The sub-folder names of `dir` (the db_ids a Spider `--db` folder holds); none when it cannot be read. */
async function folderNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return []; // checkDbDir reports a missing or unreadable --db
  }
}

async function checkSnapshotFiles(dbDir: string, dbIds: readonly string[]): Promise<void> {
  for (const dbId of dbIds) {
    let snapshots: Snapshot[];
    try {
      snapshots = await listSnapshots(dbDir, dbId);
    } catch (error) {
      if (isLadderError(error)) continue; // an unknown db_id is a per-item problem
      throw error;
    }
    for (const snapshot of snapshots) await checkSqliteFile(snapshot.path, '--db');
  }
}
