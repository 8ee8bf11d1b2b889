/**
 * Reads recorded predictions (a run made elsewhere: a notebook, an agent framework, a Spider or
 * BIRD submission), shared by the replay provider and `text2sql-ladder audit --runs`.
 *
 * Formats:
 * - `jsonl`: one `{"id": "...", "output": <string or protocol object>}` per line; blank lines skipped.
 *   An output may carry an agent's trajectory (`{"sql", "steps": [...]}`, docs/trajectories.md),
 *   replayed as recorded; its steps are validated when the file is read.
 * - `lines`: one prediction per line, aligned with the gold order (Spider `pred.sql`); the key is
 *   the 0-based line number. A trailing `\t<db_id>` is removed (Spider's gold format).
 * - `bird`: BIRD's `predict_dev.json`, `{"0": "SQL\t----- bird -----\tdb_id", …}`; the key is the
 *   object key.
 */
import path from 'node:path';
import { LadderError } from '../errors.js';
import { readUserText } from '../files/user-file.js';
import { readTrajectory } from '../trajectory/steps.js';

/** Recording formats (see the module doc). */
export type ReplayFormat = 'jsonl' | 'lines' | 'bird';

/** Every recording format, for option validation. */
export const REPLAY_FORMATS: readonly ReplayFormat[] = ['jsonl', 'lines', 'bird'];

/** A loaded recording: outputs by key. */
export interface Recording {
  readonly file: string;
  readonly format: ReplayFormat;
  readonly outputs: ReadonlyMap<string, unknown>;
}

/**
 * Reads a recording file.
 * @param format - default from the extension: `.sql` / `.txt` lines, `.json` bird, else jsonl.
 * @param option - the option or flag that named the file, for the message when it cannot be read.
 * @throws LadderError('input_invalid') naming `file:line` for malformed content or duplicate ids;
 *   LadderError('invalid_option') when the file cannot be read.
 */
export function loadRecording(file: string, format: ReplayFormat = defaultRecordingFormat(file), option = 'config.predictions'): Recording {
  const text = readUserText(file, { what: 'recording', code: 'invalid_option', prefix: `${option}: ` });
  const outputs = new Map<string, unknown>();
  if (format === 'lines') {
    const lines = text.split(/\r?\n/);
    if (lines[lines.length - 1] === '') lines.pop();
    lines.forEach((line, index) => outputs.set(String(index), line.replace(/\t[^\t]*$/, '')));
  } else if (format === 'bird') {
    const parsed = parseJson(text, `${file}:1`);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new LadderError('input_invalid', `${file}:1: a BIRD prediction file must be a JSON object keyed by item index`);
    }
    for (const [key, value] of Object.entries(parsed)) {
      outputs.set(key, typeof value === 'string' ? value.split('\t----- bird -----\t')[0] : value);
    }
  } else {
    text.split(/\r?\n/).forEach((line, index) => {
      if (line.trim() === '') return;
      const where = `${file}:${index + 1}`;
      const record = parseJson(line, where);
      if (record === null || typeof record !== 'object' || Array.isArray(record)) {
        throw new LadderError('input_invalid', `${where}: expected an object {"id", "output"}`);
      }
      const { id, output } = record as Record<string, unknown>;
      if (typeof id !== 'string' && typeof id !== 'number') throw new LadderError('input_invalid', `${where}: "id" must be a string or number, received ${JSON.stringify(id)}`);
      if (!('output' in record)) throw new LadderError('input_invalid', `${where}: item ${id} has no "output"`);
      if (outputs.has(String(id))) throw new LadderError('input_invalid', `${where}: duplicate id ${JSON.stringify(String(id))}`);
      // A recorded trajectory is checked once, here: a malformed step names its line, item and index.
      readTrajectory(output, `${where} (item ${id})`);
      outputs.set(String(id), output);
    });
  }
  return { file, format, outputs };
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new LadderError('input_invalid', `${where}: not valid JSON (${(error as Error).message})`);
  }
}

/** The format a file name implies: `.sql` / `.txt` → `lines`, `.json` → `bird`, anything else → `jsonl`. */
export function defaultRecordingFormat(file: string): ReplayFormat {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.sql' || extension === '.txt') return 'lines';
  if (extension === '.json') return 'bird';
  return 'jsonl';
}

