/**
 * Options of {@link createSqliteEngine} and of each request, validated in better-sqlite3's order:
 * apply defaults, validate arguments, interpret, validate the interpreted values. Every misuse
 * throws `LadderError('invalid_option')` naming the option, what was expected and what was
 * received, in the one message format of src/options.ts (`invalidValue`; unknown names with a
 * did-you-mean).
 */
import os from 'node:os';
import path from 'node:path';
import { BoundedMap } from '../../bounded-map.js';
import { LadderError } from '../../errors.js';
import { invalidValue, isPlainRecord, rejectUnknownKeys } from '../../options.js';
import type { DoubleQuoteMode, ExecuteRequest } from '../engine.js';
import { SQLITE_ENGINE_DEFAULTS as DEFAULTS } from './sqlite-defaults.js';

/** Options of `createSqliteEngine`. Every field is optional. */
export interface SqliteEngineOptions {
  /** Most child processes alive at once. Integer 1 … 256. Default: `os.availableParallelism()`. */
  readonly poolSize?: number;
  /** Default deadline per statement, in milliseconds. Integer 1 … 2 147 483 647. Default: 10 000. */
  readonly timeoutMs?: number;
  /** Default row cap: a result with more rows is `result_too_large`. Integer ≥ 1. Default: 100 000. */
  readonly maxRows?: number;
  /**
   * Resident memory cap per child process, in bytes (RSS of the whole child: SQLite's heap, its
   * in-memory temp storage and the rows being read; the idle child uses about 60 MiB of it).
   * Enforced by a watchdog thread inside the child. Integer ≥ 64 MiB (67 108 864). Default:
   * 512 MiB (536 870 912).
   */
  readonly maxMemoryBytes?: number;
  /**
   * Largest result one statement may send to the parent, in bytes (8 per cell plus 2 per text
   * character plus blob bytes); a larger one is `result_too_large`. With `poolSize` children this
   * bounds what results in flight can cost the parent. Integer ≥ 1. Default: 64 MiB (67 108 864).
   */
  readonly maxResultBytes?: number;
  /** Default double-quote handling: `legacy` (default) or `strict`. */
  readonly doubleQuotes?: DoubleQuoteMode;
}

/** {@link SqliteEngineOptions} with every default applied. */
export interface ResolvedSqliteEngineOptions {
  readonly poolSize: number;
  readonly timeoutMs: number;
  readonly maxRows: number;
  readonly maxMemoryBytes: number;
  readonly maxResultBytes: number;
  readonly doubleQuotes: DoubleQuoteMode;
}

/** A request after validation: absolute db path and every limit filled in. */
export interface ResolvedRequest {
  readonly db: string;
  readonly sql: string;
  readonly timeoutMs: number;
  readonly maxRows: number;
  readonly doubleQuotes: DoubleQuoteMode;
}

/** Defaults of {@link SqliteEngineOptions} other than `poolSize` (sqlite-defaults.ts). */
export const SQLITE_ENGINE_DEFAULTS = DEFAULTS satisfies Omit<ResolvedSqliteEngineOptions, 'poolSize'>;

/** Smallest accepted `maxMemoryBytes`: a Node child with better-sqlite3 needs about 50 MiB idle. */
export const MIN_MEMORY_BYTES = 64 * 2 ** 20;
/** Largest accepted `poolSize`. */
export const MAX_POOL_SIZE = 256;
/** Largest delay `setTimeout` honours (2^31 − 1 ms). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

const ENGINE_OPTION_NAMES = ['poolSize', 'timeoutMs', 'maxRows', 'maxMemoryBytes', 'maxResultBytes', 'doubleQuotes'] as const;
const REQUEST_FIELD_NAMES = ['db', 'sql', 'timeoutMs', 'maxRows', 'doubleQuotes'] as const;

/** Misspelt or foreign option names with the option meant. */
const RENAMED: Readonly<Record<string, string>> = {
  timeout: 'timeoutMs',
  deadlineMs: 'timeoutMs',
  pool: 'poolSize',
  size: 'poolSize',
  workers: 'poolSize',
  maxMemory: 'maxMemoryBytes',
  memoryLimit: 'maxMemoryBytes',
  maxBytes: 'maxResultBytes',
  maxResultSize: 'maxResultBytes',
  rowLimit: 'maxRows',
  limit: 'maxRows',
  dqs: 'doubleQuotes',
  doubleQuote: 'doubleQuotes',
  readonly: '(nothing: databases are always opened read-only)',
};

/**
 * Validates engine options and applies defaults.
 *
 * @param options - `undefined` or a plain object with the fields of {@link SqliteEngineOptions}.
 * @returns every option resolved.
 * @throws LadderError `invalid_option` for a non-object, an unknown or misspelt name, a wrong kind
 *   or an out-of-range value; the message names the option, expected and received.
 */
export function resolveSqliteEngineOptions(options: unknown): ResolvedSqliteEngineOptions {
  // Apply defaults.
  const given = options === undefined ? {} : options;
  // Validate arguments.
  if (!isPlainRecord(given)) throw invalidValue('createSqliteEngine options', 'an object', options);
  const record = given as Record<string, unknown>;
  rejectUnknown(record, ENGINE_OPTION_NAMES, 'createSqliteEngine option');
  const poolSize = orDefault(record['poolSize'], os.availableParallelism());
  // Interpret and validate the interpreted values.
  return {
    poolSize: integerIn('poolSize', poolSize, 1, MAX_POOL_SIZE, ''),
    timeoutMs: integerIn('timeoutMs', orDefault(record['timeoutMs'], SQLITE_ENGINE_DEFAULTS.timeoutMs), 1, MAX_TIMEOUT_MS, ' (ms)'),
    maxRows: integerIn('maxRows', orDefault(record['maxRows'], SQLITE_ENGINE_DEFAULTS.maxRows), 1, Number.MAX_SAFE_INTEGER, ' (rows)'),
    maxMemoryBytes: integerIn('maxMemoryBytes', orDefault(record['maxMemoryBytes'], SQLITE_ENGINE_DEFAULTS.maxMemoryBytes), MIN_MEMORY_BYTES, Number.MAX_SAFE_INTEGER, ' (bytes)'),
    maxResultBytes: integerIn('maxResultBytes', orDefault(record['maxResultBytes'], SQLITE_ENGINE_DEFAULTS.maxResultBytes), 1, Number.MAX_SAFE_INTEGER, ' (bytes)'),
    doubleQuotes: doubleQuoteMode('doubleQuotes', orDefault(record['doubleQuotes'], SQLITE_ENGINE_DEFAULTS.doubleQuotes)),
  };
}

/**
 * Validates one {@link ExecuteRequest} and fills it from the engine's options.
 *
 * @param request - the request as the caller gave it.
 * @param defaults - the engine's resolved options.
 * @returns the request with `db` made absolute (`path.resolve`) and every limit set.
 * @throws LadderError `invalid_option` naming the field (`request.sql`, `request.timeoutMs`, …).
 */
export function resolveRequest(request: unknown, defaults: ResolvedSqliteEngineOptions): ResolvedRequest {
  if (!isPlainRecord(request)) throw invalidValue('request', 'an object { db, sql, timeoutMs?, maxRows?, doubleQuotes? }', request);
  const record = request as Partial<Record<keyof ExecuteRequest, unknown>> & Record<string, unknown>;
  rejectUnknown(record, REQUEST_FIELD_NAMES, 'request field');
  return {
    db: databasePath('request.db', record.db),
    sql: text('request.sql', record.sql),
    timeoutMs: integerIn('request.timeoutMs', orDefault(record.timeoutMs, defaults.timeoutMs), 1, MAX_TIMEOUT_MS, ' (ms)'),
    maxRows: integerIn('request.maxRows', orDefault(record.maxRows, defaults.maxRows), 1, Number.MAX_SAFE_INTEGER, ' (rows)'),
    doubleQuotes: doubleQuoteMode('request.doubleQuotes', orDefault(record.doubleQuotes, defaults.doubleQuotes)),
  };
}

/**
 * Validates a database path argument.
 * @param name - the option name for messages.
 * @param value - the given value.
 * @returns the absolute path.
 * @throws LadderError `invalid_option` unless `value` is a non-empty string without NUL bytes.
 */
export function databasePath(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.includes('\0')) throw invalidValue(name, 'a non-empty path to a SQLite file', value);
  if (value === ':memory:' || value.startsWith('file:')) throw invalidValue(name, 'a path to a database file (in-memory and URI databases are not supported)', value);
  if (!path.isAbsolute(value)) return path.resolve(value);
  // An absolute path resolves the same whatever the working directory: normalized once per text
  // (every statement names its database; at Spider scale the normalizing cost more than the lookup).
  let resolved = resolvedAbsolutePaths.get(value);
  if (resolved === undefined) {
    resolved = path.resolve(value);
    resolvedAbsolutePaths.set(value, resolved);
  }
  return resolved;
}

/** {@link databasePath}'s normalized absolute paths, by the text given. */
const resolvedAbsolutePaths = new BoundedMap<string, string>(1024);

function text(name: string, value: unknown): string {
  if (typeof value !== 'string') throw invalidValue(name, 'a string', value);
  return value;
}

/** Unknown names through the options module: one did-you-mean and one message for every option reader. */
function rejectUnknown(record: Record<string, unknown>, known: readonly string[], noun: string): void {
  rejectUnknownKeys(record, known, { noun, renamed: RENAMED });
}

function integerIn(name: string, value: unknown, min: number, max: number, unit: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalidValue(name, `an integer from ${min} to ${max}${unit}`, value);
  return value;
}

function doubleQuoteMode(name: string, value: unknown): DoubleQuoteMode {
  if (value !== 'legacy' && value !== 'strict') throw invalidValue(name, "'legacy' or 'strict'", value);
  return value;
}

/** `value`, or `fallback` when `value` is `undefined` (only `undefined` means "not given"; `null` is a wrong value). */
function orDefault(value: unknown, fallback: unknown): unknown {
  return value === undefined ? fallback : value;
}

