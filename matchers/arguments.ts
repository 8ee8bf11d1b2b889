/**
 * Argument checks shared by the vitest matchers. A wrong kind of argument is misuse, not a
 * failing assertion: the matcher throws a `TypeError` at once (even under `.not`), whose message
 * names the matcher, the argument, what was expected and what was received, and whose stack
 * starts at the caller's line rather than inside the matcher. A misspelt option is a
 * `LadderError('invalid_option')`, as everywhere in the library.
 */
import { LadderError } from '../src/errors.js';
import { describeReceived, isPlainRecord, unknownKeyMessage } from '../src/options.js';
import { DIALECTS } from '../src/sql/parse.js';
import type { Dialect } from '../src/sql/parse.js';

/** A function whose frames (and those above it) are cut from the error's stack. */
type StackBoundary = (...args: never[]) => unknown;

/**
 * Builds a `TypeError` for a wrong argument.
 *
 * @param boundary - the matcher function; its frames are cut from the stack.
 * @param matcherName - e.g. `toBeValidSql`.
 * @param argumentName - the argument's name as documented, e.g. `options.dialect`.
 * @param expected - what was expected, e.g. `a SQL string`.
 * @param received - the value received.
 * @example
 * throw argumentTypeError(toBeValidSql, 'toBeValidSql', 'received', 'a SQL string', 42);
 * // TypeError: toBeValidSql: received must be a SQL string; received a number (42)
 */
export function argumentTypeError(
  boundary: StackBoundary,
  matcherName: string,
  argumentName: string,
  expected: string,
  received: unknown,
): TypeError {
  const error = new TypeError(`${matcherName}: ${argumentName} must be ${expected}; received ${describeValue(received)}`);
  Error.captureStackTrace(error, boundary);
  return error;
}

/**
 * Builds a `TypeError` with a message of its own (for argument combinations rather than one
 * argument's kind), its stack cut at `boundary` like {@link argumentTypeError}.
 * @example
 * throw matcherTypeError(toMatchGoldResult, 'toMatchGoldResult: options must give exactly one of db and snapshots; received both');
 */
export function matcherTypeError(boundary: StackBoundary, message: string): TypeError {
  const error = new TypeError(message);
  Error.captureStackTrace(error, boundary);
  return error;
}

/**
 * Describes a value for an error message, as the whole library does (src/options.ts):
 * `a number (42)`, `null`, `undefined`, `an array ([])`, `a string ("x")`, `an object`, `a function`.
 */
export const describeValue = describeReceived;

/** True for `{ … }` objects (not arrays, not null, not class instances such as Date). */
export const isPlainObject = isPlainRecord;

/**
 * Throws `LadderError('invalid_option')` for a key of `options` that is not in `known` (a
 * misspelt option must not be silently ignored); the message names the matcher and the option.
 *
 * @param boundary - the matcher function; its frames are cut from the stack.
 * @param matcherName - e.g. `toMatchGoldResult`.
 * @param argumentName - e.g. `options`.
 * @param options - the options object (already checked to be a plain object).
 * @param known - the option names the matcher reads.
 */
export function rejectUnknownOptions(
  boundary: StackBoundary,
  matcherName: string,
  argumentName: string,
  options: Record<string, unknown>,
  known: readonly string[],
): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const error = new LadderError('invalid_option', `${matcherName}: ${unknownKeyMessage(key, known, { prefix: `${argumentName}.` })}`);
    Error.captureStackTrace(error, boundary);
    throw error;
  }
}

/**
 * Reads a dialect option: one of {@link DIALECTS}, or `fallback` when absent.
 *
 * @throws TypeError naming `argumentName` for anything else (or for an absent value without fallback).
 */
export function readDialect(
  boundary: StackBoundary,
  matcherName: string,
  argumentName: string,
  value: unknown,
  fallback?: Dialect,
): Dialect {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value === 'string' && (DIALECTS as readonly string[]).includes(value)) return value as Dialect;
  throw argumentTypeError(boundary, matcherName, argumentName, `one of ${DIALECTS.map((d) => `"${d}"`).join(', ')}`, value);
}

/**
 * Reads an optional non-empty string option (a path, a question).
 * @throws TypeError naming `argumentName` for a non-string or an empty string.
 */
export function readOptionalString(
  boundary: StackBoundary,
  matcherName: string,
  argumentName: string,
  value: unknown,
  expected = 'a non-empty string',
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value !== '') return value;
  throw argumentTypeError(boundary, matcherName, argumentName, expected, value);
}

/**
 * Reads an options argument: `undefined` becomes `{}`; anything but a plain object throws.
 * @throws TypeError naming `argumentName`.
 */
export function readOptionsObject(
  boundary: StackBoundary,
  matcherName: string,
  argumentName: string,
  value: unknown,
  expected = 'an options object',
): Record<string, unknown> {
  if (value === undefined) return {};
  if (isPlainObject(value)) return value;
  throw argumentTypeError(boundary, matcherName, argumentName, expected, value);
}
