/**
 * What a column's values look like (integer, real, text, SQLite date / timestamp / time text,
 * blob), read from the snapshots or the declared type, and the date arithmetic on SQLite's
 * date texts the value pools use.
 */
import type { RangeInvariant } from '../../fixtures/fixture-invariant.js';
import type { GenValue } from './gen-value.js';
import type { ObservedColumn } from './observed-values.js';
import type { ColumnSchema } from './schema-reader.js';

/** What a column's values look like. */
export type ValueKind = 'integer' | 'real' | 'text' | 'date' | 'timestamp' | 'time' | 'blob';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(:\d{2})?$/;
const DAY_MS = 86_400_000;

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

/** The day number of a value that starts with a valid 'YYYY-MM-DD' date, else `undefined`. */
export function dayOf(value: GenValue): number | undefined {
  if (typeof value !== 'string' || !DATE.test(value.slice(0, 10)) || !isDate(value.slice(0, 10))) return undefined;
  return dayNumber(value);
}
