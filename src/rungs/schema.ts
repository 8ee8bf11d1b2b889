/**
 * L2 — schema validity (reference 000 §3.2): every table and column the query names exists in the
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
 * When the AST layer cannot read the text but SQLite prepared it against the role-scoped database
 * (`engineAccepted: true`), every name it uses exists there: the rung passes with
 * `details.analysed: false` and says so, never failing for the parser's gap.
 */
import type { Catalog, DoubleQuoteMode } from '../engine/engine.js';
import { collectReferences, type References, type UnresolvedName } from '../sql/references.js';
import { DIALECTS, type Dialect } from '../sql/parse.js';
import { createRungResult, type RungIssue, type RungResult } from './rung-result.js';

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
}

/**
 * Runs L2 on one SQL text against a catalog.
 *
 * @returns `pass` when every name resolves; `fail` with one issue per unknown name.
 * @throws TypeError for a non-string `sql`, an unknown dialect, or a catalog without `tables`.
 * @example
 * checkSchema({ sql: 'SELECT amont FROM orders', dialect: 'sqlite', catalog })
 * // fail: unknown_column `amont` at 1:8, suggestion `amount`
 */
export function checkSchema(input: SchemaInput): RungResult<SchemaDetails> {
  // Validate arguments.
  if (typeof input?.sql !== 'string') throw new TypeError(`sql must be a string; received ${typeof input?.sql}`);
  if (!DIALECTS.includes(input.dialect)) {
    throw new TypeError(`dialect must be one of ${DIALECTS.join(', ')}; received ${JSON.stringify(input.dialect)}`);
  }
  if (!input.catalog || !Array.isArray(input.catalog.tables)) {
    throw new TypeError('catalog must be { tables: CatalogTable[] } (see src/sql/catalog.ts)');
  }

  const references = collectReferences({
    sql: input.sql,
    dialect: input.dialect,
    catalog: input.catalog,
    ...(input.doubleQuotes ? { doubleQuotes: input.doubleQuotes } : {}),
  });

  if (!references.ok) {
    const empty = { analysed: false, tables: [], unresolved: [], columnsChecked: 0 };
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
  return verdict(references);
}

function verdict(references: References): RungResult<SchemaDetails> {
  const details: SchemaDetails = {
    analysed: true,
    tables: [...new Set(references.tables.filter((table) => !table.selfReference).map((table) => table.written))],
    unresolved: references.unresolved,
    columnsChecked: references.columns.length,
  };
  if (references.unresolved.length === 0) {
    return createRungResult({
      rung: 'schema',
      status: 'pass',
      reason: `every name resolves (${details.tables.length} tables, ${details.columnsChecked} column references)`,
      details,
    });
  }
  const issues: RungIssue[] = references.unresolved.map((name) => ({
    kind: name.kind,
    message: name.message,
    line: name.line,
    column: name.column,
    ...(name.suggestion ? { suggestion: name.suggestion } : {}),
  }));
  const first = references.unresolved[0]!;
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  return createRungResult({
    rung: 'schema',
    status: 'fail',
    reason: `${first.message} at ${first.line}:${first.column}${more}`,
    issues,
    details,
  });
}
