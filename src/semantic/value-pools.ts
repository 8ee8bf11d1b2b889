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
import { numericValue, valueKey, type GenValue } from './gen-value.js';
import type { GoldLiteral } from './gold-literals.js';
import { columnDomains, columnKey, type BoundInvariant } from './invariants.js';
import type { FormatInvariant, RangeInvariant, ValuesInvariant } from '../fixtures/fixture-invariant.js';
import type { ObservedColumn, ObservedData } from './observed-values.js';
import type { Prng } from './prng.js';
import { tokenizeSqlite } from '../sql/sqlite-lexer.js';
import type { ColumnSchema, DatabaseSchema, TableSchema } from './schema-reader.js';

/** What a column's values look like. */
export type ValueKind = 'integer' | 'real' | 'text' | 'date' | 'timestamp' | 'time' | 'blob';

/** Where generated values of one column come from. */
export interface ColumnPool {
  readonly table: string;
  readonly column: string;
  readonly kind: ValueKind;
  /** True when the generator may put NULL here. */
  readonly nullable: boolean;
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
  /** True when a value satisfies the column's declared invariants. */
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

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(:\d{2})?$/;
const DAY_MS = 86_400_000;

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
      const observed = input.observed.columns.get(key) ?? { values: [], counts: [], nullCount: 0, rowCount: 0 };
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
  const accepts = (value: GenValue): boolean => {
    if (value === null) return true;
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

/**
 * The column's kind: from what the snapshots hold when they hold anything (Spider stores numbers
 * in untyped columns and dates in TEXT), else from the declared type.
 */
export function kindOf(column: ColumnSchema, observed: Pick<ObservedColumn, 'values'>, ranges: readonly RangeInvariant[] = []): ValueKind {
  const values = observed.values;
  if (values.length > 0) {
    const tally = { integer: 0, real: 0, text: 0, blob: 0 };
    for (const v of values) {
      if (typeof v === 'bigint') tally.integer += 1;
      else if (typeof v === 'number') tally.real += 1;
      else if (typeof v === 'string') tally.text += 1;
      else tally.blob += 1;
    }
    if (tally.text >= Math.max(tally.integer, tally.real, tally.blob)) {
      const texts = values.filter((v): v is string => typeof v === 'string');
      if (texts.every(isDate)) return 'date';
      if (texts.every(isTimestamp)) return 'timestamp';
      if (texts.every((t) => TIME.test(t))) return 'time';
      return 'text';
    }
    if (tally.real > 0 && tally.real + tally.integer >= tally.blob) return column.affinity === 'INTEGER' && tally.real === 0 ? 'integer' : tally.real > 0 ? 'real' : 'integer';
    if (tally.integer >= tally.blob) return 'integer';
    return 'blob';
  }
  if (ranges.some((r) => r.multipleOf !== undefined && !Number.isInteger(r.multipleOf))) return 'real';
  if (ranges.length > 0) return ranges.some((r) => r.integer) || column.affinity === 'INTEGER' ? 'integer' : 'real';
  const type = column.declaredType.toUpperCase();
  if (type.includes('TIMESTAMP') || type.includes('DATETIME')) return 'timestamp';
  if (type.includes('DATE')) return 'date';
  if (type.includes('TIME')) return 'time';
  if (type.includes('BOOL') || type.includes('BIT')) return 'integer';
  switch (column.affinity) {
    case 'INTEGER':
      return 'integer';
    case 'REAL':
    case 'NUMERIC':
      return 'real';
    default:
      return 'text';
  }
}

/** 'YYYY-MM-DD' that SQLite's date() returns unchanged. */
export function isDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** 'YYYY-MM-DD HH:MM:SS' that SQLite's datetime() returns unchanged. */
export function isTimestamp(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text) && isDate(text.slice(0, 10)) && isTime(text.slice(11));
}

/** 'HH:MM:SS' that SQLite's time() returns unchanged. */
export function isTime(text: string): boolean {
  const m = /^(\d{2}):(\d{2}):(\d{2})$/.exec(text);
  return m !== null && Number(m[1]) < 24 && Number(m[2]) < 60 && Number(m[3]) < 60;
}

/** Days since 1970-01-01 of a 'YYYY-MM-DD…' text. */
export function dayNumber(text: string): number {
  return Math.floor(Date.parse(`${text.slice(0, 10)}T00:00:00Z`) / DAY_MS);
}

/** 'YYYY-MM-DD' of a day number. */
export function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function dayOf(value: GenValue): number | undefined {
  if (typeof value !== 'string' || !DATE.test(value.slice(0, 10)) || !isDate(value.slice(0, 10))) return undefined;
  return dayNumber(value);
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

/**
 * A gold constant and its neighbours, in the column's kind.
 * @example constantsFor({ value: 30n, operator: '>', … }, 'integer') // [29n, 30n, 31n]
 */
export function constantsFor(literal: Pick<GoldLiteral, 'value' | 'operator'>, kind: ValueKind): GenValue[] {
  const value = literal.value;
  const like = literal.operator === 'like' || literal.operator === 'not like';
  const glob = literal.operator === 'glob' || literal.operator === 'not glob';
  switch (kind) {
    case 'integer': {
      const n = typeof value === 'string' ? Number(value.trim()) : numericValue(value);
      if (n === undefined || !Number.isFinite(n)) return [];
      const base = Number.isInteger(n) ? [n - 1, n, n + 1] : [Math.floor(n), Math.ceil(n), Math.floor(n) - 1, Math.ceil(n) + 1];
      return base.filter(Number.isSafeInteger).map((x) => BigInt(x));
    }
    case 'real': {
      const n = typeof value === 'string' ? Number(value.trim()) : numericValue(value);
      if (n === undefined || !Number.isFinite(n) || (typeof value === 'string' && value.trim() === '')) return [];
      return [n, round(n - 0.1, 6), round(n + 0.1, 6), n - 1, n + 1];
    }
    case 'date':
    case 'timestamp': {
      if (typeof value !== 'string' && typeof value !== 'bigint') return [];
      const text = String(value);
      const days = dateConstants(text);
      if (kind === 'date') return days.map(dateOfDay);
      if (isTimestamp(text)) {
        const seconds = Date.parse(`${text.replace(' ', 'T')}Z`) / 1000;
        return [seconds - 1, seconds, seconds + 1].map(formatTimestamp);
      }
      return days.flatMap((d) => [`${dateOfDay(d)} 00:00:00`, `${dateOfDay(d)} 23:59:59`, `${dateOfDay(d)} 12:00:00`]);
    }
    case 'time':
      return typeof value === 'string' && isTime(value) ? [value] : [];
    case 'blob':
      return [];
    case 'text': {
      const text = typeof value === 'string' ? value : String(value);
      if (like || glob) return likeInstances(text, glob);
      const out = [text, text.toUpperCase(), text.toLowerCase(), capitalize(text), `${text} `, `${text}x`, `x${text}`];
      if (text.length > 1) out.push(text.slice(0, -1), text.slice(1));
      if (typeof value !== 'string') {
        const n = numericValue(value);
        if (n !== undefined && Number.isInteger(n)) out.push(String(n - 1), String(n + 1));
      }
      return out;
    }
  }
}

/** Days a date constant points at: the day ±1; for 'YYYY' and 'YYYY-MM' the first and last days around. */
function dateConstants(text: string): number[] {
  if (isDate(text.slice(0, 10))) {
    const d = dayNumber(text);
    return [d - 1, d, d + 1];
  }
  const year = /^(\d{4})$/.exec(text);
  if (year) {
    const y = Number(year[1]);
    const first = dayNumber(`${y}-01-01`);
    const last = dayNumber(`${y + 1}-01-01`) - 1;
    return [first - 1, first, last, last + 1];
  }
  const month = /^(\d{4})-(\d{2})$/.exec(text);
  if (month && isDate(`${text}-01`)) {
    const first = dayNumber(`${text}-01`);
    const next = new Date(Date.UTC(Number(month[1]), Number(month[2]), 1)).toISOString().slice(0, 10);
    const last = dayNumber(next) - 1;
    return [first - 1, first, last, last + 1];
  }
  return [];
}

function formatTimestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** Strings that match a LIKE / GLOB pattern in different ways, plus near misses. */
function likeInstances(pattern: string, glob: boolean): string[] {
  const many = glob ? '*' : '%';
  const one = glob ? '?' : '_';
  const fill = (withMany: string, withOne: string): string => pattern.split(many).join(withMany).split(one).join(withOne);
  const core = fill('', '');
  const out = [fill('', 'a'), fill('ab', 'z'), fill(' ', 'Q'), core, `x${core}`, `${core}x`, core.toUpperCase(), core.toLowerCase()];
  if (core.length > 1) out.push(core.slice(1), core.slice(0, -1));
  return out;
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1).toLowerCase();
}

function round(n: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(n * f) / f;
}

/** Per-database weights of the value sources (varied per database so that suites are diverse). */
export interface DrawProfile {
  /** Probability of NULL in a nullable column. */
  readonly nullRate: number;
  readonly constantWeight: number;
  readonly observedWeight: number;
  readonly duplicateWeight: number;
  readonly freshWeight: number;
}

/** Draws one profile per database. */
export function drawProfile(rng: Prng): DrawProfile {
  return {
    nullRate: rng.pickWeighted([[0, 3], [0.05, 2], [0.2, 2], [0.5, 1]] as const),
    constantWeight: rng.pickWeighted([[0.2, 1], [0.4, 2], [0.7, 1]] as const),
    observedWeight: rng.pickWeighted([[0.1, 1], [0.35, 2], [0.6, 1]] as const),
    duplicateWeight: rng.pickWeighted([[0.05, 1], [0.2, 2], [0.4, 1]] as const),
    freshWeight: rng.pickWeighted([[0.05, 1], [0.2, 2], [0.4, 1]] as const),
  };
}

/**
 * Draws a value for a column.
 * @param pool - the column's pool.
 * @param rng - the database's stream.
 * @param profile - the database's weights.
 * @param previous - values already drawn in this column of this database (for duplicates).
 */
export function drawValue(pool: ColumnPool, rng: Prng, profile: DrawProfile, previous: readonly GenValue[]): GenValue {
  if (pool.nullable && rng.chance(profile.nullRate)) return null;
  if (pool.fixedValues !== undefined) {
    if (pool.fixedValues.length === 0) return null;
    if (pool.constants.length > 0 && rng.chance(profile.constantWeight)) return rng.pick(pool.constants);
    // Half the time as often as the snapshots hold each value (test accounts are rare), else uniformly.
    return rng.chance(0.5) ? rng.pickWeighted(pool.fixedValues.map((v, i) => [v, pool.fixedWeights?.[i] ?? 1] as const)) : rng.pick(pool.fixedValues);
  }
  const sources: [string, number][] = [];
  if (pool.constants.length > 0) sources.push(['constant', profile.constantWeight]);
  if (pool.observed.length > 0) sources.push(['observed', profile.observedWeight]);
  if (previous.length > 0) sources.push(['duplicate', profile.duplicateWeight]);
  sources.push(['fresh', profile.freshWeight]);
  const source = rng.pickWeighted(sources);
  if (source === 'constant') return rng.pick(pool.constants);
  if (source === 'observed') return rng.chance(0.5) ? rng.pickWeighted(pool.observed.map((v, i) => [v, pool.observedWeights[i] ?? 1] as const)) : rng.pick(pool.observed);
  if (source === 'duplicate') return rng.pick(previous);
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const fresh = freshValue(pool, rng);
    if (pool.accepts(fresh)) return fresh;
  }
  return pool.observed.length > 0 ? rng.pick(pool.observed) : pool.constants.length > 0 ? rng.pick(pool.constants) : freshValue(pool, rng);
}

/** A random value of the pool's kind, within its bounds. */
export function freshValue(pool: ColumnPool, rng: Prng): GenValue {
  const { min, max, step, decimals } = pool.numeric;
  switch (pool.kind) {
    case 'integer': {
      const lo = Math.ceil(min) - (min === max ? 5 : 2);
      const hi = Math.floor(max) + (min === max ? 5 : 2);
      const lower = Number.isSafeInteger(lo) ? lo : Number.MIN_SAFE_INTEGER;
      const upper = Number.isSafeInteger(hi) && hi >= lower ? hi : lower + 100;
      return BigInt(rng.int(lower, upper));
    }
    case 'real': {
      const x = min + rng.next() * (max - min + (max === min ? 10 : 0));
      if (step !== null) return Math.round(x / step) * step;
      return round(x, decimals);
    }
    case 'date':
      return dateOfDay(rng.int(pool.days.min, pool.days.max));
    case 'timestamp': {
      const day = dateOfDay(rng.int(pool.days.min, pool.days.max));
      const special = rng.chance(0.15);
      const seconds = special ? rng.pick([0, 86_399, 1, 86_398]) : rng.int(0, 86_399);
      return `${day} ${new Date(seconds * 1000).toISOString().slice(11, 19)}`;
    }
    case 'time':
      return new Date(rng.int(0, 86_399) * 1000).toISOString().slice(11, 19);
    case 'blob':
      return Uint8Array.from({ length: 4 }, () => rng.int(0, 255));
    case 'text': {
      const bases = [...pool.observed, ...pool.constants].filter((v): v is string => typeof v === 'string');
      if (bases.length > 0 && rng.chance(0.6)) return contaminate(rng.pick(bases), rng);
      const length = rng.int(pool.textLength.min, Math.max(pool.textLength.min, pool.textLength.max));
      return randomText(length, rng);
    }
  }
}

const CHARSET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789';

function randomText(length: number, rng: Prng): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += CHARSET[rng.int(0, CHARSET.length - 1)];
  return out;
}

/** A near-duplicate of a string: text added before or after, a character dropped, the case changed. */
function contaminate(text: string, rng: Prng): string {
  switch (rng.int(0, 5)) {
    case 0:
      return text + randomText(rng.int(1, 4), rng);
    case 1:
      return randomText(rng.int(1, 4), rng) + text;
    case 2:
      return text.length > 1 ? text.slice(0, -1) : text + 'a';
    case 3:
      return text.length > 1 ? text.slice(1) : 'a' + text;
    case 4:
      return text.toUpperCase() === text ? text.toLowerCase() : text.toUpperCase();
    default:
      return `${randomText(rng.int(1, 3), rng)} ${text} ${randomText(rng.int(1, 3), rng)}`;
  }
}
