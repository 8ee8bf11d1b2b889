/**
 * The dataset record format (*Text-to-SQL Evals* §12) as loaded: one question with its gold SQL,
 * frozen date, role and expected behaviour. Field names follow the YAML record format.
 */

/** What the system under test should do with a question. */
export type ExpectedBehavior = 'answer' | 'clarify' | 'refuse';

/** A tag value: `difficulty: medium`, `trap: [fan_out, soft_delete]`, `empty_gold: true`. */
export type TagValue = string | number | boolean | readonly string[];

/** Where a record came from: the file and the 1-based line where the record starts. */
export interface SourceLocation {
  readonly file: string;
  /** 1-based line where the item starts. */
  readonly line: number;
  /** 1-based line of each gold SQL (its `gold_sql:` line, or its entry in a list); set when the item has gold. */
  readonly goldLines?: readonly number[];
  /**
   * 1-based line of each database field the item has (`db`, `db_path`, `snapshots`, `role`): the
   * item's own line for the field, or the `defaults:` line it inherits it from; so a wrong fixture,
   * file, snapshot or role is reported where it is written.
   */
  readonly fieldLines?: Readonly<Partial<Record<'db' | 'db_path' | 'snapshots' | 'role', number>>>;
}

/** One validated dataset item. */
export interface DatasetItem {
  /** Unique within the loaded file. */
  readonly id: string;
  /** The natural-language question. */
  readonly question: string;
  /**
   * Fixture name (see resolveFixture), e.g. `warehouse`; for an item on plain SQLite files
   * (`db_path`), the first file as written in the dataset (a label).
   */
  readonly db: string;
  /** Absolute paths of the item's SQLite files (one snapshot each), when it names files instead of a fixture. */
  readonly db_path?: readonly string[];
  /** Snapshot names to run on; `undefined` means every snapshot of the fixture. */
  readonly snapshots?: readonly string[];
  /** Role the query runs under (selects role-scoped snapshots); `undefined` means none. */
  readonly role?: string;
  /** `YYYY-MM-DD`: the "today" that relative periods ("last quarter") are read against. */
  readonly as_of_date?: string;
  /** Valid gold queries (one or many; a match with any one passes). Empty for unscored items. */
  readonly gold_sql: readonly string[];
  /**
   * Row order override: `true` compares in order, `false` as a multiset. `undefined` lets the
   * comparison derive it from the gold's outermost ORDER BY.
   */
  readonly gold_result_ordered?: boolean;
  /** Tables the gold reads (reviewed), for schema-linking recall. Empty when not given. */
  readonly gold_tables: readonly string[];
  /** Tags for slicing, e.g. `{ difficulty: 'easy', category: 'join', trap: 'fan_out' }`. */
  readonly tags: Readonly<Record<string, TagValue>>;
  /** Default `answer`. */
  readonly expected_behavior: ExpectedBehavior;
  /** Reviewer notes: business definitions, period rules. */
  readonly notes?: string;
  /**
   * False for an `answer` item without gold SQL: it is reported but never counted as 0.
   * Always true for `clarify` / `refuse` items (they are scored on declining).
   */
  readonly scored: boolean;
  /** Where the record starts. */
  readonly source: SourceLocation;
}

/** A record (or file-level) problem. The item it names is not loaded; the others are. */
export interface DatasetError {
  readonly file: string;
  /** 1-based line of the offending field, or of the record when no field applies. */
  readonly line: number;
  /** The item's id when it could be read. */
  readonly id?: string;
  /** The offending field, when one applies. */
  readonly field?: string;
  /** One line: `<file>:<line>: item "<id>": <problem>`. */
  readonly message: string;
}

/** What {@link loadDataset} returns. */
export interface LoadedDataset {
  /** Valid items in file order. */
  readonly items: DatasetItem[];
  /** Problems in file order; each names file, line and (when readable) the item id. */
  readonly errors: DatasetError[];
}
