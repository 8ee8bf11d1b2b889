/** Small formatting helpers shared by the semantic measurement scripts. */
import type { RowSample } from '../src/compare/compare-results.js';
import type { Row } from '../src/engine/engine.js';

/** The rows of a verdict sample (empty when absent). */
export function sampleRows(sample: RowSample | undefined): readonly Row[] {
  return sample?.rows ?? [];
}

/** Rows as short tuples for a person: `(3, 'Anna', NULL)`. */
export function describeRows(rows: readonly Row[]): string[] {
  return rows.map((row) => `(${row.map((cell) => (cell === null ? 'NULL' : typeof cell === 'string' ? `'${cell}'` : cell instanceof Uint8Array ? `x'${Buffer.from(cell).toString('hex')}'` : String(cell))).join(', ')})`);
}
