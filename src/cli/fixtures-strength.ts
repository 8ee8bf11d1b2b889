/**
 * `text2sql-ladder fixtures strength`: how many plausible mistakes a dataset's fixtures catch.
 * For every gold of the dataset, the share of its neighbour queries (a dropped predicate, `>` for
 * `>=`, a swapped column, LEFT for INNER join, …) that the fixture's snapshots tell apart from
 * the gold, with the survivors, and a dataset-level score. With `--with-suite`, the same after
 * adding the distilled test suite (generated databases, cached).
 *
 *   text2sql-ladder fixtures strength --dataset datasets/warehouse.yaml [--with-suite] [--survivors 5]
 *     [--seed 0] [--max-databases 300] [--patience 100] [--max-seconds 600] [--preset default]
 *     [--cache-dir DIR] [--fixtures-dir DIR] [--timeout-ms N] [--json report.json]
 *
 * Exit status: 0 after a report, 2 on bad usage (unknown flag, unreadable dataset, unknown fixture).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { PRESET_NAMES, resolvePolicy, type PresetName } from '../compare/policy.js';
import { loadDataset } from '../dataset/load.js';
import { createSqliteEngine, type SqliteEngine } from '../engine/sqlite/sqlite-engine.js';
import { LadderError } from '../errors.js';
import { defaultFixturesDir, resolveFixture } from '../fixtures/registry.js';
import { fixtureStrength, type FixtureStrength, type StrengthGold } from '../semantic/suite/fixture-strength.js';
import { readFixtureInvariants } from '../semantic/model/invariants.js';
import { buildTestSuite } from '../semantic/suite/test-suite.js';
import { commandGroup } from './cli-io.js';

/** Parsed flags of `fixtures strength`. */
export interface FixturesStrengthOptions {
  readonly dataset: string;
  readonly withSuite: boolean;
  /** Survivors listed per gold (default 0: counts only). */
  readonly survivors: number;
  readonly seed: string;
  readonly maxDatabases?: number;
  readonly patience?: number;
  readonly maxSeconds?: number;
  readonly preset: PresetName;
  readonly cacheDir?: string;
  readonly fixturesDir?: string;
  readonly timeoutMs?: number;
  readonly json?: string;
}

/** Where the command writes (injectable for tests). */
export interface FixturesStrengthIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/** One fixture's report: strength on its snapshots, and with the suite when asked. */
export interface FixtureStrengthReport {
  readonly fixture: string;
  readonly snapshots: readonly string[];
  readonly before: FixtureStrength;
  readonly after?: FixtureStrength;
  /** Generated databases the suite kept, and draws made. */
  readonly suite?: { readonly key: string; readonly dir: string; readonly databases: number; readonly draws: number; readonly fromCache: boolean };
}

/** Registers `text2sql-ladder fixtures strength` on the program. */
export function registerFixturesCommand(program: Command): void {
  const fixtures = commandGroup(program, 'fixtures', 'Commands about fixtures (snapshot databases)');
  fixtures
    .command('strength')
    .description("Share of each gold's neighbour queries (plausible mistakes) the fixture's snapshots tell apart from it, per gold and for the dataset")
    .requiredOption('--dataset <file>', 'dataset YAML (record format: docs/dataset-and-fixtures.md)')
    .option('--with-suite', 'also measure with the distilled test suite added (builds it once, cached)', false)
    .option('--survivors <n>', 'list up to n undistinguished neighbours per gold', parseCount('--survivors'), 0)
    .option('--seed <seed>', 'seed of the generated databases and of the literal perturbations', '0')
    .option('--max-databases <n>', 'with --with-suite: most databases drawn per gold (default 300)', parseCount('--max-databases'))
    .option('--patience <n>', 'with --with-suite: stop a gold after n draws in a row that distinguish nothing new (default 100)', parsePositive('--patience'))
    .option('--max-seconds <n>', 'with --with-suite: most seconds spent per gold (default 600)', parsePositive('--max-seconds'))
    .option('--preset <name>', `comparison policy neighbours are told apart under: ${PRESET_NAMES.join(', ')}`, parsePreset, 'default' as PresetName)
    .option('--cache-dir <dir>', 'suite cache folder (default: $TEXT2SQL_LADDER_CACHE_DIR/suites or ~/.cache/text2sql-ladder/suites)')
    .option('--fixtures-dir <dir>', 'folder of fixture folders (default: the bundled fixtures)')
    .option('--timeout-ms <n>', 'deadline per statement in milliseconds (default 10000)', parseWhole('--timeout-ms'))
    .option('--json <file>', 'write the full report (every gold, every survivor) as JSON')
    .exitOverride((error) => {
      process.exit(error.exitCode === 0 ? 0 : 2);
    })
    .action(async (options: FixturesStrengthOptions) => {
      process.exitCode = await runFixturesStrength(options, { stdout: process.stdout, stderr: process.stderr });
    });
}

/**
 * Runs the command. Resolves to the exit status: 0 after a report, 2 on misuse.
 */
export async function runFixturesStrength(options: FixturesStrengthOptions, io: FixturesStrengthIo): Promise<number> {
  let engine: SqliteEngine | undefined;
  try {
    const policy = resolvePolicy(options.preset);
    const dataset = await loadDataset(options.dataset);
    for (const error of dataset.errors) io.stderr.write(`warning: ${error.message} (item left out)\n`);
    const items = dataset.items.filter((item) => item.gold_sql.length > 0);
    if (items.length === 0) throw new LadderError('dataset_invalid', `${options.dataset}: no item has gold SQL`);
    engine = createSqliteEngine(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
    const fixturesDir = path.resolve(options.fixturesDir ?? defaultFixturesDir());
    const reports: FixtureStrengthReport[] = [];
    for (const fixture of [...new Set(items.map((item) => item.db))]) {
      const resolved = await resolveFixture(fixture, { fixturesDir });
      const invariants = readFixtureInvariants(path.join(fixturesDir, fixture, 'fixture.yaml'));
      const golds: StrengthGold[] = items.filter((item) => item.db === fixture).flatMap((item) => item.gold_sql.map((sql, g) => ({ sql, id: item.gold_sql.length > 1 ? `${item.id}#${g}` : item.id })));
      const build = (maxDatabases: number | undefined): ReturnType<typeof buildTestSuite> =>
        buildTestSuite({
          engine: engine!,
          schemaDb: resolved.snapshots[0]!.path,
          snapshots: resolved.snapshots,
          golds: golds.map((g) => g.sql),
          invariants,
          seed: options.seed,
          policy,
          budget: {
            ...(maxDatabases === undefined ? {} : { maxDatabases }),
            ...(options.patience === undefined ? {} : { patience: options.patience }),
            ...(options.maxSeconds === undefined ? {} : { maxSeconds: options.maxSeconds }),
          },
          ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        });
      const suite = await build(options.withSuite ? options.maxDatabases : 0);
      reports.push({
        fixture,
        snapshots: resolved.snapshots.map((s) => s.name),
        before: fixtureStrength(suite, golds, 'snapshots'),
        ...(options.withSuite
          ? { after: fixtureStrength(suite, golds, 'suite'), suite: { key: suite.key, dir: suite.dir, databases: suite.databases.length, draws: suite.draws, fromCache: suite.fromCache } }
          : {}),
      });
    }
    for (const report of reports) io.stdout.write(formatStrengthReport(report, options.survivors));
    if (options.json !== undefined) await writeFile(options.json, `${JSON.stringify(reports, null, 1)}\n`);
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
 * The report as text: one line per gold (neighbours, distinguished, strength, survivors), the
 * dataset-level score, and up to `survivors` undistinguished neighbours per gold.
 */
export function formatStrengthReport(report: FixtureStrengthReport, survivors: number): string {
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  const { before, after } = report;
  const idWidth = Math.max(4, ...before.golds.map((g) => (g.id ?? '').length));
  let text = `fixture ${report.fixture}: snapshots ${report.snapshots.join(', ')}${report.suite ? ` + ${report.suite.databases} generated databases (${report.suite.draws} drawn${report.suite.fromCache ? ', from the cache' : ''})` : ''}\n`;
  const header = ['gold'.padEnd(idWidth), 'neighbours'.padStart(10), 'snapshots'.padStart(10), ...(after ? ['+ suite'.padStart(10)] : []), '  survivors'];
  text += `${header.join('  ')}\n`;
  before.golds.forEach((gold, i) => {
    const withSuite = after?.golds[i];
    const left = (withSuite ?? gold).survivors.length;
    text += `${[(gold.id ?? String(i)).padEnd(idWidth), String(gold.neighbours).padStart(10), pct(gold.strength).padStart(10), ...(withSuite ? [pct(withSuite.strength).padStart(10)] : []), `  ${left}`].join('  ')}\n`;
    for (const survivor of (withSuite ?? gold).survivors.slice(0, survivors)) text += `${' '.repeat(idWidth)}    ${survivor.kind}: ${survivor.description}\n`;
  });
  text += `dataset: ${before.neighbours} neighbours of ${before.golds.length} golds; the snapshots distinguish ${before.distinguished} (${pct(before.strength)}; mean per gold ${pct(before.meanStrength)})`;
  if (after) text += `; with the suite ${after.distinguished} (${pct(after.strength)}; mean per gold ${pct(after.meanStrength)})`;
  return `${text}\n`;
}

function parsePreset(value: string): PresetName {
  if (!PRESET_NAMES.includes(value as PresetName)) throw new InvalidArgumentError(`expected one of ${PRESET_NAMES.join(', ')}`);
  return value as PresetName;
}

function parseCount(flag: string): (value: string) => number {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError(`${flag} must be an integer ≥ 0`);
    return Number(value);
  };
}

function parseWhole(flag: string): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer`);
    return n;
  };
}

function parsePositive(flag: string): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0)) throw new InvalidArgumentError(`${flag} must be a number > 0`);
    return n;
  };
}
