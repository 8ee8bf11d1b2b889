/**
 * Renders a {@link RunComparison} and its {@link GateResult}: a terminal report (cli-table3, no
 * colours, so logs and snapshots read the same), Markdown fit for a pull-request comment
 * (GitHub-flavoured tables, long lists folded in `<details>`), and the JSON object.
 *
 * Rates are shown as `passed/n (pct)` over the items graded on the metric in both runs; Δ and the
 * interval are in percentage points (candidate − baseline); p is the two-sided exact McNemar
 * p-value (and the mid-p value when asked for).
 */
import Table from 'cli-table3';
import type { ItemChange, MetricComparison, PairedComparison, PairedRate, RunComparison, RunSummary, SliceComparison } from './compare-runs.js';
import type { ProcessComparison } from './compare-process.js';
import { formatP, type GateResult } from './comparison-gate.js';
import { short, type IdentityDifference } from './run-identity.js';
import { truncate } from '../format.js';
import { END_TO_END } from '../rungs/scores.js';

/** Options of the renderers. */
export interface RenderComparisonOptions {
  /** Items listed per improvement / regression list (the rest are counted). Default 20; 0 lists all. */
  readonly listLimit?: number;
  /** Also show the mid-p value. Default false. */
  readonly midP?: boolean;
}

/** The `--format json` document: the comparison and the gate. */
export function comparisonJson(comparison: RunComparison, gate: GateResult): RunComparison & { readonly gate: GateResult } {
  return { ...comparison, gate };
}

function rateText(rate: PairedRate): string {
  return rate.rate === undefined ? '—' : `${rate.passed}/${rate.n} (${(rate.rate * 100).toFixed(1)}%)`;
}

function points(value: number | undefined): string {
  if (value === undefined) return '—';
  // Round the magnitude, so that ±18.75 prints as ±18.8 on both sides.
  const magnitude = Math.round(Math.abs(value) * 1000) / 10;
  return `${magnitude === 0 ? '' : value > 0 ? '+' : '−'}${magnitude.toFixed(1)}`;
}

function intervalText(stats: PairedComparison): string {
  return stats.interval === undefined ? '—' : `[${points(stats.interval.lower)}, ${points(stats.interval.upper)}]`;
}

function statsCells(stats: PairedComparison, improved: number, regressed: number, midP: boolean): string[] {
  const cells = [String(stats.paired), rateText(stats.baseline), rateText(stats.candidate), points(stats.difference), intervalText(stats), String(improved), String(regressed), formatP(stats.test.pValue)];
  if (midP) cells.push(formatP(stats.test.midP));
  return cells;
}

function statsHead(first: string, comparison: RunComparison, midP: boolean): string[] {
  const level = Math.round(comparison.settings.level * 100);
  const head = [first, 'paired', 'baseline', 'candidate', 'Δ pts', `${level}% CI (pts)`, 'improved', 'regressed', 'p (exact)'];
  if (midP) head.push('mid-p');
  return head;
}

function runLine(role: string, run: RunSummary): string {
  const provider = run.identity?.provider;
  const model = provider?.model ? `, model ${provider.model}` : '';
  const id = provider?.id && provider.id !== run.label ? ` (${provider.id}${model})` : model ? ` (${model.slice(2)})` : '';
  return `${role.padEnd(10)} ${run.spec}: ${run.label}${id}, ${run.items} items, ${run.format === 'promptfoo' ? 'promptfoo result' : 'spider JSONL'}`;
}

/** One line on what the runs share, for the header. */
function identityLine(comparison: RunComparison): string {
  const b = comparison.baseline.identity;
  const c = comparison.candidate.identity;
  const blocking = new Set(comparison.identityDifferences.filter((d) => d.blocking).map((d) => d.field));
  const parts: string[] = [];
  if (b && c) {
    parts.push(blocking.has('dataset') ? 'dataset DIFFERS' : `same dataset ${short(b.dataset.contentHash)} (${b.dataset.items} items)`);
    parts.push(blocking.has('snapshots') ? 'snapshots DIFFER' : `same ${b.snapshots.length} snapshot${b.snapshots.length === 1 ? '' : 's'}`);
    const presets = presetsOf(b.policies);
    parts.push(blocking.has('policy') ? 'policy DIFFERS' : `same policy${presets ? ` (${presets})` : ''}`);
    parts.push(b.tool.version === c.tool.version ? `${b.tool.name} ${b.tool.version}` : `${b.tool.name} ${b.tool.version} vs ${c.tool.version}`);
  } else {
    parts.push('not recorded for ' + [b ? '' : 'the baseline', c ? '' : 'the candidate'].filter(Boolean).join(' and '));
  }
  return `identity   ${parts.join('; ')}`;
}

/** The presets of a run's policies, e.g. `default`. */
function presetsOf(policies: readonly unknown[]): string {
  return [...new Set(policies.map((policy) => (policy !== null && typeof policy === 'object' && !Array.isArray(policy) ? String((policy as Record<string, unknown>)['preset'] ?? '?') : '?')))].join(', ');
}

function limitList<T>(list: readonly T[], limit: number): { shown: readonly T[]; hidden: number } {
  if (limit === 0 || list.length <= limit) return { shown: list, hidden: 0 };
  return { shown: list.slice(0, limit), hidden: list.length - limit };
}

function changeCount(metric: MetricComparison): string {
  const r = metric.regressions.length;
  const i = metric.improvements.length;
  return `${r} regression${r === 1 ? '' : 's'}, ${i} improvement${i === 1 ? '' : 's'}`;
}

/**
 * The terminal report: the runs, the identity line, the metric table, the changed items per metric
 * with their reasons, the tag slices that changed, the required items and the gate.
 * @returns text ending in a newline.
 */
export function renderComparisonText(comparison: RunComparison, gate: GateResult, options: RenderComparisonOptions = {}): string {
  const limit = options.listLimit ?? 20;
  const midP = options.midP ?? false;
  const lines: string[] = [];
  lines.push(runLine('baseline', comparison.baseline), runLine('candidate', comparison.candidate));
  const { paired, baselineOnly, candidateOnly } = comparison.items;
  lines.push(`items      ${paired} paired by id${baselineOnly.length > 0 ? `; only in the baseline: ${baselineOnly.length} (${limitText(baselineOnly, 10)})` : ''}${candidateOnly.length > 0 ? `; only in the candidate: ${candidateOnly.length} (${limitText(candidateOnly, 10)})` : ''}`);
  lines.push(identityLine(comparison));
  for (const difference of comparison.identityDifferences.filter((d) => !d.blocking)) lines.push(`           ${difference.message}`);
  lines.push('');

  const table = newTable(statsHead('metric', comparison, midP));
  for (const metric of comparison.metrics) table.push([metric.metric, ...statsCells(metric, metric.improvements.length, metric.regressions.length, midP)]);
  lines.push(table.toString(), '');

  for (const metric of comparison.metrics) {
    if (metric.improvements.length === 0 && metric.regressions.length === 0) continue;
    lines.push(`${metric.metric}: ${changeCount(metric)}`);
    const push = (kind: 'regressed' | 'improved', list: readonly ItemChange[]): void => {
      const { shown, hidden } = limitList(list, limit);
      for (const item of shown) {
        const reason = kind === 'regressed' ? `now: ${item.candidateReason}` : `was: ${item.baselineReason}`;
        lines.push(`  ${kind.padEnd(9)} ${item.id}  ${truncate(reason, 160)}`);
      }
      if (hidden > 0) lines.push(`  … and ${hidden} more ${kind} (--list-limit 0 lists all; --format json has every item)`);
    };
    push('regressed', metric.regressions);
    push('improved', metric.improvements);
    lines.push('');
  }

  const changedTags = comparison.tags.filter((tag) => tag.improved.length + tag.regressed.length > 0);
  if (comparison.tags.length > 0) {
    if (changedTags.length > 0) {
      const tags = newTable(statsHead(`tag (${comparison.sliceMetric})`, comparison, midP));
      for (const tag of changedTags) tags.push([tag.tag, ...statsCells(tag, tag.improved.length, tag.regressed.length, midP)]);
      lines.push(tags.toString());
    }
    const unchanged = comparison.tags.length - changedTags.length;
    lines.push(`${changedTags.length} of ${comparison.tags.length} tags changed${unchanged > 0 ? `; ${unchanged} without a changed item not shown` : ''} (p-values per tag are not corrected for multiple comparisons)`, '');
  }

  if (comparison.required.length > 0) {
    lines.push(`required items (${comparison.required.length}, must pass ${END_TO_END} in the candidate):`);
    for (const item of comparison.required) lines.push(`  ${item.status.padEnd(8)} ${item.id}  [${item.source}]${item.status === 'pass' ? '' : `  ${truncate(item.reason, 140)}`}`);
    lines.push('');
  }

  if (comparison.process !== undefined) lines.push(processTable(comparison.process, 'text'), '');

  const { bootstrapReplicates, seed, level } = comparison.settings;
  lines.push(bootstrapReplicates === 0 ? 'bootstrap: off' : `paired bootstrap: ${bootstrapReplicates} replicates, seed ${seed}, ${Math.round(level * 100)}% percentile interval; p: two-sided exact McNemar on the discordant pairs`);
  lines.push(gateText(gate));
  return `${lines.join('\n')}\n`;
}

/** A process metric's mean, to two decimals. */
function meanText(value: number): string {
  return value.toFixed(2);
}

/** A signed difference of means (`+1.31`, `−0.50`, `0.00`). */
function signed(value: number): string {
  const text = Math.abs(value).toFixed(2);
  return text === '0.00' ? text : `${value > 0 ? '+' : '−'}${text}`;
}

/** The process table (means per item over the paired trajectories), as terminal text or Markdown. */
function processTable(process: ProcessComparison, format: 'text' | 'markdown'): string {
  const head = [`process (means per item, ${process.paired} paired)`, 'baseline', 'candidate', 'Δ', 'items up', 'items down'];
  const rows = process.metrics.map((metric) => [metric.metric, meanText(metric.baseline), meanText(metric.candidate), signed(metric.difference), String(metric.increased), String(metric.decreased)]);
  const recovery = (rate: { recovered: number; n: number }) => (rate.n === 0 ? '—' : `${rate.recovered}/${rate.n} (${((rate.recovered / rate.n) * 100).toFixed(1)}%)`);
  rows.push(['error recovery', recovery(process.errorRecovery.baseline), recovery(process.errorRecovery.candidate), '', '', '']);
  rows.push(['items over budget', String(process.overBudget.baseline), String(process.overBudget.candidate), '', '', '']);
  if (format === 'markdown') return markdownTable(head.map(cell), rows.map((row) => row.map(cell)), true);
  const table = newTable(head);
  for (const row of rows) table.push(row);
  return table.toString();
}

function gateText(gate: GateResult): string {
  if (gate.checks.length === 0) return 'gate: none configured (--fail-on, --min, --required)';
  const lines = [`gate: ${gate.pass ? 'PASS' : 'FAIL'}`];
  for (const check of gate.checks) lines.push(`  ${check.pass ? 'pass' : 'FAIL'}  ${check.message}`);
  return lines.join('\n');
}

function newTable(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [], compact: true } });
}

function limitText(values: readonly string[], max: number): string {
  return values.length <= max ? values.join(', ') : `${values.slice(0, max).join(', ')}, …`;
}

/** Escapes plain text for Markdown (a table cell or a list line): pipes, line breaks, HTML. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A code span, safe in a table cell (GitHub reads `\|` inside a code span in a table as a pipe). */
function code(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')}\``;
}

/**
 * A GitHub-flavoured table; cells must already be escaped ({@link cell}, {@link code}).
 * @param numeric - right-align every column after the first (statistics tables).
 */
function markdownTable(head: readonly string[], rows: readonly (readonly string[])[], numeric = false): string {
  return [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i > 0 && numeric ? '--:' : '---')).join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/**
 * Markdown for a pull-request comment: the gate verdict first, the metric table, warnings, the
 * changed items per metric and the tag slices in folded `<details>`, then the runs' identities.
 * @returns text ending in a newline.
 */
export function renderComparisonMarkdown(comparison: RunComparison, gate: GateResult, options: RenderComparisonOptions = {}): string {
  const limit = options.listLimit ?? 20;
  const midP = options.midP ?? false;
  const out: string[] = [];
  out.push(`### text2sql-ladder compare: ${cell(comparison.baseline.label)} → ${cell(comparison.candidate.label)}`, '');
  if (gate.checks.length === 0) out.push('**Gate:** none configured.');
  else {
    out.push(`**Gate: ${gate.pass ? '✅ passed' : '❌ failed'}**`, '');
    for (const check of gate.checks) out.push(`- ${check.pass ? '✅' : '❌'} ${cell(check.message)}`);
  }
  out.push('');
  for (const difference of comparison.identityDifferences.filter((d) => d.blocking)) out.push(`> ⚠️ **${warningTitle(difference)}:** ${cell(difference.message)}`, '');

  const head = statsHead('metric', comparison, midP);
  out.push(markdownTable(head, comparison.metrics.map((metric) => [code(metric.metric), ...statsCells(metric, metric.improvements.length, metric.regressions.length, midP)]), true), '');
  const { paired, baselineOnly, candidateOnly } = comparison.items;
  out.push(`${paired} items paired by id${baselineOnly.length > 0 ? `, ${baselineOnly.length} only in the baseline` : ''}${candidateOnly.length > 0 ? `, ${candidateOnly.length} only in the candidate` : ''}. Rates are over the items graded on the metric in both runs; Δ and the interval in percentage points; p: two-sided exact McNemar on the discordant pairs.`, '');

  for (const metric of comparison.metrics) {
    if (metric.improvements.length === 0 && metric.regressions.length === 0) continue;
    const rows: string[][] = [];
    const push = (kind: string, list: readonly ItemChange[]): number => {
      const { shown, hidden } = limitList(list, limit);
      for (const item of shown) rows.push([kind, code(item.id), cell(truncate(item.baselineReason, 200)), cell(truncate(item.candidateReason, 200))]);
      return hidden;
    };
    const hidden = push('regressed', metric.regressions) + push('improved', metric.improvements);
    const open = metric.regressions.length > 0 && metric.metric === comparison.sliceMetric ? ' open' : '';
    out.push(`<details${open}><summary>${metric.metric}: ${changeCount(metric)}</summary>`, '');
    out.push(markdownTable(['change', 'item', 'baseline', 'candidate'], rows));
    if (hidden > 0) out.push('', `… and ${hidden} more (the JSON output lists every item).`);
    out.push('', '</details>', '');
  }

  const changedTags = comparison.tags.filter((tag) => tag.improved.length + tag.regressed.length > 0);
  if (changedTags.length > 0) {
    out.push(`<details><summary>By tag (${comparison.sliceMetric}): ${changedTags.length} of ${comparison.tags.length} tags changed</summary>`, '');
    out.push(markdownTable(statsHead('tag', comparison, midP), changedTags.map((tag: SliceComparison) => [code(tag.tag), ...statsCells(tag, tag.improved.length, tag.regressed.length, midP)]), true));
    out.push('', 'Per-tag p-values are not corrected for multiple comparisons.', '', '</details>', '');
  }

  if (comparison.process !== undefined) out.push(`<details open><summary>Process: how the trajectories changed (${comparison.process.paired} paired items)</summary>`, '', processTable(comparison.process, 'markdown'), '', '</details>', '');

  if (comparison.required.length > 0) {
    const failing = comparison.required.filter((item) => item.status !== 'pass');
    out.push(`<details${failing.length > 0 ? ' open' : ''}><summary>Required items: ${comparison.required.length - failing.length} of ${comparison.required.length} pass</summary>`, '');
    out.push(markdownTable(['item', 'status', 'marked by', 'candidate'], comparison.required.map((item) => [code(item.id), item.status, cell(item.source), cell(truncate(item.reason, 200))])));
    out.push('', '</details>', '');
  }

  out.push('<details><summary>Runs</summary>', '');
  out.push(markdownTable(['', 'baseline', 'candidate'], identityRows(comparison)));
  const notes = comparison.identityDifferences.filter((d) => !d.blocking);
  if (notes.length > 0) out.push('', ...notes.map((d) => `- ${cell(d.message)}`));
  const { bootstrapReplicates, seed, level } = comparison.settings;
  out.push('', bootstrapReplicates === 0 ? 'Bootstrap off.' : `Paired bootstrap: ${bootstrapReplicates} replicates, seed ${seed}, ${Math.round(level * 100)}% percentile interval.`, '', '</details>');
  return `${out.join('\n')}\n`;
}

function warningTitle(difference: IdentityDifference): string {
  return difference.field === 'identity' ? 'Run identity missing' : `Runs differ (${difference.field})`;
}

function identityRows(comparison: RunComparison): string[][] {
  const b = comparison.baseline;
  const c = comparison.candidate;
  const field = (get: (run: RunSummary) => string): string[] => [get(b), get(c)];
  const id = (run: RunSummary): NonNullable<RunSummary['identity']> | undefined => run.identity ?? undefined;
  return [
    ['run', ...field((run) => code(run.spec))],
    ['provider', ...field((run) => cell([run.label, id(run)?.provider.id, id(run)?.provider.model ? `model ${id(run)?.provider.model}` : undefined].filter(Boolean).join(', ')))],
    ['prompt', ...field((run) => (id(run)?.prompt ? cell([id(run)?.prompt?.label, id(run)?.prompt?.id ? short(id(run)!.prompt!.id!) : undefined].filter(Boolean).join(' ')) : '—'))],
    ['dataset', ...field((run) => (id(run) ? `${short(id(run)!.dataset.contentHash)} (${id(run)!.dataset.items} items)` : '—'))],
    ['snapshots', ...field((run) => (id(run) ? String(id(run)!.snapshots.length) : '—'))],
    ['policy', ...field((run) => (id(run) ? cell(presetsOf(id(run)!.policies)) || '—' : '—'))],
    ['package', ...field((run) => (id(run) ? `${id(run)!.tool.name} ${id(run)!.tool.version}` : '—'))],
    ['recorded', ...field((run) => id(run)?.recordedAt ?? '—')],
  ];
}
