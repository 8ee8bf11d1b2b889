/**
 * The SQL of fixture invariants: a violation query per invariant (the rows that break it), and the
 * literals the generator's statements share.
 */
import { quoteIdentifier } from '../../sql/identifiers.js';
import { tokenizeSqlite } from '../../sql/sqlite-lexer.js';
import type { BoundInvariant } from './invariants.js';
import { findTable, type DatabaseSchema } from './schema-reader.js';

/** The name of the seeded random function a `derive` may call during generation. */
export const RANDOM_FUNCTION = 'ladder_random';

/** A SQL literal for a declared value (strings single-quoted, numbers as written). */
export function sqlLiteral(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value);
  return `'${value.replaceAll("'", "''")}'`;
}

/** True when the SQL text calls the seeded random function. */
export function usesRandom(sql: string): boolean {
  return tokenizeSqlite(sql).some((t) => t.kind === 'word' && t.value.toLowerCase() === RANDOM_FUNCTION);
}

/**
 * A query returning the number of rows that break the invariant (0 = kept), or `null` when the
 * invariant cannot be checked on a database alone (`lookup`, which compares with the snapshots, and
 * a `derive` that calls `ladder_random()`).
 *
 * @example
 * invariantViolationSql(bound({ kind: 'format', column: 'orders.order_date', format: 'date' }))
 * // SELECT COUNT(*) FROM "orders" WHERE "order_date" IS NOT NULL AND (typeof("order_date") <> 'text' OR date("order_date") IS NOT "order_date")
 */
export function invariantViolationSql(invariant: BoundInvariant, schema?: DatabaseSchema): string | null {
  const t = quoteIdentifier(invariant.tableName);
  const c = invariant.columnName === undefined ? '' : quoteIdentifier(invariant.columnName);
  switch (invariant.kind) {
    case 'values': {
      const listed = invariant.values.filter((v) => v !== null);
      const nullAllowed = invariant.values.includes(null);
      const outside = listed.length === 0 ? `${c} IS NOT NULL` : `${c} NOT IN (${listed.map(sqlLiteral).join(', ')})`;
      return `SELECT COUNT(*) FROM ${t} WHERE ${nullAllowed ? `${c} IS NOT NULL AND ${outside}` : `${c} IS NULL OR ${outside}`}`;
    }
    case 'range': {
      const tests: string[] = [];
      if (invariant.min !== undefined) tests.push(`${c} < ${invariant.min}`);
      if (invariant.max !== undefined) tests.push(`${c} > ${invariant.max}`);
      if (invariant.integer) tests.push(`${c} <> CAST(${c} AS INTEGER)`);
      if (invariant.multipleOf !== undefined) tests.push(`ABS(${c} / ${invariant.multipleOf} - ROUND(${c} / ${invariant.multipleOf})) > 1e-9`);
      return `SELECT COUNT(*) FROM ${t} WHERE ${c} IS NOT NULL AND (typeof(${c}) NOT IN ('integer', 'real') OR ${tests.join(' OR ')})`;
    }
    case 'format': {
      const fn = invariant.format === 'date' ? 'date' : invariant.format === 'time' ? 'time' : 'datetime';
      return `SELECT COUNT(*) FROM ${t} WHERE ${c} IS NOT NULL AND (typeof(${c}) <> 'text' OR ${fn}(${c}) IS NOT ${c})`;
    }
    case 'derive':
      return usesRandom(invariant.sql) ? null : `SELECT COUNT(*) FROM ${t} WHERE ${c} IS NOT (${invariant.sql})`;
    case 'check':
      return `SELECT COUNT(*) FROM ${t} WHERE NOT (${invariant.sql})`;
    case 'children': {
      const table = schema === undefined ? undefined : findTable(schema, invariant.tableName);
      const fk = table?.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0] === invariant.columnName);
      if (fk === undefined) return null;
      const p = quoteIdentifier(fk.parentTable);
      const pc = quoteIdentifier(fk.parentColumns[0]!);
      const count = `(SELECT COUNT(*) FROM ${t} AS child WHERE child.${c} = parent.${pc})`;
      const tests = [`${count} < ${invariant.min}`, ...(invariant.max === undefined ? [] : [`${count} > ${invariant.max}`])];
      return `SELECT COUNT(*) FROM ${p} AS parent WHERE ${tests.join(' OR ')}`;
    }
    case 'lookup':
      return null;
  }
}
