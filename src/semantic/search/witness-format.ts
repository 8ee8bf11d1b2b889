/**
 * A counterexample as a person reads it: the one-line reason (`refuted on a 2-row database: gold
 * returns [3], prediction [2]; INSERT INTO orders …`), the witness's rows as `INSERT` statements,
 * and text tables of the database and of both results for a matcher's message — cells and tables
 * written by src/format.ts, as every other message writes them.
 */
import type { Cell, QueryResult } from '../../engine/engine.js';
import { counted, formatCell, formatPipeTable, formatRow, truncate } from '../../format.js';
import { quoteIdentifier } from '../../sql/identifiers.js';
import type { Witness, WitnessTable } from '../../rungs/semantic-details.js';
import type { StoredTable } from '../generation/edit-database.js';
import { sqlLiteralOf, toCell } from '../model/gen-value.js';
import type { RefutedOutcome, SearchOutcome } from './search-outcome.js';

/** SQLite's keywords (https://sqlite.org/lang_keywords.html): identifiers spelt like one are quoted. */
const SQLITE_KEYWORDS = new Set(
  (
    'ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK ' +
    'COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT ' +
    'DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER ' +
    'FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER ' +
    'INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL ' +
    'NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES ' +
    'REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN ' +
    'TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT'
  ).split(' '),
);

/**
 * An identifier as written in a readable statement: bare when it is a plain name that is not a
 * keyword, else double-quoted.
 * @example readableIdentifier('orders') // 'orders'
 * @example readableIdentifier('order') // '"order"'
 */
export function readableIdentifier(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !SQLITE_KEYWORDS.has(name.toUpperCase()) ? name : quoteIdentifier(name);
}

/**
 * The tables of a database that hold rows, in the order given, as witness tables.
 * @param stored - from `readStoredTables`, parents first.
 */
export function witnessTables(stored: readonly StoredTable[]): WitnessTable[] {
  return stored.filter((t) => t.rows.length > 0).map((t) => ({ name: t.name, columns: t.columns, rows: t.rows.map((r) => r.values.map(toCell)), stored: t.rows.map((r) => r.values) }));
}

/**
 * One `INSERT` per table, values written so they keep their storage class (`5`, `5.0`, `'5'`).
 * @example insertStatements(tables) // ["INSERT INTO orders (order_id, amount) VALUES (1, 3.0), (2, 5.0);"]
 */
export function insertStatements(tables: readonly WitnessTable[]): string[] {
  return tables.map(
    (t) => `INSERT INTO ${readableIdentifier(t.name)} (${t.columns.map(readableIdentifier).join(', ')}) VALUES ${t.stored.map((row) => `(${row.map(sqlLiteralOf).join(', ')})`).join(', ')};`,
  );
}

/** Rows shown in a one-line result before `… n rows`. */
const ROWS_IN_LINE = 3;
/** Longest reason line, characters; the INSERTs are cut with `…` beyond it. */
const MAX_REASON_CHARS = 1200;

/**
 * A result in one line: `[3]`, `[3, 4]`, `[(1, 'a'), (2, 'b')]`, `no rows`; after three rows
 * `… 12 rows`.
 */
export function formatResultInline(result: Pick<QueryResult, 'rows' | 'columns'>): string {
  if (result.rows.length === 0) return 'no rows';
  const row = (r: readonly Cell[]): string => (r.length === 1 ? formatCell(r[0]!) : formatRow(r));
  const shown = result.rows.slice(0, ROWS_IN_LINE).map(row);
  if (result.rows.length > ROWS_IN_LINE) shown.push(`… ${result.rows.length} rows`);
  return `[${shown.join(', ')}]`;
}

function databaseSize(witness: Witness): string {
  return `${witness.totalRows}-row database`;
}

function predictedInline(witness: Witness): string {
  return witness.predicted.ok ? formatResultInline(witness.predicted.result) : `fails (${witness.predicted.error.code}: ${witness.predicted.error.message})`;
}

function goldsInline(witness: Witness, goldCount: number): string {
  return witness.golds.map((g, i) => `${goldCount > 1 ? `gold ${g}` : 'gold'} returns ${formatResultInline(witness.goldResults[i]!)}`).join(', ');
}

/**
 * The one-line reason of a refutation, e.g.
 * `refuted on a 2-row database: gold returns [3], prediction [2]; INSERT INTO orders (…) VALUES (…)`.
 * With one witness per gold: `refuted: gold 0 on a 2-row database returns …; gold 1 on …`.
 * @param outcome - a refuted outcome.
 * @param goldCount - how many golds the item has (names them `gold i` when more than one).
 */
export function formatRefutationReason(outcome: Pick<RefutedOutcome, 'witnesses'>, goldCount: number): string {
  const parts = outcome.witnesses.map((w) => `${goldsInline(w, goldCount)}, prediction ${w.predicted.ok ? formatResultInline(w.predicted.result) : predictedInline(w)}; ${w.inserts.join(' ')}`);
  const text =
    outcome.witnesses.length === 1
      ? `refuted on a ${databaseSize(outcome.witnesses[0]!)}: ${parts[0]}`
      : `refuted: ${outcome.witnesses.map((w, i) => `on a ${databaseSize(w)}, ${parts[i]}`).join(' | ')}`;
  return truncate(text, MAX_REASON_CHARS);
}

/**
 * The one-line reason of any search outcome (the reason the outcome carries).
 * @example formatSearchReason(outcome) // 'not refuted within budget: 100 databases tried (60 tiny, 25 small, 15 medium), …'
 */
export function formatSearchReason(outcome: SearchOutcome): string {
  return outcome.reason;
}

/** Widest cell printed in a table, characters. */
const MAX_CELL_CHARS = 40;

/** A table of the witness's message: the matchers' pipe table (src/format.ts), cells cut to {@link MAX_CELL_CHARS}. */
function table(columns: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return formatPipeTable(columns, rows, { indent: 2, maxCellChars: MAX_CELL_CHARS });
}

/**
 * A witness as text tables: each table that holds rows, then each distinguished gold's result and
 * the prediction's.
 * @param witness - from a refuted outcome.
 * @param goldCount - how many golds the item has (labels `gold i` when more than one).
 * @example
 * renderWitness(outcome.witness, 1)
 * // Witness database (3 rows):
 * //   orders
 * //   | order_id | status |
 * //   …
 * // Gold result (1 row):
 * //   …
 */
export function renderWitness(witness: Witness, goldCount = 1): string {
  const blocks = [`Witness database (${counted(witness.totalRows, 'row')}; tables not shown are empty):`];
  for (const stored of witness.tables) blocks.push(`  ${stored.name}\n${table(stored.columns, stored.rows)}`);
  witness.golds.forEach((g, i) => {
    const result = witness.goldResults[i]!;
    blocks.push(`${goldCount > 1 ? `Gold ${g}` : 'Gold'} result (${counted(result.rows.length, 'row')}):\n${table(result.columns, result.rows)}`);
  });
  blocks.push(
    witness.predicted.ok
      ? `Predicted result (${counted(witness.predicted.result.rows.length, 'row')}):\n${table(witness.predicted.result.columns, witness.predicted.result.rows)}`
      : `Prediction fails: ${witness.predicted.error.code}: ${witness.predicted.error.message}`,
  );
  blocks.push(`Difference: ${witness.difference}`);
  return blocks.join('\n');
}
