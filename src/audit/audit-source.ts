/**
 * What an audit reads: a dataset file (YAML or JSONL, record format) whose items name fixtures, or
 * a Spider-format folder (`dev_gold.sql`, optional `dev.json` for the questions, `database/`) or
 * gold file. Both become {@link AuditItem}s whose snapshots a {@link AuditSource} resolves:
 * - dataset items through the runtime's fixture resolution (`LadderRuntime.resolveFixture`, the
 *   same as the promptfoo front end: role-scoped copies when the item has a role, only the
 *   snapshots it names when it names some);
 * - Spider items to every `database/<db_id>/*.sqlite` file (`listSnapshots`, as the `spider`
 *   command and the official test-suite evaluator do).
 *
 * Records that do not load are `dataset_error` findings naming `file:line`; an unreadable or
 * unrecognised path is misuse (LadderError `dataset_invalid` / `input_invalid` / `db_not_found`).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { snapshotOfFile } from '../fixtures/snapshot.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { fileChecksum } from '../fixtures/build.js';
import { loadDataset } from '../dataset/load.js';
import type { TagValue } from '../dataset/item.js';
import { isLadderError, isMisuseError, LadderError } from '../errors.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { listSnapshots } from '../benchmarks/spider/list-snapshots.js';
import { readSpiderGold } from '../benchmarks/spider/read-spider-files.js';
import { createFinding, type AuditFinding } from './audit-finding.js';
import { readUserText } from '../files/user-file.js';

/** One item to audit: its golds and what decides where and how they run. */
export interface AuditItem {
  /** The dataset id; for Spider, the 0-based gold index as a string (as `spider --out` names items). */
  readonly id: string;
  /** `file:line` of the record. */
  readonly source: string;
  /** `file:line` of each gold (same order as `golds`): where a gold's findings point. */
  readonly goldSources?: readonly string[];
  /** Fixture name (dataset) or Spider db_id; for a dataset item on plain SQLite files, the first file as written. */
  readonly db: string;
  /** The item's SQLite files (absolute), when it names files instead of a fixture. */
  readonly dbPaths?: readonly string[];
  readonly role?: string;
  /** Snapshot names the item runs on; `undefined`: every snapshot. */
  readonly snapshots?: readonly string[];
  readonly asOfDate?: string;
  /** Gold SQL texts (never empty: items without gold are counted, not audited). */
  readonly golds: readonly string[];
  /** The item's `gold_result_ordered`. */
  readonly goldOrdered?: boolean;
  readonly tags: Readonly<Record<string, TagValue>>;
  readonly question?: string;
}

/** Where an item's golds run, or why they cannot. */
export type ResolvedSnapshots = { readonly ok: true; readonly snapshots: readonly Snapshot[]; readonly unknown: readonly AuditFinding[] } | { readonly ok: false; readonly findings: readonly AuditFinding[] };

/** A loaded audit input. */
export interface AuditSource {
  readonly kind: 'dataset' | 'spider';
  /** The path as given. */
  readonly path: string;
  /** Items with gold, in file order. */
  readonly items: readonly AuditItem[];
  /** Items loaded, with gold or not (declining items and items awaiting a gold included). */
  readonly loaded: number;
  /** Records that did not load (`dataset_error`). */
  readonly loadErrors: readonly AuditFinding[];
  /** `answer` items without gold SQL (`no_gold`): loaded, not audited, graded by nothing. */
  readonly withoutGold: readonly AuditFinding[];
  /** The item's snapshots (role-scoped where it has a role). */
  resolve(item: AuditItem): Promise<ResolvedSnapshots>;
  /** Every snapshot of a fixture or db_id, full databases (for fixture strength). */
  allSnapshots(db: string): Promise<readonly Snapshot[]>;
  /** The fixture's manifest file, when the db is a fixture (for its invariants). */
  manifestOf?(db: string): string | undefined;
}

/** Options of {@link readAuditSource}. */
export interface ReadAuditSourceOptions {
  /** Resolves dataset fixtures (its `fixtures` options say where they live). */
  readonly runtime: LadderRuntime;
  /** Spider: the database folder (default `<folder>/database`, or beside the gold file). */
  readonly dbDir?: string;
  /** Folder of fixture folders, for manifests (their invariants); default: none read. */
  readonly fixturesDir?: string;
}

const DATASET_EXTENSIONS = ['.yaml', '.yml', '.json', '.jsonl', '.ndjson'];

/**
 * Reads an audit input (see the module doc).
 * @throws LadderError `dataset_invalid` for an unreadable dataset, `input_invalid` for a path that
 *   is neither a dataset file nor a Spider folder or gold file, `db_not_found` for a Spider input
 *   without its database folder.
 */
export async function readAuditSource(input: string, options: ReadAuditSourceOptions): Promise<AuditSource> {
  let stats;
  try {
    stats = statSync(input);
  } catch {
    throw new LadderError('input_invalid', `${input}: no such file or folder; expected a dataset file (${DATASET_EXTENSIONS.join(', ')}) or a Spider folder (dev_gold.sql and database/)`);
  }
  if (stats.isDirectory()) {
    const gold = path.join(input, 'dev_gold.sql');
    if (!existsSync(gold)) throw new LadderError('input_invalid', `${input}: a folder without dev_gold.sql; expected a Spider folder (dev_gold.sql, database/) or a dataset file`);
    return readSpiderSource(input, gold, options.dbDir ?? path.join(input, 'database'), path.join(input, 'dev.json'));
  }
  const extension = path.extname(input).toLowerCase();
  if (extension === '.sql' || extension === '.txt') {
    const folder = path.dirname(input);
    return readSpiderSource(input, input, options.dbDir ?? path.join(folder, 'database'), path.join(folder, 'dev.json'));
  }
  if (extension === '.json' && isSpiderJson(input)) {
    throw new LadderError('input_invalid', `${input} is a Spider dev.json; audit its folder (with dev_gold.sql and database/) or its gold file dev_gold.sql`);
  }
  return readDatasetSource(input, options);
}

function isSpiderJson(file: string): boolean {
  try {
    const data = JSON.parse(readUserText(file, { what: 'Spider file' })) as unknown;
    const first = Array.isArray(data) ? (data[0] as Record<string, unknown> | undefined) : undefined;
    return first !== undefined && typeof first === 'object' && first !== null && 'db_id' in first && 'query' in first;
  } catch {
    return false;
  }
}

async function readDatasetSource(file: string, options: ReadAuditSourceOptions): Promise<AuditSource> {
  const { runtime } = options;
  const { items, errors } = await loadDataset(file);
  const loadErrors = errors.map((error) =>
    createFinding({ kind: 'dataset_error', item: error.id ?? null, source: `${error.file}:${error.line}`, message: error.message }),
  );
  const withoutGold = items
    .filter((item) => item.expected_behavior === 'answer' && item.gold_sql.length === 0)
    .map((item) =>
      createFinding({
        kind: 'no_gold',
        item: item.id,
        source: `${item.source.file}:${item.source.line}`,
        message: 'no gold_sql: the item is unscored and nothing grades it (in promptfoo its row fails with "unscored: no gold SQL"); add a gold, or make it a clarify / refuse item',
      }),
    );
  const audited: AuditItem[] = items
    .filter((item) => item.gold_sql.length > 0)
    .map((item) => ({
      id: item.id,
      source: `${item.source.file}:${item.source.line}`,
      ...(item.source.goldLines === undefined ? {} : { goldSources: item.source.goldLines.map((line) => `${item.source.file}:${line}`) }),
      db: item.db,
      ...(item.db_path === undefined ? {} : { dbPaths: item.db_path }),
      ...(item.role === undefined ? {} : { role: item.role }),
      ...(item.snapshots === undefined ? {} : { snapshots: item.snapshots }),
      ...(item.as_of_date === undefined ? {} : { asOfDate: item.as_of_date }),
      golds: item.gold_sql,
      ...(item.gold_result_ordered === undefined ? {} : { goldOrdered: item.gold_result_ordered }),
      tags: item.tags,
      question: item.question,
    }));
  // Plain SQLite files named by items: checksummed once, so the gold cache keys on their bytes.
  const fileSnapshots = new Map<string, Snapshot>();
  const fileSnapshot = (dbFile: string): Snapshot => {
    let snapshot = fileSnapshots.get(dbFile);
    if (snapshot === undefined) {
      snapshot = snapshotOfFile(dbFile, fileChecksum(dbFile));
      fileSnapshots.set(dbFile, snapshot);
    }
    return snapshot;
  };
  return {
    kind: 'dataset',
    path: file,
    items: audited,
    loaded: items.length,
    loadErrors,
    withoutGold,
    async resolve(item) {
      if (item.dbPaths !== undefined) return { ok: true, snapshots: item.dbPaths.map((file) => fileSnapshot(file)), unknown: [] };
      let fixture;
      try {
        fixture = await runtime.resolveFixture(item.db, item.role);
      } catch (error) {
        if (!isMisuseError(error)) throw error;
        return { ok: false, findings: [createFinding({ kind: 'fixture_error', item: item.id, source: item.source, role: item.role ?? null, message: error.message.split('\n')[0]! })] };
      }
      if (item.snapshots === undefined) return { ok: true, snapshots: fixture.snapshots, unknown: [] };
      const names = fixture.snapshots.map((s) => s.name);
      const unknown = item.snapshots
        .filter((name) => !names.includes(name))
        .map((name) => createFinding({ kind: 'unknown_snapshot', item: item.id, source: item.source, snapshot: name, role: item.role ?? null, message: `snapshot "${name}" is not one of fixture ${item.db}'s: ${names.join(', ')}` }));
      return { ok: true, snapshots: item.snapshots.flatMap((name) => fixture.snapshots.filter((s) => s.name === name)), unknown };
    },
    async allSnapshots(db) {
      return (await runtime.resolveFixture(db)).snapshots;
    },
    manifestOf(db) {
      const dir = options.fixturesDir;
      return dir === undefined ? undefined : path.join(dir, db, 'fixture.yaml');
    },
  };
}

async function readSpiderSource(input: string, goldFile: string, dbDir: string, devJson: string): Promise<AuditSource> {
  if (!existsSync(dbDir)) throw new LadderError('db_not_found', `${input}: no database folder ${dbDir} (expected DBDIR/<db_id>/*.sqlite; --db names another)`);
  const gold = await readSpiderGold(goldFile);
  const questions = readQuestions(devJson, gold.length);
  const loadErrors = gold.flatMap((item) => (item.error === undefined ? [] : [createFinding({ kind: 'dataset_error', item: String(item.index), source: `${goldFile}:${item.line}`, message: item.error })]));
  const items: AuditItem[] = gold
    .filter((item) => item.error === undefined)
    .map((item) => ({
      id: String(item.index),
      source: `${goldFile}:${item.line}`,
      goldSources: [`${goldFile}:${item.line}`],
      db: item.dbId,
      golds: [item.sql],
      tags: { db_id: item.dbId },
      ...(questions?.[item.index] === undefined ? {} : { question: questions[item.index]! }),
    }));
  const snapshotsOf = new Map<string, Promise<Snapshot[]>>();
  const list = (db: string): Promise<Snapshot[]> => {
    let found = snapshotsOf.get(db);
    if (found === undefined) {
      found = listSnapshots(dbDir, db);
      snapshotsOf.set(db, found);
    }
    return found;
  };
  return {
    kind: 'spider',
    path: input,
    items,
    loaded: gold.length - loadErrors.length,
    loadErrors,
    withoutGold: [],
    async resolve(item) {
      try {
        return { ok: true, snapshots: await list(item.db), unknown: [] };
      } catch (error) {
        if (!isLadderError(error)) throw error;
        return { ok: false, findings: [createFinding({ kind: 'fixture_error', item: item.id, source: item.source, message: error.message })] };
      }
    },
    allSnapshots: (db) => list(db),
  };
}

/** The questions of a Spider dev.json, when it is there and has one entry per gold line. */
function readQuestions(file: string, count: number): string[] | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const data = JSON.parse(readUserText(file, { what: 'Spider dev.json' })) as unknown;
    if (!Array.isArray(data) || data.length !== count) return undefined;
    return data.map((entry) => (typeof (entry as { question?: unknown })?.question === 'string' ? (entry as { question: string }).question : ''));
  } catch {
    return undefined;
  }
}
