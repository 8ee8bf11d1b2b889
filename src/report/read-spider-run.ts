/**
 * Reads the JSONL of `text2sql-ladder spider --out FILE` as a {@link RunRecord}: one item per line
 * (`{"i", "db_id", "exec", "error", "flags", "goldIndex", "hardness"}`), its identity from
 * `FILE.run.json` when present.
 *
 * Item id: the gold index `i` (as a string). Tags: `db_id:<db_id>` and `hardness:<level>` (both
 * properties of the gold, so they are the same in every run). One metric, `end_to_end`: `exec` 1
 * passes, 0 fails (reason: the line's `error`, e.g. `snapshot car_1: 2 missing rows`), `null`
 * (not scored: gold error, unknown db_id, undecided) leaves it out.
 */
import { existsSync } from 'node:fs';
import { LadderError } from '../errors.js';
import { parseRunIdentity, type RunIdentity } from './run-identity.js';
import { END_TO_END, type MetricOutcome, type RunItem, type RunRecord } from './run-record.js';
import { runFilePathOf } from './spider-run-identity.js';
import { readUserText } from '../files/user-file.js';

/** True when a parsed JSONL line looks like a Spider verdict line (has `i` and `exec`). */
export function isSpiderVerdictLine(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'i' in value && 'exec' in value;
}

/**
 * Builds the run from the file's lines.
 * @param lines - the file split into lines (blank lines are skipped).
 * @throws LadderError `input_invalid` naming `file:line` for a line that is not a verdict object,
 *   a repeated `i`, or a malformed run file.
 */
export function spiderRunRecord(file: string, lines: readonly string[], spec: string): RunRecord {
  const items: RunItem[] = [];
  const seen = new Map<string, number>();
  lines.forEach((text, index) => {
    if (text.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new LadderError('input_invalid', `${where}: not JSON (${(error as Error).message})`);
    }
    if (!isSpiderVerdictLine(value)) throw new LadderError('input_invalid', `${where}: expected a Spider verdict object with "i" and "exec" (text2sql-ladder spider --out)`);
    const line = value as Record<string, unknown>;
    const i = line['i'];
    const exec = line['exec'];
    if (!Number.isSafeInteger(i) || (i as number) < 0) throw new LadderError('input_invalid', `${where}: "i" must be a non-negative integer; received ${JSON.stringify(i)}`);
    if (exec !== 0 && exec !== 1 && exec !== null) throw new LadderError('input_invalid', `${where}: "exec" must be 1, 0 or null; received ${JSON.stringify(exec)}`);
    const id = String(i);
    const previous = seen.get(id);
    if (previous !== undefined) throw new LadderError('input_invalid', `${where}: item ${id} already appears at line ${previous}`);
    seen.set(id, index + 1);
    const tags: string[] = [];
    if (typeof line['db_id'] === 'string' && line['db_id'] !== '') tags.push(`db_id:${line['db_id']}`);
    if (typeof line['hardness'] === 'string') tags.push(`hardness:${line['hardness']}`);
    const metrics: Record<string, MetricOutcome> = {};
    const error = typeof line['error'] === 'string' ? line['error'] : null;
    if (exec === 1) metrics[END_TO_END] = { status: 'pass', reason: 'execution match' };
    else if (exec === 0) metrics[END_TO_END] = { status: 'fail', reason: error ?? 'no match' };
    items.push({ id, tags, metrics });
  });
  const runFile = runFilePathOf(file);
  let identity: RunIdentity | undefined;
  if (existsSync(runFile)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readUserText(runFile, { what: 'run identity' }));
    } catch (error) {
      if (error instanceof LadderError) throw error;
      throw new LadderError('input_invalid', `${runFile}: cannot read the run identity (${(error as Error).message})`);
    }
    identity = parseRunIdentity(parsed, runFile);
  }
  const label = identity?.provider.label ?? file.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '');
  return { spec, label, format: 'spider-jsonl', identity, derived: {}, items };
}
