/**
 * The PostgreSQL engine's text check, before the server sees anything: exactly one statement,
 * whose first word is SELECT, WITH, VALUES or TABLE (or a parenthesized query), and no NUL
 * character (the protocol ends a statement at a NUL, so the server would run only the text before
 * it). The server then has the last word: a statement it describes as returning no rows is not a
 * query, and one that writes fails in the read-only transaction (pg-statement.ts).
 */
import { splitStatements, tokenizePostgres } from '../../sql/postgres-lexer.js';
import type { ExecutionError } from '../engine.js';

const QUERY_WORDS = new Set(['select', 'with', 'values', 'table']);

/**
 * @returns `undefined` when the text may be sent; otherwise `empty_statement`,
 *   `multiple_statements`, `not_a_query`, or `syntax_error` for a NUL character.
 * @example checkPostgresQueryText('SET ROLE postgres') // { code: 'not_a_query', message: 'not a query: the statement starts with SET; …' }
 */
export function checkPostgresQueryText(sql: string): ExecutionError | undefined {
  const nul = sql.indexOf('\0');
  if (nul >= 0) {
    return { code: 'syntax_error', message: `a NUL character at offset ${nul}: the protocol ends a statement at a NUL, so the text is refused` };
  }
  const statements = splitStatements(tokenizePostgres(sql));
  if (statements.length === 0) return { code: 'empty_statement', message: 'empty statement: the text holds no SQL (only whitespace, comments or semicolons)' };
  if (statements.length > 1) return { code: 'multiple_statements', message: `multiple statements: the text holds ${statements.length} statements; exactly one query runs` };
  const first = statements[0]![0]!;
  if (first.kind === 'punctuation' && first.value === '(') return undefined;
  if (first.kind === 'word' && QUERY_WORDS.has(first.value.toLowerCase())) return undefined;
  const shown = first.kind === 'word' ? first.value.toUpperCase() : sql.slice(first.start, first.end);
  return { code: 'not_a_query', message: `not a query: the statement starts with ${shown}; only SELECT, WITH … SELECT, VALUES and TABLE run` };
}
