/**
 * Text rendering of the ladder summary with cli-table3: one table of headline numbers and rung
 * pass rates with one column per provider, one table of end-to-end correctness per tag, and one per
 * role (items, end-to-end, refusals right) when items have roles, and one of the equivalence judge
 * (src/report/judge-summary.ts) when it ran.
 * No colours, so the text is the same in a terminal, a log file and a test snapshot.
 */
import Table from 'cli-table3';
import type { ProviderSummary, Rate } from './ladder-summary.js';
import { SUMMARY_TERMS as TERMS } from './summary-terms.js';
import { judgeSummaryLines } from './judge-summary.js';

/** `41/64 (64.1%)`, or `—` when nothing was counted. */
export function formatRate(value: Rate): string {
  if (value.rate === undefined) return '—';
  return `${value.passed}/${value.n} (${(value.rate * 100).toFixed(1)}%)`;
}

function newTable(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [], compact: true } });
}

/** Item ids listed in one note line (the rest are counted). */
export const MAX_LISTED_NOTE_ITEMS = 10;

/**
 * The lines under the tables that name items no number grades: `answer` items without gold SQL
 * (unscored; their promptfoo rows fail with the reason) and errored rows: one line per kind, the
 * columns separated by `;`.
 * @example noteLines(summaries) // ['without gold SQL (unscored, graded by nothing; their rows fail): strong: wh-057; weak: wh-057']
 */
export function noteLines(summaries: readonly ProviderSummary[]): string[] {
  const list = (ids: readonly string[]): string =>
    `${ids.slice(0, MAX_LISTED_NOTE_ITEMS).join(', ')}${ids.length > MAX_LISTED_NOTE_ITEMS ? `, … (+${ids.length - MAX_LISTED_NOTE_ITEMS} more)` : ''}`;
  const line = (label: string, ids: (summary: ProviderSummary) => readonly string[]): string[] => {
    const columns = summaries.filter((summary) => ids(summary).length > 0).map((summary) => `${summary.provider}: ${list(ids(summary))}`);
    return columns.length === 0 ? [] : [`${label}: ${columns.join('; ')}`];
  };
  return [
    ...line('without gold SQL (unscored, graded by nothing; their rows fail)', (summary) => summary.withoutGold),
    ...line('errored rows (not graded, in no rate; the run exits 3)', (summary) => summary.errored.map((row) => row.id)),
  ];
}

/**
 * Renders the summaries as tables (headline + rungs, then tags, then roles), separated by a blank
 * line, then the {@link noteLines}.
 * @returns the text, without a trailing newline; `''` when there is no provider.
 */
export function renderLadderSummary(summaries: readonly ProviderSummary[]): string {
  if (summaries.length === 0) return '';
  const providers = summaries.map((summary) => summary.provider);
  const main = newTable(['ladder summary', ...providers]);
  const row = (label: string, cell: (summary: ProviderSummary) => string) => main.push([label, ...summaries.map(cell)]);
  // The words shared with the Spider summary come from one place (summary-terms.ts).
  row(TERMS.items.label, (s) => String(s.items));
  row(TERMS.scored.label, (s) => String(s.scored));
  row(TERMS.unscored.label, (s) => String(s.unscored));
  row('errored rows', (s) => String(s.errors));
  row(TERMS.executionSuccess.label, (s) => formatRate(s.executionSuccess));
  row(TERMS.correctAmongExecuted.label, (s) => formatRate(s.correctAmongExecuted));
  row('end-to-end correct', (s) => formatRate(s.endToEnd));
  row(TERMS.goldErrors.label, (s) => String(s.goldErrors));
  row(TERMS.emptyGoldMatches.label, (s) => String(s.emptyGoldMatches));
  // Only runs whose outputs report probe queries get the probe lines.
  if (summaries.some((summary) => summary.probes.checked > 0)) {
    row('probes checked (L3)', (s) => String(s.probes.checked));
    row('probes refused (L3)', (s) => String(s.probes.refused));
  }
  const rungNames = unique(summaries.flatMap((summary) => summary.rungs.map((rung) => rung.name)));
  for (const name of rungNames) {
    row(`${name} pass rate`, (s) => {
      const found = s.rungs.find((rung) => rung.name === name);
      return found ? formatRate(found) : '—';
    });
  }
  // The figures the promptfoo viewer's column headers show (passed of all items).
  for (const name of rungNames) {
    row(`${name} of all items`, (s) => {
      const found = s.rungs.find((rung) => rung.name === name);
      return found ? formatRate(found.ofAll) : '—';
    });
  }
  const tables = [main.toString()];
  const tagNames = unique(summaries.flatMap((summary) => summary.tags.map((tag) => tag.tag))).sort();
  if (tagNames.length > 0) {
    const tags = newTable(['end-to-end by tag', ...providers]);
    for (const tag of tagNames) {
      tags.push([tag, ...summaries.map((s) => {
        const found = s.tags.find((entry) => entry.tag === tag);
        return found ? formatRate(found) : '—';
      })]);
    }
    tables.push(tags.toString());
  }
  const roleNames = unique(summaries.flatMap((summary) => (summary.roles ?? []).map((entry) => entry.role))).sort();
  if (roleNames.length > 0) {
    // Per role: items, end-to-end correct, refusals right (refuse items answered with a refusal).
    const roles = newTable(['by role: items · end-to-end · refusals right', ...providers]);
    for (const role of roleNames) {
      roles.push([role, ...summaries.map((s) => {
        const found = s.roles?.find((entry) => entry.role === role);
        return found ? `${found.items} · ${formatRate(found.endToEnd)} · ${formatRate(found.refusals)}` : '—';
      })]);
    }
    tables.push(roles.toString());
  }
  if (summaries.some((summary) => summary.judges !== undefined)) {
    const judges = newTable(['equivalence judge', ...providers]);
    judges.push(['', ...summaries.map((s) => (s.judges ?? []).map((judge) => judgeSummaryLines(judge).join('\n')).join('\n\n') || '—')]);
    tables.push(judges.toString());
  }
  const notes = noteLines(summaries);
  return [...tables, ...(notes.length === 0 ? [] : [notes.join('\n')])].join('\n\n');
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
