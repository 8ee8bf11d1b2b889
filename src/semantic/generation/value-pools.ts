/**
 * Value pools: for every column, where generated values come from.
 *
 * - observed: the snapshots' most frequent values (real names, codes and ids);
 * - constants: the golds' literals compared with this column and values next to them — integers
 *   ±1, reals ±0.1 and ±1, dates ±1 day and the first / last day of a compared year or month,
 *   timestamps ±1 second and the ends of a compared day, strings in other cases and near-duplicates
 *   (a character added or dropped), strings that do and do not match a LIKE pattern;
 * - duplicates: values already drawn in this column of this database (ties, repeated names);
 * - fresh: random values of the column's kind within the observed range;
 * - NULL where the schema allows it (or, with `nulls: 'observed'`, where the snapshots hold NULLs).
 *
 * Declared invariants narrow every source: `values` replaces them (only those values), `range`
 * and `format` filter them and shape fresh values.
 */
import type { FormatInvariant, RangeInvariant, ValuesInvariant } from '../../fixtures/fixture-invariant.js';
import { tokenizeSqlite } from '../../sql/sqlite-lexer.js';
import { constantsFor } from './constant-neighbours.js';
import { numericValue, valueKey, type GenValue, type StorageClass } from '../model/gen-value.js';
import type { GoldLiteral } from '../model/gold-literals.js';
import { columnDomains, columnKey, type BoundInvariant } from '../model/invariants.js';
import type { ObservedColumn, ObservedData } from '../model/observed-values.js';
import type { ColumnSchema, DatabaseSchema, TableSchema } from '../model/schema-reader.js';
import { allowedStorageClasses, storedClassOf } from '../model/storage-class.js';
import { dayNumber, dayOf, isDate, isTime, isTimestamp, kindOf, type ValueKind } from '../model/value-kind.js';

/** Where generated values of one column come from. */
export interface ColumnPool {
  readonly table: string;
  readonly column: string;
  readonly kind: ValueKind;
  /** True when the generator may put NULL here: the schema allows it, a `values` invariant lists it, and under `nulls: 'observed'` the snapshots hold one. */
  readonly nullable: boolean;
  /** Storage classes the column may hold (storage-class.ts): the snapshots', the declared type's and the kind's. */
  readonly storageClasses: ReadonlySet<StorageClass>;
  /** Share of NULLs in the snapshots (0 when none or no rows). */
  readonly observedNullFraction: number;
  /** With a `values` invariant: the only values allowed (NULL decided by `nullable`). */
  readonly fixedValues?: readonly GenValue[];
  readonly observed: readonly GenValue[];
  /** How often each observed value occurs in the snapshots (aligned with `observed`). */
  readonly observedWeights: readonly number[];
  /** With `fixedValues`: how often each occurs in the snapshots (1 when never). */
  readonly fixedWeights?: readonly number[];
  /** Gold constants and their neighbours, filtered by the column's invariants. */
  readonly constants: readonly GenValue[];
  /** Numeric bounds for fresh numbers (inclusive). */
  readonly numeric: { readonly min: number; readonly max: number; readonly step: number | null; readonly decimals: number };
  /** Day numbers (days since 1970-01-01) bounding fresh dates and timestamps. */
  readonly days: { readonly min: number; readonly max: number };
  /** Bounds of fresh text lengths. */
  readonly textLength: { readonly min: number; readonly max: number };
  /** True when a value satisfies the column's declared invariants and is stored in one of its {@link ColumnPool.storageClasses}. */
  accepts(value: GenValue): boolean;
}

/** How NULLs are allowed: wherever the schema allows them, or only where the snapshots hold some. */
export type NullPolicy = 'allowed' | 'observed';

/** Inputs of {@link buildValuePools}. */
export interface BuildPoolsInput {
  readonly schema: DatabaseSchema;
  readonly observed: ObservedData;
  readonly literals: readonly GoldLiteral[];
  readonly invariants: readonly BoundInvariant[];
  /** Default `allowed`. */
  readonly nulls?: NullPolicy;
}

/**
 * Builds one pool per column of every table.
 * @returns pools by column key (`table.column`, lower-case).
 */
export function buildValuePools(input: BuildPoolsInput): Map<string, ColumnPool> {
  const domains = columnDomains(input.invariants);
  const literalsByColumn = new Map<string, GoldLiteral[]>();
  const sources = derivationSources(input.schema, input.invariants);
  for (const literal of input.literals) {
    for (const target of literal.columns) {
      const key = columnKey(target.table, target.column);
      // A constant compared with a derived column (order_date = date(ordered_at)) must reach the
      // column it is computed from, or no row will ever sit on the constant.
      for (const k of [key, ...(sources.get(key) ?? [])]) literalsByColumn.set(k, [...(literalsByColumn.get(k) ?? []), literal]);
    }
  }
  const pools = new Map<string, ColumnPool>();
  for (const table of input.schema.tables) {
    for (const column of table.columns) {
      const key = columnKey(table.name, column.name);
      const observed = input.observed.columns.get(key) ?? { values: [], counts: [], nullCount: 0, rowCount: 0, storageClasses: [] };
      pools.set(key, buildPool(table, column, observed, literalsByColumn.get(key) ?? [], domains.get(key) ?? [], input.nulls ?? 'allowed'));
    }
  }
  return pools;
}

/**
 * For each derived column whose rule reads other columns of its own row only (no subquery), the
 * column keys it is computed from.
 */
function derivationSources(schema: DatabaseSchema, invariants: readonly BoundInvariant[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const invariant of invariants) {
    if (invariant.kind !== 'derive') continue;
    const words = tokenizeSqlite(invariant.sql).filter((t) => t.kind === 'word' || t.kind === 'quoted_identifier' || t.kind === 'double_quoted').map((t) => t.value.toLowerCase());
    if (words.includes('select')) continue;
    const table = schema.tables.find((t) => t.name === invariant.tableName);
    const read = (table?.columns ?? []).filter((c) => c.name !== invariant.columnName && words.includes(c.name.toLowerCase()));
    if (read.length > 0) out.set(columnKey(invariant.tableName, invariant.columnName!), read.map((c) => columnKey(invariant.tableName, c.name)));
  }
  return out;
}

function buildPool(
  table: TableSchema,
  column: ColumnSchema,
  observed: ObservedColumn,
  literals: readonly GoldLiteral[],
  domains: readonly (ValuesInvariant | RangeInvariant | FormatInvariant)[],
  nulls: NullPolicy,
): ColumnPool {
  const valuesDomain = domains.find((d) => d.kind === 'values');
  const ranges = domains.filter((d): d is RangeInvariant => d.kind === 'range');
  const format = domains.find((d): d is FormatInvariant => d.kind === 'format');
  const kind = format?.format ?? kindOf(column, observed, ranges);
  const storageClasses = allowedStorageClasses(column.affinity, kind, observed.storageClasses);
  const accepts = (value: GenValue): boolean => {
    if (value === null) return true;
    if (!storageClasses.has(storedClassOf(value, column.affinity)!)) return false;
    if (valuesDomain && !valuesDomain.values.some((v) => v !== null && valueKey(toGen(v, kind)) === valueKey(value))) return false;
    for (const range of ranges) {
      const n = numericValue(value);
      if (n === undefined) return false;
      if (range.min !== undefined && n < range.min) return false;
      if (range.max !== undefined && n > range.max) return false;
      if (range.integer && !Number.isInteger(n)) return false;
      if (range.multipleOf !== undefined && Math.abs(n / range.multipleOf - Math.round(n / range.multipleOf)) > 1e-9) return false;
    }
    if (format) {
      if (typeof value !== 'string') return false;
      if (format.format === 'date' && !isDate(value)) return false;
      if (format.format === 'timestamp' && !isTimestamp(value)) return false;
      if (format.format === 'time' && !isTime(value)) return false;
    }
    return true;
  };
  const nullAllowedByDomain = valuesDomain === undefined || valuesDomain.values.includes(null);
  const nullable = !column.notNull && column.primaryKeyPosition === 0 && nullAllowedByDomain && (nulls === 'allowed' || observed.nullCount > 0);
  const observedPairs = observed.values.map((v, i) => [v, observed.counts[i] ?? 1] as const).filter(([v]) => accepts(v));
  const observedValues = observedPairs.map(([v]) => v);
  const countOf = new Map(observedPairs.map(([v, n]) => [valueKey(v), n]));
  const constants = dedupe(literals.flatMap((literal) => constantsFor(literal, kind)).filter(accepts));
  const numbers = [...observedValues, ...constants].map(numericValue).filter((n): n is number => n !== undefined && Number.isFinite(n));
  let min = numbers.length > 0 ? Math.min(...numbers) : 0;
  let max = numbers.length > 0 ? Math.max(...numbers) : 100;
  for (const range of ranges) {
    if (range.min !== undefined) min = Math.max(min, range.min);
    if (range.max !== undefined) max = Math.min(max, range.max);
  }
  if (min > max) max = min;
  const step = ranges.find((r) => r.multipleOf !== undefined)?.multipleOf ?? null;
  const decimals = Math.min(4, Math.max(kind === 'real' ? 1 : 0, ...[...observedValues, ...constants].map(decimalsOf)));
  const dayValues = [...observedValues, ...constants].map(dayOf).filter((d): d is number => d !== undefined);
  const days = dayValues.length > 0 ? { min: Math.min(...dayValues) - 30, max: Math.max(...dayValues) + 30 } : { min: dayNumber('2015-01-01'), max: dayNumber('2025-12-31') };
  const lengths = [...observedValues, ...constants].filter((v): v is string => typeof v === 'string').map((s) => s.length);
  const textLength = lengths.length > 0 ? { min: Math.max(1, Math.min(...lengths)), max: Math.max(1, ...lengths) } : { min: 3, max: 12 };
  // A `values` invariant, else a `CHECK (column IN (…))` list, fixes the values.
  const fixedValues = (valuesDomain?.values ?? column.checkValues)?.filter((v): v is string | number => v !== null).map((v) => toGen(v, kind));
  return {
    table: table.name,
    column: column.name,
    kind,
    nullable,
    storageClasses,
    observedNullFraction: observed.rowCount > 0 ? observed.nullCount / observed.rowCount : 0,
    ...(fixedValues === undefined ? {} : { fixedValues, fixedWeights: fixedValues.map((v) => countOf.get(valueKey(v)) ?? 1) }),
    observed: observedValues,
    observedWeights: observedPairs.map(([, n]) => n),
    constants,
    numeric: { min, max, step, decimals },
    days,
    textLength,
    accepts,
  };
}

/** A declared value in the column's kind (YAML numbers on an INTEGER column become bigint). */
function toGen(value: string | number, kind: ValueKind): GenValue {
  if (typeof value === 'number') return kind === 'integer' && Number.isInteger(value) ? BigInt(value) : value;
  return value;
}

function decimalsOf(value: GenValue): number {
  if (typeof value !== 'number' || Number.isInteger(value)) return 0;
  const text = String(value);
  const dot = text.indexOf('.');
  return dot < 0 || /e/i.test(text) ? 4 : text.length - dot - 1;
}

function dedupe(values: readonly GenValue[]): GenValue[] {
  const seen = new Set<string>();
  const out: GenValue[] = [];
  for (const value of values) {
    const key = `${typeof value}:${valueKey(value)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(value);
  }
  return out;
}

