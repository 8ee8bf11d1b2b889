/**
 * A calibration record as a terminal report (cli-table3, no colours): the verdict against the
 * thresholds, the figures with their 95 % intervals, the bias, the confusion table and the
 * figures per category. Labels are named for the task (`equivalent` / `not equivalent`).
 */
import Table from 'cli-table3';
import type { CalibrationRecord } from './calibration-record.js';
import type { Interval, RateEstimate } from './judge-statistics.js';

/** Names of the positive and negative labels, per task. */
function labelNames(task: string): [string, string] {
  return task === 'faithfulness' ? ['faithful', 'unfaithful'] : ['equivalent', 'not equivalent'];
}

function table(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [], compact: true } });
}

function fixed(value: number | null, digits = 3): string {
  return value === null ? 'n/a' : value.toFixed(digits);
}

function interval(value: Interval | null): string {
  return value === null ? 'n/a' : `[${value.low.toFixed(3)}, ${value.high.toFixed(3)}]`;
}

function rate(estimate: RateEstimate): string[] {
  return [fixed(estimate.value), `${estimate.numerator}/${estimate.denominator}`, interval(estimate.interval)];
}

/**
 * Renders the report.
 * @example renderCalibration(record) // 'equivalence judge openai:chat:gpt-4.1 (model …): PASS …'
 */
export function renderCalibration(record: CalibrationRecord): string {
  const [positive, negative] = labelNames(record.judge.task);
  const s = record.statistics;
  const t = record.thresholds;
  const lines: string[] = [];
  lines.push(`${record.judge.task} judge ${record.judge.provider} (model ${record.judge.model}, prompt ${record.judge.promptVersion} ${record.judge.promptHash.slice(0, 12)})`);
  lines.push(`labels: ${record.labels.file} — ${record.labels.pairs} pairs, ${record.labels.positives} ${positive}, ${record.labels.negatives} ${negative}`);
  lines.push(`calibration: ${record.passed ? 'PASS' : 'FAIL'} (thresholds: TPR ≥ ${t.minTpr}, TNR ≥ ${t.minTnr}, n ≥ ${t.minPairs}, ${negative} ≥ ${t.minNegatives})${record.failures.length > 0 ? ` — ${record.failures.join('; ')}` : ''}`);
  lines.push('');
  const figures = table(['figure', 'value', 'count', '95% interval']);
  figures.push(['TPR (sensitivity)', ...rate(s.tpr)]);
  figures.push(['TNR (specificity)', ...rate(s.tnr)]);
  figures.push(['accuracy', ...rate(s.accuracy)]);
  figures.push(["Cohen's kappa", fixed(s.kappa.value), '', interval(s.kappa.interval)]);
  figures.push([`judged "${positive}" rate`, ...rate(s.bias.judgedPositiveRate)]);
  figures.push([`true "${positive}" rate`, fixed(s.bias.truePositiveRate), `${s.positives}/${s.n}`, '']);
  figures.push(['bias (judged − true)', s.bias.difference === null ? 'n/a' : `${s.bias.difference >= 0 ? '+' : ''}${s.bias.difference.toFixed(3)}`, '', interval(s.bias.interval)]);
  lines.push(figures.toString());
  lines.push('');
  const confusion = table(['label \\ judge', positive, negative]);
  confusion.push([positive, String(s.counts.tp), String(s.counts.fn)]);
  confusion.push([negative, String(s.counts.fp), String(s.counts.tn)]);
  lines.push(confusion.toString());
  const categories = Object.entries(record.categories);
  if (categories.length > 0) {
    lines.push('');
    const byCategory = table(['category', 'pairs', positive, negative, 'correct', 'errors']);
    for (const [name, figures] of categories) byCategory.push([name, String(figures.pairs), String(figures.positives), String(figures.negatives), `${figures.correct} (${((100 * figures.correct) / Math.max(1, figures.pairs)).toFixed(1)} %)`, String(figures.errors)]);
    lines.push(byCategory.toString());
  }
  lines.push('');
  lines.push(`judge calls: ${record.cost.calls}, cache hits: ${record.cost.cacheHits}, tokens: ${record.cost.tokens}; unreadable answers: ${record.errors}`);
  return `${lines.join('\n')}\n`;
}
