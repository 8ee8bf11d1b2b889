/**
 * What a result costs the process that receives it, counted against `maxResultBytes`: the V8
 * objects the parent holds once the rows are parsed, so that `poolSize × maxResultBytes` bounds
 * the memory results in flight take in the parent (docs/engine.md). Measured with Node 20 (64-bit
 * pointers, 1 M cells): a row array costs about 56 bytes and each cell its 8-byte slot, plus 16 for
 * a boxed number, a string's 16-byte header and its characters, about 24 for a `bigint`, and about
 * 280 bytes of resident memory for a `Uint8Array` beyond its bytes (a typed array, an array buffer
 * and its separately allocated store per blob). Each figure below is at or above what was
 * measured; text counts two bytes per character (V8 keeps text with characters past U+00FF so).
 */
import type { Cell } from '../engine.js';

/** Bytes one row array costs, before its cells. */
export const ROW_BYTES = 56;

/**
 * Bytes one cell costs: 8 for NULL, 24 for a number (its slot and a box), 32 + 2 per UTF-16 code
 * unit for text, 40 for a `bigint`, 320 + its length for a blob.
 * @example cellBytes('abc') // 38
 */
export function cellBytes(cell: Cell | unknown): number {
  if (cell === null) return 8;
  if (typeof cell === 'number') return 24;
  if (typeof cell === 'string') return 32 + 2 * cell.length;
  if (typeof cell === 'bigint') return 40;
  if (cell instanceof Uint8Array) return 320 + cell.byteLength;
  return 64;
}

/** Bytes a row costs: {@link ROW_BYTES} and its cells. */
export function rowBytes(row: readonly unknown[]): number {
  let bytes = ROW_BYTES;
  for (const cell of row) bytes += cellBytes(cell);
  return bytes;
}
