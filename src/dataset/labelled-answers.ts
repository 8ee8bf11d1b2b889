/**
 * Labelled answers: a question, the SQL that answered it, the rows it returned, and a prose answer
 * written from them, labelled grounded (every statement the rows support) or not. The labels a
 * faithfulness judge is calibrated on (docs/judge.md, "The faithfulness judge"); the faithfulness
 * counterpart of the labelled SQL pairs of labelled-pairs.ts.
 *
 * One JSON object per line (JSONL; blank lines are skipped):
 *
 * | field         | type                                   | meaning                                                              |
 * |---------------|----------------------------------------|----------------------------------------------------------------------|
 * | `id`          | string, unique in the file             | e.g. `fa-orders-by-channel/wrong-direction`                          |
 * | `db`          | string                                 | the database the rows came from (`warehouse`)                        |
 * | `snapshot`    | string                                 | its snapshot (`base`)                                                |
 * | `question`    | string                                 | what the SQL answers                                                 |
 * | `sql`         | string                                 | the query                                                            |
 * | `columns`     | string[]                               | its result's column names                                            |
 * | `rows`        | JSON values[][]                        | its result's rows, as the snapshot returns them                      |
 * | `answer`      | string                                 | the prose answer judged                                              |
 * | `label`       | `grounded` \| `not_grounded`            | whether the rows support every statement of the answer               |
 * | `category`    | string                                 | what the answer does (`restate`, `wrong_entity`, `wrong_direction`, …) |
 * | `labelSource` | `construction` \| `one_edit` \| `human`  | how the label was obtained: an answer written from the rows by a rule; a grounded answer made wrong by one edit (named in `why`); a person |
 * | `why`         | string                                 | the rule, or the edit                                                |
 */
import { readFileSync } from 'node:fs';
import { LadderError } from '../errors.js';
import { isObject } from '../objects.js';

/** An answer's label. */
export type AnswerLabel = 'grounded' | 'not_grounded';

/** How an answer's label was obtained (see the module doc). */
export type AnswerLabelSource = 'construction' | 'one_edit' | 'human';

/** One labelled answer (a line of the file). */
export interface LabelledAnswer {
  readonly id: string;
  readonly db: string;
  readonly snapshot: string;
  readonly question: string;
  readonly sql: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
  readonly answer: string;
  readonly label: AnswerLabel;
  readonly category: string;
  readonly labelSource: AnswerLabelSource;
  readonly why: string;
}

const LABELS: readonly string[] = ['grounded', 'not_grounded'];
const SOURCES: readonly string[] = ['construction', 'one_edit', 'human'];

/**
 * Reads a labelled-answers file.
 * @returns the answers in file order.
 * @throws LadderError `input_invalid` naming `file:line` and the field for a line that is not a
 *   labelled answer, or a repeated id; the file's own read error when it cannot be read.
 */
export function readLabelledAnswers(file: string): LabelledAnswer[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new LadderError('input_invalid', `cannot read the labelled answers ${file}: ${(error as Error).message}`, { cause: error });
  }
  const answers: LabelledAnswer[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new LadderError('input_invalid', `${where}: not JSON (${(error as Error).message})`);
    }
    if (!isObject(value)) throw new LadderError('input_invalid', `${where}: a labelled answer must be a JSON object`);
    const text = (field: string): string => {
      const entry = value[field];
      if (typeof entry !== 'string' || entry === '') throw new LadderError('input_invalid', `${where}: "${field}" must be a non-empty string`);
      return entry;
    };
    const id = text('id');
    const earlier = seen.get(id);
    if (earlier !== undefined) throw new LadderError('input_invalid', `${where}: id "${id}" already used at line ${earlier}`);
    seen.set(id, index + 1);
    const label = text('label');
    if (!LABELS.includes(label)) throw new LadderError('input_invalid', `${where}: "label" must be grounded or not_grounded; received "${label}"`);
    const labelSource = text('labelSource');
    if (!SOURCES.includes(labelSource)) throw new LadderError('input_invalid', `${where}: "labelSource" must be one of ${SOURCES.join(', ')}; received "${labelSource}"`);
    const columns = value['columns'];
    const rows = value['rows'];
    if (!Array.isArray(columns) || !columns.every((name) => typeof name === 'string')) throw new LadderError('input_invalid', `${where}: "columns" must be a list of column names`);
    if (!Array.isArray(rows) || !rows.every((row) => Array.isArray(row) && row.length === columns.length)) throw new LadderError('input_invalid', `${where}: "rows" must be a list of rows of ${columns.length} values`);
    answers.push({
      id,
      db: text('db'),
      snapshot: text('snapshot'),
      question: text('question'),
      sql: text('sql'),
      columns: columns as string[],
      rows: rows as unknown[][],
      answer: text('answer'),
      label: label as AnswerLabel,
      category: text('category'),
      labelSource: labelSource as AnswerLabelSource,
      why: text('why'),
    });
  });
  return answers;
}
