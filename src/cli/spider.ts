/**
 * `text2sql-ladder spider`: Spider-format execution accuracy, like the official test-suite
 * evaluator (`evaluation.py --etype exec`), under an explicit comparison policy.
 *
 *   text2sql-ladder spider --gold dev_gold.sql --pred pred.sql --db database/ \
 *     [--tables tables.json] [--preset default|spider|bird] [--keep-distinct] [--timeout-ms N] [--out verdicts.jsonl]
 *
 * Prints execution accuracy by hardness (easy, medium, hard, extra, all) and the counts, shows a
 * progress bar on a TTY (stderr), and writes one JSON line per item to `--out`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import cliProgress from 'cli-progress';
import { createSqliteEngine } from '../engine/sqlite/sqlite-engine.js';
import { LadderError } from '../errors.js';
import { PRESET_NAMES, resolvePolicy, type PresetName } from '../compare/policy.js';
import { evaluateSpider, type SpiderSummary } from '../spider/evaluate-spider.js';
import { readPredictions, readSpiderGold } from '../spider/read-spider-files.js';
import { HARDNESS_LEVELS } from '../spider/hardness.js';

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
}

/** Registers `text2sql-ladder spider` on the program. */
export function registerSpiderCommand(program: Command): void {
  program
    .command('spider')
    .description('Spider-format execution accuracy by hardness, under an explicit comparison policy')
    .requiredOption('--gold <file>', 'gold file: one "sql<TAB>db_id" per line')
    .requiredOption('--pred <file>', 'predictions: one SQL per line, optionally "<TAB>db_id", aligned with the gold')
    .requiredOption('--db <dir>', 'database folder: every <dir>/<db_id>/*.sqlite is a snapshot')
    .option('--tables <file>', 'Spider tables.json: db_ids outside it are reported as unknown')
    .option('--preset <name>', `comparison policy: ${PRESET_NAMES.join(', ')}`, parsePreset, 'default' as PresetName)
    .option('--keep-distinct', 'spider preset: do not remove DISTINCT from the queries (official --keep_distinct)', false)
    .option('--timeout-ms <n>', 'deadline per statement in milliseconds (default 10000)', parsePositiveInteger('--timeout-ms'))
    .option('--out <file>', 'write one JSON line per item: {"i","db_id","exec","error","flags","goldIndex","hardness"}')
    .option('--concurrency <n>', 'items evaluated at once (default 8)', parsePositiveInteger('--concurrency'))
    .option('--diagnostics', 'add per-item diagnostics (component F1, exact match, AST distance, schema linking, result similarity) to the JSONL and their averages to the summary', false)
    .action(async (options: SpiderCommandOptions) => {
      const code = await runSpiderCommand(options, { stdout: process.stdout, stderr: process.stderr });
      process.exitCode = code;
    });
}

/** Where the command writes (injectable for tests). */
export interface SpiderCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
}

/**
 * Runs the command. Resolves to the exit code: 0 after a run (even with per-item problems),
 * 2 for misuse (unreadable files, bad options).
 */
export async function runSpiderCommand(options: SpiderCommandOptions, io: SpiderCommandIo): Promise<number> {
  let engine: ReturnType<typeof createSqliteEngine> | undefined;
  try {
    const policy = resolvePolicy({ preset: options.preset, ...(options.keepDistinct ? { keepDistinct: true } : {}) });
    const [gold, predictions, knownDbIds] = await Promise.all([
      readSpiderGold(options.gold),
      readPredictions(options.pred),
      options.tables === undefined ? Promise.resolve(undefined) : readTables(options.tables),
    ]);
    engine = createSqliteEngine(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
    const bar = io.stderr.isTTY
      ? new cliProgress.SingleBar({ format: 'spider [{bar}] {value}/{total} items | {duration_formatted}', hideCursor: true, stream: io.stderr as NodeJS.WritableStream }, cliProgress.Presets.shades_classic)
      : undefined;
    bar?.start(gold.length, 0);
    const output = await evaluateSpider({
      gold,
      predictions,
      dbDir: options.db,
      engine,
      policy,
      ...(knownDbIds === undefined ? {} : { knownDbIds }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.diagnostics ? { diagnostics: true } : {}),
      onItem: (_verdict, done) => bar?.update(done),
    });
    bar?.stop();
    for (const warning of output.warnings) io.stderr.write(`warning: ${warning}\n`);
    const problems = output.items.filter((item) => item.exec === null || (item.error !== null && item.flags.includes('no_sql')));
    for (const item of problems.slice(0, 20)) io.stderr.write(`item ${item.i} (${item.db_id}): ${item.error}\n`);
    if (problems.length > 20) io.stderr.write(`… and ${problems.length - 20} more items with problems (see --out)\n`);
    if (options.out !== undefined) {
      // Fixed key order: the issue's fields first, then ours.
      const line = ({ i, db_id, exec, error, flags, goldIndex, hardness, diagnostics }: (typeof output.items)[number]): string =>
        JSON.stringify({ i, db_id, exec, error, flags, goldIndex, hardness, ...(diagnostics === undefined ? {} : { diagnostics }) });
      await writeFile(options.out, output.items.map(line).join('\n') + (output.items.length > 0 ? '\n' : ''));
    }
    io.stdout.write(formatSpiderSummary(output.summary, policy.preset, options.keepDistinct));
    return 0;
  } catch (error) {
    if (error instanceof LadderError) {
      io.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await engine?.close();
  }
}

/**
 * Formats the summary as the official evaluator prints it (20-character columns, 3 decimals),
 * followed by the counts.
 */
export function formatSpiderSummary(summary: SpiderSummary, preset: string, keepDistinct: boolean): string {
  const levels = [...HARDNESS_LEVELS, 'all'] as const;
  const row = (name: string, cells: readonly string[]): string => `${name.padEnd(20)} ${cells.map((c) => c.padEnd(20)).join(' ')}`.trimEnd() + '\n';
  const all = summary.levels.all;
  let text = `preset: ${preset}${keepDistinct ? ' (keep distinct)' : ''}\n`;
  text += row('', [...levels]);
  text += row('count', levels.map((l) => String(summary.levels[l].count)));
  text += '=====================   EXECUTION ACCURACY     =====================\n';
  text += row('execution', levels.map((l) => summary.levels[l].accuracy.toFixed(3)));
  text += '\n';
  text += `scored ${all.scored} of ${all.count} | correct ${all.correct} | executed ${summary.executed} | prediction errors ${summary.predictionErrors} | gold errors ${summary.goldErrors} | empty-gold matches ${summary.emptyGoldMatches} | undecided ${summary.undecided}`;
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

function parsePreset(value: string): PresetName {
  if (!PRESET_NAMES.includes(value as PresetName)) throw new InvalidArgumentError(`expected one of ${PRESET_NAMES.join(', ')}`);
  return value as PresetName;
}

function parsePositiveInteger(flag: string): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer`);
    return n;
  };
}
