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
 * | database file(s)   | `db_path`             | — (a path or a list, one snapshot each; relative to the working directory) |
 * | snapshots          | `snapshots`           | every snapshot of the fixture             |
 * | role               | `role`                | none (full databases)                     |
 * | item id            | `id`                  | the test description                      |
 *
 * A malformed field is misuse of the dataset: LadderError('dataset_invalid') naming the field and,
 * when the loader recorded it in `test.metadata.source`, the dataset `file:line`.
 */
import path from 'node:path';
import { LadderError } from '../src/errors.js';
import type { ExpectedBehavior, LadderSnapshot } from '../src/rungs/ladder.js';
import type { AssertionContext } from './adapter.js';
import { describeValue } from './options.js';
import { resolveFixtureOnce } from './runtime.js';
import { missingPredictionMessage } from '../providers/replay.js';
import type { ReplayMetadata } from '../providers/replay.js';

/** The item as the rungs need it. */
export interface AssertionItem {
  readonly id: string;
  readonly expectedBehavior: ExpectedBehavior;
  readonly golds: readonly string[];
  /** Empty when the item names no database (allowed for declining items and static rungs). */
  readonly snapshots: readonly LadderSnapshot[];
  readonly role: string | undefined;
  /** The fixture name, when the item names one (not for `db_path`). */
  readonly db: string | undefined;
  /** `file:line` of the item in its dataset, when the loader recorded it. */
  readonly source: string | undefined;
}

const BEHAVIORS: readonly ExpectedBehavior[] = ['answer', 'clarify', 'refuse'];

/** Looks a field up in `config` first, then in `vars`. */
function field(context: AssertionContext, key: string): unknown {
  const fromConfig = context.config?.[key];
  return fromConfig !== undefined ? fromConfig : context.vars?.[key];
}

function itemSource(context: AssertionContext): string | undefined {
  const source = context.test?.metadata?.['source'];
  return typeof source === 'string' ? source : undefined;
}

function bad(context: AssertionContext, key: string, expected: string, value: unknown): LadderError {
  const source = itemSource(context);
  return new LadderError('dataset_invalid', `${source ? `${source}: ` : ''}${key} must be ${expected}, received ${describeValue(value)}`);
}

/** A string or a list of strings (a single string is a list of one); `undefined` when absent. */
function stringList(context: AssertionContext, key: string): string[] | undefined {
  const value = field(context, key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value as string[];
  throw bad(context, key, 'a string or a list of strings', value);
}

function optionalString(context: AssertionContext, key: string): string | undefined {
  const value = field(context, key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  throw bad(context, key, 'a string', value);
}

/**
 * Reads the item (resolving and, on first use, building its fixture).
 * @param needsDatabase - true for rungs that read a database (L1 on SQLite, L2, L4, the ladder on
 *   answer items): then a missing `db`/`db_path` is misuse.
 * @throws LadderError `dataset_invalid` / `unknown_fixture` / `invalid_option` (misuse).
 */
export async function readItem(context: AssertionContext, needsDatabase: boolean): Promise<AssertionItem> {
  const behavior = field(context, 'expected_behavior') ?? 'answer';
  if (!BEHAVIORS.includes(behavior as ExpectedBehavior)) throw bad(context, 'expected_behavior', 'one of answer, clarify, refuse', behavior);
  const expectedBehavior = behavior as ExpectedBehavior;
  const golds = stringList(context, 'gold_sql') ?? [];
  const role = optionalString(context, 'role');
  const db = optionalString(context, 'db');
  const dbPaths = stringList(context, 'db_path');
  const wanted = stringList(context, 'snapshots');
  const rawId = context.vars?.['id'] ?? context.test?.metadata?.['id'] ?? context.test?.description;
  const id = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : '(no id)';
  const source = itemSource(context);

  let snapshots: LadderSnapshot[] = [];
  if (dbPaths !== undefined) {
    snapshots = dbPaths.map((file) => ({ name: path.basename(file).replace(/\.(sqlite3?|db)$/i, ''), path: path.resolve(file) }));
  } else if (db !== undefined) {
    const fixture = await resolveFixtureOnce(db, role);
    snapshots = fixture.snapshots.map((snapshot) => ({ name: snapshot.name, path: snapshot.path, ...(snapshot.checksum ? { checksum: snapshot.checksum } : {}) }));
    if (wanted !== undefined) {
      const unknown = wanted.filter((name) => !snapshots.some((snapshot) => snapshot.name === name));
      if (unknown.length > 0) throw bad(context, 'snapshots', `names of snapshots of fixture ${db} (${snapshots.map((s) => s.name).join(', ')})`, unknown);
      snapshots = wanted.map((name) => snapshots.find((snapshot) => snapshot.name === name)!);
    }
  } else if (needsDatabase && expectedBehavior === 'answer') {
    throw bad(context, 'db', 'a fixture name (or db_path a database file) for an answer item', db);
  }
  return { id, expectedBehavior, golds, snapshots, role, db: dbPaths === undefined ? db : undefined, source };
}

/** The reason to fail the item when the provider had nothing to say (replay without prediction). */
export function missingOutputOf(context: AssertionContext): string | undefined {
  const replay = context.providerResponse?.metadata?.['replay'] as Partial<ReplayMetadata> | undefined;
  if (replay === undefined || replay === null || typeof replay !== 'object' || replay.missing !== true) return undefined;
  return missingPredictionMessage(String(replay.key), String(replay.file));
}
