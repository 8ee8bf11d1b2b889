/**
 * Partial-credit result similarity at scale: two results of 100 000 cells each.
 * Reference 002 reports up to hours for its table similarity on large tables; our target is < 1 s
 * for the whole `scoreResultSimilarity` (row P/R/F1 under the overlap column map + table
 * similarity, which switches to the bag distance above `maxExactCellPairs`).
 *
 * Shapes: 10 columns × 10 000 rows and 1 column × 100 000 rows; the prediction replaces every 7th
 * row's cells and drops the last 1 % of rows. Also the exact (Levenshtein) method on 2 × 2 000 rows
 * for scale. Each figure is the median of 5 runs after one warm-up run.
 */
import type { Cell } from '../src/engine/engine.js';
import { rowSimilarity, tableSimilarity } from '../src/compare/table-similarity.js';
import { scoreResultSimilarity } from '../src/rungs/result-similarity.js';
import type { BenchReport } from './report.js';
import { targetNote } from './targets.js';

function makeResults(rows: number, columns: number): { gold: Cell[][]; predicted: Cell[][] } {
  const gold: Cell[][] = [];
  const predicted: Cell[][] = [];
  for (let r = 0; r < rows; r += 1) {
    const row: Cell[] = [];
    for (let c = 0; c < columns; c += 1) row.push(c % 2 === 0 ? r * columns + c : `v${r}-${c}`);
    gold.push(row);
    if (r < rows * 0.99) predicted.push(r % 7 === 0 ? row.map((cell) => (typeof cell === 'number' ? -cell : `x${cell}`)) : row);
  }
  return { gold, predicted };
}

function medianMs(fn: () => unknown): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[2]!;
}

/** Runs the bench (see the module doc). */
export async function run(): Promise<BenchReport> {
  const lines: string[] = [];
  const figures: Record<string, number> = {};
  for (const [rows, columns] of [[10_000, 10], [100_000, 1]] as const) {
    const { gold, predicted } = makeResults(rows, columns);
    const names = Array.from({ length: columns }, (_, c) => `c${c}`);
    const goldTable = { columnCount: columns, rows: gold };
    const predictedTable = { columnCount: columns, rows: predicted };
    const table = tableSimilarity(goldTable, predictedTable);
    const rowsScore = rowSimilarity(goldTable, predictedTable);
    const tableMs = medianMs(() => tableSimilarity(goldTable, predictedTable));
    const rowMs = medianMs(() => rowSimilarity(goldTable, predictedTable));
    const totalMs = medianMs(() => scoreResultSimilarity({ gold: { columns: names, rows: gold }, predicted: { columns: names, rows: predicted }, structuralSimilarity: 0.9 }));
    const key = `${columns}x${rows}`;
    figures[`tableSimilarityMs_${key}`] = tableMs;
    figures[`rowSimilarityMs_${key}`] = rowMs;
    figures[`resultSimilarityMs_${key}`] = totalMs;
    figures[`tableSimilarity_${key}`] = table.score;
    figures[`rowF1_${key}`] = rowsScore.f1;
    lines.push(
      `${columns} × ${rows} (${gold.length * columns} vs ${predicted.length * columns} cells): table similarity ${table.score.toFixed(4)} (${table.method}) in ${tableMs.toFixed(0)} ms; ` +
        `row F1 ${rowsScore.f1.toFixed(4)} in ${rowMs.toFixed(0)} ms; whole resultSimilarity ${totalMs.toFixed(0)} ms (${targetNote(Math.round(totalMs), { max: 1000, exclusive: true }, 'ms')})`,
    );
  }
  const small = makeResults(2_000, 2);
  const exactMs = medianMs(() => tableSimilarity({ columnCount: 2, rows: small.gold }, { columnCount: 2, rows: small.predicted }));
  const exact = tableSimilarity({ columnCount: 2, rows: small.gold }, { columnCount: 2, rows: small.predicted });
  figures['exactTableSimilarityMs_2x2000'] = exactMs;
  lines.push(`2 × 2000, exact Levenshtein (${exact.method}): table similarity ${exact.score.toFixed(4)} in ${exactMs.toFixed(0)} ms`);
  return { name: 'similarity', lines, figures };
}
