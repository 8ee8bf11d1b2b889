/**
 * L7 answer grounding: does every number of the prose answer come from the rows the predicted SQL
 * returned? (*Text-to-SQL Evals* §9). Pure: no database, no model call. The optional LLM
 * faithfulness judge lives in src/judge and is called by the promptfoo assertion only.
 *
 * Verdict, decided once: `pass` when no number is ungrounded (an answer with no numbers passes
 * with that said in the reason); `fail` otherwise, with one positioned issue per ungrounded number;
 * `skipped` when there is no prose answer.
 */
import { invalidValue, optionReader } from '../options.js';
import type { ParseMemo } from './parse-memo.js';
import type { Engine, Row } from '../engine/engine.js';
import { groundNumbers } from '../answer/ground.js';
import type { GroundedNumber, GroundingOptions } from '../answer/ground.js';
import { positionAt } from '../sql/parse.js';
import { createRungResult, createSkippedResult } from './rung-result.js';
import type { RungIssue, RungResult } from './rung-result.js';

/** Inputs of {@link checkAnswerGrounding}. */
export interface AnswerGroundingInput {
  /** The prose answer (`answer` of the provider's JSON); absent or blank → skipped. */
  readonly answer: string | undefined;
  /** Rows the predicted SQL returned, by position. */
  readonly rows: readonly Row[];
  /** Column names by position; copied to `details.columns` to label match positions. */
  readonly columns?: readonly string[];
  /** The question: its numbers are context, not claims. */
  readonly question?: string;
  /** The predicted SQL: its numbers are context, not claims. */
  readonly sql?: string;
  readonly options?: GroundingOptions;
  /** The item's shared parses (the SQL's select list is read once per item). */
  readonly parses?: ParseMemo;
}

/** `details` of a scored L7 result. */
export interface AnswerGroundingDetails {
  /** Every number of the answer with its verdict and match, in order. */
  readonly numbers: readonly GroundedNumber[];
  readonly counts: { readonly numbers: number; readonly grounded: number; readonly context: number; readonly ungrounded: number };
  /** Numeric cells in the rows. */
  readonly cellCount: number;
  readonly derivationsTried: boolean;
  /** The result's column names when given (match `column` fields index into it), else `null`. */
  readonly columns: readonly string[] | null;
  /** Unit of each column's cells: 1, 100 (percent), 1000 (per mille); how a stated `85%` was compared. */
  readonly columnUnits: readonly number[];
}

/**
 * Runs L7 on one item.
 * @throws LadderError('invalid_option') for bad options.
 * @example
 * checkAnswerGrounding({ answer: 'EMEA revenue was $5.2M in Q3.', rows: [['EMEA', 4118530]] })
 * // { status: 'fail', reason: '1 of 1 numbers ungrounded: $5.2M (1:18)', issues: [{ kind: 'ungrounded_number', line: 1, column: 18, … }], … }
 */
export function checkAnswerGrounding(input: AnswerGroundingInput): RungResult<AnswerGroundingDetails | null> {
  validateOptions(input.options ?? {});
  if (input.answer === undefined || input.answer.trim() === '') return createSkippedResult('answer', 'no prose answer to ground');
  const report = groundNumbers({
    answer: input.answer,
    rows: input.rows,
    ...(input.question !== undefined ? { question: input.question } : {}),
    ...(input.sql !== undefined ? { sql: input.sql } : {}),
    ...(input.columns ? { columns: input.columns } : {}),
    ...(input.options ? { options: input.options } : {}),
    ...(input.parses ? { dialect: input.parses.dialect, parse: (sql: string) => input.parses!.parse(sql) } : {}),
  });
  const answer = input.answer;
  const counts = {
    numbers: report.numbers.length,
    grounded: report.numbers.filter((n) => n.status === 'grounded').length,
    context: report.numbers.filter((n) => n.status === 'context').length,
    ungrounded: report.ungrounded.length,
  };
  const issues: RungIssue[] = report.ungrounded.map((n) => {
    const { line, column } = positionAt(answer, n.start);
    const what = n.yearLike ? `year-like ${n.text} is in neither the question, the SQL nor the rows` : `${n.text} matches no cell of the ${input.rows.length}-row result`;
    const units = n.percent || n.perMille ? `; ${unitNote(report.columnUnits, input.columns, n.percent ? 100 : 1000)}` : '';
    return { kind: 'ungrounded_number', message: `${what} (stated precision ±${n.tolerance}${n.percent ? ' points' : ''}${units})`, line, column };
  });
  const pass = counts.ungrounded === 0;
  const reason = pass
    ? counts.numbers === 0
      ? 'no numbers in the answer to ground'
      : `all ${counts.numbers} numbers grounded (${counts.grounded} in the rows, ${counts.context} from the question or SQL)`
    : `${counts.ungrounded} of ${counts.numbers} numbers ungrounded: ${report.ungrounded.map((n, i) => `${n.text} (${issues[i]!.line}:${issues[i]!.column})`).join(', ')}`;
  return createRungResult<AnswerGroundingDetails>({
    rung: 'answer',
    status: pass ? 'pass' : 'fail',
    reason,
    issues,
    details: { numbers: report.numbers, counts, cellCount: report.cellCount, derivationsTried: report.derivationsTried, columns: input.columns ?? null, columnUnits: report.columnUnits },
  });
}

/** How a percentage (per-mille value) was compared: which columns were read as already in its unit. */
function unitNote(units: readonly number[], columns: readonly string[] | undefined, scale: 100 | 1000): string {
  const word = scale === 100 ? 'percent' : 'per-mille';
  const inUnit = units.flatMap((unit, index) => (unit === scale ? [columns?.[index] ?? `column ${index + 1}`] : []));
  const factor = scale === 100 ? '100' : '1000';
  return inUnit.length === 0 ? `cells read as fractions, ${factor}·v` : `${inUnit.join(', ')} read as ${word} values, other cells as fractions`;
}

function validateOptions(options: GroundingOptions): void {
  const { relativeTolerance, maxDerivationCells, derivations, decimalText } = options;
  if (relativeTolerance !== undefined && !(typeof relativeTolerance === 'number' && relativeTolerance >= 0 && relativeTolerance < 1)) {
    throw invalidValue('answer.relativeTolerance', 'a number in [0, 1) (fraction of the cell)', relativeTolerance);
  }
  if (maxDerivationCells !== undefined && !(Number.isInteger(maxDerivationCells) && maxDerivationCells >= 0)) {
    throw invalidValue('answer.maxDerivationCells', 'a non-negative integer', maxDerivationCells);
  }
  for (const [name, value] of [['derivations', derivations], ['decimalText', decimalText]] as const) {
    if (value !== undefined && typeof value !== 'boolean') throw invalidValue(`answer.${name}`, 'true or false', value);
  }
}

const OPTION_NAMES = ['relativeTolerance', 'derivations', 'maxDerivationCells', 'decimalText'] as const;

/**
 * Reads {@link GroundingOptions} from an unchecked value (a promptfoo config block). `undefined`
 * and `true` mean defaults.
 * @param naming.name - how messages name the block (default `answer`; e.g. `config.answer`).
 * @throws LadderError('invalid_option') naming the option.
 */
export function readGroundingOptions(value: unknown, naming: { readonly name?: string } = {}): GroundingOptions {
  if (value === undefined || value === null || value === true) return {};
  const read = optionReader(value, { prefix: `${naming.name ?? 'answer'}.` });
  read.unknownKeys(OPTION_NAMES);
  const relativeTolerance = read.number('relativeTolerance', { min: 0, expected: 'a number in [0, 1) (fraction of the cell)' });
  if (relativeTolerance !== undefined && relativeTolerance >= 1) throw read.invalid('relativeTolerance', 'a number in [0, 1) (fraction of the cell)', relativeTolerance);
  const maxDerivationCells = read.number('maxDerivationCells', { min: 0, integer: true, expected: 'a non-negative integer' });
  const derivations = read.boolean('derivations');
  const decimalText = read.boolean('decimalText');
  return {
    ...(relativeTolerance !== undefined ? { relativeTolerance } : {}),
    ...(maxDerivationCells !== undefined ? { maxDerivationCells } : {}),
    ...(derivations !== undefined ? { derivations } : {}),
    ...(decimalText !== undefined ? { decimalText } : {}),
  };
}
