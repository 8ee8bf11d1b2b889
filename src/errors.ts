/**
 * One module for the errors that signal misuse of the library (bad options, unknown fixtures,
 * malformed datasets, a closed engine). A model's SQL failing is never one of these: rungs report
 * such failures as failing RungResults with details.
 *
 * Every error carries a stable string `code` so that callers can branch without parsing messages.
 */
import { escapeControls } from './format.js';

/** Stable codes for {@link LadderError}. Add new codes here, never inline elsewhere. */
export type LadderErrorCode =
  /** An option has the wrong value or kind; the message names the option, expected and received. */
  | 'invalid_option'
  /**
   * A library function received an argument of the wrong kind or shape (a non-string SQL text, an
   * empty snapshot list); the message names the argument, expected and received.
   */
  | 'invalid_argument'
  /** A fixture name is not in the registry; the message lists the known names. */
  | 'unknown_fixture'
  /** A database path does not exist; the engine never creates one. */
  | 'db_not_found'
  /** A dataset file or row does not follow the record format; the message names file:line and id. */
  | 'dataset_invalid'
  /** A predictions / gold file cannot be read or parsed. */
  | 'input_invalid'
  /** The engine was used after `close()`. */
  | 'engine_closed'
  /**
   * The engine failed in a way that is not the statement's fault, thrown rather than reported as a
   * statement's outcome: its children cannot start, a catalog cannot be read, a PostgreSQL server
   * cannot be started or reached.
   */
  | 'engine_failure'
  /**
   * A database exists but cannot be used: a file that is not a SQLite database, is corrupt or
   * cannot be read; a PostgreSQL server that refuses the connection. Found when the engine opens
   * the database, before any statement of the caller runs, so the caller's SQL never causes it.
   */
  | 'db_unavailable'
  /**
   * The fixture cache folder cannot be used: not writable, full, or a cached snapshot that fails
   * its checksum even after a rebuild or changed on disk during the run. The message names the folder.
   */
  | 'fixture_cache'
  /**
   * An optional package a feature needs is not installed (node-sql-parser, for Snowflake SQL);
   * the message names the package, the feature and the install command.
   */
  | 'missing_dependency';

/**
 * The library's misuse error. Thrown at once (never returned), with a message that names the
 * option or `file:line`, what was expected and what was received.
 *
 * @example
 * throw new LadderError('invalid_option', 'timeoutMs must be a positive integer (ms), received -1');
 */
export class LadderError extends Error {
  /** Stable machine-readable code. */
  readonly code: LadderErrorCode;

  /**
   * @param message - what went wrong; control characters in it (quoted from a file, SQL or a
   *   server) are escaped by the one rule of format.ts (`escapeControls`), newlines kept.
   */
  constructor(code: LadderErrorCode, message: string, options?: { cause?: unknown }) {
    super(escapeControls(message, { keepNewlines: true }), options);
    this.name = 'LadderError';
    this.code = code;
  }
}

/**
 * Codes that mean the caller (a config, a dataset, a command line, a function call) is wrong, not
 * the model's output and not the machine. Front ends decide by these codes only: promptfoo turns
 * them into an ERROR row, the CLI into exit status 2, the matchers into a thrown error.
 * `engine_closed` and `engine_failure` are not misuse. `fixture_cache` counts as misuse: the
 * setup the caller controls (the cache folder) must be fixed before anything can run, and the
 * message says which folder. `missing_dependency` too: an install command fixes it.
 */
export const MISUSE_CODES: ReadonlySet<LadderErrorCode> = new Set<LadderErrorCode>([
  'invalid_option',
  'invalid_argument',
  'unknown_fixture',
  'db_not_found',
  'dataset_invalid',
  'input_invalid',
  'fixture_cache',
  'missing_dependency',
]);

/**
 * Codes that mean the machine failed, not the caller and not the model's output: the database
 * cannot be opened or reached, the engine cannot run. Front ends never charge them to the model:
 * promptfoo shows an ERROR row (counted in `errored rows`, the run exits 3), the CLI exits 3, the
 * matchers throw. A statement the engine could not finish because of the statement itself (a
 * timeout, a memory cap, a child that died running it) is the statement's outcome, never one of these.
 */
export const INFRASTRUCTURE_CODES: ReadonlySet<LadderErrorCode> = new Set<LadderErrorCode>(['engine_failure', 'engine_closed', 'db_unavailable']);

/** True when `error` is a {@link LadderError} whose code is one of {@link INFRASTRUCTURE_CODES}. */
export function isInfrastructureError(error: unknown): error is LadderError {
  return error instanceof LadderError && INFRASTRUCTURE_CODES.has(error.code);
}

/** True when `error` is a {@link LadderError} whose code is one of {@link MISUSE_CODES}. */
export function isMisuseError(error: unknown): error is LadderError {
  return error instanceof LadderError && MISUSE_CODES.has(error.code);
}

/** True when `value` is a {@link LadderError}, optionally with the given code. */
export function isLadderError(value: unknown, code?: LadderErrorCode): value is LadderError {
  return value instanceof LadderError && (code === undefined || value.code === code);
}
