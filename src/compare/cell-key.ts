/**
 * Cell canonicalization: exact keys and tolerant equality for {@link Cell} values.
 *
 * Rules (Spider `exec_eval.py` `result_eq` compares Python values, where `175 == 175.0`
 * and `'175' != 175`):
 * - NULL, numbers, text and blobs never equal one another: NULL ≠ 0 ≠ '' (and a missing row is
 *   not a NULL row).
 * - A number and a bigint with the same integral value are equal; 175 (INTEGER) and 175.0 (REAL)
 *   arrive as the same JavaScript number and are equal.
 * - Integers compare exactly (2^53 + 1 ≠ 2^53); when either side is a non-integral number the
 *   policy's float tolerance applies.
 * - Text that is exactly a decimal number compares as that number only under
 *   `coerceNumericStrings`.
 */
import type { Cell } from '../engine/engine.js';
import type { FloatTolerance } from './policy.js';

/** Matches text that is a plain decimal number, optionally signed, with exponent; spaces around allowed. */
const NUMERIC_TEXT = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/**
 * Exact key of a cell: two cells have the same key iff they are equal with zero tolerance.
 * `N` NULL, `I<digits>` integral number or bigint, `F<repr>` other number, `S<text>`, `B<hex>`.
 */
export function cellKey(cell: Cell): string {
  if (cell === null) return 'N';
  if (typeof cell === 'number') {
    if (Number.isInteger(cell)) return Number.isSafeInteger(cell) ? `I${cell === 0 ? 0 : cell}` : `I${BigInt(cell)}`;
    return `F${cell}`;
  }
  if (typeof cell === 'bigint') return `I${cell}`;
  if (typeof cell === 'string') return `S${cell}`;
  return `B${Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength).toString('hex')}`;
}

/** True when the cell is a number with a fractional part (the only cells tolerance applies to). */
export function isFractional(cell: Cell): boolean {
  return typeof cell === 'number' && !Number.isInteger(cell);
}

/**
 * Converts numeric text to a number (or bigint beyond 2^53) for `coerceNumericStrings`; other
 * cells are returned as they are.
 * @example coerceNumericText('175') // 175
 * @example coerceNumericText('abc') // 'abc'
 */
export function coerceNumericText(cell: Cell): Cell {
  if (typeof cell !== 'string' || !NUMERIC_TEXT.test(cell)) return cell;
  const text = cell.trim();
  if (/^[+-]?\d+$/.test(text)) {
    const big = BigInt(text);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  return Number(text);
}

/**
 * Equality of two cells under a float tolerance.
 * @param a - gold cell.
 * @param b - predicted cell.
 * @param tolerance - applied only when one side is a non-integral number and the other numeric.
 */
export function cellsEqual(a: Cell, b: Cell, tolerance: FloatTolerance): boolean {
  if (tolerance.value > 0 && (isFractional(a) || isFractional(b)) && isNumeric(a) && isNumeric(b)) {
    const x = Number(a);
    const y = Number(b);
    const diff = Math.abs(x - y);
    if (tolerance.kind === 'absolute') return diff <= tolerance.value;
    return diff <= tolerance.value * Math.max(Math.abs(x), Math.abs(y));
  }
  return cellKey(a) === cellKey(b);
}

function isNumeric(cell: Cell): cell is number | bigint {
  return typeof cell === 'number' || typeof cell === 'bigint';
}
