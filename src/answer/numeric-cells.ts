/**
 * The numbers a result holds, with where they are. Rows are read by position (engine `Row`);
 * column names, when given, only label the positions.
 */
import { DecimalCell, type Cell, type Row } from '../engine/engine.js';
import { extractContextNumbers } from './extract-numbers.js';

/** A numeric cell of the result. */
export interface NumericCell {
  /** 0-based row and column positions. */
  readonly row: number;
  readonly column: number;
  readonly value: number;
  /** `number` / `bigint` cells, or `text` holding a plain decimal (`'4118530.00'`, as drivers return DECIMAL). */
  readonly source: 'number' | 'text';
}

/** A number written inside a text cell (`'Store 42'`, `'2024-07'`), matched only exactly. */
export interface TextCellNumber {
  readonly row: number;
  readonly column: number;
  readonly value: number;
  /** The cell text. */
  readonly text: string;
}

/** The numbers of a result. */
export interface ResultNumbers {
  readonly cells: readonly NumericCell[];
  readonly textNumbers: readonly TextCellNumber[];
}

const PLAIN_DECIMAL = /^\s*[-+]?\d+(?:\.\d+)?\s*$/;

/**
 * Collects numeric cells (numbers, bigints as the nearest double, plain-decimal texts when
 * `decimalText` is true) and the numbers written inside other text cells. NULL, BLOB and booleans
 * (never produced by SQLite) are ignored.
 *
 * @param rows - the rows the predicted SQL returned.
 * @param decimalText - read `'4118530.00'` as 4 118 530 (default true: DECIMAL/NUMERIC values
 *   arrive as text from some drivers, as Python's `Decimal` does in *Text-to-SQL Evals* §9).
 */
export function collectResultNumbers(rows: readonly Row[], decimalText = true): ResultNumbers {
  const cells: NumericCell[] = [];
  const textNumbers: TextCellNumber[] = [];
  rows.forEach((row, rowIndex) => {
    row.forEach((cell: Cell, column) => {
      if (typeof cell === 'number') {
        if (Number.isFinite(cell)) cells.push({ row: rowIndex, column, value: cell, source: 'number' });
      } else if (typeof cell === 'bigint') {
        cells.push({ row: rowIndex, column, value: Number(cell), source: 'number' });
      } else if (cell instanceof DecimalCell) {
        if (Number.isFinite(cell.toNumber())) cells.push({ row: rowIndex, column, value: cell.toNumber(), source: 'number' });
      } else if (typeof cell === 'string') {
        if (decimalText && PLAIN_DECIMAL.test(cell)) {
          cells.push({ row: rowIndex, column, value: Number(cell), source: 'text' });
        } else {
          for (const value of new Set(extractContextNumbers(cell))) textNumbers.push({ row: rowIndex, column, value, text: cell });
        }
      }
    });
  });
  return { cells, textNumbers };
}
