/**
 * Result cells across the engine's IPC channel, which carries JSON (sqlite-protocol.ts). JSON
 * carries `null`, strings (lone surrogates included) and finite numbers exactly, except `-0`.
 * Every other cell travels as a tagged object, and no cell is an object, so a tag cannot be
 * mistaken for data:
 * - `bigint` (an INTEGER outside ±(2^53 − 1)) → `{ "$bigint": "<decimal digits>" }`;
 * - `Uint8Array` (a BLOB) → `{ "$blob": "<base64>" }`;
 * - `Infinity`, `-Infinity`, `NaN` and `-0` (REAL) → `{ "$real": "Infinity" | "-Infinity" | "NaN" | "-0" }`.
 *
 * A message whose rows hold a tagged cell says so (`tagged: true`), so the parent walks only those
 * results. Why JSON and not the V8 serializer: measured on the Spider dev slice, Node's JSON channel
 * costs both processes less per message than the `advanced` one (a V8 serializer and deserializer
 * object per message), and a Spider run sends about a thousand small answers.
 */
import type { Cell } from '../engine.js';

/** A cell as it crosses the channel. */
export type WireCell = null | number | string | { readonly $bigint: string } | { readonly $blob: string } | { readonly $real: 'Infinity' | '-Infinity' | 'NaN' | '-0' };

/** Whether JSON would not carry `cell` exactly. */
function needsTag(cell: Cell): boolean {
  if (cell === null || typeof cell === 'string') return false;
  if (typeof cell === 'number') return !Number.isFinite(cell) || (cell === 0 && 1 / cell < 0);
  return true;
}

/** The tagged form of a cell that {@link needsTag}. */
function tag(cell: Cell): WireCell {
  if (typeof cell === 'bigint') return { $bigint: cell.toString() };
  if (cell instanceof Uint8Array) return { $blob: Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength).toString('base64') };
  const number = cell as number;
  return { $real: Number.isNaN(number) ? 'NaN' : number === 0 ? '-0' : number > 0 ? 'Infinity' : '-Infinity' };
}

/**
 * Replaces, in place, every cell JSON would not carry exactly by its tagged form.
 * @param rows - result rows (arrays the caller owns).
 * @returns whether any cell was tagged.
 */
export function tagRows(rows: Cell[][]): boolean {
  let tagged = false;
  for (const row of rows) {
    for (let i = 0; i < row.length; i += 1) {
      const cell = row[i]!;
      if (!needsTag(cell)) continue;
      (row as WireCell[])[i] = tag(cell);
      tagged = true;
    }
  }
  return tagged;
}

/** The cell a tagged object stands for. */
function untag(wire: Exclude<WireCell, null | number | string>): Cell {
  if ('$bigint' in wire) return BigInt(wire.$bigint);
  if ('$blob' in wire) {
    // A copy: a small Buffer is a view of a shared pool.
    return new Uint8Array(Buffer.from(wire.$blob, 'base64'));
  }
  return wire.$real === '-0' ? -0 : Number(wire.$real);
}

/**
 * Restores, in place, the cells {@link tagRows} tagged.
 * @param rows - rows as received.
 */
export function untagRows(rows: WireCell[][]): void {
  for (const row of rows) {
    for (let i = 0; i < row.length; i += 1) {
      const wire = row[i]!;
      if (wire !== null && typeof wire === 'object') (row as Cell[])[i] = untag(wire);
    }
  }
}
