/**
 * Reads a run named on the command line — `FILE` or `FILE#COLUMN` — detecting the format from the
 * content:
 * - a JSON object with `results.results`: a promptfoo result (`promptfoo eval -o out.json`);
 * - JSON lines whose first object has `i` and `exec`: a `text2sql-ladder spider --out` JSONL;
 * - JSON lines of promptfoo result rows (`promptfoo eval -o out.jsonl`).
 *
 * `#COLUMN` picks a promptfoo column (read-promptfoo-run.ts); a path that exists as written is
 * never split, so a file name holding `#` still works.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { LadderError } from '../errors.js';
import { parsePromptfooResult, promptfooRowsAsResult, promptfooRunRecord, selectColumn, type PromptfooResultFile } from './read-promptfoo-run.js';
import { isSpiderVerdictLine, spiderRunRecord } from './read-spider-run.js';
import type { PromptfooRow } from './promptfoo-rows.js';
import type { RunRecord } from './run-record.js';
import { readUserText } from '../files/user-file.js';

/** A parsed file, kept so that `out.json#weak out.json#strong` reads and parses it once. */
type ParsedFile = { readonly kind: 'promptfoo'; readonly result: PromptfooResultFile } | { readonly kind: 'spider'; readonly lines: readonly string[] };

/** A cache of parsed files by absolute path (pass one to {@link readRun} calls that may share a file). */
export type RunFileCache = Map<string, ParsedFile>;

/** Splits `FILE#COLUMN` (see the module doc). */
export function parseRunSpec(spec: string): { readonly file: string; readonly selector: string | undefined } {
  if (existsSync(spec)) return { file: spec, selector: undefined };
  const hash = spec.lastIndexOf('#');
  if (hash < 0) return { file: spec, selector: undefined };
  return { file: spec.slice(0, hash), selector: spec.slice(hash + 1) };
}

/**
 * Reads one run.
 * @throws LadderError `input_invalid` (unreadable or unrecognised file, malformed content) or
 *   `invalid_option` (a column selector that names no column, a selector on a Spider JSONL).
 */
export function readRun(spec: string, cache: RunFileCache = new Map()): RunRecord {
  const { file, selector } = parseRunSpec(spec);
  const parsed = parseFile(file, cache);
  if (parsed.kind === 'spider') {
    if (selector !== undefined) throw new LadderError('invalid_option', `${file} is a Spider JSONL with one run; drop "#${selector}"`);
    return spiderRunRecord(file, parsed.lines, spec);
  }
  return promptfooRunRecord(parsed.result, selectColumn(parsed.result, selector), spec);
}

function parseFile(file: string, cache: RunFileCache): ParsedFile {
  const key = path.resolve(file);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const text = readUserText(file, { what: 'run file' });
  const parsed = detect(text, file);
  cache.set(key, parsed);
  return parsed;
}

function detect(text: string, file: string): ParsedFile {
  const trimmed = text.trimStart();
  if (trimmed === '') throw new LadderError('input_invalid', `${file} is empty`);
  if (trimmed.startsWith('{')) {
    let whole: unknown;
    try {
      whole = JSON.parse(text);
    } catch {
      whole = undefined; // several JSON lines: read below
    }
    if (whole !== undefined && typeof whole === 'object' && whole !== null && 'results' in whole) return { kind: 'promptfoo', result: parsePromptfooResult(whole, file) };
  }
  const lines = text.split(/\r?\n/);
  const firstIndex = lines.findIndex((line) => line.trim() !== '');
  let first: unknown;
  try {
    first = JSON.parse(lines[firstIndex]!);
  } catch {
    throw new LadderError('input_invalid', `${file}: not a run file: expected a promptfoo result (JSON), a text2sql-ladder spider JSONL or promptfoo JSONL rows`);
  }
  if (isSpiderVerdictLine(first)) return { kind: 'spider', lines };
  if (first !== null && typeof first === 'object' && ('testCase' in first || 'gradingResult' in first || 'promptIdx' in first)) {
    const rows: PromptfooRow[] = [];
    lines.forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        rows.push(JSON.parse(line) as PromptfooRow);
      } catch (error) {
        throw new LadderError('input_invalid', `${file}:${index + 1}: not JSON (${(error as Error).message})`);
      }
    });
    return { kind: 'promptfoo', result: promptfooRowsAsResult(rows, file) };
  }
  throw new LadderError('input_invalid', `${file}: not a run file: expected a promptfoo result (JSON with results.results), a text2sql-ladder spider JSONL (lines with "i" and "exec") or promptfoo JSONL rows`);
}
