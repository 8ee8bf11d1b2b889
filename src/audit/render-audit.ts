/**
 * Renders an {@link AuditReport}: a terminal report (cli-table3, no colours), Markdown for a
 * pull-request comment or a review note, and JSON (cells as JSON values; an integer beyond 2^53 as
 * `{"bigint": "digits"}`, a blob as `{"blob": "hex"}`).
 */
import Table from 'cli-table3';
import type { Row } from '../engine/engine.js';
import type { GoldCheckSeverity } from '../compare/gold-checks.js';
import type { FindingRows } from '../compare/gold-result-checks.js';
import { counted, formatRow } from '../format.js';
import { AUDIT_FINDING_KINDS, AUDIT_KIND_ORDER, SEVERITIES, type AuditFinding } from './audit-finding.js';
import type { AuditReport } from './gold-audit.js';

/** Options of the renderers. */
export interface RenderAuditOptions {
  /** List findings of this severity and worse (default `info`: all). The counts always cover all. */
  readonly severity?: GoldCheckSeverity;
  /** Findings listed per kind; the rest are counted. Default 0: all. */
  readonly listLimit?: number;
  /** Rows shown per row sample (default 3). */
  readonly rows?: number;
  /** Also list every item with its row counts per snapshot (text only). */
  readonly items?: boolean;
}

/** Width of the finding column of the terminal table, in characters. */
const FINDING_WIDTH = 88;

function headline(report: AuditReport): string {
  const { counts } = report;
  return `${counted(counts.error, 'error')}, ${counted(counts.warning, 'warning')}, ${counted(counts.info, 'note')}`;
}

function scope(report: AuditReport): string {
  const { counts } = report;
  const runs = report.runs.length > 0 ? `; runs ${report.runs.map((run) => run.label).join(', ')}` : '';
  const withoutGold = counts.withoutGold > 0 ? `; ${counted(counts.withoutGold, 'answer item')} without gold (unscored: no_gold)` : '';
  return `${counted(counts.loaded, 'item')} loaded, ${counts.audited} with gold: ${counted(counts.golds, 'gold')}, ${counted(counts.goldRuns, 'gold run')} (every gold on every snapshot of its item)${withoutGold}; policy ${report.policy}${runs}`;
}

/** The review lines: pairs waiting for a person, golds a review added (when, from which run). */
function reviewLines(report: AuditReport): string[] {
  const review = report.review;
  if (review === undefined || (review.pending.length === 0 && review.added.length === 0 && review.rejected === 0)) return [];
  const lines: string[] = [];
  const where = review.queue === null ? '' : ` (${review.queue})`;
  const pending = review.pending.map((entry) => `${entry.item} ${entry.review} ${entry.outcome}`).join(', ');
  lines.push(`review queue${where}: ${counted(review.pending.length, 'pending review')}${pending === '' ? '' : `: ${pending}`}${review.rejected > 0 ? `; ${counted(review.rejected, 'pair')} rejected before` : ''}`);
  if (review.added.length > 0) {
    lines.push(`golds added by review (${review.decisions ?? 'decisions file'}):`);
    for (const gold of review.added) lines.push(`  ${gold.item} gold ${gold.goldIndex + 1}: accepted ${gold.acceptedAt}, queued by run ${gold.run.spec}${gold.run.recordedAt === null ? '' : ` of ${gold.run.recordedAt}`} (${gold.review})${gold.note === null ? '' : `: ${gold.note}`}`);
  }
  return lines;
}

function listed(report: AuditReport, options: RenderAuditOptions): { shown: AuditFinding[]; hidden: number } {
  const worst = SEVERITIES.indexOf(options.severity ?? 'info');
  const limit = options.listLimit ?? 0;
  const perKind = new Map<string, number>();
  const shown: AuditFinding[] = [];
  let hidden = 0;
  for (const finding of report.findings) {
    if (SEVERITIES.indexOf(finding.severity) > worst) continue;
    const n = perKind.get(finding.kind) ?? 0;
    perKind.set(finding.kind, n + 1);
    if (limit > 0 && n >= limit) hidden += 1;
    else shown.push(finding);
  }
  return { shown, hidden };
}

function sampleText(sample: FindingRows, rows: number): string {
  if (sample.count === 0) return `${sample.label}: none (columns ${sample.columns.join(', ')})`;
  const shown = sample.rows.slice(0, rows).map((row: Row) => formatRow(row));
  const more = sample.count > shown.length ? `; … ${sample.count - shown.length} more` : '';
  return `${sample.label} (${sample.count}): ${shown.join('; ')}${more}`;
}

function findingLines(finding: AuditFinding, rows: number): string[] {
  return [finding.message, ...finding.rows.map((sample) => sampleText(sample, rows))];
}

/** The item and where it is written (`wh-002` over `warehouse.yaml:33`; Spider: `9` over `dev_gold.sql:10`). */
function itemCell(finding: AuditFinding): string {
  if (finding.item === null || finding.source === null) return finding.item ?? finding.source ?? '—';
  return `${finding.item}\n${finding.source}`;
}

function where(finding: AuditFinding): string {
  if (finding.snapshot === null) return finding.role === null ? '—' : `(@${finding.role})`;
  return finding.role === null ? finding.snapshot : `${finding.snapshot}@${finding.role}`;
}

function kindTable(report: AuditReport): Table.Table {
  const table = new Table({ head: ['kind', 'severity', 'findings', 'items'], style: { head: [], border: [] } });
  for (const kind of AUDIT_KIND_ORDER) {
    const entry = report.byKind[kind];
    if (entry !== undefined) table.push([kind, AUDIT_FINDING_KINDS[kind].severity, String(entry.findings), String(entry.items)]);
  }
  return table;
}

/** The terminal report: what was audited, findings per kind, then every finding listed. */
export function renderAuditText(report: AuditReport, options: RenderAuditOptions = {}): string {
  const rows = options.rows ?? 3;
  let text = `gold audit of ${report.input.path} (${report.input.kind === 'spider' ? 'Spider folder' : 'dataset'})\n${scope(report)}\n${headline(report)}\n`;
  for (const line of reviewLines(report)) text += `${line}\n`;
  if (report.strength !== undefined) text += `fixture strength: the snapshots tell ${report.strength.distinguished} of ${report.strength.neighbours} neighbour queries apart from their golds (${(100 * report.strength.strength).toFixed(1)}%)\n`;
  if (report.findings.length > 0) text += `${kindTable(report).toString()}\n`;
  const { shown, hidden } = listed(report, options);
  if (shown.length > 0) {
    const table = new Table({
      head: ['severity', 'kind', 'item', 'snapshot', 'gold', 'finding'],
      colWidths: [null, null, null, null, null, FINDING_WIDTH],
      wordWrap: true,
      style: { head: [], border: [] },
    });
    for (const finding of shown) {
      table.push([finding.severity, finding.kind, itemCell(finding), where(finding), finding.gold === null ? '—' : String(finding.gold), findingLines(finding, rows).join('\n')]);
    }
    text += `${table.toString()}\n`;
  }
  if (hidden > 0) text += `… ${counted(hidden, 'more finding')} (--list-limit 0 lists all; --format json has every one)\n`;
  if (options.items === true) text += itemsText(report);
  return text;
}

function itemsText(report: AuditReport): string {
  const width = Math.max(4, ...report.items.map((item) => item.id.length));
  let text = '';
  for (const item of report.items) {
    const parts = item.snapshots.map((s) => `${s.name}=${s.results.map((r) => ('rows' in r ? String(r.rows) : 'ERR')).join('/')}`);
    const strength = item.strength === undefined ? '' : `  strength ${(100 * item.strength.strength).toFixed(1)}%`;
    text += `${item.id.padEnd(width)}  ${parts.join(' ')}${strength}\n`;
  }
  return text;
}

function markdownCell(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('|', '\\|').replaceAll('\n', '<br>');
}

/** The Markdown report: headline, findings per kind, and the findings as a table. */
export function renderAuditMarkdown(report: AuditReport, options: RenderAuditOptions = {}): string {
  const rows = options.rows ?? 3;
  let text = `## Gold audit: \`${report.input.path}\`\n\n**${headline(report)}** — ${scope(report)}.\n`;
  if (report.strength !== undefined) text += `\nFixture strength: the snapshots tell ${report.strength.distinguished} of ${report.strength.neighbours} neighbour queries apart from their golds (${(100 * report.strength.strength).toFixed(1)}%).\n`;
  const review = reviewLines(report);
  if (review.length > 0) text += `\n${review.map((line) => (line.startsWith('  ') ? `- ${line.trim()}` : line)).join('\n')}\n`;
  if (report.findings.length === 0) return `${text}\nNo findings.\n`;
  text += '\n| kind | severity | findings | items | what it means |\n|---|---|---:|---:|---|\n';
  for (const kind of AUDIT_KIND_ORDER) {
    const entry = report.byKind[kind];
    if (entry !== undefined) text += `| \`${kind}\` | ${AUDIT_FINDING_KINDS[kind].severity} | ${entry.findings} | ${entry.items} | ${markdownCell(AUDIT_FINDING_KINDS[kind].summary)} |\n`;
  }
  const { shown, hidden } = listed(report, options);
  if (shown.length > 0) {
    text += '\n| severity | kind | item | snapshot | gold | finding |\n|---|---|---|---|---:|---|\n';
    for (const finding of shown) {
      const lines = findingLines(finding, rows).map((line, i) => (i === 0 ? line : `*${line}*`));
      text += `| ${finding.severity} | \`${finding.kind}\` | ${markdownCell(itemCell(finding))} | ${markdownCell(where(finding))} | ${finding.gold ?? '—'} | ${markdownCell(lines.join('\n'))} |\n`;
    }
  }
  if (hidden > 0) text += `\n… ${counted(hidden, 'more finding')} not listed.\n`;
  return text;
}

/** The report as JSON text (see the module doc for cells). */
export function auditJson(report: AuditReport): string {
  return `${JSON.stringify(report, (_key, value: unknown) => {
    if (typeof value === 'bigint') return { bigint: value.toString() };
    if (value instanceof Uint8Array) return { blob: Buffer.from(value).toString('hex') };
    return value; // typed cells (decimals, dates, JSON, arrays) write their tagged toJSON()
  }, 2)}\n`;
}
