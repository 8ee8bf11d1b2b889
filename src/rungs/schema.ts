/**
 * L2 — schema validity (*Text-to-SQL Evals* §3.2): every table and column the query names exists in the
 * role-visible catalog, resolved scope by scope (see `src/sql/references.ts` for the rules: CTE
 * shadowing both ways, derived-table aliases, select-list aliases, USING / NATURAL, string
 * literals and SQLite's legacy double-quoted strings, schema-qualified names, dialect case rules).
 *
 * Issue kinds: `unknown_table`, `unknown_column`, `unknown_qualifier`, `ambiguous_column` (each
 * with 1-based position and, when one is close, a did-you-mean `suggestion`), and
 * `not_analysed` when the AST layer cannot read a statement that the engine has not accepted.
 * Snowflake (node-sql-parser trees) has no scope resolution yet: the rung is `skipped` with that
 * reason, never passed.
 *
 * L2 checks queries only (SELECT, compound SELECT, WITH … SELECT): `src/sql/references.ts` walks
 * any other statement generically, with no FROM scope, so it would read the table of
 * `DELETE FROM orders` as a column. For DELETE / INSERT / UPDATE / DDL / PRAGMA … the rung is
 * `skipped` with reason `not a query (DELETE): L2 checks queries only`; L3 safety judges them.
 *
 * An unknown column with no close did-you-mean lists the columns of the catalog tables in scope
 * (`columns of orders: order_id, customer_id, …`, at most {@link MAX_LISTED_COLUMNS} per table and
 * {@link MAX_LISTED_TABLES} tables), so the right name is in the message.
 *
 * Double quotes (SQLite, legacy mode, the default): a double-quoted token that names no column is
 * read as a string, as stock SQLite does, where a value is expected (`region = "APG"`, `IN`,
 * `LIKE`, `BETWEEN`, function arguments); each such token is reported in `details.findings` as
 * `double_quoted_string`, and the rung still passes. Where a column is expected (a whole
 * select-list, GROUP BY or ORDER BY item, a comparison operand of a join's ON) it fails as
 * `unknown_column`, saying that legacy SQLite would read it as a string: `SELECT "full_name" FROM
 * people` is the hallucination L2 exists to catch, and `SELECT "N/A" AS x` must be written
 * `SELECT 'N/A' AS x`. Gold SQL (`sqlRole: 'gold'`) keeps the legacy reading everywhere.
 *
 * When the AST layer cannot read the text but SQLite prepared it against the role-scoped database
 * (`engineAccepted: true`), every name it uses exists there: the rung passes with
 * `details.analysed: false` and says so, never failing for the parser's gap.
 */
import type { Catalog, CatalogTable, DoubleQuoteMode } from '../engine/engine.js';
import { identifierKey } from '../sql/identifiers.js';
import type { References, UnresolvedName } from '../sql/references.js';
import { DIALECTS, type Dialect } from '../sql/parse.js';
import { LadderError } from '../errors.js';
import { memoFor, type ParseMemo } from './parse-memo.js';
import { createRungResult, type RungIssue, type RungResult } from './rung-result.js';
import { counted } from '../format.js';

/** Input of {@link checkSchema}. */
export interface SchemaInput {
  /** The SQL text (one statement). */
  readonly sql: string;
  readonly dialect: Dialect;
  /** The role-visible catalog (see `src/sql/catalog.ts`). */
  readonly catalog: Catalog;
  /** SQLite only: double-quote mode (default `legacy`, as the engine). */
  readonly doubleQuotes?: DoubleQuoteMode;
  /** True when SQLite prepared this text against the role-scoped database (from L1's details). */
  readonly engineAccepted?: boolean;
  /** Whose SQL this is (default `predicted`); `gold` keeps SQLite's legacy double-quote reading in column positions too. */
  readonly sqlRole?: 'predicted' | 'gold';
  /** The item's shared parses (one parse per SQL text per item); absent → the rung parses itself. */
  readonly parses?: ParseMemo;
}

/** Something L2 noticed that does not fail it (1-based position in the SQL text). */
export interface SchemaFinding {
  /** `double_quoted_string`: a `"…"` token that names no column, read as a string literal (SQLite legacy mode). */
  readonly kind: 'double_quoted_string';
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** Machine-readable details of an L2 result. */
export interface SchemaDetails {
  /** False when the AST layer could not read the text (see `reason`). */
  readonly analysed: boolean;
  /** Real tables the query reads, as written (qualified names whole), in source order, deduplicated. */
  readonly tables: readonly string[];
  /** Names that resolve to nothing. */
  readonly unresolved: readonly UnresolvedName[];
  /** Number of column references checked. */
  readonly columnsChecked: number;
  /** Findings that do not fail the rung (double-quoted strings). */
  readonly findings: readonly SchemaFinding[];
}

/**
 * Runs L2 on one SQL text against a catalog.
 *
 * @returns `pass` when every name resolves; `fail` with one issue per unknown name.
 * @throws LadderError `invalid_argument` for a non-string `sql`, an unknown dialect, or a catalog
 *   without `tables`.
 * @example
 * checkSchema({ sql: 'SELECT amont FROM orders', dialect: 'sqlite', catalog })
 * // fail: unknown_column `amont` at 1:8, suggestion `amount`
 */
export function checkSchema(input: SchemaInput): RungResult<SchemaDetails> {
  // Validate arguments.
  if (typeof input?.sql !== 'string') throw new LadderError('invalid_argument', `sql must be a string; received ${typeof input?.sql}`);
  if (!DIALECTS.includes(input.dialect)) {
    throw new LadderError('invalid_argument', `dialect must be one of ${DIALECTS.join(', ')}; received ${JSON.stringify(input.dialect)}`);
  }
  if (!input.catalog || !Array.isArray(input.catalog.tables)) {
    throw new LadderError('invalid_argument', 'catalog must be { tables: CatalogTable[] } (see src/sql/catalog.ts)');
  }
  const memo = memoFor(input.parses, input.dialect);

  // A statement that is not a query: the reference collector has no scope rules for it.
  const parsed = memo.parse(input.sql);
  if (parsed.ok && parsed.kind === 'cst') {
    const statements = parsed.program.statements.filter((statement) => statement.type !== 'empty');
    const only = statements.length === 1 ? statements[0]! : undefined;
    if (only && !QUERY_STATEMENTS.has(only.type)) {
      return createRungResult({
        rung: 'schema',
        status: 'skipped',
        reason: `not a query (${statementKeyword(only.type)}): L2 checks queries only`,
        details: { analysed: false, tables: [], unresolved: [], columnsChecked: 0, findings: [] },
      });
    }
  }

  const references = memo.references(input.sql, {
    catalog: input.catalog,
    ...(input.doubleQuotes ? { doubleQuotes: input.doubleQuotes } : {}),
    ...(input.sqlRole ? { sqlRole: input.sqlRole } : {}),
  });

  if (!references.ok) {
    const empty = { analysed: false, tables: [], unresolved: [], columnsChecked: 0, findings: [] };
    if (references.code === 'unsupported_tree') {
      return createRungResult({ rung: 'schema', status: 'skipped', reason: `not analysed: ${references.reason}`, details: empty });
    }
    if (input.engineAccepted === true && references.code !== 'not_single_statement') {
      return createRungResult({
        rung: 'schema',
        status: 'pass',
        reason: `passed by engine, not analysed: SQLite prepared it against the role-scoped database, but the AST layer could not read it (${references.reason})`,
        details: empty,
      });
    }
    return createRungResult({
      rung: 'schema',
      status: 'fail',
      reason: `not analysed: ${references.reason}`,
      issues: [{ kind: 'not_analysed', message: `names cannot be checked: ${references.reason}`, line: 1, column: 1 }],
      details: empty,
    });
  }
  return verdict(references, input.dialect, input.catalog);
}

/** Statement types (sql-parser-cst) that L2 resolves; any other top-level statement is skipped. */
const QUERY_STATEMENTS: ReadonlySet<string> = new Set(['select_stmt', 'compound_select_stmt', 'paren_expr']);

/** Most columns listed per table when an unknown column has no did-you-mean. */
export const MAX_LISTED_COLUMNS = 12;
/** Most tables whose columns are listed when an unknown column has no did-you-mean. */
export const MAX_LISTED_TABLES = 4;

/** `delete_stmt` → `DELETE`, `create_table_stmt` → `CREATE TABLE`. */
function statementKeyword(type: string): string {
  return type.replace(/_stmt$/, '').replace(/_/g, ' ').toUpperCase();
}

/**
 * The issue message: the collector's, plus, for an unknown column without a did-you-mean, the
 * columns of the catalog tables in its scope chain (only the qualifier's table when qualified).
 */
function messageOf(name: UnresolvedName, references: References, dialect: Dialect, catalog: Catalog): string {
  const hidden = notVisibleMessage(name, catalog);
  if (hidden !== undefined) return hidden;
  if (name.kind !== 'unknown_column' || name.suggestion) return name.message;
  const column = references.columns.find((ref) => ref.start === name.start && ref.resolution.kind === 'unknown');
  if (!column) return name.message;
  const chain = new Set<number>();
  for (let id: number | undefined = column.scope; id !== undefined && !chain.has(id); id = references.scopes.find((scope) => scope.id === id)?.parent) chain.add(id);
  const qualifierKey = column.qualifier === undefined ? undefined : identifierKey(column.qualifier.split('.').pop()!, false, dialect);
  const seen = new Set<CatalogTable>();
  const tables: { label: string; table: CatalogTable }[] = [];
  for (const ref of references.tables) {
    if (!ref.table || ref.selfReference || !chain.has(ref.scope) || seen.has(ref.table)) continue;
    if (qualifierKey !== undefined && identifierKey(ref.alias ?? ref.name, false, dialect) !== qualifierKey) continue;
    seen.add(ref.table);
    tables.push({ label: ref.written, table: ref.table });
  }
  if (tables.length === 0) return name.message;
  const listed = tables.slice(0, MAX_LISTED_TABLES).map(({ label, table }) => {
    const names = table.columns.map((catalogColumn) => catalogColumn.name);
    const rest = names.length > MAX_LISTED_COLUMNS ? `, … (+${names.length - MAX_LISTED_COLUMNS} more)` : '';
    return `columns of ${label}: ${names.slice(0, MAX_LISTED_COLUMNS).join(', ')}${rest}`;
  });
  const moreTables = tables.length > MAX_LISTED_TABLES ? `; +${tables.length - MAX_LISTED_TABLES} more tables` : '';
  return `${name.message}; ${listed.join('; ')}${moreTables}`;
}

/**
 * `table users is not visible to role support_emea` when the catalog is a role's and the whole
 * database has the name the role may not see; `undefined` otherwise.
 */
function notVisibleMessage(name: UnresolvedName, catalog: Catalog): string | undefined {
  const role = catalog.role;
  if (role === undefined) return undefined;
  const bare = name.name.split('.').pop()!.replace(/^["`[]|["`\]]$/g, '').toLowerCase();
  if ((name.kind === 'unknown_table' || name.kind === 'unknown_qualifier') && role.hiddenTables.includes(name.kind === 'unknown_qualifier' ? name.name.split('.')[0]!.toLowerCase() : bare)) {
    return `table ${name.kind === 'unknown_qualifier' ? name.name.split('.')[0] : name.name} is not visible to role ${role.name}`;
  }
  if (name.kind === 'unknown_column' && role.hiddenColumns.includes(bare)) return `column ${name.name} is not visible to role ${role.name}`;
  return undefined;
}

function verdict(references: References, dialect: Dialect, catalog: Catalog): RungResult<SchemaDetails> {
  const details: SchemaDetails = {
    analysed: true,
    tables: [...new Set(references.tables.filter((table) => !table.selfReference).map((table) => table.written))],
    unresolved: references.unresolved,
    columnsChecked: references.columns.filter((column) => column.resolution.kind !== 'string_literal').length,
    findings: references.doubleQuotedStrings.map((token) => ({
      kind: 'double_quoted_string' as const,
      message: `"${token.value}" names no column; read as the string '${token.value.replaceAll("'", "''")}' (SQLite legacy double quotes)`,
      line: token.line,
      column: token.column,
    })),
  };
  if (references.unresolved.length === 0) {
    const strings = details.findings.length === 0 ? '' : `; ${counted(details.findings.length, 'double-quoted string')} read as ${details.findings.length === 1 ? 'a string literal' : 'string literals'} (legacy SQLite) at ${details.findings.map((finding) => `${finding.line}:${finding.column}`).join(', ')}`;
    return createRungResult({
      rung: 'schema',
      status: 'pass',
      reason: `every name resolves (${counted(details.tables.length, 'table')}, ${counted(details.columnsChecked, 'column reference')})${strings}`,
      details,
    });
  }
  const issues: RungIssue[] = references.unresolved.map((name) => ({
    kind: name.kind,
    message: messageOf(name, references, dialect, catalog),
    line: name.line,
    column: name.column,
    ...(name.suggestion ? { suggestion: name.suggestion } : {}),
  }));
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  return createRungResult({
    rung: 'schema',
    status: 'fail',
    reason: `${first.message} at ${first.line}:${first.column}${more}`,
    issues,
    details,
  });
}
