/**
 * Checks of gold results (kinds and rules in gold-checks.ts): one gold's result on one snapshot
 * (ties at the LIMIT, ties in an ordered result, NULL sort keys, an all-NULL row), the rows a LIMIT
 * without ORDER BY drops, a gold's run (error, timeout), golds that disagree, and a result that is
 * the same on every snapshot; plus the verdict flags L4 puts on every verdict.
 */
import type { ExecutionOutcome, Row } from '../engine/engine.js';
import { cellKey } from './cell-key.js';
import type { Verdict } from './compare-results.js';
import { findClause, outerSelect, parseSingleStatement, type GoldOrdering, type SqliteParse } from './gold-ordering.js';
import { counted, formatCell, formatRow } from '../format.js';
import { GOLD_CHECK_KINDS, type GoldResultFindingKind } from './gold-checks.js';

/** A result read by position: column names apart from rows of cells. */
export interface GoldRows {
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
}

/** Some rows of a result, named for a person (`kept at the cut`, `left out`), with their true count. */
export interface FindingRows {
  readonly label: string;
  readonly columns: readonly string[];
  /** At most {@link MAX_SAMPLE_ROWS} rows, by position. */
  readonly rows: readonly Row[];
  readonly count: number;
}

/** Rows kept in a {@link FindingRows}. */
export const MAX_SAMPLE_ROWS = 5;

/** One problem found in one gold result on one snapshot (or across the snapshots). */
export interface GoldResultFinding {
  readonly kind: GoldResultFindingKind;
  readonly goldIndex: number;
  /** One line, naming the rows by position or value. */
  readonly message: string;
  readonly rows: readonly FindingRows[];
}

/** What {@link checkGoldResult} reads. */
export interface GoldResultInput {
  readonly goldIndex: number;
  /** The gold's result on the snapshot. */
  readonly result: GoldRows;
  /** The gold's ordering on the snapshot (`resolveGoldOrdering`); tie checks need its segments and sort keys. */
  readonly ordering?: GoldOrdering;
  /**
   * Whether row order counts for the item (its `gold_result_ordered`, else the gold's outermost
   * ORDER BY). Default: `ordering.ordered`.
   */
  readonly orderMatters?: boolean;
}

/** A sample of `rows` (at most {@link MAX_SAMPLE_ROWS}). */
export function sampleRows(label: string, columns: readonly string[], rows: readonly Row[]): FindingRows {
  return { label, columns, rows: rows.slice(0, MAX_SAMPLE_ROWS), count: rows.length };
}

const rowKey = (row: Row): string => row.map(cellKey).join('\u0001');

/** `rows` minus `taken`, as multisets. */
function without(rows: readonly Row[], taken: readonly Row[]): Row[] {
  const counts = new Map<string, number>();
  for (const row of taken) counts.set(rowKey(row), (counts.get(rowKey(row)) ?? 0) + 1);
  return rows.filter((row) => {
    const left = counts.get(rowKey(row)) ?? 0;
    if (left === 0) return true;
    counts.set(rowKey(row), left - 1);
    return false;
  });
}

/** `key = value, key2 = value2` for the sort keys of gold position `at`, when known. */
function keyText(ordering: GoldOrdering, at: number): string {
  const keys = ordering.sortKeys;
  const values = keys?.values[at];
  if (keys === undefined || values === undefined) return 'the sort key';
  return keys.specs.map((spec, k) => `${spec.text} = ${formatCell(values[k]!)}`).join(', ');
}

/**
 * Checks one gold result on one snapshot (see the module doc for the kinds).
 *
 * @returns findings in kind order: `tie_at_limit`, `ties_in_result`, `null_sort_key`,
 *   `all_null_row`, `ties_unchecked`; `[]` for a clean result.
 * @example
 * // SELECT name FROM t ORDER BY age DESC LIMIT 1, two people of the oldest age:
 * checkGoldResult({ goldIndex: 0, result, ordering })[0].message
 * // "LIMIT cuts a tie of 2 rows on age = 40: keeps 1, leaves out 1"
 */
export function checkGoldResult(input: GoldResultInput): GoldResultFinding[] {
  const { goldIndex, result, ordering } = input;
  const orderMatters = input.orderMatters ?? ordering?.ordered ?? false;
  const found: GoldResultFinding[] = [];
  const add = (kind: GoldResultFindingKind, message: string, rows: FindingRows[]): void => void found.push({ kind, goldIndex, message, rows });
  const segments = ordering?.segments ?? [];

  for (const segment of segments) {
    const kept = result.rows.slice(segment.start, segment.end);
    if (segment.pool.length <= kept.length) continue;
    const leftOut = without(segment.pool, kept);
    if (new Set(segment.pool.map(rowKey)).size < 2) continue;
    add('tie_at_limit', `LIMIT cuts a tie of ${segment.pool.length} rows on ${keyText(ordering!, segment.start)}: keeps ${kept.length}, leaves out ${leftOut.length}`, [
      sampleRows('kept at the cut', result.columns, kept),
      sampleRows('left out', result.columns, leftOut),
    ]);
  }

  if (orderMatters) {
    const tied = segments.filter((s) => s.pool.length === s.end - s.start && s.end - s.start > 1 && new Set(s.pool.map(rowKey)).size > 1);
    if (tied.length > 0) {
      const first = tied[0]!;
      const rowsInTies = tied.reduce((n, s) => n + s.end - s.start, 0);
      add('ties_in_result', `ORDER BY leaves ${counted(tied.length, 'group')} of tied rows (${rowsInTies} of ${result.rows.length} rows) in any order; first: rows ${first.start + 1}–${first.end} on ${keyText(ordering!, first.start)}`, [
        sampleRows(`rows ${first.start + 1}–${first.end}`, result.columns, result.rows.slice(first.start, first.end)),
      ]);
    }
  }

  const keys = ordering?.sortKeys;
  if (keys !== undefined) {
    const cut = keys.fullCount > result.rows.length;
    keys.specs.forEach((spec, k) => {
      if (spec.nulls !== null) return;
      const nullRows = result.rows.filter((_, i) => keys.values[i]?.[k] === null);
      const nulls = keys.nullCounts[k] ?? 0;
      // NULLs move the rows within the result when order counts, and across the cut of a LIMIT.
      if (!((orderMatters && nullRows.length > 0) || (cut && nulls > 0))) return;
      const where = cut ? `${nulls} of the ${keys.fullCount} rows before the LIMIT` : `${nullRows.length} of ${result.rows.length} rows`;
      add(
        'null_sort_key',
        `sort key ${spec.text} is NULL in ${where}: SQLite sorts NULLs ${spec.descending ? 'last' : 'first'} here, PostgreSQL ${spec.descending ? 'first' : 'last'}; add NULLS FIRST / NULLS LAST or a filter`,
        nullRows.length === 0 ? [] : [sampleRows('rows with a NULL key', result.columns, nullRows)],
      );
    });
  }

  if (result.rows.length === 1 && result.columns.length > 0 && result.rows[0]!.every((cell) => cell === null)) {
    add('all_null_row', `the only row is all NULL ${formatRow(result.rows[0]!)}: an aggregate over no rows tells a right answer from a wrong one no better than an empty result`, [sampleRows('the row', result.columns, result.rows)]);
  }

  if (orderMatters && ordering?.ordered === true && ordering.segments === undefined && ordering.tiesUnknownReason !== undefined) {
    add('ties_unchecked', `order matters but the tie groups are unknown (${ordering.tiesUnknownReason}); ties at the LIMIT and in the result were not checked`, []);
  }
  return found;
}

/**
 * Flags for an L4 verdict from the gold's results on the snapshots it was compared on: `empty_gold`
 * when a result has no rows, and the {@link GOLD_CHECK_KINDS} flag of every result finding.
 */
export function goldVerdictFlags(checks: readonly { readonly result: GoldRows; readonly findings: readonly GoldResultFinding[] }[]): string[] {
  const flags = new Set<string>();
  for (const { result, findings } of checks) {
    if (result.rows.length === 0) flags.add('empty_gold');
    for (const found of findings) {
      const flag = GOLD_CHECK_KINDS[found.kind].flag;
      if (flag !== undefined) flags.add(flag);
    }
  }
  return [...flags];
}

/** The gold without its outermost LIMIT / OFFSET, when it has a LIMIT and no ORDER BY there. */
export interface LimitCutPlan {
  /** The gold's text with the LIMIT clause removed. */
  readonly sql: string;
  /** The LIMIT clause as written. */
  readonly clause: string;
  /** Offset of the clause in the gold's text. */
  readonly start: number;
}

/**
 * Plans {@link checkLimitCut}: the gold's outermost LIMIT without ORDER BY, removed.
 * @returns `undefined` when the outermost query has no LIMIT, has ORDER BY, or cannot be read.
 * @example planLimitCut('SELECT name FROM t LIMIT 1') // { sql: 'SELECT name FROM t ', clause: 'LIMIT 1', start: 19 }
 */
export function planLimitCut(sql: string, parse?: SqliteParse): LimitCutPlan | undefined {
  const statement = parseSingleStatement(sql, parse);
  const outer = statement === undefined ? undefined : outerSelect(statement);
  if (outer === undefined || findClause(outer, 'order_by_clause') !== undefined) return undefined;
  const range = findClause(outer, 'limit_clause')?.range;
  if (range === undefined) return undefined;
  return { sql: sql.slice(0, range[0]) + sql.slice(range[1]), clause: sql.slice(range[0], range[1]), start: range[0] };
}

/**
 * The data side of `limit_without_order_by`: does the LIMIT drop rows that differ from those it
 * keeps on this snapshot?
 *
 * @param result - the gold's result.
 * @param full - the result of {@link planLimitCut}'s SQL on the same snapshot.
 * @returns one finding naming the rows kept and the rows left out, or `undefined` when the LIMIT
 *   drops nothing here, or every row is the same (any choice gives the same result).
 */
export function checkLimitCut(goldIndex: number, plan: LimitCutPlan, result: GoldRows, full: GoldRows): GoldResultFinding | undefined {
  if (full.rows.length <= result.rows.length) return undefined;
  // Any choice among identical rows is the same result.
  if (new Set(full.rows.map(rowKey)).size <= 1) return undefined;
  const leftOut = without(full.rows, result.rows);
  return {
    kind: 'limit_without_order_by',
    goldIndex,
    message: `${plan.clause} without ORDER BY keeps ${result.rows.length} of ${full.rows.length} rows in no defined order`,
    rows: [sampleRows('kept', result.columns, result.rows), sampleRows('left out', full.columns, leftOut)],
  };
}

/**
 * `same_on_every_snapshot`: one gold's results on two or more snapshots, all identical (same
 * cells by exact key; in order when order matters, else as multisets).
 *
 * @param results - the gold's result on each snapshot, in snapshot order.
 * @returns the finding, or `undefined` when fewer than two snapshots ran or any two results differ.
 */
export function checkSameOnEverySnapshot(goldIndex: number, snapshots: readonly string[], results: readonly GoldRows[], orderMatters: boolean): GoldResultFinding | undefined {
  if (results.length < 2) return undefined;
  const fingerprint = (result: GoldRows): string => {
    const keys = result.rows.map(rowKey);
    return `${result.columns.length}\u0002${(orderMatters ? keys : [...keys].sort()).join('\u0002')}`;
  };
  const first = fingerprint(results[0]!);
  if (!results.every((result) => fingerprint(result) === first)) return undefined;
  const shown = results[0]!;
  return {
    kind: 'same_on_every_snapshot',
    goldIndex,
    message: `${shown.rows.length === 0 ? 'returns no rows' : `returns the same ${counted(shown.rows.length, 'row')}`} on ${snapshots.join(', ')}: the extra snapshots add nothing for it`,
    rows: [sampleRows('on every snapshot', shown.columns, shown.rows)],
  };
}

/**
 * `gold_error` / `gold_timeout`: a gold that did not run on a snapshot.
 * @returns `undefined` when it ran.
 */
export function checkGoldRun(goldIndex: number, outcome: ExecutionOutcome): GoldResultFinding | undefined {
  if (outcome.ok) return undefined;
  const { code, message } = outcome.error;
  if (code === 'timeout') return { kind: 'gold_timeout', goldIndex, message: `gold ${goldIndex} ran past its deadline: ${message}`, rows: [] };
  return { kind: 'gold_error', goldIndex, message: `gold ${goldIndex} fails (${code}): ${message}`, rows: [] };
}

/**
 * `golds_disagree`: gold `goldIndex` judged against gold `referenceIndex` on one snapshot, as L4
 * judges a prediction (`checkExecution`, the item's policy and row order).
 *
 * @param verdict - the comparison (gold `goldIndex` as the prediction); `match: true` agrees.
 * @param columns - both golds' column names.
 * @returns `undefined` when they agree.
 */
export function checkGoldsAgree(
  goldIndex: number,
  referenceIndex: number,
  verdict: Verdict,
  columns: { readonly gold: readonly string[]; readonly predicted: readonly string[] },
): GoldResultFinding | undefined {
  if (verdict.match === true) return undefined;
  const how = verdict.match === 'undecided' ? 'cannot be told equal' : 'differs';
  return {
    kind: 'golds_disagree',
    goldIndex,
    message: `gold ${goldIndex} ${how} from gold ${referenceIndex}: ${verdict.reason}`,
    rows: [
      ...(verdict.missingRows.count > 0 ? [{ label: `only gold ${referenceIndex} returns`, columns: columns.gold, rows: verdict.missingRows.rows, count: verdict.missingRows.count }] : []),
      ...(verdict.extraRows.count > 0 ? [{ label: `only gold ${goldIndex} returns`, columns: columns.predicted, rows: verdict.extraRows.rows, count: verdict.extraRows.count }] : []),
    ],
  };
}
