/**
 * The promptfoo setup checked once, when the test generator loads, before the first row: a
 * misspelt or wrong option, an invalid dataset item, a fixture, role or snapshot that does not
 * exist, a database file that is missing or no SQLite database. Found here, such a mistake stops
 * `promptfoo eval` with one line on stderr and exit code 2 (src/exit-codes.ts), instead of one
 * ERROR row per item, a run that exits 0, or a Node stack.
 *
 * What is checked (each problem is a LadderError with a misuse code; the first one is reported):
 * - the generator's own keys (dataset-tests.ts reads them) and its `ladder` block, with the
 *   ladder's option readers (`config.ladder.polcy is not an option (did you mean
 *   config.ladder.policy?)`); an `assert` entry that names the ladder assertion, its `config`;
 * - the dataset: every invalid item, each with `file:line` (unless `strict: false` skips them);
 * - every fixture the items name, with its role (resolved, and built on first use, as the first
 *   row would); every snapshot an item names exists in its fixture;
 * - every `db_path` file starts with the SQLite header.
 *
 * A fixture that cannot be resolved for a reason that is not misuse (a PostgreSQL server that
 * cannot be started or reached) stops the run too, with exit code 3: nothing could be graded.
 */
import { isInfrastructureError, isMisuseError, LadderError } from '../errors.js';
import { EXIT_INCOMPLETE, EXIT_MISUSE } from '../exit-codes.js';
import { checkSqliteFile } from '../fixtures/sqlite-file.js';
import { errorText, oneLine } from '../format.js';
import { optionReader } from '../options.js';
import type { DatasetItem } from '../dataset/load.js';
import { LADDER_OPTIONS, readAssertionOptions } from './config.js';
import { promptfooConfigDir, readFixtureLocation, type FixtureLocation } from './fixture-location.js';
import { resolveFixtureOnce } from './runtime.js';
import { runsInPromptfooCli } from './promptfoo-cli.js';

export { runsInPromptfooCli } from './promptfoo-cli.js';

/** What {@link checkLadderSetup} reads of the generator's config. */
export interface LadderSetup {
  /** The `ladder` block (the default assertion's config), when given. */
  readonly ladder?: Record<string, unknown>;
  /** The `assert` list, when given. */
  readonly assert?: ReadonlyArray<{ readonly type?: unknown; readonly value?: unknown; readonly config?: unknown }>;
}

/**
 * True when an assertion's `value` names the ladder assertion: by path (`file://…/assertions/ladder.js:ladder`,
 * the sources' `ladder.ts`) or by the package's `./assertions` export (`package:text2sql-ladder/assertions:ladder`).
 */
export function namesLadderAssertion(value: unknown): boolean {
  return typeof value === 'string' && (/[\\/]assertions[\\/]ladder\.(?:[cm]?[jt]s):ladder$/.test(value) || value === 'package:text2sql-ladder/assertions:ladder');
}

/**
 * Checks the ladder options of a generator config: the `ladder` block, and the `config` of every
 * `assert` entry naming the ladder assertion.
 * @throws LadderError `invalid_option` naming `config.ladder.<option>` or `config.assert[i].config.<option>`.
 */
export function checkLadderOptions(setup: LadderSetup): void {
  if (setup.ladder !== undefined) readAssertionOptions(setup.ladder, LADDER_OPTIONS, 'config.ladder.');
  for (const [index, entry] of (setup.assert ?? []).entries()) {
    if (entry !== null && typeof entry === 'object' && namesLadderAssertion(entry.value)) {
      readAssertionOptions(entry.config as Record<string, unknown> | undefined, LADDER_OPTIONS, `config.assert[${index}].config.`);
    }
  }
}

/**
 * Checks the databases the items name: each fixture (with its role) resolves, each snapshot an
 * item names is one of its fixture's, each `db_path` file is a SQLite database.
 * @param location - the ladder block's own `fixturesDir` / `cacheDir` (the generator's are
 *   recorded for the process already).
 * @throws LadderError (misuse; the message starts with `file:line` of the field at fault — `db`,
 *   `db_path`, `snapshots` or `role`, on the item or in `defaults:` — and the item's id), or an
 *   infrastructure LadderError (`engine_failure`, `db_unavailable`) when a fixture cannot be built.
 */
export async function checkItemDatabases(items: readonly DatasetItem[], location: FixtureLocation = {}): Promise<void> {
  const resolved = new Map<string, Promise<readonly string[]>>();
  for (const item of items) {
    // The field at fault, where it is written (the item's own line, or its `defaults:` line).
    let field: 'db' | 'db_path' | 'snapshots' | 'role' = item.db_path !== undefined ? 'db_path' : 'db';
    try {
      if (item.db_path !== undefined) {
        for (const file of item.db_path) await checkSqliteFile(file, 'db_path');
        continue;
      }
      const key = `${item.db}\u0000${item.role ?? ''}`;
      let names = resolved.get(key);
      if (names === undefined) {
        names = resolveFixtureOnce(item.db, item.role, location).then((fixture) => fixture.snapshots.map((snapshot) => snapshot.name));
        resolved.set(key, names);
      }
      let known: readonly string[];
      try {
        known = await names;
      } catch (error) {
        // A fixture that exists but lacks the role: the `role:` line is at fault, not `db:`.
        if (item.role !== undefined && error instanceof LadderError && error.code !== 'unknown_fixture' && error.message.includes(`role ${JSON.stringify(item.role)}`)) field = 'role';
        throw error;
      }
      const unknown = (item.snapshots ?? []).filter((name) => !known.includes(name));
      field = 'snapshots';
      if (unknown.length > 0) throw new LadderError('dataset_invalid', `snapshots ${unknown.map((name) => JSON.stringify(name)).join(', ')} not in fixture ${item.db} (its snapshots: ${known.join(', ')})`);
    } catch (error) {
      const at = `${item.source.file}:${item.source.fieldLines?.[field] ?? item.source.line}: item "${item.id}"`;
      if (error instanceof LadderError) throw new LadderError(error.code, `${at}: ${error.message}`, { cause: error });
      throw error;
    }
  }
}

/** The location a `ladder` block sets for its own assertion (`fixturesDir` / `cacheDir`), absolute. */
export function ladderBlockLocation(ladder: Record<string, unknown> | undefined): FixtureLocation {
  return readFixtureLocation(optionReader(ladder, { prefix: 'config.ladder.' }), promptfooConfigDir());
}

/**
 * The exit code of a problem found at load: 2 for misuse, 3 for an infrastructure fault, and
 * `undefined` for anything else (a bug: rethrown with its stack).
 */
export function loadExitCode(error: unknown): number | undefined {
  if (isMisuseError(error)) return EXIT_MISUSE;
  if (isInfrastructureError(error)) return EXIT_INCOMPLETE;
  return undefined;
}

/**
 * Runs a test generator's body: in promptfoo's command line, a misuse or infrastructure problem
 * ends the run at once with one line on stderr (`text2sql-ladder: error: …`, indented hint lines
 * below it) and exit code 2 or 3 — promptfoo would print the error with a Node stack, and exit 1;
 * elsewhere the error is thrown.
 * @param generator - named in the message as the config's `tests:` entry, e.g. `tests: loadTests`.
 */
export async function failFastAtLoad<T>(generator: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const code = loadExitCode(error);
    if (code === undefined || !runsInPromptfooCli()) throw error;
    const [first, ...rest] = errorText(error).split('\n');
    const hint = code === EXIT_MISUSE ? 'nothing ran; fix the config or the dataset and run again' : 'nothing ran; the machine, not the model, failed';
    process.stderr.write(`text2sql-ladder: error: ${oneLine(first ?? '')}\n${rest.map((line) => `  ${line.trim()}\n`).join('')}  (${generator}: ${hint})\n`);
    process.exit(code);
  }
}
