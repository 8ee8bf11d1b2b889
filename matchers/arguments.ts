/**
 * Argument checks shared by the vitest matchers. A wrong kind of argument is misuse, not a
 * failing assertion: the matcher throws a `TypeError` at once (even under `.not`), whose message
 * names the matcher, the argument, what was expected and what was received, and whose stack
 * starts at the caller's line rather than inside the matcher.
 */

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
 * Describes a value for an error message: `a number (42)`, `null`, `undefined`, `an array`,
 * `a string ("x")`, `an object`, `a function`.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `an array (length ${value.length})`;
  switch (typeof value) {
    case 'string':
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
    case 'number':
    case 'boolean':
      return `a ${typeof value} (${String(value)})`;
    case 'bigint':
      return `a bigint (${value}n)`;
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return value instanceof Uint8Array ? 'a Uint8Array' : 'an object';
  }
}

/** True for `{ … }` objects (not arrays, not null, not class instances such as Date). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
