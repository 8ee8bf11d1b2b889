/**
 * Diagnostics on the shared Spider dev slice, both prediction
 * files, with the SQLite engine (catalog-qualified columns, tables read through views, executed
 * results): every item is diagnosed, normalized exact match is a lower bound of the official
 * execution verdict, and the dataset averages are pinned (reported in docs/diagnostics.md).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteEngine, type SqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import { diagnoseItem, summarizeDiagnostics, type DiagnosticsRow, type DiagnosticsSummary } from '../src/diagnostics/diagnose.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const slice = path.resolve(here, '../../shared/data/spider-dev-slice');
const lines = (file: string): string[] => readFileSync(path.join(slice, file), 'utf8').split('\n').filter((line) => line !== '');
const golds = lines('dev_gold.sql').map((line) => {
  const [sql, dbId] = line.split('\t') as [string, string];
  return { sql, db: path.join(slice, 'database', dbId, `${dbId}.sqlite`) };
});

let engine: SqliteEngine;
const rows = new Map<string, DiagnosticsRow[]>();
const summaries = new Map<string, DiagnosticsSummary>();

beforeAll(async () => {
  engine = createSqliteEngine();
  for (const model of ['DINSQL', 'C3_SQL']) {
    const predictions = readFileSync(path.join(slice, 'predictions', `${model}.sql`), 'utf8').split('\n');
    const modelRows: DiagnosticsRow[] = [];
    for (const [i, gold] of golds.entries()) {
      modelRows.push(await diagnoseItem({ predictedSql: predictions[i] ?? '', goldSqls: [gold.sql], dialect: 'sqlite', engine, db: gold.db }));
    }
    rows.set(model, modelRows);
    const summary = summarizeDiagnostics(modelRows);
    summaries.set(model, summary);
    const show = (values: Readonly<Record<string, number>>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Math.round(v * 10_000) / 10_000]));
    console.log(`${model} macro`, JSON.stringify(show(summary.macro)));
    console.log(`${model} micro`, JSON.stringify(show(summary.micro)));
  }
});

afterAll(async () => {
  await engine?.close();
});

describe.each(['DINSQL', 'C3_SQL'])('diagnostics on the Spider slice: %s', (model) => {
  it('diagnoses every item: no component, exact-match, AST or schema diagnostic is skipped', () => {
    const summary = summaries.get(model)!;
    expect(summary.items).toBe(507);
    for (const key of ['components_skipped', 'exact_match_skipped', 'ast_skipped', 'schema_skipped', 'result_skipped']) {
      expect([key, summary.macro[key]]).toEqual([key, 0]);
    }
  });

  it('normalized exact match is a lower bound of the official execution verdict', () => {
    const verdicts = lines(`official-verdicts/${model}.jsonl`).map((line) => JSON.parse(line) as { i: number; exec: number | boolean });
    const contradictions = rows.get(model)!.flatMap((row, i) => (row['exact_match_normalized'] === 1 && !verdicts[i]!.exec ? [i] : []));
    expect(contradictions).toEqual([]);
  });

  it('raw exact match never exceeds normalized exact match', () => {
    expect(rows.get(model)!.filter((row) => (row['exact_match_raw'] as number) > (row['exact_match_normalized'] as number))).toEqual([]);
  });
});

describe('pinned averages (docs/diagnostics.md)', () => {
  it.each([
    // model, key, macro average (to 3 decimals)
    ['DINSQL', 'components_select', 0.8197],
    ['DINSQL', 'components_from', 0.9293],
    ['DINSQL', 'components_where', 0.7936],
    ['DINSQL', 'components_group_by', 0.8626],
    ['DINSQL', 'components_having', 0.9382],
    ['DINSQL', 'components_order_by', 0.9053],
    ['DINSQL', 'components_limit', 0.9369],
    ['DINSQL', 'components_set_ops', 0.9329],
    ['DINSQL', 'components_mean', 0.8898],
    ['DINSQL', 'spider_select', 0.8028],
    ['DINSQL', 'spider_select_no_agg', 0.8067],
    ['DINSQL', 'spider_where', 0.7031],
    ['DINSQL', 'spider_where_no_op', 0.7304],
    ['DINSQL', 'spider_group_no_having', 0.5882],
    ['DINSQL', 'spider_group', 0.3456],
    ['DINSQL', 'spider_order', 0.5152],
    ['DINSQL', 'spider_and_or', 0.9724],
    ['DINSQL', 'spider_iuen', 0.1538],
    ['DINSQL', 'spider_keywords', 0.827],
    ['DINSQL', 'exact_match_normalized', 0.4892],
    ['DINSQL', 'schema_generation_table_recall', 0.9757],
    ['DINSQL', 'schema_generation_column_recall', 0.9734],
    ['DINSQL', 'schema_generation_all_tables_hit', 0.9507],
    ['C3_SQL', 'components_select', 0.7465],
    ['C3_SQL', 'components_from', 0.8875],
    ['C3_SQL', 'components_where', 0.7515],
    ['C3_SQL', 'components_group_by', 0.8596],
    ['C3_SQL', 'components_having', 0.9369],
    ['C3_SQL', 'components_order_by', 0.9093],
    ['C3_SQL', 'components_limit', 0.9586],
    ['C3_SQL', 'components_set_ops', 0.929],
    ['C3_SQL', 'components_mean', 0.8724],
    ['C3_SQL', 'spider_select', 0.7377],
    ['C3_SQL', 'spider_select_no_agg', 0.7475],
    ['C3_SQL', 'spider_where', 0.6217],
    ['C3_SQL', 'spider_where_no_op', 0.6513],
    ['C3_SQL', 'spider_group_no_having', 0.5778],
    ['C3_SQL', 'spider_group', 0.3704],
    ['C3_SQL', 'spider_order', 0.5306],
    ['C3_SQL', 'spider_and_or', 0.9606],
    ['C3_SQL', 'spider_iuen', 0.1053],
    ['C3_SQL', 'spider_keywords', 0.7905],
    ['C3_SQL', 'exact_match_normalized', 0.3945],
    ['C3_SQL', 'schema_generation_table_recall', 0.9808],
    ['C3_SQL', 'schema_generation_column_recall', 0.9795],
    ['C3_SQL', 'schema_generation_all_tables_hit', 0.9606],
  ])('%s %s ≈ %d', (model, key, value) => {
    expect(summaries.get(model)!.macro[key]).toBeCloseTo(value, 3);
  });
});
