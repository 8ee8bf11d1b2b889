/**
 * L1 — syntactic validity (*Text-to-SQL Evals* §3.1): the text is exactly one statement, it parses in
 * the target dialect, and it is a query (SELECT, WITH … SELECT, VALUES, or a compound of them).
 *
 * Authority per dialect:
 * - `sqlite` or `postgres` with an engine of that dialect and a database: the database itself
 *   decides — SQLite's `prepare`, PostgreSQL's parse and describe (`Engine.prepare`: the server
 *   parses and analyses the text against the database and says it returns rows, without running
 *   it). A statement the database accepts passes even when the AST layer cannot read it
 *   (sql-parser-cst rejects a SQLite table named `Match`, PostgreSQL's `WITHIN GROUP`; details say
 *   `ast: false`). A `no such table` / `no such column` / `ambiguous column name` error (PostgreSQL
 *   42P01 / 42703 / 42702) means the database parsed the statement and failed on names, which is
 *   L2's business: L1 passes when the AST layer confirms one query (details keep the engine error).
 * - `sqlite` without an engine: the parser of `src/sql/parse.ts`, then SQLite's own parser
 *   (src/engine/sqlite/sqlite-grammar.ts: the text compiled, never run, on an empty in-memory
 *   database): a syntax error from either fails L1; the name errors that follow are L2's.
 * - every other case (`mysql`, `bigquery`, `snowflake`, or `postgres` without an engine): the
 *   parser of `src/sql/parse.ts`. Unlike sqlglot, neither parser reads `SELEC x` as an alias.
 * - On `postgres`, a failure's reason also names the SQLite-only constructs in the text
 *   (`strftime(…)`, `COLLATE NOCASE`, `LIMIT 1, 2`, integer booleans: src/sql/sqlite-constructs.ts),
 *   so a prediction in the wrong dialect says so.
 *   For `postgres` and `bigquery`, a `JOIN` / `LEFT JOIN` … with neither `ON` nor `USING` fails
 *   too (`syntax_error` at the join): both databases reject it, while sql-parser-cst accepts it
 *   (src/sql/join-conditions.ts). SQLite and MySQL read it as a cross product, which is valid.
 * - every dialect sql-parser-cst reads: a trailing comma in the SELECT list (not BigQuery, which
 *   accepts it) and a name qualified on a literal (`NULL.customer_id`) fail, as the databases
 *   reject them and sql-parser-cst does not (src/sql/grammar-checks.ts).
 *
 * Issue kinds: `syntax_error`, `empty_statement`, `multiple_statements`, `not_a_query`,
 * `unknown_function` (SQLite `no such function`, PostgreSQL 42883: no function or operator for
 * those argument types), `query_error` (any other prepare failure, e.g. `misuse of aggregate`, a
 * type mismatch), `engine_failure`, `sql_too_large` (the text is longer than
 * `MAX_SQL_CHARS`, src/sql/analysis-budget.ts: failed before any parser or engine reads it) and
 * `not_analysed` (parser authority only: the tree is deeper than the analysis reads). Positions are 1-based; a SQLite error carries the
 * position of the parser's error when both fail, else of the token SQLite names; a PostgreSQL
 * error the position the server gives.
 */
import type { Program } from 'sql-parser-cst';
import type { DoubleQuoteMode, Engine, ExecutionError, ExecutionOutcome } from '../engine/engine.js';
import { LadderError } from '../errors.js';
import { DATABASE_NAMES, DIALECTS, positionAt, type Dialect, type ParseError, type ParseResult } from '../sql/parse.js';
import { sqliteHabitNote } from '../sql/sqlite-constructs.js';
import { sqlSizeOverBudget } from '../sql/analysis-budget.js';
import { tokenizeSqlite } from '../sql/sqlite-lexer.js';
import { DIALECTS_REQUIRING_JOIN_CONDITIONS, joinsWithoutCondition } from '../sql/join-conditions.js';
import { grammarViolations } from '../sql/grammar-checks.js';
import { sqliteGrammarError } from '../engine/sqlite/sqlite-grammar.js';
import type { SqlNode } from '../sql/sql-tree.js';
import { memoFor, type ParseMemo } from './parse-memo.js';
import { createRungResult, type RungIssue, type RungResult } from './rung-result.js';

/** Input of {@link checkSyntax}. */
export interface SyntaxInput {
  /** The SQL text (already extracted from model output). */
  readonly sql: string;
  readonly dialect: Dialect;
  /** SQLite or PostgreSQL: the engine whose `prepare` is the authority (of the same dialect). Requires `db`. */
  readonly engine?: Engine;
  /** The database for `engine.prepare` (the role-scoped snapshot: a SQLite path, a PostgreSQL database name). */
  readonly db?: string;
  /** SQLite double-quote mode passed to `prepare` (engine default when absent). */
  readonly doubleQuotes?: DoubleQuoteMode;
  /** The item's shared parses (one parse per SQL text per item); absent → the rung parses itself. */
  readonly parses?: ParseMemo;
}

/** Machine-readable details of an L1 result. */
export interface SyntaxDetails {
  /** Who decided: the database (SQLite's `prepare`, PostgreSQL's parse and describe), or the dialect parser. */
  readonly authority: 'engine' | 'parser';
  /** True when the AST layer read the text (false e.g. for a table named `Match`). */
  readonly ast: boolean;
  /**
   * True only when the database accepted the text as one query (authority `engine`, no engine
   * error): SQLite's `prepare` as one read-only query, PostgreSQL's describe as one statement
   * returning rows. Pass it as `engineAccepted` to L2 and L3.
   */
  readonly engineAccepted: boolean;
  /** Non-empty statements the AST layer found (absent when it could not read the text). */
  readonly statements?: number;
  /** Top-level node type of the single statement (e.g. `select_stmt`, `pragma_stmt`, `select`). */
  readonly statementType?: string;
  /** The parser's error, when it failed. */
  readonly parseError?: ParseError;
  /** The database's error, when `prepare` failed (also kept when it is a name error left to L2). */
  readonly engineError?: ExecutionError;
  /** SQLite without an engine: the syntax error SQLite's own parser gave (sqlite-grammar.ts). */
  readonly grammarError?: ExecutionError;
}

/** Engine errors that mean the statement parsed and failed on a name (L2's business). */
const NAME_ERRORS: ReadonlySet<ExecutionError['code']> = new Set(['unknown_table', 'unknown_column', 'ambiguous_column']);
/**
 * A relation the role may not read (PostgreSQL: `permission denied for table users`, SQLSTATE
 * 42501, when a role-scoped item names a table or column outside its role): L2 reports it, with
 * the role's catalog, as not visible to the role.
 */
function isRelationPrivilege(error: ExecutionError): boolean {
  return error.code === 'permission_denied' && /^permission denied for (table|view|relation|column|schema|materialized view) /.test(error.message);
}
const QUERY_TYPES = new Set(['select_stmt', 'compound_select_stmt']);

/**
 * Runs L1 on one SQL text.
 *
 * @returns `pass` when the text is one query in the dialect; `fail` with positioned issues otherwise.
 * @throws LadderError `invalid_argument` for a non-string `sql` or an unknown dialect;
 *   `invalid_option` when `engine` is given without `db` or for another dialect; `db_not_found`
 *   when the engine cannot find `db`.
 * @example
 * await checkSyntax({ sql: 'SELEC x', dialect: 'postgres' })
 * // fail: syntax_error at 1:1 (`Syntax Error: Unexpected "SELEC"`)
 */
export async function checkSyntax(input: SyntaxInput): Promise<RungResult<SyntaxDetails>> {
  // Validate arguments.
  if (typeof input?.sql !== 'string') throw new LadderError('invalid_argument', `sql must be a string; received ${typeof input?.sql}`);
  if (!DIALECTS.includes(input.dialect)) {
    throw new LadderError('invalid_argument', `dialect must be one of ${DIALECTS.join(', ')}; received ${JSON.stringify(input.dialect)}`);
  }
  if (input.engine !== undefined) {
    if (input.db === undefined || input.db === '') throw new LadderError('invalid_option', 'db is required with engine (the database path prepare runs against)');
    if (input.engine.dialect !== input.dialect) {
      throw new LadderError('invalid_option', `engine runs ${input.engine.dialect}; it cannot decide L1 for dialect ${input.dialect}`);
    }
  }

  // Size budget: no parser and no engine reads an oversized text (bounded work per model output).
  const oversized = sqlSizeOverBudget(input.sql);
  if (oversized !== undefined) {
    return fail(oversized, [{ kind: 'sql_too_large', message: oversized, line: 1, column: 1 }], {
      authority: input.engine === undefined ? 'parser' : 'engine',
      ast: false,
      engineAccepted: false,
    });
  }
  const parses = memoFor(input.parses, input.dialect);
  if (input.engine === undefined) {
    const parsed = parses.parse(input.sql);
    const verdict = parserVerdict(input.sql, parsed);
    return input.dialect === 'sqlite' && verdict.status === 'pass' ? sqliteGrammarVerdict(input.sql, parsed, verdict) : withHabits(input, verdict, undefined);
  }
  // With the engine: the parse starts in the parser thread, SQLite is asked, and the tree is read
  // once both have answered. A parse read at once would block this thread until the parser thread
  // answers; awaited, it leaves the thread to grade other items meanwhile.
  parses.parseAhead(input.sql);
  const prepared = await input.engine.prepare({ db: input.db!, sql: input.sql, ...(input.doubleQuotes ? { doubleQuotes: input.doubleQuotes } : {}) });
  await parses.whenParsed(input.sql);
  const parsed = parses.parse(input.sql);
  const verdict = engineVerdict(input, prepared, parsed, parserVerdict(input.sql, parsed));
  return withHabits(input, verdict, prepared.ok ? undefined : prepared.error.message);
}

/**
 * On PostgreSQL, a failed verdict's reason names the SQLite-only constructs of the text (and what
 * the server's message says about one), so a prediction in the wrong dialect reads as such.
 */
function withHabits(input: SyntaxInput, verdict: RungResult<SyntaxDetails>, engineMessage: string | undefined): RungResult<SyntaxDetails> {
  if (input.dialect !== 'postgres' || verdict.status !== 'fail') return verdict;
  const note = sqliteHabitNote(input.sql, engineMessage);
  if (note === undefined) return verdict;
  return createRungResult({ rung: 'syntax', status: 'fail', reason: `${verdict.reason}; ${note}`, issues: verdict.issues.map((issue, i) => (i === 0 ? { ...issue, message: `${issue.message}; ${note}` } : issue)), details: verdict.details });
}

/**
 * The double-quoted tokens of `sql` that the legacy double-quote fallback turned into string
 * literals in `executedSql` (as written, e.g. `"full_name"`); none when the texts do not line up.
 */
function readAsStrings(sql: string, executedSql: string): string[] {
  const original = tokenizeSqlite(sql);
  const executed = tokenizeSqlite(executedSql);
  if (original.length !== executed.length) return [];
  const names = original.flatMap((token, i) => (token.kind === 'double_quoted' && executed[i]!.kind === 'string' ? [sql.slice(token.start, token.end)] : []));
  return [...new Set(names)];
}

/** The parser-based verdict (also the AST facts the engine verdict reuses). */
function parserVerdict(sql: string, parsed: ParseResult): RungResult<SyntaxDetails> {
  if (!parsed.ok) {
    const error = parsed.error;
    if (error.budget) {
      return fail(error.message, [{ kind: 'not_analysed', message: error.message, line: 1, column: 1 }], { authority: 'parser', ast: false, engineAccepted: false, parseError: error });
    }
    const issue: RungIssue = {
      kind: 'syntax_error',
      message: error.message,
      ...(error.line !== undefined ? { line: error.line, column: error.column ?? 1 } : {}),
    };
    return fail(`syntax error: ${error.message}`, [issue], { authority: 'parser', ast: false, engineAccepted: false, parseError: error });
  }
  const statements = topStatements(parsed);
  const base = { authority: 'parser' as const, ast: true, engineAccepted: false, statements: statements.length };
  if (statements.length === 0) {
    return fail('empty statement: the text holds no SQL', [{ kind: 'empty_statement', message: 'the text holds no SQL statement', line: 1, column: 1 }], base);
  }
  if (statements.length > 1) {
    const second = statements[1]!;
    return fail(
      `multiple statements: found ${statements.length}; exactly one query is allowed`,
      [{ kind: 'multiple_statements', message: `statement 2 of ${statements.length} starts here; exactly one query is allowed`, ...at(sql, second.start) }],
      { ...base, statementType: statements[0]!.type },
    );
  }
  const only = statements[0]!;
  if (!only.query) {
    return fail(
      `not a query: the statement is ${only.type}`,
      [{ kind: 'not_a_query', message: `${only.type} is not a query (only SELECT, WITH … SELECT and VALUES)`, ...at(sql, only.start) }],
      { ...base, statementType: only.type },
    );
  }
  const details = { ...base, statementType: only.type };
  const rejected = parsed.kind === 'cst' ? grammarViolations(parsed.program as unknown as SqlNode, parsed.dialect, DATABASE_NAMES[parsed.dialect]) : [];
  if (rejected.length > 0) {
    const issues = rejected.map((violation) => ({ kind: 'syntax_error', message: violation.message, ...at(sql, violation.start) }));
    const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
    return fail(`syntax error: ${issues[0]!.message}${more}`, issues, details);
  }
  const unconditioned = missingJoinConditions(parsed);
  if (unconditioned.length > 0) {
    const database = DATABASE_NAMES[parsed.dialect];
    const issues = unconditioned.map((join) => ({
      kind: 'syntax_error',
      message: `${join.operator} without ON or USING: ${database} requires a join condition (CROSS JOIN for a cross product)`,
      ...at(sql, join.start),
    }));
    const more = unconditioned.length > 1 ? ` (+${unconditioned.length - 1} more)` : '';
    return fail(`syntax error: ${issues[0]!.message}${more}`, issues, details);
  }
  return createRungResult({ rung: 'syntax', status: 'pass', reason: 'one query; parses in the dialect', details });
}

/**
 * SQLite without an engine: SQLite's own parser (sqlite-grammar.ts, an empty in-memory database)
 * must accept what the AST layer accepted; its syntax error fails L1 as the engine's would.
 */
function sqliteGrammarVerdict(sql: string, parsed: ParseResult, fromParser: RungResult<SyntaxDetails>): RungResult<SyntaxDetails> {
  const error = sqliteGrammarError(sql);
  if (error === undefined) return fromParser;
  return fail(`SQLite: ${error.message}`, [{ kind: 'syntax_error', message: error.message, ...sqlitePosition(sql, error.message, parsed) }], { ...fromParser.details, grammarError: error });
}

/** Joins the dialect requires a condition on and that have none (none for dialects that take them as cross products). */
function missingJoinConditions(parsed: Exclude<ParseResult, { ok: false }>): ReturnType<typeof joinsWithoutCondition> {
  if (parsed.kind !== 'cst' || !DIALECTS_REQUIRING_JOIN_CONDITIONS.includes(parsed.dialect)) return [];
  return joinsWithoutCondition(parsed.program as unknown as SqlNode);
}

function engineVerdict(input: SyntaxInput, outcome: ExecutionOutcome, parsed: ParseResult, fromParser: RungResult<SyntaxDetails>): RungResult<SyntaxDetails> {
  const ast = parsed.ok;
  const facts: SyntaxDetails = {
    authority: 'engine',
    ast,
    engineAccepted: outcome.ok,
    ...(fromParser.details.statements !== undefined ? { statements: fromParser.details.statements } : {}),
    ...(fromParser.details.statementType ? { statementType: fromParser.details.statementType } : {}),
    ...(fromParser.details.parseError ? { parseError: fromParser.details.parseError } : {}),
  };
  const database = DATABASE_NAMES[input.dialect];
  if (outcome.ok) {
    const strings = outcome.result.doubleQuoteFallback ? readAsStrings(input.sql, outcome.result.executedSql) : [];
    const accepts = input.dialect === 'postgres' ? 'PostgreSQL parses and describes it' : 'SQLite prepares it';
    const prepares = strings.length === 0 ? accepts : `SQLite prepares it only once ${strings.join(', ')} ${strings.length === 1 ? 'is' : 'are'} read as a string, as legacy SQLite reads a double-quoted name that is no column`;
    const reason = ast ? `one query; ${prepares}` : `one query; ${prepares} (not analysed by the AST layer: it could not read the text)`;
    return createRungResult({ rung: 'syntax', status: 'pass', reason, details: facts });
  }
  const error = outcome.error;
  const details: SyntaxDetails = { ...facts, engineError: error };
  switch (error.code) {
    case 'db_not_found':
      throw new LadderError('db_not_found', error.message);
    case 'empty_statement':
    case 'multiple_statements':
    case 'not_a_query': {
      // The engine's text gate; positions come from the parser's issue when it saw the same thing.
      const parserIssue = fromParser.issues.find((issue) => issue.kind === error.code);
      const position = parserIssue?.line !== undefined ? { line: parserIssue.line, column: parserIssue.column ?? 1 } : { line: 1, column: 1 };
      return fail(error.message, [{ kind: error.code, message: error.message, ...position }], details);
    }
    case 'syntax_error':
    case 'unknown_table':
    case 'unknown_column':
    case 'ambiguous_column':
    case 'unknown_function':
    case 'permission_denied':
    case 'query_error': {
      if ((NAME_ERRORS.has(error.code) || isRelationPrivilege(error)) && fromParser.status === 'pass') {
        return createRungResult({
          rung: 'syntax',
          status: 'pass',
          reason: `one query; ${database} parses it and fails on a name (${error.message}), which L2 reports`,
          details,
        });
      }
      const kind = error.code === 'unknown_function' || error.code === 'syntax_error' ? error.code : 'query_error';
      const position = error.position !== undefined ? positionAt(input.sql, Math.min(input.sql.length, error.position - 1)) : sqlitePosition(input.sql, error.message, parsed);
      return fail(`${database}: ${error.message}`, [{ kind, message: error.message, ...position }], details);
    }
    default:
      return fail(`engine: ${error.message}`, [{ kind: 'engine_failure', message: error.message, line: 1, column: 1 }], details);
  }
}

interface TopStatement {
  readonly type: string;
  readonly start: number;
  readonly query: boolean;
}

function topStatements(parsed: Exclude<ParseResult, { ok: false }>): TopStatement[] {
  if (parsed.kind === 'cst') {
    return (parsed.program as Program).statements
      .filter((statement) => statement.type !== 'empty')
      .map((statement) => ({
        type: statement.type,
        start: statement.range?.[0] ?? 0,
        query: isCstQuery(statement as unknown as { type: string; expr?: unknown }),
      }));
  }
  // node-sql-parser (Snowflake): one AST object per statement, no offsets.
  return parsed.ast.map((statement) => {
    const type = String((statement as { type?: unknown }).type ?? 'unknown');
    return { type, start: 0, query: type === 'select' };
  });
}

function isCstQuery(node: { type: string; expr?: unknown }): boolean {
  if (QUERY_TYPES.has(node.type)) return true;
  if (node.type === 'paren_expr' && typeof node.expr === 'object' && node.expr !== null) {
    return isCstQuery(node.expr as { type: string; expr?: unknown });
  }
  return false;
}

/**
 * Where a SQLite error points: the parser's error position when the parser failed too; the first
 * token SQLite names (`near "X"`, `no such function: X`) otherwise; the end of the text for
 * `incomplete input`; else the statement start.
 */
function sqlitePosition(sql: string, message: string, parsed: ParseResult): { line: number; column: number } {
  if (!parsed.ok && parsed.error.line !== undefined) return { line: parsed.error.line, column: parsed.error.column ?? 1 };
  if (message.startsWith('incomplete input')) return positionAt(sql, sql.trimEnd().length);
  const named = /^near "(.*)": /.exec(message)?.[1] ?? /^no such function: (.+)$/.exec(message)?.[1];
  if (named !== undefined) {
    const token = tokenizeSqlite(sql).find((candidate) => sql.slice(candidate.start, candidate.end).toLowerCase() === named.toLowerCase());
    if (token) return positionAt(sql, token.start);
  }
  const first = tokenizeSqlite(sql)[0];
  return positionAt(sql, first?.start ?? 0);
}

function at(sql: string, offset: number): { line: number; column: number } {
  return positionAt(sql, offset);
}

function fail(reason: string, issues: RungIssue[], details: SyntaxDetails): RungResult<SyntaxDetails> {
  return createRungResult({ rung: 'syntax', status: 'fail', reason, issues, details });
}
