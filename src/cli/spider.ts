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
 * `--dialect postgres` runs on PostgreSQL: `--db` is then a folder of scripts, `DBDIR/<db_id>/*.sql`
 * (each one a snapshot, loaded into a database of its own on a private server or on
 * `--postgres-url`'s), or a `postgres://` URL of a server that holds one database per db_id, read
 * as the URL's role (benchmarks/spider/postgres-snapshots.ts). The golds and predictions are then
 * PostgreSQL SQL.
 *
 * `--test-suite` adds L5 on the items EX accepted (src/harness/spider-test-suite.ts): test-suite
 * accuracy next to EX per hardness level, the items EX accepted and L5 rejected, and the refuted
 * ones with their witness (`--no-search` keeps only the distilled suite; budgets and seed by flag).
 *
 * Misuse (exit 2, one line, nothing run; cli-io.ts): a bad flag value, an unknown flag, a missing
 * required flag; `--out` in a folder that does not exist; a gold file that is empty, is JSON (e.g.
 * Spider's `dev.json`) or has no `sql<TAB>db_id` line at all; a `--db` folder that resolves none
 * of the gold's db_ids; a snapshot file that is empty or not a SQLite database; a prediction line
 * whose `<TAB>db_id` differs from the gold's (the files are not aligned); an empty prediction
 * file. A malformed line among good ones is a per-item problem, reported and not scored.
 * Incomplete (exit 3, after the summary): items whose evaluation could not finish (errored, in no
 * rate) or gold items without a prediction line (src/exit-codes.ts).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { createLadderRuntime } from '../runtime/ladder-runtime.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { LadderError } from '../errors.js';
import { EXIT_INCOMPLETE, EXIT_OK } from '../exit-codes.js';
import { PRESET_NAMES, resolvePolicy, type PresetName } from '../compare/policy.js';
import { evaluateSpider, type SpiderSummary } from '../harness/evaluate-spider.js';
import { readPredictions, readSpiderGold } from '../benchmarks/spider/read-spider-files.js';
import { HARDNESS_LEVELS } from '../benchmarks/spider/hardness.js';
import { recordSpiderRunIdentity } from '../report/spider-run-identity.js';
import { SUMMARY_TERMS } from '../report/summary-terms.js';
import { applyCliConventions, cliIoOf, exitCodeForError, setExitCode } from './cli-io.js';
import { progressBarOn } from './progress-bar.js';
import { checkAligned, checkDbDir, checkGoldFile, checkOutFolder, folderNames, readTables } from './spider-inputs.js';
import { parseChoice, parseList, parseNonNegativeInteger, parsePositiveInteger } from './flags.js';
import { DEFAULT_CALIBRATION_SOURCE } from '../judge/equivalence/judge-options.js';
import type { JudgeStepOptions } from '../judge/equivalence/judge-step.js';
import type { JudgeRecord } from '../report/ladder-record.js';
import { listSnapshots } from '../benchmarks/spider/list-snapshots.js';
// The L5 code (its options, spider-test-suite.ts and the semantic rung it runs) is imported only
// with --test-suite.
import type { SpiderSemanticSummary, SpiderSemanticVerdict } from '../harness/spider-test-suite.js';
import type { SemanticOptions } from '../semantic/semantic-options.js';
import { oneLine, truncate } from '../format.js';
import { isPostgresUrl, shownUrl } from '../engine/postgres/postgres-url.js';
import { existingPostgresSnapshot, listPostgresScriptSnapshots } from '../benchmarks/spider/postgres-snapshots.js';
import type { Snapshot } from '../fixtures/snapshot.js';

/** Parsed flags of the `spider` command. */
export interface SpiderCommandOptions {
  readonly gold: string;
  readonly pred: string;
  readonly db: string;
  /** `sqlite` (default) or `postgres` (`--db` a folder of scripts or a postgres:// URL). */
  readonly dialect?: 'sqlite' | 'postgres';
  /** PostgreSQL scripts: the server they are loaded on (default: `TEXT2SQL_LADDER_POSTGRES_URL`, else a private server). */
  readonly postgresUrl?: string;
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
  /** The equivalence judge: a promptfoo provider id (`openai:chat:gpt-4.1`, `file://judge.mjs`). */
  readonly judge?: string;
  readonly judgeModel?: string;
  /** Calibration record files or folders (default `judge-calibration.json`). */
  readonly judgeCalibration?: readonly string[];
  readonly judgeShare?: 'sql' | 'schema' | 'rows';
  readonly judgeMaxRows?: number;
  readonly judgeRedact?: readonly string[];
  /** `--no-judge-cache` sets false. */
  readonly judgeCache?: boolean;
}

/** Registers `text2sql-ladder spider` on the program. */
export function registerSpiderCommand(program: Command): void {
  const command = program.command('spider');
  applyCliConventions(command)
    .description('Spider-format execution accuracy by hardness, under an explicit comparison policy')
    .requiredOption('--gold <file>', 'gold file: one "sql<TAB>db_id" per line')
    .requiredOption('--pred <file>', 'predictions: one SQL per line, optionally "<TAB>db_id", aligned with the gold')
    .requiredOption('--db <dir>', 'database folder: every <dir>/<db_id>/*.sqlite is a snapshot (--dialect postgres: every <dir>/<db_id>/*.sql script, or a postgres:// URL of a server with one database per db_id)')
    .option('--dialect <name>', 'sqlite or postgres (default sqlite)', parseChoice(['sqlite', 'postgres'] as const))
    .option('--postgres-url <url>', 'with --dialect postgres and a folder of scripts: the server they are loaded on (default: $TEXT2SQL_LADDER_POSTGRES_URL, else a private server)')
    .option('--tables <file>', 'Spider tables.json: db_ids outside it are reported as unknown')
    .option('--preset <name>', `comparison policy: ${PRESET_NAMES.join(', ')}`, parseChoice(PRESET_NAMES), 'default' as PresetName)
    .option('--keep-distinct', 'spider preset: do not remove DISTINCT from the queries (official --keep_distinct)', false)
    .option('--timeout-ms <n>', 'deadline per statement in milliseconds (default 10000)', parsePositiveInteger)
    .option('--out <file>', 'write one JSON line per item: {"i","db_id","exec","error","flags","goldIndex","hardness"}')
    .option('--concurrency <n>', 'items evaluated at once (default 16)', parsePositiveInteger)
    .option('--test-suite', 'L5 on the items EX accepts: test-suite accuracy by hardness (distilled test suite, then the counterexample search), rejected and refuted items listed', false)
    .option('--no-search', 'with --test-suite: the distilled suite only, no counterexample search')
    .option('--suite-max-databases <n>', 'with --test-suite: databases drawn per gold (default 300)', parseNonNegativeInteger)
    .option('--suite-max-seconds <n>', 'with --test-suite: seconds per gold for the suite (default 600)', parsePositiveInteger)
    .option('--search-max-databases <n>', 'with --test-suite: databases the search draws per item (default 100)', parsePositiveInteger)
    .option('--search-max-seconds <n>', 'with --test-suite: seconds the search spends per item (default 60)', parsePositiveInteger)
    .option('--seed <seed>', 'with --test-suite: seed of the generated databases (default 0)')
    .option('--nulls <policy>', `with --test-suite: NULLs only where the snapshots hold some (observed) or wherever the schema allows them (allowed) (default ${SPIDER_DEFAULT_NULLS})`, parseChoice(['allowed', 'observed'] as const))
    .option('--empty-vs-null-row <policy>', 'with --test-suite: whether an empty result and one row of NULLs differ (default same)', parseChoice(['same', 'different'] as const))
    .option('--judge <provider>', 'the LLM equivalence judge (a promptfoo provider id: openai:chat:gpt-4.1, ollama:chat:llama3, file://judge.mjs) on the items execution cannot settle; one verdict per item in --out, a summary after the table; it moves no score unless calibrated')
    .option('--judge-model <name>', "with --judge: the model's name in calibration records (default the provider's)")
    .option('--judge-calibration <paths>', `with --judge: calibration record files or folders, comma-separated (default ${DEFAULT_CALIBRATION_SOURCE})`, parseList)
    .option('--judge-share <level>', 'with --judge: what it is sent: sql, schema (plus DDL), rows (plus result previews and the L5 witness); default rows for ollama:/file:// providers, sql for hosted ones', parseChoice(['sql', 'schema', 'rows'] as const))
    .option('--judge-max-rows <n>', 'with --judge: rows per result preview (default 5)', parseNonNegativeInteger)
    .option('--judge-redact <columns>', 'with --judge: result columns whose values are never sent (comma-separated)', parseList)
    .option('--no-judge-cache', 'with --judge: ask again even when the answer cache holds the answer')
    .option('--diagnostics', 'add per-item diagnostics (component F1, exact match, AST distance, schema linking, result similarity) to the JSONL and their averages to the summary', false)
    .action(async (options: SpiderCommandOptions) => {
      setExitCode(command, await runSpiderCommand(options, cliIoOf(command)));
    });
}

/** Where the command writes (injectable for tests). */
export interface SpiderCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean; readonly terminal?: NodeJS.WritableStream };
}

/** Per-item problems listed on stderr before the rest are only counted. */
const MAX_LISTED_PROBLEMS = 20;

/**
 * Runs the command. Resolves to the exit code (src/exit-codes.ts): 0 after a run (even with
 * per-item problems of the model's or the gold's); 2 for misuse (unreadable files, bad options, an
 * empty prediction file, a `--db` folder that does not exist or holds a snapshot for none of the
 * gold's db_ids); 3 for an incomplete run: items whose evaluation could not finish (errored, in no
 * rate) or gold items with no prediction line (lost rows), named on stderr.
 */
export async function runSpiderCommand(options: SpiderCommandOptions, io: SpiderCommandIo): Promise<number> {
  let runtime: LadderRuntime | undefined;
  let stopListening = (): void => {};
  try {
    const policy = resolvePolicy({ preset: options.preset, ...(options.keepDistinct ? { keepDistinct: true } : {}) });
    const semantic = await semanticOptionsOf(options);
    const judgeOptions = await judgeOptionsOf(options);
    // The command's runtime: its engine and gold cache (no fixtures: Spider folders hold plain files).
    // Its children boot while the files are read and checked.
    const postgres = options.dialect === 'postgres';
    if (!postgres && (isPostgresUrl(options.db) || options.postgresUrl !== undefined)) {
      throw new LadderError('invalid_option', `${options.postgresUrl !== undefined ? '--postgres-url' : 'a postgres:// --db'} needs --dialect postgres`);
    }
    if (postgres && semantic !== undefined) throw new LadderError('invalid_option', '--test-suite runs on SQLite databases only (L5 builds its test-suite databases as SQLite files); drop it with --dialect postgres');
    if (options.postgresUrl !== undefined && !isPostgresUrl(options.postgresUrl)) throw new LadderError('invalid_option', `--postgres-url must be a postgres:// or postgresql:// URL; received ${JSON.stringify(shownUrl(options.postgresUrl))}`);
    const timeouts = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
    runtime = createLadderRuntime({ engine: timeouts, postgres: timeouts });
    if (postgres && isPostgresUrl(options.db)) runtime.usePostgres({ url: options.db, databases: 'existing' });
    else if (options.postgresUrl !== undefined) runtime.usePostgres({ url: options.postgresUrl });
    if (!postgres) runtime.engine().warm(1);
    if (options.out !== undefined) await checkOutFolder(options.out);
    const onServer = postgres && isPostgresUrl(options.db);
    const [gold, knownDbIds, dbFolders] = await Promise.all([
      readSpiderGold(options.gold),
      options.tables === undefined ? Promise.resolve(undefined) : readTables(options.tables),
      onServer ? Promise.resolve([]) : folderNames(options.db),
    ]);
    // A `<TAB>word` ending a prediction is a db_id column only when it names a known database;
    // otherwise it is SQL (`FROM singer<TAB>T1`), so one such line cannot misalign the run.
    const dbIds = new Set([...gold.map((item) => item.dbId), ...(knownDbIds ?? []), ...dbFolders]);
    const predictions = await readPredictions(options.pred, { knownDbIds: dbIds });
    await checkGoldFile(options.gold, gold);
    checkAligned(options.gold, options.pred, gold, predictions);
    if (!onServer) await checkDbDir(options.db, gold, postgres ? 'postgres' : 'sqlite');
    const engine = postgres ? await runtime.postgresEngine() : runtime.engine();
    const pgEngine = postgres ? await runtime.postgresEngine() : undefined;
    const snapshotsOf = pgEngine === undefined ? undefined : (dbId: string): Promise<Snapshot[]> => (onServer ? existingPostgresSnapshot(dbId, pgEngine) : listPostgresScriptSnapshots(options.db, dbId, pgEngine));
    const bar = await progressBarOn(io.stderr, 'spider [{bar}] {value}/{total} items | {duration_formatted}');
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
      ...(snapshotsOf === undefined ? {} : { snapshotsOf }),
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
      const l5Bar = await progressBarOn(io.stderr, 'L5 {phase} [{bar}] {value}/{total} | {duration_formatted}');
      let phase = '';
      const { evaluateSpiderTestSuite } = await import('../harness/spider-test-suite.js');
      testSuite = await evaluateSpiderTestSuite({
        gold,
        predictions,
        verdicts: output.items,
        dbDir: options.db,
        engine,
        policy,
        options: semantic,
        service: await runtime.semantic(),
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
    let judged: Awaited<ReturnType<typeof import('../harness/spider-judge.js').judgeSpiderItems>> | undefined;
    if (judgeOptions !== undefined) {
      const { judgeSpiderItems } = await import('../harness/spider-judge.js');
      const judgeBar = await progressBarOn(io.stderr, 'judge [{bar}] {value}/{total} items | {duration_formatted}');
      judgeBar?.start(gold.length, 0);
      judged = await judgeSpiderItems({
        gold,
        predictions,
        items: output.items,
        results: output.results,
        ...(testSuite === undefined ? {} : { semantic: testSuite.items }),
        snapshotsOf: snapshotsOf ?? ((dbId: string) => listSnapshots(options.db, dbId)),
        engine,
        options: judgeOptions,
        onItem: (finished) => judgeBar?.update(finished),
      });
      judgeBar?.stop();
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
      // With --judge: the item's judge record (the ladder record's `judge`; null when there was nothing to judge).
      const judgeOf = (i: number): { judge?: JudgeRecord | null } => (judged === undefined ? {} : { judge: judged.records[i] ?? null });
      const line = ({ i, db_id, exec, error, flags, goldIndex, hardness, diagnostics }: (typeof output.items)[number]): string =>
        JSON.stringify({ i, db_id, exec, error, flags, goldIndex, hardness, ...(diagnostics === undefined ? {} : { diagnostics }), ...semanticOf(i), ...judgeOf(i) });
      await writeFile(options.out, output.items.map(line).join('\n') + (output.items.length > 0 ? '\n' : ''));
      // The run's identity beside the JSONL (<out>.run.json), for `text2sql-ladder compare`.
      await recordSpiderRunIdentity(options.out, { gold, goldFile: options.gold, predFile: options.pred, dbDir: onServer ? shownUrl(options.db) : options.db, policy, settings: { preset: options.preset, keepDistinct: options.keepDistinct, timeoutMs: options.timeoutMs ?? null, diagnostics: options.diagnostics === true } });
    }
    io.stdout.write(formatSpiderSummary(output.summary, policy.preset, options.keepDistinct));
    if (testSuite !== undefined) io.stdout.write(formatTestSuiteSummary(output.summary, testSuite, semantic!, options.out));
    if (judged !== undefined) io.stdout.write((await import('../harness/spider-judge.js')).formatSpiderJudgeSummary(judged.summary));
    const incomplete = incompleteRunMessage(output.summary, gold.length);
    if (incomplete === undefined) return EXIT_OK;
    io.stderr.write(`error: ${incomplete}\n`);
    return EXIT_INCOMPLETE;
  } catch (error) {
    return exitCodeForError(error, io);
  } finally {
    stopListening();
    await runtime?.close();
  }
}

/**
 * Why a finished run is incomplete (exit 3), or `undefined`: errored items (their evaluation threw:
 * a database that cannot be read, an engine that cannot run) and gold items without a prediction line.
 * @example incompleteRunMessage({ internalErrors: 0, missingPredictions: 7, … }, 507)
 * // 'incomplete run: 7 of 507 gold items have no prediction line (scored 0); the prediction file is shorter than the gold'
 */
export function incompleteRunMessage(summary: Pick<SpiderSummary, 'internalErrors' | 'missingPredictions'>, items: number): string | undefined {
  const parts: string[] = [];
  if (summary.internalErrors > 0) parts.push(`${summary.internalErrors} of ${items} items errored (not graded, in no rate; listed above)`);
  if (summary.missingPredictions > 0) parts.push(`${summary.missingPredictions} of ${items} gold items have no prediction line (scored 0); the prediction file is shorter than the gold`);
  return parts.length === 0 ? undefined : `incomplete run: ${parts.join('; ')}`;
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
  if (summary.internalErrors > 0) text += ` | ${T.errored.label} ${summary.internalErrors}`;
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

/**
 * L5's options from the flags (`undefined` without `--test-suite`); suite flags without it are
 * misuse. The options' module is imported only with `--test-suite`.
 */
async function semanticOptionsOf(options: SpiderCommandOptions): Promise<SemanticOptions | undefined> {
  const l5Flags = { suiteMaxDatabases: '--suite-max-databases', suiteMaxSeconds: '--suite-max-seconds', searchMaxDatabases: '--search-max-databases', searchMaxSeconds: '--search-max-seconds', seed: '--seed', nulls: '--nulls', emptyVsNullRow: '--empty-vs-null-row' } as const;
  if (options.testSuite !== true) {
    const given = (Object.keys(l5Flags) as (keyof typeof l5Flags)[]).find((key) => options[key] !== undefined) ?? (options.search === false ? 'search' : undefined);
    if (given !== undefined) throw new LadderError('invalid_option', `${given === 'search' ? '--no-search' : l5Flags[given]} needs --test-suite`);
    return undefined;
  }
  const suite = { ...(options.suiteMaxDatabases === undefined ? {} : { maxDatabases: options.suiteMaxDatabases }), ...(options.suiteMaxSeconds === undefined ? {} : { maxSeconds: options.suiteMaxSeconds }) };
  const search = { ...(options.searchMaxDatabases === undefined ? {} : { maxDatabases: options.searchMaxDatabases }), ...(options.searchMaxSeconds === undefined ? {} : { maxSeconds: options.searchMaxSeconds }) };
  const { readSemanticOptions } = await import('../semantic/semantic-options.js');
  return readSemanticOptions({
    suite,
    search: options.search === false ? false : search,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    nulls: options.nulls ?? SPIDER_DEFAULT_NULLS,
    ...(options.emptyVsNullRow === undefined ? {} : { emptyVsNullRow: options.emptyVsNullRow }),
  });
}

/**
 * The judge step's options from the flags (`undefined` without `--judge`); judge flags without it
 * are misuse. The provider is loaded through promptfoo (src/promptfoo/judge-provider.ts), imported
 * only with `--judge`.
 */
async function judgeOptionsOf(options: SpiderCommandOptions): Promise<JudgeStepOptions | undefined> {
  const judgeFlags = { judgeModel: '--judge-model', judgeCalibration: '--judge-calibration', judgeShare: '--judge-share', judgeMaxRows: '--judge-max-rows', judgeRedact: '--judge-redact' } as const;
  if (options.judge === undefined) {
    const given = (Object.keys(judgeFlags) as (keyof typeof judgeFlags)[]).find((key) => options[key] !== undefined);
    if (given !== undefined) throw new LadderError('invalid_option', `${judgeFlags[given]} needs --judge`);
    if (options.judgeCache === false) throw new LadderError('invalid_option', '--no-judge-cache needs --judge');
    return undefined;
  }
  if (options.judge.trim() === '') throw new LadderError('invalid_option', '--judge needs a provider id, e.g. openai:chat:gpt-4.1 or file://judge.mjs');
  const { resolveEquivalenceJudge } = await import('../promptfoo/judge-provider.js');
  const judge = await resolveEquivalenceJudge({ provider: options.judge, ...(options.judgeModel === undefined ? {} : { model: options.judgeModel }) }, '--judge');
  return {
    judge,
    calibration: (options.judgeCalibration ?? [DEFAULT_CALIBRATION_SOURCE]).map((entry) => path.resolve(entry)),
    ...(options.judgeShare === undefined ? {} : { share: options.judgeShare }),
    ...(options.judgeMaxRows === undefined ? {} : { maxRows: options.judgeMaxRows }),
    ...(options.judgeRedact === undefined ? {} : { redactColumns: options.judgeRedact }),
    ...(options.judgeCache === false ? { cache: false as const } : {}),
  };
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
