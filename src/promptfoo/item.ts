/**
 * Reading one dataset item out of a promptfoo assertion context: expected behaviour, gold SQL,
 * snapshots, role, and whether the provider had an output at all.
 *
 * Where each field comes from (the assertion's `config` wins over the test's `vars`, so a config
 * can pin a value for every test):
 * | field              | config / vars key     | default                                   |
 * |--------------------|-----------------------|-------------------------------------------|
 * | expected behaviour | `expected_behavior`   | `answer`                                  |
 * | gold SQL           | `gold_sql`            | none (the item is unscored)               |
 * | fixture            | `db`                  | — (`db_path` instead for a plain database) |
 * | database file(s)   | `db_path`             | — (a path or a list, one snapshot each; relative to the promptfoo config's folder) |
 * | fixture folders    | `fixturesDir`, `cacheDir` (config only) | the test generator's, the environment's, the bundled ones (src/promptfoo/fixture-location.ts) |
 * | snapshots          | `snapshots`           | every snapshot of the fixture             |
 * | role               | `role`                | none (full databases)                     |
 * | item id            | `id`                  | the test description                      |
 * | row order          | `gold_result_ordered` | derived from the gold's ORDER BY          |
 * | frozen date        | `as_of_date`          | none (golds reading the clock are flagged) |
 * | PostgreSQL server  | `postgres` (config only) | `TEXT2SQL_LADDER_POSTGRES_URL`, else a private server (src/promptfoo/config.ts) |
 *
 * The item's dialect is its fixture's (`dialect: postgres` in the manifest runs on PostgreSQL);
 * `config.dialect` may only repeat it ({@link itemDialect}).
 *
 * A malformed field is misuse: LadderError('dataset_invalid') naming the field and, when the loader
 * recorded it in `test.metadata.source`, the dataset `file:line`; or, for a value pinned in the
 * config, LadderError('invalid_option') naming `config.<field>`.
 */
import path from 'node:path';
import { optionReader } from '../options.js';
import type { OptionReader } from '../options.js';
import type { ExpectedBehavior } from '../rungs/ladder.js';
import type { Engine, EngineName } from '../engine/engine.js';
import type { Dialect } from '../sql/parse.js';
import { LadderError } from '../errors.js';
import { readPostgresOption, type AssertionOptions } from './config.js';
import { snapshotOfFile, type Snapshot } from '../fixtures/snapshot.js';
import type { AssertionContext } from './adapter.js';
import { getSharedEngineFor, promptfooRuntime, resolveFixtureOnce } from './runtime.js';
import { promptfooConfigDir, readFixtureLocation } from './fixture-location.js';
import { missingPredictionMessage } from './replay-provider.js';
import type { ReplayMetadata } from './replay-provider.js';

/** The item as the rungs need it. */
export interface AssertionItem {
  readonly id: string;
  readonly expectedBehavior: ExpectedBehavior;
  readonly golds: readonly string[];
  /** Empty when the item names no database (allowed for declining items and static rungs). */
  readonly snapshots: readonly Snapshot[];
  readonly role: string | undefined;
  /** The fixture name, when the item names one (not for `db_path`). */
  readonly db: string | undefined;
  /** `file:line` of the item in its dataset, when the loader recorded it. */
  readonly source: string | undefined;
  /** Dataset `gold_result_ordered` (absent: row order derived from the gold). */
  readonly goldOrdered: boolean | undefined;
  /** Dataset `as_of_date` (`YYYY-MM-DD`; L4's gold checks read it). */
  readonly asOfDate: string | undefined;
  /** The question (`vars.question`), when the test has one. */
  readonly question: string | undefined;
  /** The engine of the item's databases: its fixture's dialect, `sqlite` for `db_path` files; undefined without a database. */
  readonly engine: EngineName | undefined;
}

const BEHAVIORS: readonly ExpectedBehavior[] = ['answer', 'clarify', 'refuse'];

function itemSource(context: AssertionContext): string | undefined {
  const source = context.test?.metadata?.['source'];
  return typeof source === 'string' ? source : undefined;
}

/**
 * Reads item fields from `config` first, then `vars`: a value pinned in the config is misuse of the
 * config (`invalid_option`, named `config.<field>`), one in the vars misuse of the dataset
 * (`dataset_invalid`, named by the field after the dataset `file:line` when known). An empty
 * string counts as absent (a var left blank).
 */
function itemFields(context: AssertionContext): { read: <T>(key: string, read: (reader: OptionReader, key: string) => T | undefined) => T | undefined; reader: (key: string) => OptionReader } {
  const source = itemSource(context);
  const blankless = (record: Record<string, unknown> | undefined): Record<string, unknown> =>
    Object.fromEntries(Object.entries(record ?? {}).filter(([, value]) => value !== ''));
  const fromConfig = optionReader(blankless(context.config), { prefix: 'config.' });
  const fromVars = optionReader(blankless(context.vars), { code: 'dataset_invalid', ...(source ? { at: `${source}: ` } : {}) });
  const reader = (key: string): OptionReader => (fromConfig.has(key) ? fromConfig : fromVars);
  return { reader, read: (key, read) => read(reader(key), key) };
}

/**
 * Reads the item (resolving and, on first use, building its fixture).
 * @param needsDatabase - true for rungs that read a database (L1 on SQLite, L2, L4, the ladder on
 *   answer items): then a missing `db`/`db_path` is misuse.
 * @throws LadderError `dataset_invalid` (a var) / `invalid_option` (a config value) /
 *   `unknown_fixture` (misuse): e.g. `snapshots: []`, `db_path: []`, `gold_result_ordered: "yes"`.
 */
export async function readItem(context: AssertionContext, needsDatabase: boolean): Promise<AssertionItem> {
  const { read, reader } = itemFields(context);
  const expectedBehavior = read('expected_behavior', (r, k) => r.oneOf(k, BEHAVIORS)) ?? 'answer';
  const golds = read('gold_sql', (r, k) => r.stringList(k, { single: true, expected: 'a SQL string or a list of them' })) ?? [];
  const role = read('role', (r, k) => r.string(k));
  const db = read('db', (r, k) => r.string(k, 'a fixture name'));
  const dbPaths = read('db_path', (r, k) => r.stringList(k, { single: true, nonEmpty: true, expected: 'a database path or a non-empty list of them' }));
  const wanted = read('snapshots', (r, k) => r.stringList(k, { single: true, nonEmpty: true, distinct: true, expected: 'a snapshot name or a non-empty list of them' }));
  const goldOrdered = read('gold_result_ordered', (r, k) => r.boolean(k));
  const asOfDate = read('as_of_date', (r, k) => r.string(k, 'a date "YYYY-MM-DD"'));
  const rawQuestion = context.vars?.['question'];
  const rawId = context.vars?.['id'] ?? context.test?.metadata?.['id'] ?? context.test?.description;
  const id = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : '(no id)';
  const source = itemSource(context);

  // The server PostgreSQL fixtures are built on is set before the first one is resolved.
  const postgres = readPostgresOption(context.config);
  if (postgres !== undefined) promptfooRuntime().usePostgres(postgres);
  let engine: EngineName | undefined;
  let snapshots: Snapshot[] = [];
  if (dbPaths !== undefined) {
    engine = 'sqlite';
    const baseDir = promptfooConfigDir();
    snapshots = dbPaths.map((file) => snapshotOfFile(path.resolve(baseDir, file)));
  } else if (db !== undefined) {
    const location = readFixtureLocation(optionReader(context.config, { prefix: 'config.' }), promptfooConfigDir());
    const fixture = await resolveFixtureOnce(db, role, location);
    engine = fixture.dialect;
    snapshots = fixture.snapshots.map((snapshot) => ({ name: snapshot.name, path: snapshot.path, ...(snapshot.checksum ? { checksum: snapshot.checksum } : {}), ...(snapshot.engine ? { engine: snapshot.engine } : {}) }));
    if (wanted !== undefined) {
      const unknown = wanted.filter((name) => !snapshots.some((snapshot) => snapshot.name === name));
      if (unknown.length > 0) throw reader('snapshots').invalid('snapshots', `names of snapshots of fixture ${db} (${snapshots.map((s) => s.name).join(', ')})`, unknown);
      snapshots = wanted.map((name) => snapshots.find((snapshot) => snapshot.name === name)!);
    }
  } else if (needsDatabase && expectedBehavior === 'answer') {
    throw reader('db').invalid('db', 'a fixture name (or db_path a database file) for an answer item', db);
  }
  return {
    id,
    expectedBehavior,
    golds,
    snapshots,
    role,
    db: dbPaths === undefined ? db : undefined,
    source,
    goldOrdered,
    asOfDate,
    question: typeof rawQuestion === 'string' ? rawQuestion : undefined,
    engine,
  };
}

/**
 * The dialect an item is judged in: `postgres` for an item on a PostgreSQL fixture, else
 * `config.dialect` (default `sqlite`).
 * @throws LadderError('invalid_option') when `config.dialect` names another dialect than a
 *   PostgreSQL fixture's. (On SQLite databases any `config.dialect` stands: another dialect than
 *   SQLite gets the parser-based gates, as without a database.)
 */
export function itemDialect(item: Pick<AssertionItem, 'id' | 'db' | 'engine'>, options: Pick<AssertionOptions, 'dialect' | 'explicitDialect'>): Dialect {
  if (item.engine === 'postgres') {
    if (options.explicitDialect !== undefined && options.explicitDialect !== 'postgres') {
      throw new LadderError('invalid_option', `config.dialect is ${options.explicitDialect}, but item ${item.id} runs on fixture ${item.db ?? '(its databases)'}, a PostgreSQL fixture (dialect: postgres in its manifest): remove config.dialect or set it to postgres`);
    }
    return 'postgres';
  }
  return options.dialect;
}

/**
 * The shared engine an item's databases run on: the PostgreSQL engine for an item on a
 * PostgreSQL fixture, the SQLite engine otherwise (also for an item without a database).
 */
export function itemEngine(item: Pick<AssertionItem, 'engine'>): Promise<Engine> {
  return getSharedEngineFor(item.engine ?? 'sqlite');
}

/** The reason to fail the item when the provider had nothing to say (replay without prediction). */
export function missingOutputOf(context: AssertionContext): string | undefined {
  const replay = context.providerResponse?.metadata?.['replay'] as Partial<ReplayMetadata> | undefined;
  if (replay === undefined || replay === null || typeof replay !== 'object' || replay.missing !== true) return undefined;
  return missingPredictionMessage(String(replay.key), String(replay.file));
}
