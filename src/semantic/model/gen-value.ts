/**
 * Values as the generator holds them: the SQLite storage class is explicit in the JavaScript type,
 * so a value is written back exactly as drawn.
 *
 * | storage class | type         | note                                                         |
 * |---------------|--------------|--------------------------------------------------------------|
 * | NULL          | `null`       |                                                              |
 * | INTEGER       | `bigint`     | better-sqlite3 binds a `number` as REAL (5 → '5.0' in TEXT)   |
 * | REAL          | `number`     |                                                              |
 * | TEXT          | `string`     |                                                              |
 * | BLOB          | `Uint8Array` |                                                              |
 */
import type { Cell } from '../../engine/engine.js';

/** One generated value (see the module table). */
export type GenValue = null | bigint | number | string | Uint8Array;

/** A non-NULL SQLite storage class, spelt as `typeof()` returns it. */
export type StorageClass = 'integer' | 'real' | 'text' | 'blob';

/** Every {@link StorageClass}, in SQLite's sort order. */
export const STORAGE_CLASSES: readonly StorageClass[] = ['integer', 'real', 'text', 'blob'];

/**
 * A key equal for values SQLite's `=` treats as equal after numeric comparison (5 and 5.0), used
 * for in-memory uniqueness and de-duplication. Text and numbers never share a key.
 */
export function valueKey(value: GenValue): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return `n:${value}`;
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER ? `n:${BigInt(value)}` : `n:${value}`;
  if (typeof value === 'string') return `s:${value}`;
  return `b:${Buffer.from(value).toString('hex')}`;
}

/**
 * The value as a SQLite literal that restores the same storage class: integers plain, reals with a
 * decimal point or exponent (`5.0`, not `5`), text single-quoted, blobs `X'…'`.
 * @example sqlLiteralOf(5n) // '5'
 * @example sqlLiteralOf(5) // '5.0'
 * @example sqlLiteralOf("O'Neil") // "'O''Neil'"
 */
export function sqlLiteralOf(value: GenValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NULL';
    if (value === Infinity) return '9e999';
    if (value === -Infinity) return '-9e999';
    const text = String(value);
    return /[.eE]/.test(text) ? text : `${text}.0`;
  }
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  return `X'${Buffer.from(value).toString('hex').toUpperCase()}'`;
}

/** The engine's cell form: integers as `number` when safe, else `bigint`. */
export function toCell(value: GenValue): Cell {
  if (typeof value === 'bigint') return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  return value;
}

/** A generator value from a cell read with safe integers on (bigint = INTEGER, number = REAL). */
export function fromSafeIntegerCell(value: unknown): GenValue {
  if (value === null || typeof value === 'bigint' || typeof value === 'number' || typeof value === 'string') return value;
  if (value instanceof Uint8Array) return value;
  return String(value);
}

/** The numeric value of an INTEGER or REAL, else `undefined`. */
export function numericValue(value: GenValue): number | undefined {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  return undefined;
}

/** `n` rounded to `decimals` decimal places. */
export function round(n: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(n * f) / f;
}
