/**
 * `text2sql-ladder audit INPUT`: the gold audit — every gold of every item on every snapshot (and
 * role copy) it names, and the findings that make a benchmark lie (src/audit/gold-audit.ts).
 *
 *   text2sql-ladder audit datasets/warehouse.yaml
 *   text2sql-ladder audit my-dataset.yaml --fixtures fixtures/ --format markdown > audit.md
 *   text2sql-ladder audit ../spider-dev/ --runs pred/DINSQL.sql pred/C3_SQL.sql --severity warning
 *   text2sql-ladder audit datasets/warehouse.yaml --runs out/eval.json#strong out/eval.json#weak --strength
 *
 * INPUT is a dataset file (YAML / JSONL, record format), a Spider folder (`dev_gold.sql`,
 * `database/`, optional `dev.json`) or a Spider gold file (`--db` names its database folder).
 * Dataset fixtures resolve as in promptfoo (`--fixtures DIR` names the folder of fixture folders).
 *
 * Exit status: 0 when no finding is an error (warnings and notes only), 1 when one is (or a
 * warning, with `--fail-on warning`), 2 on misuse (one line on stderr; cli-io.ts): a bad flag, an
 * unreadable or unrecognised input, a `--runs` file that is not a run, a `--fixtures` folder that
 * does not exist.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { PRESET_NAMES, type PresetName } from '../compare/policy.js';
import type { GoldCheckSeverity } from '../compare/gold-checks.js';
import { LadderError } from '../errors.js';
import { createLadderRuntime, type LadderRuntime } from '../runtime/ladder-runtime.js';
import { defaultFixturesDir } from '../fixtures/registry.js';
import { SEVERITIES } from '../audit/audit-finding.js';
import { readAuditRun, type AuditRun } from '../audit/audit-runs.js';
import { readAuditSource } from '../audit/audit-source.js';
import { auditGolds } from '../audit/gold-audit.js';
import { auditJson, renderAuditMarkdown, renderAuditText } from '../audit/render-audit.js';
import { applyCliConventions, cliIoOf, exitCodeForError, setExitCode } from './cli-io.js';
import { checkFolder, fixturesFolder, FIXTURES_OPTION_HELP } from './fixtures-folder.js';
import { progressBarOn } from './progress-bar.js';
import { DEFAULT_QUEUE_FILE } from '../review/review-entry.js';
import { reviewStatusOf } from '../review/review-status.js';
import { parseChoice, parseNonNegativeInteger, parsePositiveInteger } from './flags.js';

/** Output formats of `--format`. */
export const AUDIT_FORMATS = ['table', 'json', 'markdown'] as const;

/** Parsed flags of the `audit` command. */
export interface AuditCommandOptions {
  /** Folder of fixture folders (default: the bundled fixtures). */
  readonly fixtures?: string;
  /** Spider: the database folder (default `<input>/database`). */
  readonly db?: string;
  /** Comparison policy of golds with golds and of runs with golds (default `default`). */
  readonly preset?: PresetName;
  /** Earlier runs (promptfoo results, `spider --out` JSONL, recordings, prediction files). */
  readonly runs?: readonly string[];
  /** Measure fixture strength per item. */
  readonly strength?: boolean;
  /** Suite cache of `--strength`. */
  readonly cacheDir?: string;
  readonly seed?: string;
  readonly format?: (typeof AUDIT_FORMATS)[number];
  readonly json?: string;
  readonly markdown?: string;
  /** List findings at this severity and worse. */
  readonly severity?: GoldCheckSeverity;
  readonly listLimit?: number;
  /** List every item's row counts per snapshot. */
  readonly items?: boolean;
  /** Exit 1 on errors (default) or on warnings too. */
  readonly failOn?: 'error' | 'warning';
  readonly timeoutMs?: number;
  readonly concurrency?: number;
  /** The review queue read for pending reviews (default out/review.jsonl; a missing file is an empty queue). */
  readonly queue?: string;
}

/** Where the command writes (injectable for tests). */
export interface AuditCommandIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean; readonly terminal?: NodeJS.WritableStream };
}

/** Registers `text2sql-ladder audit` on the program. */
export function registerAuditCommand(program: Command): void {
  const command = program.command('audit');
  applyCliConventions(command)
    .description('Audit gold SQL: every gold on every snapshot and role; errors, ties at a LIMIT, unordered ties, NULL sort keys, clock reads, disagreeing golds, empty golds without a twin, and more')
    .argument('<input>', 'a dataset file (YAML/JSONL), a Spider folder (dev_gold.sql, database/) or a Spider gold file')
    .option('--fixtures <dir>', FIXTURES_OPTION_HELP)
    .option('--db <dir>', 'Spider input: the database folder DBDIR/<db_id>/*.sqlite (default: database/ beside the gold)')
    .option('--preset <name>', `comparison policy of golds with golds and runs with golds: ${PRESET_NAMES.join(', ')}`, parseChoice(PRESET_NAMES), 'default' as PresetName)
    .option('--runs <runs...>', 'earlier runs: promptfoo results (FILE.json, FILE.json#COLUMN), spider --out JSONL, recordings, prediction files; finds items where most runs agree against the gold')
    .option('--strength', 'also measure fixture strength per item: neighbour queries the snapshots cannot tell apart from the gold (slow)', false)
    .option('--cache-dir <dir>', 'with --strength: the test-suite cache folder (default: $TEXT2SQL_LADDER_CACHE_DIR/suites or ~/.cache/text2sql-ladder/suites)')
    .option('--seed <seed>', 'with --strength: seed of the literal perturbations', '0')
    .option('--format <name>', `stdout format: ${AUDIT_FORMATS.join(', ')}`, parseChoice(AUDIT_FORMATS), 'table' as const)
    .option('--json <file>', 'also write the JSON report (every finding, every item) to this file')
    .option('--markdown <file>', 'also write the Markdown report to this file')
    .option('--severity <level>', `list findings of this severity and worse: ${SEVERITIES.join(', ')} (counts cover all)`, parseChoice(SEVERITIES), 'info' as GoldCheckSeverity)
    .option('--list-limit <n>', 'findings listed per kind in the table and Markdown, 0 for all (default 0)', parseNonNegativeInteger)
    .option('--items', 'also list every item with its row counts per snapshot', false)
    .option('--fail-on <level>', 'exit 1 on findings of this severity and worse: error, warning (default error)', parseChoice(['error', 'warning'] as const), 'error' as const)
    .option('--timeout-ms <n>', 'deadline per statement in milliseconds (default 10000)', parsePositiveInteger)
    .option('--concurrency <n>', 'items audited at once (default 4)', parsePositiveInteger)
    .option('--queue <file>', 'dataset input: the review queue whose pending reviews to report', DEFAULT_QUEUE_FILE)
    .action(async (input: string, options: AuditCommandOptions) => {
      setExitCode(command, await runAuditCommand(input, options, cliIoOf(command)));
    });
}

/**
 * Runs the audit. Resolves to the exit status (see the module doc); misuse writes one `error: …`
 * line to stderr and no report.
 */
export async function runAuditCommand(input: string, options: AuditCommandOptions, io: AuditCommandIo): Promise<number> {
  let runtime: LadderRuntime | undefined;
  try {
    // Validate and interpret the options.
    // The app's fixtures: --fixtures, else $TEXT2SQL_LADDER_FIXTURES (as the promptfoo front end), else the bundled ones.
    const fixturesDir = fixturesFolder(options.fixtures).dir ?? defaultFixturesDir();
    if (options.db !== undefined) checkFolder(options.db, '--db');
    const runs = distinctLabels((options.runs ?? []).map((spec) => readAuditRun(spec)));
    runtime = createLadderRuntime({
      ...(options.timeoutMs === undefined ? {} : { engine: { timeoutMs: options.timeoutMs } }),
      fixtures: { fixturesDir },
    });
    const source = await readAuditSource(input, { runtime, fixturesDir, ...(options.db === undefined ? {} : { dbDir: options.db }) });
    const bar = await progressBarOn(io.stderr, 'audit [{bar}] {value}/{total} items | {duration_formatted}');
    bar?.start(source.items.length, 0);
    const audited = await auditGolds(source, {
      runtime,
      policy: options.preset ?? 'default',
      runs,
      ...(options.strength === true ? { strength: { seed: options.seed ?? '0', ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) } } : {}),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      onItem: (done) => bar?.update(done),
    });
    bar?.stop();
    const report = source.kind === 'dataset' ? { ...audited, review: reviewStatusOf(input, options.queue ?? DEFAULT_QUEUE_FILE) } : audited;
    const render = {
      ...(options.severity === undefined ? {} : { severity: options.severity }),
      ...(options.listLimit === undefined ? {} : { listLimit: options.listLimit }),
      items: options.items === true,
    };
    if (options.json !== undefined) writeOutput(options.json, auditJson(report), '--json');
    if (options.markdown !== undefined) writeOutput(options.markdown, renderAuditMarkdown(report, render), '--markdown');
    const format = options.format ?? 'table';
    io.stdout.write(format === 'json' ? auditJson(report) : format === 'markdown' ? renderAuditMarkdown(report, render) : renderAuditText(report, render));
    const failing = report.counts.error + (options.failOn === 'warning' ? report.counts.warning : 0);
    return failing > 0 ? 1 : 0;
  } catch (error) {
    return exitCodeForError(error, io);
  } finally {
    await runtime?.close();
  }
}

/** Two runs with one label (`a/run.jsonl b/run.jsonl`) are told apart by their spec. */
function distinctLabels(runs: readonly AuditRun[]): AuditRun[] {
  const seen = new Map<string, number>();
  for (const run of runs) seen.set(run.label, (seen.get(run.label) ?? 0) + 1);
  return runs.map((run) => ((seen.get(run.label) ?? 0) > 1 ? { ...run, label: run.spec } : run));
}

function writeOutput(file: string, text: string, flag: string): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw new LadderError('invalid_option', `${flag}: cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
}
