/**
 * Cell canonicalization: exact keys and tolerant equality for {@link Cell} values.
 *
 * Rules (Spider `exec_eval.py` `result_eq` compares Python values, where `175 == 175.0`
 * and `'175' != 175`):
 * - NULL, numbers, text, booleans, blobs, dates and times, JSON and arrays never equal one another:
 *   NULL ≠ 0 ≠ '' ≠ false (and a missing row is not a NULL row).
 * - Numbers compare by value whatever their type: a number, a bigint and an exact decimal
 *   (`numeric`) with the same integral value are equal; 175 (INTEGER) and 175.0 (REAL) arrive as the
 *   same JavaScript number; a decimal equals a double only when the double is exactly its value
 *   (`0.5`, not `0.1`), as Python compares `Decimal` and `float`.
 * - Integers and decimals compare exactly (2^53 + 1 ≠ 2^53; `numeric` digits are never rounded);
 *   when either side is a non-integral number or decimal the policy's float tolerance applies, in
 *   exact arithmetic when neither side is a double.
 * - Dates and times compare as PostgreSQL compares them under the pinned settings (temporal-key.ts);
 *   JSON as `jsonb` compares (json-key.ts); arrays element by element.
 * - Text that is exactly a decimal number compares as that number only under
 *   `coerceNumericStrings`.
 */
import { ArrayCell, DecimalCell, JsonCell, TemporalCell, type Cell } from '../engine/cells.js';
import { absolute, compareDecimals, decimalOfInteger, decimalText, exactDouble, isIntegral, multiply, parseDecimal, subtract, type ExactDecimal } from './exact-decimal.js';
import { canonicalJson } from './json-key.js';
import type { FloatTolerance } from './policy.js';
import { temporalKey } from './temporal-key.js';

/** Matches text that is a plain decimal number, optionally signed, with exponent; spaces around allowed. */
const NUMERIC_TEXT = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/**
 * Exact key of a cell: two cells have the same key iff they are equal with zero tolerance.
 * `N` NULL, `I<digits>` integral number, bigint or decimal, `F<repr>` other double (and a decimal
 * exactly equal to one; `FNaN`, `FInfinity`), `D<digits>` other decimal, `S<text>`, `B<hex>`,
 * `b1` / `b0` booleans, `T…` / `t…` / `z…` / `i…` dates and times, `J<canonical JSON>`,
 * `A[<element keys>]` arrays.
 */
export function cellKey(cell: Cell): string {
  if (cell === null) return 'N';
  if (typeof cell === 'number') {
    if (Number.isInteger(cell)) return Number.isSafeInteger(cell) ? `I${cell === 0 ? 0 : cell}` : `I${BigInt(cell)}`;
    return `F${cell}`;
  }
  if (typeof cell === 'bigint') return `I${cell}`;
  if (typeof cell === 'string') return `S${cell}`;
  if (typeof cell === 'boolean') return cell ? 'b1' : 'b0';
  if (cell instanceof Uint8Array) return `B${Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength).toString('hex')}`;
  if (cell instanceof DecimalCell) return decimalKey(cell.text);
  if (cell instanceof TemporalCell) return temporalKey(cell);
  if (cell instanceof JsonCell) {
    const canonical = canonicalJson(cell.text);
    return canonical === undefined ? `X${cell.text}` : `J${canonical}`;
  }
  return `A${JSON.stringify(cell.elements.map(cellKey))}`;
}

/** The key of a decimal's text: as an integer or a double when it equals one, else `D<canonical digits>`. */
function decimalKey(text: string): string {
  const value = parseDecimal(text);
  if (value === undefined) return `F${Number(text)}`; // NaN, Infinity, -Infinity: as the doubles
  if (isIntegral(value)) return `I${decimalText(value)}`;
  const double = exactDouble(value);
  return double === undefined ? `D${decimalText(value)}` : `F${double}`;
}

/**
 * The double a cell is exactly equal to, when its key is that double's (`cellKey(cell) ===
 * cellKey(double)`): a number that is not an integer beyond 2^53, a safe bigint, a decimal equal to
 * a double. `undefined` otherwise. Lets maps keyed by numbers hold decimals and bigints too.
 */
export function doubleOfCell(cell: Cell): number | undefined {
  if (typeof cell === 'number') return !Number.isInteger(cell) || Number.isSafeInteger(cell) ? (cell === 0 ? 0 : cell) : undefined;
  if (typeof cell === 'bigint') return cell >= BigInt(Number.MIN_SAFE_INTEGER) && cell <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(cell) : undefined;
  if (cell instanceof DecimalCell) {
    const key = decimalKey(cell.text);
    if (key.startsWith('F')) return Number(key.slice(1));
    const whole = key.startsWith('I') ? Number(key.slice(1)) : undefined;
    return whole !== undefined && Number.isSafeInteger(whole) ? (whole === 0 ? 0 : whole) : undefined;
  }
  return undefined;
}

/** True when the cell is a number, bigint or decimal (the cells tolerance and numeric coercion apply to). */
export function isNumericCell(cell: Cell): cell is number | bigint | DecimalCell {
  return typeof cell === 'number' || typeof cell === 'bigint' || cell instanceof DecimalCell;
}

/** True when the cell is a number or decimal with a fractional part (the only cells tolerance applies to). */
export function isFractional(cell: Cell): boolean {
  if (typeof cell === 'number') return !Number.isInteger(cell);
  if (cell instanceof DecimalCell) {
    const value = parseDecimal(cell.text);
    return value === undefined || !isIntegral(value);
  }
  return false;
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
 * @param tolerance - applied only when one side is a non-integral number or decimal and the other
 *   numeric; exact arithmetic when neither side is a double (`numeric`, integers).
 */
export function cellsEqual(a: Cell, b: Cell, tolerance: FloatTolerance): boolean {
  if (tolerance.value > 0 && (isFractional(a) || isFractional(b)) && isNumericCell(a) && isNumericCell(b)) {
    const x = exactValue(a);
    const y = exactValue(b);
    if (x !== undefined && y !== undefined) return exactlyWithin(x, y, tolerance);
    const p = Number(a instanceof DecimalCell ? a.toNumber() : a);
    const q = Number(b instanceof DecimalCell ? b.toNumber() : b);
    const diff = Math.abs(p - q);
    if (tolerance.kind === 'absolute') return diff <= tolerance.value;
    return diff <= tolerance.value * Math.max(Math.abs(p), Math.abs(q));
  }
  if (a instanceof ArrayCell && b instanceof ArrayCell && tolerance.value > 0) {
    return a.elements.length === b.elements.length && a.elements.every((element, index) => cellsEqual(element, b.elements[index]!, tolerance));
  }
  return cellKey(a) === cellKey(b);
}

/** The exact value of an integer, bigint or finite decimal; `undefined` for a double with a fraction. */
function exactValue(cell: number | bigint | DecimalCell): ExactDecimal | undefined {
  return cell instanceof DecimalCell ? parseDecimal(cell.text) : decimalOfInteger(cell);
}

/** `|x − y| ≤ tolerance` (absolute) or `≤ tolerance × max(|x|, |y|)` (relative), exactly. */
function exactlyWithin(x: ExactDecimal, y: ExactDecimal, tolerance: FloatTolerance): boolean {
  const allowed = parseDecimal(String(tolerance.value));
  if (allowed === undefined) return false;
  const diff = absolute(subtract(x, y));
  if (tolerance.kind === 'absolute') return compareDecimals(diff, allowed) <= 0;
  const larger = compareDecimals(absolute(x), absolute(y)) >= 0 ? absolute(x) : absolute(y);
  return compareDecimals(diff, multiply(allowed, larger)) <= 0;
}
