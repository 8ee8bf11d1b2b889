/**
 * Labelled query pairs: a gold and a candidate on one database, labelled equivalent or not, with
 * the category of the difference and how the label was obtained. The format of L5's equivalence
 * corpus (the tests measure the rung's false refutations and missed near-misses on it) and of the
 * labels an equivalence judge is calibrated on (docs/semantic.md, "The equivalence corpus").
 *
 * One JSON object per line (JSONL; blank lines are skipped):
 *
 * | field         | type                                                  | meaning                                                                                  |
 * |---------------|-------------------------------------------------------|------------------------------------------------------------------------------------------|
 * | `id`          | string, unique in the file                            | e.g. `pets_1/count-fk-star/1`                                                             |
 * | `db`          | string                                                | the database: a bundled fixture (`warehouse`) or a Spider `db_id`                         |
 * | `question`    | string                                                | what the gold answers, in words                                                           |
 * | `gold`        | string                                                | the reference SQL                                                                         |
 * | `candidate`   | string                                                | the SQL judged against it                                                                 |
 * | `label`       | `equivalent` \| `not_equivalent`                       | same answer on every database the fixture may hold, or not                               |
 * | `category`    | string                                                | the kind of rewrite or edit (`in_exists_join`, `count_fk_star`, …)                        |
 * | `labelSource` | `construction` \| `one_edit` \| `witness` \| `human`    | how the label was obtained (below)                                                        |
 * | `why`         | string                                                | the rule the label rests on, or the edit that breaks it                                   |
 * | `nearMissOf`  | string (optional)                                     | for a near-miss: the `id` of the equivalent pair it edits                                 |
 * | `source`      | `{ dataset, item }` (optional)                        | where the gold comes from (`{ "dataset": "spider-dev", "item": 85 }`, `{ "dataset": "warehouse", "item": "wh-012" }`) |
 * | `witness`     | string (optional)                                     | `INSERT` statements of a database on which the two differ (for `not_equivalent`)          |
 *
 * `labelSource`: `construction` — a rewrite that returns the same result on every database the
 * schema, the fixture's invariants and the NULL policy allow (the condition is in `why`);
 * `one_edit` — a near-miss, an equivalent pair made wrong by one edit (what the edit changes is in
 * `why`); `witness` — a database that tells the two apart was run; `human` — a person's judgement.
 */
import { readFileSync } from 'node:fs';
import { LadderError } from '../errors.js';

/** A pair's label. */
export type PairLabel = 'equivalent' | 'not_equivalent';

/** How a pair's label was obtained (see the module doc). */
export type LabelSource = 'construction' | 'one_edit' | 'witness' | 'human';

/** One labelled pair (a line of the file). */
export interface LabelledPair {
  readonly id: string;
  readonly db: string;
  readonly question: string;
  readonly gold: string;
  readonly candidate: string;
  readonly label: PairLabel;
  readonly category: string;
  readonly labelSource: LabelSource;
  readonly why: string;
  readonly nearMissOf?: string;
  readonly source?: { readonly dataset: string; readonly item: string | number };
  readonly witness?: string;
  /** 1-based line of the file. */
  readonly line: number;
}

const LABELS: readonly PairLabel[] = ['equivalent', 'not_equivalent'];
const LABEL_SOURCES: readonly LabelSource[] = ['construction', 'one_edit', 'witness', 'human'];
const REQUIRED = ['id', 'db', 'question', 'gold', 'candidate', 'label', 'category', 'labelSource', 'why'] as const;
const OPTIONAL = ['nearMissOf', 'source', 'witness'] as const;

/**
 * Reads a file of labelled pairs.
 * @param file - a JSONL file in the module's format.
 * @returns the pairs in file order.
 * @throws LadderError `dataset_invalid` when the file cannot be read, or naming `file:line` and the
 *   field for every malformed line (bad JSON, a missing or unknown field, a value of the wrong type,
 *   a repeated `id`, a `nearMissOf` that names no pair of the file); at most 20 problems are listed.
 */
export function readLabelledPairs(file: string): LabelledPair[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new LadderError('dataset_invalid', `${file}: cannot read the labelled pairs: ${(error as Error).message}`, { cause: error });
  }
  return parseLabelledPairs(text, file);
}

/**
 * Parses labelled pairs from JSONL text (see {@link readLabelledPairs}).
 * @param name - how messages name the text (a file path).
 * @throws LadderError `dataset_invalid` as {@link readLabelledPairs}.
 */
export function parseLabelledPairs(text: string, name: string): LabelledPair[] {
  const problems: string[] = [];
  const pairs: LabelledPair[] = [];
  const ids = new Map<string, number>();
  text.replace(/^\uFEFF/, '').split('\n').forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '') return;
    const fail = (message: string): void => {
      problems.push(`${name}:${line}: ${message}`);
    };
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      fail(`not JSON (${(error as Error).message})`);
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      fail('must be a JSON object');
      return;
    }
    const record = value as Record<string, unknown>;
    const known = new Set<string>([...REQUIRED, ...OPTIONAL]);
    const unknown = Object.keys(record).filter((k) => !known.has(k));
    if (unknown.length > 0) fail(`unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${[...known].join(', ')})`);
    const missing = REQUIRED.filter((k) => typeof record[k] !== 'string' || (record[k] as string).trim() === '');
    if (missing.length > 0) fail(`${missing.map((k) => `"${k}"`).join(', ')} must be ${missing.length === 1 ? 'a non-empty string' : 'non-empty strings'}`);
    if (typeof record['label'] === 'string' && !LABELS.includes(record['label'] as PairLabel)) fail(`"label" must be one of ${LABELS.join(', ')}; received "${record['label']}"`);
    if (typeof record['labelSource'] === 'string' && !LABEL_SOURCES.includes(record['labelSource'] as LabelSource)) {
      fail(`"labelSource" must be one of ${LABEL_SOURCES.join(', ')}; received "${record['labelSource']}"`);
    }
    for (const key of ['nearMissOf', 'witness'] as const) {
      if (record[key] !== undefined && (typeof record[key] !== 'string' || record[key] === '')) fail(`"${key}" must be a non-empty string when present`);
    }
    const source = record['source'];
    if (source !== undefined) {
      const s = source as Record<string, unknown>;
      if (s === null || typeof s !== 'object' || typeof s['dataset'] !== 'string' || !(typeof s['item'] === 'string' || Number.isInteger(s['item'])) || Object.keys(s).length !== 2) {
        fail('"source" must be { "dataset": string, "item": string or integer } when present');
      }
    }
    if (typeof record['id'] === 'string') {
      const first = ids.get(record['id']);
      if (first !== undefined) fail(`id "${record['id']}" repeats line ${first}`);
      else ids.set(record['id'], line);
    }
    if (problems.some((p) => p.startsWith(`${name}:${line}:`))) return;
    pairs.push({ ...(record as unknown as Omit<LabelledPair, 'line'>), line });
  });
  for (const pair of pairs) {
    if (pair.nearMissOf !== undefined && !ids.has(pair.nearMissOf)) problems.push(`${name}:${pair.line}: "nearMissOf" names no pair of the file ("${pair.nearMissOf}")`);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 20);
    throw new LadderError('dataset_invalid', `${problems.length} malformed labelled ${problems.length === 1 ? 'pair' : 'pairs'}:\n${shown.join('\n')}${problems.length > shown.length ? `\n… ${problems.length - shown.length} more` : ''}`);
  }
  return pairs;
}
