/**
 * The columns whose values form a known, finite set on every database a fixture can hold (from
 * the generator's plan), used to leave out neighbours equivalent over the domain.
 */
import { valueKey, type GenValue } from '../model/gen-value.js';
import type { GeneratorPlan } from './generator-plan.js';
import { columnKey } from '../model/invariants.js';
import { findTable, insertableColumns } from '../model/schema-reader.js';

/**
 * Columns whose values are a known set on every database the fixture can hold, NULL included
 * when the schema (and a `values` list) allows it: `values` invariants, every column of a `lookup`
 * table (its snapshot rows), foreign keys into such a column, and `format: date | timestamp`
 * columns (every valid text of the format). Used to leave out
 * neighbours equivalent over the domain (domain-equivalence.ts).
 * @returns domains by column key (`table.column`, lower-case).
 */
export function finiteDomains(plan: GeneratorPlan): Map<string, GenValue[] | { readonly format: 'date' | 'timestamp'; readonly nullable: boolean }> {
  const out = new Map<string, GenValue[] | { readonly format: 'date' | 'timestamp'; readonly nullable: boolean }>();
  const withNull = (values: readonly GenValue[], nullable: boolean): GenValue[] => (nullable ? [...values, null] : [...values]);
  for (const invariant of plan.invariants) {
    if (invariant.kind === 'values') {
      const table = findTable(plan.schema, invariant.tableName)!;
      const column = table.columns.find((c) => c.name === invariant.columnName)!;
      const pool = plan.pools.get(columnKey(table.name, column.name));
      const values = pool?.fixedValues ?? [];
      out.set(columnKey(table.name, column.name), withNull(values, !column.notNull && invariant.values.includes(null)));
    }
    if (invariant.kind === 'format' && invariant.format !== 'time') {
      const column = findTable(plan.schema, invariant.tableName)!.columns.find((c) => c.name === invariant.columnName)!;
      if (!out.has(columnKey(invariant.tableName, column.name))) out.set(columnKey(invariant.tableName, column.name), { format: invariant.format, nullable: !column.notNull });
    }
    if (invariant.kind === 'lookup') {
      const table = findTable(plan.schema, invariant.tableName)!;
      const rows = plan.observed.rows.get(table.name) ?? [];
      insertableColumns(table).forEach((name, i) => {
        const column = table.columns.find((c) => c.name === name)!;
        const seen = new Map<string, GenValue>();
        for (const row of rows) if (row[i] !== null) seen.set(`${typeof row[i]}:${valueKey(row[i]!)}`, row[i]!);
        out.set(columnKey(table.name, name), withNull([...seen.values()], !column.notNull));
      });
    }
  }
  for (const table of plan.schema.tables) {
    for (const fk of table.foreignKeys) {
      if (fk.columns.length !== 1) continue;
      const parent = out.get(columnKey(fk.parentTable, fk.parentColumns[0]!));
      const column = table.columns.find((c) => c.name === fk.columns[0])!;
      if (Array.isArray(parent) && !out.has(columnKey(table.name, column.name))) {
        out.set(columnKey(table.name, column.name), withNull(parent.filter((v) => v !== null), !column.notNull));
      }
    }
  }
  return out;
}
