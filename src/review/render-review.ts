/**
 * The review queue for a person: each pending pair with its question, golds, candidate, both
 * results on each snapshot, the judge's differences and the L5 evidence, then the commands that
 * decide it.
 */
import { counted, formatPipeTable } from '../format.js';
import type { ResultPreview, ReviewEntry } from './review-entry.js';

/** What each queued outcome means, for the entry's headline. */
const OUTCOME_TEXT: Readonly<Record<ReviewEntry['outcome'], string>> = {
  review: 'EX failed, the judge says equivalent: a new valid gold?',
  lucky_match: 'matched an empty gold, the judge says lucky: a real answer?',
};

/** Why the judge was asked, in words. */
const ROUTE_TEXT: Readonly<Record<string, string>> = {
  possible_lucky_match: 'the gold result is empty or tiny (possible lucky match)',
  ex_failure: 'the results differ (EX failed)',
  no_database: 'no database to execute on',
};

/** The queue as text (see the module doc); `queue` names the file in the closing lines. */
export function renderReviewQueue(entries: readonly ReviewEntry[], queue: string): string {
  if (entries.length === 0) return `review queue ${queue}: nothing to review\n`;
  let text = `review queue ${queue}: ${counted(entries.length, 'pair')} to review\n`;
  for (const entry of entries) text += `\n${renderEntry(entry)}`;
  text += `\ndecide with: text2sql-ladder review --accept ID (adds the candidate as a gold) or --reject ID (keeps the verdict)\n`;
  return text;
}

/** One entry as text. */
export function renderEntry(entry: ReviewEntry): string {
  const lines: string[] = [];
  const where = entry.dataset.line === null ? entry.dataset.file : `${entry.dataset.file}:${entry.dataset.line}`;
  lines.push(`${entry.id}  ${entry.item}  ${entry.outcome}: ${OUTCOME_TEXT[entry.outcome]}`);
  lines.push(`  dataset   ${where}${entry.role === null ? '' : `  role ${entry.role}`}`);
  lines.push(`  run       ${entry.run.spec}${entry.run.recordedAt === null ? '' : ` (${entry.run.recordedAt})`}`);
  lines.push(`  question  ${entry.question}`);
  entry.golds.forEach((gold, index) => lines.push(...sqlLines(`gold ${index + 1}${index === entry.goldIndex && entry.golds.length > 1 ? '*' : ''}`, gold)));
  lines.push(...sqlLines('candidate', entry.candidate));
  if (entry.evidenceError !== null) lines.push(`  results   not shown: ${entry.evidenceError}`);
  for (const snapshot of entry.snapshots) {
    lines.push(`  snapshot ${snapshot.snapshot}${snapshot.verdict === null ? '' : `  (L4 ${snapshot.verdict})`}`);
    lines.push(...sideBySide(resultLines('gold', snapshot.gold), resultLines('candidate', snapshot.candidate)).map((line) => `    ${line}`));
  }
  const judge = entry.judge;
  const prompt = judge.promptVersion === null ? '' : `, prompt ${judge.promptVersion}`;
  lines.push(`  judge     ${judge.provider}${judge.model === null ? '' : ` (${judge.model})`}${prompt}, ${judge.calibrated ? 'calibrated' : 'uncalibrated'}: ${judge.equivalent === null ? 'no answer' : judge.equivalent ? 'equivalent' : 'not equivalent'}${judge.route === null ? '' : `; asked because ${ROUTE_TEXT[judge.route] ?? judge.route}`}`);
  if (judge.differences.length === 0) lines.push('    differences: none listed');
  for (const difference of judge.differences) lines.push(`    - ${difference}`);
  lines.push(`  L5        ${entry.semantic === null ? 'not run' : `${entry.semantic.status}: ${entry.semantic.reason}`}`);
  return `${lines.join('\n')}\n`;
}

function sqlLines(label: string, sql: string): string[] {
  const [first, ...rest] = sql.trim().split(/\r?\n/);
  return [`  ${label.padEnd(9)} ${first ?? ''}`, ...rest.map((line) => `  ${' '.repeat(9)} ${line}`)];
}

/** One result as lines: a heading (`gold (3 rows, first 2 shown)`) over its pipe table, or its error. */
function resultLines(label: string, result: ResultPreview): string[] {
  if (!result.ok) return [`${label}: error`, result.error];
  const more = result.rowCount > result.rows.length ? `, first ${result.rows.length} shown` : '';
  const head = `${label} (${counted(result.rowCount, 'row')}${more})`;
  return [head, ...formatPipeTable(result.columns, result.rows, { indent: 0, maxCellChars: 40 }).split('\n')];
}

/** Two blocks of lines side by side, the left padded to its widest line plus three spaces. */
function sideBySide(left: readonly string[], right: readonly string[]): string[] {
  const width = Math.max(...left.map((line) => line.length)) + 3;
  return Array.from({ length: Math.max(left.length, right.length) }, (_, index) => `${(left[index] ?? '').padEnd(width)}${right[index] ?? ''}`.trimEnd());
}
