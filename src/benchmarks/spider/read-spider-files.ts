/**
 * Readers for Spider-format files (the official test-suite evaluator's inputs):
 * - gold: one item per non-blank line, `sql<TAB>db_id` (evaluation.py `evaluate` strips each line
 *   and splits it at the tab; blank lines separate SParC sessions and carry no item);
 * - predictions: one SQL per line, optionally `sql<TAB>db_id`, aligned with the gold items by
 *   position. A blank prediction line is kept as an item with no SQL (the official reader would
 *   misalign the file instead). A tab is the db_id separator only when it is the last one on the
 *   line, what follows reads as a db_id (letters, digits, `_`) and what precedes it does not end
 *   in a word that needs more SQL after it (`FROM`, `WHERE`, `=`, `,`, …), and, when the caller
 *   knows the db_ids (the gold's, the `--db` folders), it is one of them; otherwise the tab is
 *   whitespace inside the SQL (the official reader takes only the text before the first tab), so
 *   `SELECT count(*) FROM singer<TAB>T1` keeps its alias.
 * Bad lines never throw: they come back with an `error` for that item; only an unreadable file
 * throws (LadderError `input_invalid`).
 */
import { LadderError } from '../../errors.js';
import { readUserTextAsync } from '../../files/user-file.js';

/** One gold item. */
export interface SpiderGoldItem {
  /** 0-based item index (blank lines skipped). */
  readonly index: number;
  /** 1-based line number in the file. */
  readonly line: number;
  readonly sql: string;
  readonly dbId: string;
  /** Set when the line is malformed (e.g. no `<TAB>db_id`); `sql` / `dbId` are then empty. */
  readonly error?: string;
}

/** One prediction line. */
export interface SpiderPrediction {
  /** 0-based index = line number − 1. */
  readonly index: number;
  readonly line: number;
  /** The SQL, trimmed; empty when the line holds none. */
  readonly sql: string;
  /** The optional `<TAB>db_id` column. */
  readonly dbId?: string;
}

async function readText(file: string, what: string): Promise<string> {
  return readUserTextAsync(file, { what: `${what} file` });
}

function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Parses gold text (see the module doc).
 * @example parseSpiderGold('SELECT 1\tdb\n') // [{ index: 0, line: 1, sql: 'SELECT 1', dbId: 'db' }]
 */
export function parseSpiderGold(text: string, file = 'gold'): SpiderGoldItem[] {
  const items: SpiderGoldItem[] = [];
  splitLines(text).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const tab = line.lastIndexOf('\t');
    const sql = tab < 0 ? '' : line.slice(0, tab).trim();
    const dbId = tab < 0 ? '' : line.slice(tab + 1).trim();
    if (tab < 0 || sql === '' || dbId === '') {
      items.push({ index: items.length, line: i + 1, sql: '', dbId: '', error: `${file}:${i + 1}: expected "sql<TAB>db_id"` });
    } else {
      items.push({ index: items.length, line: i + 1, sql, dbId });
    }
  });
  return items;
}

/** Reads a Spider gold file. @throws LadderError `input_invalid` when the file cannot be read. */
export async function readSpiderGold(file: string): Promise<SpiderGoldItem[]> {
  return parseSpiderGold(await readText(file, 'gold'), file);
}

/** How a prediction line's trailing `<TAB>word` is read. */
export interface PredictionReadOptions {
  /**
   * The db_ids a `<TAB>db_id` column may name (e.g. the gold's and the `--db` folders'). A word
   * after the last tab that is not one of them stays part of the SQL (an alias, a column).
   * Without it, any word shaped like a db_id is taken as one.
   */
  readonly knownDbIds?: ReadonlySet<string>;
}

/**
 * Parses prediction text (see the module doc).
 * @example parseSpiderPredictions('SELECT 1;\n\nSELECT 2\tdb\n')
 * // [{ index: 0, line: 1, sql: 'SELECT 1;' }, { index: 1, line: 2, sql: '' }, { index: 2, line: 3, sql: 'SELECT 2', dbId: 'db' }]
 */
export function parseSpiderPredictions(text: string, options: PredictionReadOptions = {}): SpiderPrediction[] {
  return splitLines(text).map((raw, i) => {
    const line = raw.trim();
    const tab = line.lastIndexOf('\t');
    const sql = line.slice(0, tab).trim();
    const dbId = line.slice(tab + 1).trim();
    const known = options.knownDbIds === undefined || options.knownDbIds.has(dbId);
    if (tab < 0 || !DB_ID.test(dbId) || NEEDS_MORE.test(sql) || !known) return { index: i, line: i + 1, sql: line };
    return { index: i, line: i + 1, sql, dbId };
  });
}

/** What a Spider / BIRD db_id looks like. */
const DB_ID = /^[A-Za-z0-9_]+$/;

/** SQL that cannot end here: the text after the tab is still SQL, not a db_id. */
const NEEDS_MORE = /(?:\b(?:select|from|join|where|and|or|not|on|by|as|in|is|like|between|having|limit|offset|union|intersect|except|distinct|when|then|else|case)|[=<>!,(+\-*\/|.])$/i;

/** Reads a prediction file. @throws LadderError `input_invalid` when the file cannot be read. */
export async function readPredictions(file: string, options: PredictionReadOptions = {}): Promise<SpiderPrediction[]> {
  return parseSpiderPredictions(await readText(file, 'prediction'), options);
}
