/**
 * `toHaveGroundedNumbers(rows, { question?, sql?, grounding? })` — L7 answer grounding: every
 * number in the received prose answer comes from the rows the SQL returned (currency, thousands
 * separators, scale words, percentages; within the precision the prose states; never by
 * substring). Calls the L7 rung (`checkAnswerGrounding`, src/rungs/answer.ts), as the promptfoo
 * answer assertion does.
 */
import type { MatcherState } from 'vitest';
import type { GroundedNumber, GroundingMatch, GroundingOptions } from '../src/answer/ground.js';
import type { AnswerGroundingDetails } from '../src/rungs/answer.js';
import { positionAt } from '../src/sql/parse.js';
import type { Cell, Row } from '../src/engine/engine.js';
import { checkAnswerGrounding } from '../src/rungs/answer.js';
import { argumentTypeError, isPlainObject, readOptionalString, readOptionsObject, rejectUnknownOptions } from './arguments.js';
import { formatCell, formatTable, toMatcherResult } from './message.js';
import type { MatcherOutcome } from './message.js';

/**
 * The rows the answer must be grounded in: rows by position (`[['EMEA', 4118530]]`, as
 * better-sqlite3's `.raw()` returns them), or `{ columns, rows }` (an engine `QueryResult`).
 * Rows as objects are refused: duplicate column names would collapse.
 */
export type GroundingRows = readonly (readonly Cell[])[] | { readonly columns: readonly string[]; readonly rows: readonly (readonly Cell[])[] };

/** Options of {@link toHaveGroundedNumbers}. */
export interface GroundedNumbersOptions {
  /** The question asked: its numbers (a year, `Q3`, "top 5") are context, not claims. */
  readonly question?: string;
  /** The SQL that produced the rows: its numbers are context, not claims. */
  readonly sql?: string;
  /** Grounding options (src/answer/ground.ts): `relativeTolerance`, `derivations`, `maxDerivationCells`, `decimalText`. */
  readonly grounding?: GroundingOptions;
}

const NAME = 'toHaveGroundedNumbers';
const ROWS_EXPECTED = 'rows by position (an array of arrays) or { columns, rows }';
/** Most rows printed in a message. */
const MAX_PRINTED_ROWS = 10;

/**
 * Asserts that every number in the received answer is grounded in `rows` (or in the question or
 * SQL). Synchronous.
 *
 * @param received - the prose answer.
 * @param rows - {@link GroundingRows}.
 * @param options - {@link GroundedNumbersOptions}.
 * @returns vitest's matcher result; the failure message lists each ungrounded number with its
 *   line, column and a caret under the answer, then the rows.
 * @throws TypeError when `received` is not a string, `rows` is not rows by position (objects are
 *   refused), or an option has the wrong kind; LadderError `invalid_option` for an unknown option
 *   or a bad grounding option.
 * @example
 * expect('EMEA revenue was $4.12M.').toHaveGroundedNumbers([['EMEA', 4118530]]);
 * expect('EMEA revenue was $5.2M.').not.toHaveGroundedNumbers([['EMEA', 4118530]]);
 */
export function toHaveGroundedNumbers(
  this: MatcherState,
  received: unknown,
  rows: GroundingRows,
  options?: GroundedNumbersOptions,
): MatcherOutcome {
  // Validate arguments.
  if (typeof received !== 'string') throw argumentTypeError(toHaveGroundedNumbers, NAME, 'received', 'an answer string', received);
  const table = readRows(rows);
  const given = readOptionsObject(toHaveGroundedNumbers, NAME, 'options', options, 'an options object { question?, sql?, grounding? }');
  rejectUnknownOptions(toHaveGroundedNumbers, NAME, 'options', given, ['question', 'sql', 'grounding']);
  const question = readOptionalString(toHaveGroundedNumbers, NAME, 'options.question', given['question'], 'a string');
  const sql = readOptionalString(toHaveGroundedNumbers, NAME, 'options.sql', given['sql'], 'a string');
  const grounding = given['grounding'];
  if (grounding !== undefined && !isPlainObject(grounding)) {
    throw argumentTypeError(toHaveGroundedNumbers, NAME, 'options.grounding', 'a grounding options object', grounding);
  }

  // checkAnswerGrounding validates the grounding options (LadderError naming the option).
  const result = checkAnswerGrounding({
    answer: received,
    rows: table.rows,
    ...(table.columns === undefined ? {} : { columns: table.columns }),
    ...(question === undefined ? {} : { question }),
    ...(sql === undefined ? {} : { sql }),
    ...(grounding === undefined ? {} : { options: grounding as GroundingOptions }),
  });
  return toMatcherResult(this, {
    matcherName: NAME,
    receivedLabel: 'answer',
    expectedLabel: 'rows',
    expectation: `have every number grounded in the ${table.rows.length}-row result${question !== undefined || sql !== undefined ? ' (or in the question or SQL)' : ''}`,
    received,
    result,
    source: received,
    sections: [formatNumbers(received, result.details, table.columns), formatRows(table.columns, table.rows)],
  });
}

function readRows(value: unknown): { readonly columns?: readonly string[]; readonly rows: readonly Row[] } {
  if (Array.isArray(value)) return { rows: checkRows(value, 'rows') };
  if (isPlainObject(value) && Array.isArray(value['rows']) && Array.isArray(value['columns'])) {
    const columns = value['columns'] as unknown[];
    columns.forEach((name, index) => {
      if (typeof name !== 'string') throw argumentTypeError(toHaveGroundedNumbers, NAME, `rows.columns[${index}]`, 'a column name (string)', name);
    });
    return { columns: columns as string[], rows: checkRows(value['rows'] as unknown[], 'rows.rows') };
  }
  throw argumentTypeError(toHaveGroundedNumbers, NAME, 'rows', ROWS_EXPECTED, value);
}

function checkRows(rows: readonly unknown[], name: string): Row[] {
  return rows.map((row, index) => {
    if (!Array.isArray(row)) {
      throw argumentTypeError(
        toHaveGroundedNumbers,
        NAME,
        `${name}[${index}]`,
        'a row by position (an array of cells; read rows with .raw() or pass { columns, rows })',
        row,
      );
    }
    return row as Row;
  });
}

function formatRows(columns: readonly string[] | undefined, rows: readonly Row[]): string {
  if (rows.length === 0) return 'Rows: none';
  const width = Math.max(columns?.length ?? 0, ...rows.map((row) => row.length));
  const header = columns ?? Array.from({ length: width }, (_, index) => `#${index + 1}`);
  const more = rows.length > MAX_PRINTED_ROWS ? `\n  … +${rows.length - MAX_PRINTED_ROWS} more rows` : '';
  return `Rows (${rows.length}):\n${formatTable(header, rows.slice(0, MAX_PRINTED_ROWS))}${more}`;
}

/** One line per number of the answer: where it is and what grounded it. Empty when none. */
function formatNumbers(answer: string, details: AnswerGroundingDetails | null, columns: readonly string[] | undefined): string {
  if (details === null || details.numbers.length === 0) return '';
  const lines = details.numbers.map((number: GroundedNumber) => {
    const { line, column } = positionAt(answer, number.start);
    return `  ${number.text} (${line}:${column})  ${describeMatch(number, columns)}`;
  });
  return `Numbers:\n${lines.join('\n')}`;
}

function describeMatch(number: GroundedNumber, columns: readonly string[] | undefined): string {
  const match: GroundingMatch | null = number.match;
  if (match === null) return 'ungrounded';
  const cell = (ref: { readonly row: number; readonly column: number }, value: number | string): string =>
    `row ${ref.row + 1}, ${columns?.[ref.column] ?? `#${ref.column + 1}`} = ${formatCell(value)}`;
  switch (match.kind) {
    case 'context':
      return `context: in the ${match.from === 'question' ? 'question' : 'SQL'}`;
    case 'cell':
      return `grounded: ${cell(match, match.cell)}`;
    case 'fraction':
      return `grounded: fraction ${cell(match, match.cell)}`;
    case 'text-cell':
      return `grounded: text ${cell(match, match.text)}`;
    case 'ratio':
    case 'percent-change':
      return `grounded: ${match.kind} of ${cell(match.a, match.a.cell)} and ${cell(match.b, match.b.cell)} (${formatCell(match.derived)})`;
  }
}
