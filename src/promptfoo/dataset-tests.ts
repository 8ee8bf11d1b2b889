/**
 * promptfoo test generator: turns a dataset file (YAML / JSONL, record format of *Text-to-SQL Evals* §12)
 * into promptfoo test cases that run the ladder assertion.
 *
 * ```yaml
 * tests:
 *   - path: file://datasets/promptfoo-tests.ts:loadTests        # from a clone (TypeScript via tsx)
 *   # - path: file://node_modules/text2sql-ladder/dist/datasets/promptfoo-tests.js:loadTests   # installed
 *     config:
 *       file: datasets/warehouse.yaml     # relative to the config's folder, else the working directory, else this package
 *       # fixturesDir: fixtures           # the app's fixture folders (relative to the config's folder)
 *       # cacheDir: .text2sql-ladder/cache/fixtures   # where fixtures are built (default: beside the config)
 *       ladder: { policy: default }       # the ladder assertion's config (optional)
 *       # assert: [...]                   # replaces the default [ladder] assertion list (optional)
 *       # ids: [q01, q02]                 # only these items (optional)
 *       # strict: false                   # skip invalid items (each named on stderr) instead of stopping
 * ```
 *
 * Each item becomes one test:
 * - `description`: `<id>: <question>`;
 * - `vars`: `id, question, db (or db_path: absolute SQLite files), snapshots?, role?, as_of_date?,
 *   gold_sql (list), expected_behavior, gold_tables, gold_result_ordered?` — what prompts and
 *   assertions read;
 *
 * `fixturesDir` / `cacheDir` are recorded for the process (src/promptfoo/fixture-location.ts), so
 * the assertions and the prompt function of these tests find the app's fixtures without repeating
 * them.
 * - `metadata`: `id`, `source` (`file:line`, named in misuse errors), `expected_behavior`,
 *   `scored`, `tags` (`key:value` strings, read by the ladder summary) and each tag as its own key
 *   (so `promptfoo eval --filter-metadata difficulty=hard` slices);
 * - `options.disableVarExpansion: true`, because promptfoo multiplies a test once per element of a
 *   string-array var (`gold_sql`, `snapshots`).
 *
 * The whole setup is checked here, once, before the first row (src/promptfoo/load-check.ts): the
 * generator's keys, the `ladder` block, every item (all invalid ones listed with `file:line`), every
 * fixture, role, snapshot and `db_path` file the items name. In promptfoo's command line a problem
 * ends the run with one line on stderr and exit code 2 (3 when a fixture cannot be built for a
 * reason that is not misuse); called from code, it throws. `strict: false` skips invalid items
 * instead, each named on stderr. With the default ladder assertion, the ladder's engine child and
 * parser thread start once the setup is checked (src/promptfoo/warm-up.ts), not on the first row.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LadderError } from '../errors.js';
import { optionReader } from '../options.js';
import { findPackageRoot } from '../fixtures/package-root.js';
import { loadDataset } from '../dataset/load.js';
import { LOCATION_OPTIONS, promptfooConfigDir, readFixtureLocation, setSuiteFixtureLocation } from './fixture-location.js';
import { checkItemDatabases, checkLadderOptions, failFastAtLoad, ladderBlockLocation, type LadderSetup } from './load-check.js';
import { readPostgresOption } from './config.js';
import { promptfooRuntime } from './runtime.js';
import type { DatasetItem, TagValue } from '../dataset/load.js';

/** A promptfoo assertion as written in a config. */
export interface PromptfooAssertion {
  type: string;
  value?: unknown;
  config?: Record<string, unknown>;
  metric?: string;
  weight?: number;
}

/** A promptfoo test case as this generator writes it. */
export interface PromptfooTestCase {
  description: string;
  vars: Record<string, unknown>;
  metadata: Record<string, unknown>;
  options: { disableVarExpansion: true };
  assert: PromptfooAssertion[];
}

/** The generator's `config` (the object form of a `tests` entry). */
export interface LoadTestsConfig {
  /** The dataset file. */
  readonly file: string;
  /** Config of the default ladder assertion. */
  readonly ladder?: Record<string, unknown>;
  /** Assertions for every test, replacing the default `[ladder]`. */
  readonly assert?: PromptfooAssertion[];
  /** Keep only these item ids (in dataset order). */
  readonly ids?: readonly string[];
  /** Stop on invalid items (every one listed). Default true; false skips them, each named on stderr. */
  readonly strict?: boolean;
  /** The app's fixture folders, relative to the promptfoo config's folder. */
  readonly fixturesDir?: string;
  /** The fixture build cache, relative to the promptfoo config's folder. */
  readonly cacheDir?: string;
}

const KNOWN = ['file', 'ladder', 'assert', 'ids', 'strict', ...LOCATION_OPTIONS];

/**
 * The `file://` reference of the ladder assertion next to this module (source or dist). A reference,
 * not a function value, although promptfoo imports it again on every row: promptfoo catches what a
 * function-valued assertion throws and fails the row ("Custom function threw error"), where a misuse
 * (a misspelt option, an unknown fixture) must be an ERROR row; a `file://` assertion's throw is one.
 */
export function ladderAssertionRef(): string {
  return `file://${ladderAssertionFile()}:ladder`;
}

/** The absolute path of the ladder assertion's module next to this one (`.ts` from source, `.js` from dist). */
function ladderAssertionFile(): string {
  const here = fileURLToPath(import.meta.url);
  return path.join(path.dirname(here), '..', '..', 'assertions', `ladder${path.extname(here)}`);
}

/** `difficulty: medium` → `difficulty:medium`; lists give one tag per element; `true` gives the key. */
export function flattenTags(tags: Readonly<Record<string, TagValue>>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(tags)) {
    if (Array.isArray(value)) for (const entry of value) out.push(`${key}:${String(entry)}`);
    else if (value === true) out.push(key);
    else if (value !== false) out.push(`${key}:${String(value)}`);
  }
  return out;
}

/**
 * Converts one dataset item into a promptfoo test case (see the module doc for the layout).
 * @param assert - the assertions to attach.
 */
export function toTestCase(item: DatasetItem, assert: PromptfooAssertion[]): PromptfooTestCase {
  const vars: Record<string, unknown> = {
    id: item.id,
    question: item.question,
    ...(item.db_path !== undefined ? { db_path: [...item.db_path] } : { db: item.db }),
    gold_sql: [...item.gold_sql],
    expected_behavior: item.expected_behavior,
    gold_tables: [...item.gold_tables],
  };
  if (item.snapshots !== undefined) vars['snapshots'] = [...item.snapshots];
  if (item.role !== undefined) vars['role'] = item.role;
  if (item.as_of_date !== undefined) vars['as_of_date'] = item.as_of_date;
  if (item.gold_result_ordered !== undefined) vars['gold_result_ordered'] = item.gold_result_ordered;
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item.tags)) metadata[key] = Array.isArray(value) ? value.join(',') : value;
  Object.assign(metadata, {
    id: item.id,
    source: `${item.source.file}:${item.source.line}`,
    expected_behavior: item.expected_behavior,
    scored: item.scored,
    tags: flattenTags(item.tags),
    ...(item.notes !== undefined ? { notes: item.notes } : {}),
  });
  return {
    description: `${item.id}: ${item.question}`,
    vars,
    metadata,
    options: { disableVarExpansion: true },
    assert: assert.map((entry) => ({ ...entry, ...(entry.config ? { config: { ...entry.config } } : {}) })),
  };
}

/**
 * Finds the dataset: relative to `baseDir` (the promptfoo config's folder), else the working
 * directory, else inside this package (the bundled datasets); as given when none has it.
 */
export function resolveDatasetFile(file: string, baseDir: string = promptfooConfigDir()): string {
  if (path.isAbsolute(file)) return file;
  // Named as given when the config's folder is the working directory (messages and run
  // identities then show `datasets/x.yaml`, not an absolute path).
  const besideConfig = path.resolve(baseDir, file);
  if (existsSync(besideConfig)) return path.resolve(file) === besideConfig ? file : besideConfig;
  const candidates = [file, path.join(findPackageRoot(import.meta.url), file)];
  return candidates.find((candidate) => existsSync(candidate)) ?? file;
}

/**
 * The generator promptfoo calls (`file://…/promptfoo-tests.ts:loadTests` with a `config`): the
 * tests of {@link readDatasetTests}; in promptfoo's command line a problem with the setup ends the
 * run with one line on stderr and exit code 2 (src/promptfoo/load-check.ts `failFastAtLoad`).
 */
export function loadTests(config?: LoadTestsConfig): Promise<PromptfooTestCase[]> {
  return failFastAtLoad('tests: loadTests', () => readDatasetTests(config));
}

/**
 * The tests of a dataset file, with the whole setup checked first (see the module doc).
 * @throws LadderError `invalid_option` for a missing, misspelt or wrong option (the generator's or
 *   the `ladder` block's); `dataset_invalid` for an unreadable file or invalid items (all of them,
 *   unless `strict: false`); `unknown_fixture`, `invalid_option` (a role), `dataset_invalid` (a
 *   snapshot), `input_invalid` (a `db_path` file that is no SQLite database) naming the item.
 */
export async function readDatasetTests(config?: LoadTestsConfig): Promise<PromptfooTestCase[]> {
  // Validate arguments.
  if (config === undefined || config === null || typeof config !== 'object') {
    throw new LadderError('invalid_option', 'tests: loadTests needs a config object with `file` (use the object form: `- path: file://…:loadTests` + `config: { file: … }`)');
  }
  const read = optionReader(config, { prefix: 'config.', at: 'tests: loadTests: ' });
  read.unknownKeys(KNOWN);
  const file = read.string('file', 'the path of a dataset file');
  if (file === undefined) throw read.invalid('file', 'the path of a dataset file', config.file);
  const assertList = read.raw('assert');
  if (assertList !== undefined && !Array.isArray(assertList)) throw read.invalid('assert', 'a list of assertions', assertList);
  const ladder = read.record('ladder', 'the ladder assertion\'s config (an object)');
  read.stringList('ids', { expected: 'a list of item ids' });
  const strict = read.boolean('strict') ?? true;
  const baseDir = promptfooConfigDir();
  const location = readFixtureLocation(read, baseDir);
  // Validate the interpreted options: the ladder's own, before any item is read.
  checkLadderOptions({ ...(ladder !== undefined ? { ladder } : {}), ...(Array.isArray(assertList) ? { assert: assertList as NonNullable<LadderSetup['assert']> } : {}) });
  // Interpret options.
  setSuiteFixtureLocation(location);
  const { items, errors } = await loadDataset(resolveDatasetFile(config.file, baseDir));
  if (errors.length > 0) {
    if (strict) throw new LadderError('dataset_invalid', `${errors.length} invalid item${errors.length === 1 ? '' : 's'} in ${config.file} (strict: false skips them):\n${errors.map((error) => error.message).join('\n')}`);
    for (const error of errors) process.stderr.write(`text2sql-ladder: skipped invalid item: ${error.message}\n`);
  }
  const assert = config.assert ?? [{ type: 'javascript', value: ladderAssertionRef(), ...(config.ladder ? { config: config.ladder } : {}) }];
  const wanted = config.ids ? new Set(config.ids) : undefined;
  if (wanted) {
    const missing = [...wanted].filter((id) => !items.some((item) => item.id === id));
    if (missing.length > 0) throw new LadderError('invalid_option', `tests: loadTests: config.ids names items not in ${config.file}: ${missing.join(', ')}`);
  }
  const chosen = items.filter((item) => wanted === undefined || wanted.has(item.id));
  // Every database the chosen items name, as their rows will open them (builds a fixture on first
  // use, on the ladder block's PostgreSQL server when it names one, as the rows will).
  const postgres = ladder === undefined ? undefined : readPostgresOption(ladder);
  if (postgres !== undefined) promptfooRuntime().usePostgres(postgres);
  await checkItemDatabases(chosen, ladderBlockLocation(ladder));
  // The ladder will run on these tests: start its engine child and parser thread while promptfoo
  // is still starting up (warm-up.ts). Loaded only then, so a loader used with other assertions
  // pays nothing for it.
  if (config.assert === undefined && chosen.length > 0) void import('./warm-up.js').then((warmUp) => warmUp.warmLadderRuntime(ladderAssertionFile()), () => undefined);
  return chosen.map((item) => toTestCase(item, assert));
}
