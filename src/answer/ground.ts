/**
 * Checking each number of a prose answer against the result it summarizes (*Text-to-SQL Evals* §9).
 * A number is, in this order:
 * 1. **grounded** when it matches the result:
 *    - `cell`: a numeric cell within the stated precision: |cell − value| ≤ tolerance, the half unit
 *      of the last stated digit (`4.12M` matches 4 118 530, `5.2M` does not), widened to
 *      `relativeTolerance` × |cell| when that option is larger. An unsigned number matches a cell by
 *      magnitude (prose states signs in words: "a loss of $4.5M"); a written minus must match a
 *      negative cell. A percentage matches a cell this way only when the cell's column is in
 *      percent units (cell-units.ts: a `* 100` in its select expression, or a name such as `pct`,
 *      `percent`, `rate_pct`); a per-mille value only in a per-mille column.
 *    - `fraction` (percentages and per-mille values): a cell of a column that is not in those
 *      units, read as a fraction: 100·v (0.873 as `87.3%`), 1000·v for per mille. Never both
 *      readings of one cell: against 0.8519, `85%` is grounded and `0.85%` or `1%` are not.
 *    - `ratio` (`derivations` on): for a percentage 100 · a / b, for a per-mille value 1000 · a / b,
 *      for a multiplier (`3.2x`, `3.2 times`) a / b, for two different cells a, b in the same row or
 *      the same column ("EMEA was 25% of revenue", "orders grew 3.2x").
 *    - `percent-change` (percentages only, `derivations` on): 100 · (a − b) / b for two different
 *      cells in the same row or column ("up 8%" from Q2 to Q3): by magnitude unless a minus is
 *      written; direction words are left to the judge. Pairs across both rows and columns are not
 *      tried: with many cells some pair would match almost any percentage by chance.
 *    - `text-cell`: exactly a number written inside a text cell (`'Store 42'`, `'2024-07'`).
 * 2. **context** when it is a number of the question or the SQL (a year, the 3 of `Q3`, a `LIMIT 5`):
 *    not a claim about the result.
 * 3. **ungrounded** otherwise, a year-like number included.
 *
 * Numbers are compared as numbers, never as substrings: `50` is not in `1500`.
 */
import type { Row } from '../engine/engine.js';
import { extractContextNumbers, extractNumbers } from './extract-numbers.js';
import type { NumberMention } from './extract-numbers.js';
import { collectResultNumbers } from './numeric-cells.js';
import type { NumericCell } from './numeric-cells.js';
import { resultColumnUnits, type CellUnit } from './cell-units.js';
import type { Dialect, ParseResult } from '../sql/parse.js';

/** Which derivation or cell grounded a number. */
export type GroundingMatch =
  | { readonly kind: 'cell' | 'fraction'; readonly row: number; readonly column: number; readonly cell: number }
  | { readonly kind: 'ratio' | 'percent-change'; readonly a: { readonly row: number; readonly column: number; readonly cell: number }; readonly b: { readonly row: number; readonly column: number; readonly cell: number }; readonly derived: number }
  | { readonly kind: 'text-cell'; readonly row: number; readonly column: number; readonly text: string }
  | { readonly kind: 'context'; readonly from: 'question' | 'sql' };

/** The verdict on one number of the answer. */
export interface GroundedNumber extends NumberMention {
  readonly status: 'grounded' | 'context' | 'ungrounded';
  /** How it was grounded; `null` when ungrounded. */
  readonly match: GroundingMatch | null;
}

/** Options of {@link groundNumbers}. */
export interface GroundingOptions {
  /** Extra relative slack: a cell matches when |cell − value| ≤ relativeTolerance · |cell| (default 0: precision only). */
  readonly relativeTolerance?: number;
  /** Try ratio and percent change of two cells for percentages (default true). */
  readonly derivations?: boolean;
  /** Skip derivations when the result has more numeric cells than this (pairs grow as n²; default 64). */
  readonly maxDerivationCells?: number;
  /** Read plain-decimal text cells (`'4118530.00'`) as numbers (default true). */
  readonly decimalText?: boolean;
}

/** What {@link groundNumbers} reads. */
export interface GroundingInput {
  readonly answer: string;
  /** Rows the predicted SQL returned, by position. */
  readonly rows: readonly Row[];
  /** The question asked (its numbers are context). */
  readonly question?: string;
  /** The predicted SQL (its numbers are context; its select list says which columns are percentages). */
  readonly sql?: string;
  /** Column names of `rows`, by position (a name such as `pct` says the column is in percent units). */
  readonly columns?: readonly string[];
  /** Dialect of `sql` (default `sqlite`). */
  readonly dialect?: Dialect;
  /** The parser to read `sql` with (default `parseSql`; the ladder passes its item's parse memo). */
  readonly parse?: (sql: string) => ParseResult;
  readonly options?: GroundingOptions;
}

/** The verdicts for every number of the answer, in order. */
export interface GroundingReport {
  readonly numbers: readonly GroundedNumber[];
  readonly ungrounded: readonly GroundedNumber[];
  /** Numeric cells considered. */
  readonly cellCount: number;
  /** False when the cell count exceeded `maxDerivationCells` (derivations skipped). */
  readonly derivationsTried: boolean;
  /** The unit of each column's cells (1, 100 for percent, 1000 for per mille), by position (cell-units.ts). */
  readonly columnUnits: readonly CellUnit[];
}

const EPSILON = 1e-9;

/**
 * Grounds every number of `answer` (rules in the module doc).
 * @example
 * groundNumbers({ answer: 'EMEA revenue was $5.2M in Q3.', rows: [['EMEA', 4118530]] }).ungrounded.map((n) => n.text) // ['$5.2M']
 */
export function groundNumbers(input: GroundingInput): GroundingReport {
  const relativeTolerance = input.options?.relativeTolerance ?? 0;
  const maxDerivationCells = input.options?.maxDerivationCells ?? 64;
  const { cells, textNumbers } = collectResultNumbers(input.rows, input.options?.decimalText ?? true);
  const derivationsTried = (input.options?.derivations ?? true) && cells.length <= maxDerivationCells;
  const questionNumbers = extractContextNumbers(input.question ?? '');
  const sqlNumbers = extractContextNumbers(input.sql ?? '');
  const columnUnits = resultColumnUnits({
    ...(input.columns ? { columns: input.columns } : {}),
    ...(input.sql !== undefined ? { sql: input.sql } : {}),
    ...(input.dialect ? { dialect: input.dialect } : {}),
    ...(input.parse ? { parse: input.parse } : {}),
  });
  const unitOf = (cell: NumericCell): CellUnit => columnUnits[cell.column] ?? 1;

  const numbers = extractNumbers(input.answer).map((mention): GroundedNumber => {
    const match =
      matchCell(mention, cells, relativeTolerance, unitOf) ??
      (derivationsTried && (unitScale(mention) !== undefined || mention.multiplier) ? matchDerivation(mention, cells) : null) ??
      matchTextCell(mention, textNumbers) ??
      matchContext(mention, questionNumbers, sqlNumbers);
    const status = match === null ? 'ungrounded' : match.kind === 'context' ? 'context' : 'grounded';
    return { ...mention, status, match };
  });
  return { numbers, ungrounded: numbers.filter((n) => n.status === 'ungrounded'), cellCount: cells.length, derivationsTried, columnUnits };
}

/** 100 for a percentage, 1000 for a per-mille value, `undefined` for a plain number or a multiplier. */
function unitScale(mention: NumberMention): CellUnit | undefined {
  return mention.percent ? 100 : mention.perMille ? 1000 : undefined;
}

function within(mention: NumberMention, candidate: number, slack: number): boolean {
  const tolerance = Math.max(mention.tolerance, slack) * (1 + EPSILON);
  if (Math.abs(candidate - mention.value) <= tolerance) return true;
  return !mention.negative && Math.abs(-candidate - mention.value) <= tolerance;
}

function matchCell(mention: NumberMention, cells: readonly NumericCell[], relativeTolerance: number, unitOf: (cell: NumericCell) => CellUnit): GroundingMatch | null {
  const scale = unitScale(mention);
  for (const cell of cells) {
    // A plain number reads every cell as it is; a percentage (per mille) reads a cell in its own
    // column's unit, one reading per cell: v in a percent column, 100·v anywhere else.
    const unit = unitOf(cell);
    const value = scale === undefined || scale === unit ? cell.value : (cell.value * scale) / unit;
    if (within(mention, value, relativeTolerance * Math.abs(value))) {
      return { kind: scale === undefined || scale === unit ? 'cell' : 'fraction', row: cell.row, column: cell.column, cell: cell.value };
    }
  }
  return null;
}

function matchDerivation(mention: NumberMention, cells: readonly NumericCell[]): GroundingMatch | null {
  const at = (cell: NumericCell) => ({ row: cell.row, column: cell.column, cell: cell.value });
  const factor = unitScale(mention) ?? 1;
  for (const kind of mention.percent ? (['ratio', 'percent-change'] as const) : (['ratio'] as const)) {
    for (let i = 0; i < cells.length; i += 1) {
      for (let j = 0; j < cells.length; j += 1) {
        const a = cells[i]!;
        const b = cells[j]!;
        if (i === j || b.value === 0 || (a.row !== b.row && a.column !== b.column)) continue;
        const derived = kind === 'ratio' ? (factor * a.value) / b.value : (100 * (a.value - b.value)) / b.value;
        if (within(mention, derived, 0)) return { kind, a: at(a), b: at(b), derived };
      }
    }
  }
  return null;
}

function matchTextCell(mention: NumberMention, textNumbers: ReturnType<typeof collectResultNumbers>['textNumbers']): GroundingMatch | null {
  if (mention.negative) return null;
  const found = textNumbers.find((entry) => entry.value === mention.value);
  return found ? { kind: 'text-cell', row: found.row, column: found.column, text: found.text } : null;
}

function matchContext(mention: NumberMention, question: readonly number[], sql: readonly number[]): GroundingMatch | null {
  const magnitude = Math.abs(mention.value);
  if (question.includes(magnitude)) return { kind: 'context', from: 'question' };
  if (sql.includes(magnitude)) return { kind: 'context', from: 'sql' };
  return null;
}
