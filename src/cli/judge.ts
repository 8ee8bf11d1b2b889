/**
 * `text2sql-ladder judge calibrate`: runs an equivalence judge on labelled pairs (the format of
 * L5's equivalence corpus) and writes its calibration record (src/judge/calibration-record.ts).
 *
 *   text2sql-ladder judge calibrate --labels pairs.jsonl --provider openai:chat:gpt-4.1 --share rows
 *   text2sql-ladder judge calibrate --labels pairs.jsonl --provider file://judge.mjs --db-dir spider/database --out calibrations/
 *
 * Each pair's `db` is looked up as `<db-dir>/<db>/<db>.sqlite` (Spider's layout), `<db-dir>/<db>.sqlite`,
 * `<db-dir>/<db>.sql` (a script, built into a scratch database), then as a fixture name; a pair
 * whose database is found is asked with its schema and both results on it, as in the ladder.
 *
 * Exit status: 0 when the judge passes the thresholds, 1 when it does not (the record is written
 * either way), 2 on misuse, 3 when a database cannot be used or the judge gave no readable answer
 * on any pair (a provider that cannot be reached, a missing API key: no record is written).
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Command } from 'commander';
import { readLabelledPairs } from '../dataset/labelled-pairs.js';
import { LadderError } from '../errors.js';
import { createScratchFolder, scratchRootDir, type ScratchFolder } from '../files/scratch.js';
import { readUserFile, readUserText } from '../files/user-file.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { defaultFixturesDir, listFixtures } from '../fixtures/registry.js';
import { calibrateEquivalenceJudge } from '../judge/equivalence/calibrate.js';
import { judgeFromProvider } from '../judge/equivalence/ask-judge.js';
import type { JudgeShare } from '../judge/equivalence/judge-step.js';
import { loadJudgeProvider } from '../promptfoo/judge-provider.js';
import { renderCalibration } from '../judge/render-calibration.js';
import { createLadderRuntime, type LadderRuntime } from '../runtime/ladder-runtime.js';
import { addThresholdFlags, calibrationRecordPath, thresholdsFromFlags, type ThresholdFlags } from './calibration-file.js';
import { applyCliConventions, cliIoOf, commandGroup, ENGINE_EXIT_CODE, exitCodeForError, setExitCode, type CliIo } from './cli-io.js';
import { fixturesFolder, FIXTURES_OPTION_HELP } from './fixtures-folder.js';
import { parseChoice, parseList, parseNonNegativeInteger, parsePositiveInteger } from './flags.js';
import { progressBarOn } from './progress-bar.js';

/** Parsed flags of `judge calibrate`. */
export interface CalibrateCommandOptions extends ThresholdFlags {
  readonly labels: string;
  readonly provider: string;
  readonly model?: string;
  readonly out?: string;
  readonly dbDir?: string;
  readonly fixtures?: string;
  readonly share?: JudgeShare;
  readonly maxRows?: number;
  readonly redact?: readonly string[];
  readonly concurrency?: number;
  readonly cache?: boolean;
  readonly format?: 'table' | 'json';
}

/** The default record file. */
export const DEFAULT_CALIBRATION_FILE = 'judge-calibration.json';

/** Registers `text2sql-ladder judge calibrate` on the program. */
export function registerJudgeCommand(program: Command): void {
  const group = commandGroup(program, 'judge', 'Commands about the LLM judges (equivalence, faithfulness)');
  const command = group.command('calibrate');
  applyCliConventions(command)
    .description('Run an equivalence judge on labelled pairs and write its calibration record: TPR, TNR, accuracy, Cohen\'s kappa with 95% intervals, bias, per category')
    .requiredOption('--labels <file>', 'labelled pairs, JSON Lines in the format of the equivalence corpus (db, question, gold, candidate, label, category, labelSource, why)')
    .requiredOption('--provider <id>', 'the judge: a promptfoo provider id (openai:chat:gpt-4.1, anthropic:messages:…, ollama:chat:…, file://judge.mjs)')
    .option('--model <name>', "the model's name in the record (default: the provider's, else the id's last part)")
    .option('--out <file>', `where the record is written: a file, or a folder (default ${DEFAULT_CALIBRATION_FILE})`)
    .option('--db-dir <dir>', 'databases of the pairs: <dir>/<db>/<db>.sqlite, <dir>/<db>.sqlite or <dir>/<db>.sql')
    .option('--fixtures <dir>', FIXTURES_OPTION_HELP)
    .option('--share <level>', 'what the judge is sent: sql, schema (plus DDL), rows (plus result previews); default rows for ollama:/file:// providers, sql for hosted ones', parseChoice(['sql', 'schema', 'rows'] as const))
    .option('--max-rows <n>', 'rows per result preview (default 5)', parseNonNegativeInteger)
    .option('--redact <columns>', 'result columns whose values are never sent (comma-separated)', parseList)
    .option('--concurrency <n>', 'pairs asked at once (default 4)', parsePositiveInteger);
  addThresholdFlags(command, { items: 'labelled pairs', negatives: 'non-equivalent pairs' })
    .option('--no-cache', 'ask again even when the answer cache holds the answer')
    .option('--format <name>', 'stdout format: table, json', parseChoice(['table', 'json'] as const), 'table' as const)
    .action(async (options: CalibrateCommandOptions) => {
      setExitCode(command, await runCalibrateCommand(options, cliIoOf(command)));
    });
}

/** Runs `judge calibrate`; resolves to the exit status (see the module doc). */
export async function runCalibrateCommand(options: CalibrateCommandOptions, io: CliIo): Promise<number> {
  let runtime: LadderRuntime | undefined;
  let scratch: ScratchFolder | undefined;
  try {
    const thresholds = thresholdsFromFlags(options);
    const pairs = readLabelledPairs(options.labels);
    const bytes = readUserFile(options.labels, { what: 'labelled pairs', code: 'dataset_invalid' });
    const provider = await loadJudgeProvider(options.provider, '--provider');
    const judge = judgeFromProvider(provider);
    const named = options.model !== undefined ? { ...judge, model: options.model } : judge;
    runtime = createLadderRuntime();
    const fixturesDir = fixturesFolder(options.fixtures).dir ?? defaultFixturesDir();
    const made: { databases: Map<string, readonly Snapshot[]>; scratch?: ScratchFolder } = { databases: new Map() };
    try {
      await findDatabases([...new Set(pairs.map((pair) => pair.db))], options.dbDir, fixturesDir, runtime, made);
    } finally {
      scratch = made.scratch;
    }
    const bar = await progressBarOn(io.stderr, 'judge calibrate [{bar}] {value}/{total} pairs | {duration_formatted}');
    bar?.start(pairs.length, 0);
    const run = await calibrateEquivalenceJudge({
      judge: named,
      pairs,
      labels: { file: options.labels, bytes },
      databases: made.databases,
      engine: runtime.engine(),
      thresholds,
      ...(options.share !== undefined ? { share: options.share } : {}),
      ...(options.maxRows !== undefined ? { maxRows: options.maxRows } : {}),
      ...(options.redact !== undefined ? { redactColumns: options.redact } : {}),
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(options.cache === false ? { cache: false as const } : {}),
      onPair: (done) => bar?.update(done),
    });
    bar?.stop();
    // No readable answer at all is the provider's fault (no API key, a server down), not the judge's figures.
    if (run.answers.length > 0 && run.answers.every((answer) => answer.equivalent === null)) {
      io.stderr.write(`error: the judge gave no readable answer on any of the ${run.answers.length} pairs (first: ${run.answers[0]!.error ?? 'unknown'}); no record written\n`);
      return ENGINE_EXIT_CODE;
    }
    const out = calibrationRecordPath(options.out, DEFAULT_CALIBRATION_FILE);
    try {
      writeFileSync(out, `${JSON.stringify(run.record, null, 2)}\n`);
    } catch (error) {
      throw new LadderError('invalid_option', `--out: cannot write ${out}: ${(error as Error).message}`, { cause: error });
    }
    const missing = [...new Set(pairs.map((pair) => pair.db))].filter((db) => !made.databases.has(db));
    if (options.format === 'json') io.stdout.write(`${JSON.stringify(run.record, null, 2)}\n`);
    else {
      io.stdout.write(renderCalibration(run.record));
      if (missing.length > 0) io.stdout.write(`no database found for ${missing.join(', ')}: those pairs were asked without schema or results\n`);
    }
    io.stderr.write(`calibration record written to ${out}\n`);
    return run.record.passed ? 0 : 1;
  } catch (error) {
    return exitCodeForError(error, io);
  } finally {
    scratch?.remove();
    await runtime?.close();
  }
}



/**
 * The databases of the pairs (see the module doc). SQL scripts are built into a scratch folder the
 * caller removes.
 */
async function findDatabases(names: readonly string[], dbDir: string | undefined, fixturesDir: string, runtime: LadderRuntime, into: { databases: Map<string, readonly Snapshot[]>; scratch?: ScratchFolder }): Promise<void> {
  const databases = into.databases;
  const fixtures = new Set(listFixtures(fixturesDir));
  for (const name of names) {
    if (dbDir !== undefined) {
      const file = [path.join(dbDir, name, `${name}.sqlite`), path.join(dbDir, `${name}.sqlite`)].find((candidate) => existsSync(candidate));
      if (file !== undefined) {
        databases.set(name, [{ name, path: path.resolve(file) }]);
        continue;
      }
      const script = path.join(dbDir, `${name}.sql`);
      if (existsSync(script)) {
        into.scratch ??= createScratchFolder(scratchRootDir(), 'judge-calibrate');
        const target = path.join(into.scratch.path, `${name}.sqlite`);
        const handle = new Database(target);
        try {
          handle.exec(readUserText(script, { what: 'database script' }));
        } catch (error) {
          throw new LadderError('input_invalid', `${script}: the script does not build a database: ${(error as Error).message}`, { cause: error });
        } finally {
          handle.close();
        }
        databases.set(name, [{ name, path: target }]);
        continue;
      }
    }
    if (fixtures.has(name)) {
      const fixture = await runtime.resolveFixture(name, undefined, { fixturesDir });
      if (fixture.dialect === 'sqlite') databases.set(name, fixture.snapshots);
    }
  }
}
