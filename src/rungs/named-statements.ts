/**
 * Naming the statements of an L3 finding: static safety is a property of the text, so when a text
 * holds several statements, or cannot be parsed, L3's reason names each statement that is not a
 * read-only query (`statement 2 of 2 (UPDATE subscriptions SET plan = 1): write_statement …`)
 * instead of only "2 statements"; a single one is quoted too (`write_statement: … at 1:1 in (DELETE FROM t)`).
 *
 * Statements are cut at top-level `;` by the SQLite tokenizer (strings, quoted names and comments
 * never split one). For a text the parser cannot read, a statement's class comes from its first
 * keyword (`DELETE` → `write_statement`), so that a truncated `DELETE FROM t WHERE` is still named
 * as a write; the rung's own violations are never changed, only the reason and `details.statements`.
 */
import { splitStatements, tokenizeSqlite } from '../sql/sqlite-lexer.js';
import { truncate } from '../format.js';
import { createRungResult, type RungResult } from './rung-result.js';
import type { SafetyDetails, SafetyViolation } from './safety.js';

/** Longest statement text quoted in a reason, in characters. */
export const MAX_NAMED_STATEMENT_CHARS = 80;

/** One statement of the text as L3 names it. */
export interface NamedStatement {
  /** 1-based position among the statements. */
  readonly index: number;
  /** The statement's text, on one line, cut to {@link MAX_NAMED_STATEMENT_CHARS}. */
  readonly text: string;
  /** Its first word, upper-case (`SELECT`, `UPDATE`, …; `''` when it starts with punctuation). */
  readonly keyword: string;
  /** 1-based line and column where it starts. */
  readonly line: number;
  readonly column: number;
  /**
   * Violation kinds found in it: the rung's own (by position), or, when the text was not
   * analysed, the class its first keyword implies. Empty for a read-only query.
   */
  readonly findings: readonly string[];
}

/** L3's details with the statements named (present when L3 failed on a statement that is not a query, or on several). */
export interface NamedSafetyDetails extends SafetyDetails {
  /** The text's statements, the first {@link MAX_LISTED_STATEMENTS} of them when there are more. */
  readonly statements?: readonly NamedStatement[];
  /** How many statements the text holds, present only when `statements` lists fewer. */
  readonly statementCount?: number;
}

/** First keyword → the violation kind it implies (queries absent). */
const KEYWORD_KINDS: Readonly<Record<string, string>> = {
  INSERT: 'write_statement', UPDATE: 'write_statement', DELETE: 'write_statement', REPLACE: 'write_statement',
  MERGE: 'write_statement', UPSERT: 'write_statement', CREATE: 'ddl_statement', DROP: 'ddl_statement',
  ALTER: 'ddl_statement', TRUNCATE: 'ddl_statement', REINDEX: 'ddl_statement', ANALYZE: 'ddl_statement',
  RENAME: 'ddl_statement', PRAGMA: 'pragma', ATTACH: 'attach', DETACH: 'attach', VACUUM: 'vacuum',
  BEGIN: 'transaction', COMMIT: 'transaction', END: 'transaction', ROLLBACK: 'transaction',
  SAVEPOINT: 'transaction', RELEASE: 'transaction', SET: 'session_change', RESET: 'session_change',
  GRANT: 'privilege_statement', REVOKE: 'privilege_statement', CALL: 'procedure_call',
  EXECUTE: 'procedure_call', EXEC: 'procedure_call', DO: 'procedure_call', EXPLAIN: 'statement_not_allowed',
  NOTIFY: 'notify', LISTEN: 'notify', UNLISTEN: 'notify', LOCK: 'table_lock', COPY: 'copy', LOAD: 'extension',
  CHECKPOINT: 'server_admin', CLUSTER: 'server_admin', DISCARD: 'session_change', PREPARE: 'procedure_call',
};

/** Kinds that say what a whole statement is (a single statement is quoted only for these). */
const STATEMENT_KINDS = new Set([...Object.values(KEYWORD_KINDS), 'not_a_query', 'data_export']);

/** Most statements listed in `details.statements` (a text of 40 000 statements lists the first ones). */
export const MAX_LISTED_STATEMENTS = 100;

/** Most unsafe statements quoted in the reason; the rest are counted (`(+N more unsafe statements)`). */
export const MAX_NAMED_IN_REASON = 5;

/**
 * The statements of `sql` with the L3 findings inside each, in one pass over the text (positions
 * come from a table of line starts, so a text of many statements costs time linear in its length).
 * @param violations - L3's violations (positions 1-based); `multiple_statements` is not assigned to a statement.
 * @param analysed - false when L3 could not read the text: findings then come from first keywords.
 */
export function nameStatements(sql: string, violations: readonly SafetyViolation[], analysed: boolean): NamedStatement[] {
  const statements = splitStatements(tokenizeSqlite(sql));
  const lines = lineStarts(sql);
  const placed = violations
    .filter((violation) => violation.kind !== 'multiple_statements' && violation.kind !== 'not_analysed')
    .map((violation) => ({ kind: violation.kind, offset: offsetOf(lines, sql.length, violation.line, violation.column) }));
  return statements.map((tokens, i) => {
    const start = tokens[0]!.start;
    const end = tokens[tokens.length - 1]!.end;
    const next = statements[i + 1]?.[0]?.start ?? Number.POSITIVE_INFINITY;
    const first = tokens[0]!;
    const keyword = first.kind === 'word' ? first.value.toUpperCase() : '';
    const findings = new Set<string>();
    for (const violation of placed) if (violation.offset >= start && violation.offset < next) findings.add(violation.kind);
    if (!analysed && KEYWORD_KINDS[keyword] !== undefined) findings.add(KEYWORD_KINDS[keyword]!);
    const position = positionOf(lines, start);
    return { index: i + 1, text: truncate(sql.slice(start, Math.min(end, start + 4 * MAX_NAMED_STATEMENT_CHARS)).replace(/\s+/g, ' '), MAX_NAMED_STATEMENT_CHARS), keyword, ...position, findings: [...findings] };
  });
}

/**
 * L3's result with its statements named: for a failed text, the reason lists each statement that
 * is not a read-only query (by the rung's findings, or by its first keyword when the text could not
 * be analysed), then the rung's own reason; `details.statements` lists every statement. A pass, or
 * a failure inside one query (a blocked function, a LIMIT policy), is returned as it is.
 * @example
 * // checkSafety on 'SELECT 1; UPDATE subscriptions SET plan = 1' →
 * // 'statement 2 of 2 (UPDATE subscriptions SET plan = 1): write_statement; multiple_statements: 2 statements; exactly one query is allowed at 1:11 (+1 more)'
 */
export function withNamedStatements(sql: string, result: RungResult<SafetyDetails>): RungResult<NamedSafetyDetails> {
  if (result.status !== 'fail') return result;
  const details = result.details;
  const statements = nameStatements(sql, details.violations, details.analysed);
  const unsafe = statements.filter((statement) => statement.findings.length > 0);
  if (unsafe.length === 0 && statements.length < 2) return result;
  const of = statements.length;
  if (of === 1 && !unsafe[0]!.findings.some((kind) => STATEMENT_KINDS.has(kind))) return result;
  if (of === 1 && details.analysed) {
    return createRungResult({ rung: 'safety', status: 'fail', reason: `${result.reason} in (${statements[0]!.text})`, issues: result.issues, namedScores: result.namedScores, score: result.score, details: { ...details, ...listed(statements) } });
  }
  const named = unsafe
    .slice(0, MAX_NAMED_IN_REASON)
    .map((statement) => `${of === 1 ? 'the statement' : `statement ${statement.index} of ${of}`} (${statement.text}): ${statement.findings.join(', ')}`);
  if (unsafe.length > MAX_NAMED_IN_REASON) named.push(`(+${unsafe.length - MAX_NAMED_IN_REASON} more unsafe statements)`);
  const reason = named.length > 0 ? `${named.join('; ')}; ${result.reason}` : result.reason;
  return createRungResult({ rung: 'safety', status: 'fail', reason, issues: result.issues, namedScores: result.namedScores, score: result.score, details: { ...details, ...listed(statements) } });
}

/** `statements`, and `statementCount` with the first {@link MAX_LISTED_STATEMENTS} when there are more. */
function listed(statements: NamedStatement[]): { statements: NamedStatement[]; statementCount?: number } {
  return statements.length > MAX_LISTED_STATEMENTS ? { statements: statements.slice(0, MAX_LISTED_STATEMENTS), statementCount: statements.length } : { statements };
}

/** The 0-based offset where each line of `sql` starts (line 1 at index 0). */
function lineStarts(sql: string): number[] {
  const starts = [0];
  for (let i = sql.indexOf('\n'); i >= 0; i = sql.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 0-based offset of a 1-based line and column (the text's end for a line past it). */
function offsetOf(lines: readonly number[], length: number, line: number, column: number): number {
  const lineStart = lines[line - 1];
  return lineStart === undefined ? length : lineStart + column - 1;
}

/** The 1-based line and column of a 0-based offset (binary search in the line starts). */
function positionOf(lines: readonly number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lines[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - lines[low]! + 1 };
}
