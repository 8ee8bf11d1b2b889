/**
 * Validation of one dataset record (*Text-to-SQL Evals* §12) into a {@link DatasetItem}. Reports every
 * problem of the record at once, each with the line of the offending field.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describeReceived, unknownKeyMessage } from '../options.js';
import type { DatasetError, DatasetItem, ExpectedBehavior, TagValue } from './item.js';

/** The record's keys, in the order of *Text-to-SQL Evals* §12. */
export const RECORD_KEYS = [
  'id',
  'question',
  'db',
  'db_path',
  'snapshots',
  'role',
  'as_of_date',
  'gold_sql',
  'gold_result_ordered',
  'gold_tables',
  'tags',
  'expected_behavior',
  'notes',
] as const;

const BEHAVIORS: readonly ExpectedBehavior[] = ['answer', 'clarify', 'refuse'];

/** Where a record sits in its file. */
export interface RecordLocation {
  readonly file: string;
  /** 1-based line where the record starts. */
  readonly line: number;
  /** 1-based line of a field's key; the record line when unknown. */
  readonly fieldLine: (field: string) => number;
  /** 1-based lines of a list field's entries; `undefined` when the field is no list (or unknown). */
  readonly entryLines?: (field: string) => readonly number[] | undefined;
}

/**
 * Most characters a question may have: 16 384 (about eight pages; Spider's and BIRD's longest
 * questions are under 1 000). A longer one is an item error, so a 10 MB question costs the load
 * one length check instead of being carried into every prompt, parse and report.
 */
export const MAX_QUESTION_CHARS = 16_384;

/** The outcome for one record: the item when valid, and its problems. */
export interface RecordValidation {
  readonly item?: DatasetItem;
  readonly errors: DatasetError[];
}

/**
 * Validates one raw record.
 *
 * Rules: `id`, `question` non-empty strings (a question at most {@link MAX_QUESTION_CHARS}
 * characters); `db` a fixture name, or instead of it `db_path` (a
 * SQLite file or a non-empty list of them: one snapshot each), or `snapshots` as a list of SQLite
 * files; paths are relative to the dataset file's folder and are returned absolute in `db_path`
 * (then `db` is the first path as written, a label); with `db`, `snapshots` a non-empty list of
 * distinct snapshot names; a `role` needs `db` (plain files have no roles); `role` a name; `as_of_date` a real calendar date `YYYY-MM-DD`; `gold_sql` a non-empty
 * string or a list of them (normalized to a list; absent or `[]` → none); `gold_result_ordered`
 * a boolean; `gold_tables` a list of names; `tags` a mapping of name to string, number,
 * boolean or list of strings; `expected_behavior` one of answer, clarify, refuse (default
 * answer); `notes` a string. `clarify` / `refuse` items must not carry gold SQL. An `answer`
 * item without gold is valid but `scored: false`. Unknown keys are errors with a did-you-mean.
 *
 * @param raw - the parsed record (any JSON/YAML value).
 * @param at - its file, line and per-field lines.
 */
export function validateRecord(raw: unknown, at: RecordLocation): RecordValidation {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { errors: [makeError(at.file, at.line, undefined, undefined, `a dataset item must be a mapping of fields; received ${describeReceived(raw)}`)] };
  }
  const record = raw as Record<string, unknown>;
  const rawId = record['id'];
  const id = typeof rawId === 'string' && rawId.trim() !== '' ? rawId : undefined;
  const errors: DatasetError[] = [];
  const problem = (field: string | undefined, message: string): void => {
    errors.push(makeError(at.file, field ? at.fieldLine(field) : at.line, id, field, message));
  };

  for (const key of Object.keys(record)) {
    if (!(RECORD_KEYS as readonly string[]).includes(key)) {
      problem(key, unknownKeyMessage(key, RECORD_KEYS, { noun: 'field' }));
    }
  }

  if (id === undefined) problem(rawId === undefined ? undefined : 'id', `id must be a non-empty string; received ${describeReceived(rawId)}`);
  let question = requireString(record, 'question', problem);
  if (question !== undefined && question.length > MAX_QUESTION_CHARS) {
    problem('question', `question is ${question.length} characters, over the limit of ${MAX_QUESTION_CHARS} (a question is a prompt's text, not a document)`);
    question = undefined;
  }
  const baseDir = path.dirname(path.resolve(at.file));
  let dbPaths: string[] | undefined;
  const rawDbPath = record['db_path'];
  if (rawDbPath !== undefined && rawDbPath !== null) {
    if (typeof rawDbPath === 'string' && rawDbPath.trim() !== '') dbPaths = [rawDbPath];
    else dbPaths = optionalNameList(record, 'db_path', problem, true, 'a SQLite file path or a non-empty list of them');
    // `db:` with no value (YAML null) is absent: it is how an item cancels `defaults: { db: … }`.
    if (dbPaths !== undefined && record['db'] !== undefined && record['db'] !== null) problem('db_path', 'give db (a fixture name) or db_path (SQLite files), not both');
  }
  let snapshots = optionalNameList(record, 'snapshots', problem, true);
  if (dbPaths === undefined && snapshots !== undefined && (record['db'] === undefined || record['db'] === null)) {
    // Without a fixture, snapshots are the SQLite files themselves.
    dbPaths = snapshots;
    snapshots = undefined;
  } else if (dbPaths !== undefined && snapshots !== undefined) {
    problem('snapshots', 'with db_path, every file is a snapshot: leave snapshots out');
  }
  const db = dbPaths !== undefined ? dbPaths[0] : requireString(record, 'db', problem, ' (a fixture name; or db_path / snapshots naming SQLite files)');
  const role = optionalName(record, 'role', problem);
  if (role !== undefined && dbPaths !== undefined) problem('role', 'a role needs a fixture (db): plain SQLite files declare no roles');
  for (const [index, file] of (dbPaths ?? []).entries()) {
    if (!existsSync(path.resolve(baseDir, file))) problem(rawDbPath !== undefined ? 'db_path' : 'snapshots', `${rawDbPath !== undefined ? 'db_path' : 'snapshots'}${dbPaths!.length > 1 ? `[${index}]` : ''}: database ${file} does not exist (paths are relative to ${baseDir})`);
  }

  let asOfDate: string | undefined;
  if (record['as_of_date'] !== undefined) {
    const value = record['as_of_date'];
    if (typeof value !== 'string' || !isCalendarDate(value)) {
      problem('as_of_date', `as_of_date must be a date "YYYY-MM-DD" (quote it in YAML); received ${describeReceived(value)}`);
    } else {
      asOfDate = value;
    }
  }

  let goldSql: string[] = [];
  const rawGold = record['gold_sql'];
  if (typeof rawGold === 'string') {
    if (rawGold.trim() === '') problem('gold_sql', 'gold_sql must not be an empty string; leave it out for an unscored item');
    else goldSql = [rawGold];
  } else if (Array.isArray(rawGold)) {
    rawGold.forEach((entry, index) => {
      if (typeof entry !== 'string' || entry.trim() === '') problem('gold_sql', `gold_sql[${index}] must be a non-empty SQL string; received ${describeReceived(entry)}`);
      else goldSql.push(entry);
    });
  } else if (rawGold !== undefined && rawGold !== null) {
    problem('gold_sql', `gold_sql must be a SQL string or a list of them; received ${describeReceived(rawGold)}`);
  }

  let ordered: boolean | undefined;
  if (record['gold_result_ordered'] !== undefined) {
    const value = record['gold_result_ordered'];
    if (typeof value !== 'boolean') problem('gold_result_ordered', `gold_result_ordered must be true or false; received ${describeReceived(value)}`);
    else ordered = value;
  }

  const goldTables = optionalNameList(record, 'gold_tables', problem, false) ?? [];
  const tags = readTags(record, problem);

  let behavior: ExpectedBehavior = 'answer';
  if (record['expected_behavior'] !== undefined) {
    const value = record['expected_behavior'];
    if (typeof value !== 'string' || !(BEHAVIORS as readonly string[]).includes(value)) {
      problem('expected_behavior', `expected_behavior must be one of ${BEHAVIORS.join(', ')}; received ${describeReceived(value)}`);
    } else {
      behavior = value as ExpectedBehavior;
    }
  }
  if (behavior !== 'answer' && goldSql.length > 0) {
    problem('gold_sql', `a ${behavior} item must not have gold_sql: it passes by declining and never executes`);
  }

  let notes: string | undefined;
  if (record['notes'] !== undefined) {
    if (typeof record['notes'] !== 'string') problem('notes', `notes must be a string; received ${describeReceived(record['notes'])}`);
    else notes = record['notes'];
  }

  if (errors.length > 0 || id === undefined || question === undefined || db === undefined) {
    return { errors };
  }
  const item: DatasetItem = {
    id,
    question,
    db,
    ...(dbPaths !== undefined ? { db_path: dbPaths.map((file) => path.resolve(baseDir, file)) } : {}),
    ...(snapshots !== undefined ? { snapshots } : {}),
    ...(role !== undefined ? { role } : {}),
    ...(asOfDate !== undefined ? { as_of_date: asOfDate } : {}),
    gold_sql: goldSql,
    ...(ordered !== undefined ? { gold_result_ordered: ordered } : {}),
    gold_tables: goldTables,
    tags,
    expected_behavior: behavior,
    ...(notes !== undefined ? { notes } : {}),
    scored: behavior !== 'answer' || goldSql.length > 0,
    source: {
      file: at.file,
      line: at.line,
      ...(goldSql.length === 0 ? {} : { goldLines: goldLinesOf(at, goldSql.length) }),
      fieldLines: databaseFieldLines(at, record),
    },
  };
  return { item, errors };
}

/** The lines of the database fields the record has (its own, or inherited from `defaults:`). */
function databaseFieldLines(at: RecordLocation, record: Readonly<Record<string, unknown>>): NonNullable<DatasetItem['source']['fieldLines']> {
  const lines: Partial<Record<'db' | 'db_path' | 'snapshots' | 'role', number>> = {};
  for (const field of ['db', 'db_path', 'snapshots', 'role'] as const) {
    if (record[field] !== undefined && record[field] !== null) lines[field] = at.fieldLine(field);
  }
  return lines;
}

/** The line of each gold: a list's entries, or the `gold_sql:` line for one string. */
function goldLinesOf(at: RecordLocation, count: number): number[] {
  const entries = at.entryLines?.('gold_sql');
  if (entries !== undefined && entries.length === count) return [...entries];
  return Array.from({ length: count }, () => at.fieldLine('gold_sql'));
}

/** Formats a problem as `<file>:<line>: item "<id>": <message>`. */
export function makeError(file: string, line: number, id: string | undefined, field: string | undefined, message: string): DatasetError {
  const text = `${file}:${line}: ${id !== undefined ? `item "${id}"` : 'item (no id)'}: ${message}`;
  return { file, line, ...(id !== undefined ? { id } : {}), ...(field !== undefined ? { field } : {}), message: text };
}

/** A problem of the file rather than of one item: `<file>:<line>: <message>`. */
export function makeFileError(file: string, line: number, message: string): DatasetError {
  return { file, line, message: `${file}:${line}: ${message}` };
}

type Problem = (field: string | undefined, message: string) => void;

function requireString(record: Record<string, unknown>, field: string, problem: Problem, hint = ''): string | undefined {
  const value = record[field];
  if (typeof value === 'string' && value.trim() !== '') return value;
  problem(value === undefined ? undefined : field, value === undefined ? `missing required field ${field}${hint}` : `${field} must be a non-empty string; received ${describeReceived(value)}`);
  return undefined;
}

function optionalName(record: Record<string, unknown>, field: string, problem: Problem): string | undefined {
  const value = record[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return value;
  problem(field, `${field} must be a non-empty string; received ${describeReceived(value)}`);
  return undefined;
}

function optionalNameList(record: Record<string, unknown>, field: string, problem: Problem, nonEmpty: boolean, expected?: string): string[] | undefined {
  const value = record[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || (nonEmpty && value.length === 0)) {
    problem(field, `${field} must be ${expected ?? `a ${nonEmpty ? 'non-empty ' : ''}list of names`}; received ${describeReceived(value)}`);
    return undefined;
  }
  const names: string[] = [];
  for (const [index, entry] of value.entries()) {
    if (typeof entry !== 'string' || entry.trim() === '') {
      problem(field, `${field}[${index}] must be a non-empty string; received ${describeReceived(entry)}`);
      return undefined;
    }
    if (names.includes(entry)) {
      problem(field, `${field} lists "${entry}" twice`);
      return undefined;
    }
    names.push(entry);
  }
  return names;
}

function readTags(record: Record<string, unknown>, problem: Problem): Record<string, TagValue> {
  const value = record['tags'];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problem('tags', `tags must be a mapping such as {difficulty: easy, category: join}; received ${describeReceived(value)}`);
    return {};
  }
  const tags: Record<string, TagValue> = {};
  for (const [key, tag] of Object.entries(value as Record<string, unknown>)) {
    if (typeof tag === 'string' || typeof tag === 'boolean' || (typeof tag === 'number' && Number.isFinite(tag))) {
      tags[key] = tag;
    } else if (Array.isArray(tag) && tag.every((t): t is string => typeof t === 'string')) {
      tags[key] = [...tag];
    } else {
      problem('tags', `tag ${key} must be a string, number, boolean or list of strings; received ${describeReceived(tag)}`);
    }
  }
  return tags;
}

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
