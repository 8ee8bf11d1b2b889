/**
 * PostgreSQL's errors into the engine-neutral codes of `ExecutionErrorCode`, by SQLSTATE
 * (Appendix A of the PostgreSQL manual). The server's message is kept as it wrote it, with its
 * SQLSTATE and the position it points at.
 */
import type { ExecutionError, ExecutionErrorCode } from '../engine.js';

const BY_SQLSTATE: ReadonlyMap<string, ExecutionErrorCode> = new Map([
  ['42601', 'syntax_error'],
  ['42P01', 'unknown_table'],
  ['3F000', 'unknown_table'],
  ['42703', 'unknown_column'],
  ['42702', 'ambiguous_column'],
  ['42883', 'unknown_function'],
  ['42501', 'permission_denied'],
  ['25006', 'not_a_query'],
  ['57014', 'timeout'],
  ['53200', 'memory_limit'],
  ['53400', 'memory_limit'],
  ['3D000', 'db_not_found'],
]);

/** SQLSTATE classes that are the server's or the connection's fault, not the statement's. */
const ENGINE_CLASSES = ['08', '53', '57', '58', 'XX'];

/** The neutral code of a SQLSTATE. */
export function postgresErrorCode(sqlstate: string | undefined): ExecutionErrorCode {
  if (sqlstate === undefined) return 'engine_failure';
  const known = BY_SQLSTATE.get(sqlstate);
  if (known !== undefined) return known;
  return ENGINE_CLASSES.includes(sqlstate.slice(0, 2)) ? 'engine_failure' : 'query_error';
}

/** A server error (pg's `DatabaseError`: `code`, `message`, `position`) as an {@link ExecutionError}. */
export function postgresError(error: { readonly code?: string; readonly message?: string; readonly position?: string }): ExecutionError {
  const code = postgresErrorCode(error.code);
  const message = (error.message ?? 'unknown error').replace(/\s+/g, ' ').trim();
  const position = Number(error.position);
  return { code, message, ...(error.code === undefined ? {} : { engineCode: error.code }), ...(Number.isInteger(position) && position > 0 ? { position } : {}) };
}
