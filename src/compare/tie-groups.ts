/**
 * Tie groups of an ordered gold: rows tied on the gold's sort keys may come in any order, and a
 * LIMIT / OFFSET that cuts through a tie group makes the gold nondeterministic (any valid tie
 * choice is accepted).
 *
 * Sort keys are often not among the selected columns (79 of 96 ordered golds in the shared Spider
 * slice), so the tie groups come from running the gold with its sort keys appended as hidden
 * columns and its LIMIT removed. The SQL is built from the source ranges of the outermost query
 * (outer-query-tree.ts: read from the tokens or the parse tree; never by
 * regex):
 * - a key that is an ordinal (`ORDER BY 2`) or the same expression as a selected column is read
 *   from the visible column;
 * - a key that names a select-list alias is replaced by the aliased expression;
 * - any other key is appended as an extra column after the select list.
 * A `DISTINCT` select with a key outside the select list, a compound select whose key is not a
 * result column, or a LIMIT that is not a literal leave the groups unknown (order is then checked
 * row by row and the verdict flags `ties_unknown`).
 */
import type { Engine, QueryResult, Row } from '../engine/engine.js';
import { cellKey } from './cell-key.js';
import {
  detectOuterOrderBy,
  textHasOrderBy,
  type GoldOrdering,
  type SortKeyFacts,
  type SortKeySpec,
  type TieSegment,
} from './gold-ordering.js';
import { readOuterQuery, type SqliteParse } from './outer-query-tree.js';
import type { ComparisonPolicy } from './policy.js';
import type { SourceRange } from '../sql/outer-query.js';
import type { Dialect } from '../sql/parse.js';

/** Where a sort key's value is read: a visible result column or an appended hidden one. */
export type SortKeyRef = { readonly visible: number } | { readonly hidden: number };

/** The plan to find tie groups for one gold. */
export type TiePlan =
  | { readonly kind: 'unordered' }
  /** Ties cannot be found; `reason` says why. */
  | { readonly kind: 'unknown'; readonly reason: string }
  | {
      readonly kind: 'ordered';
      readonly keys: readonly SortKeyRef[];
      /** The ORDER BY terms as written, one per key. */
      readonly specs: readonly SortKeySpec[];
      /** Expressions appended after the select list (source text), in `hidden` index order. */
      readonly hiddenExpressions: readonly string[];
      /** The SQL to run for the full ordered rows with hidden keys, or `null` when the gold result itself suffices. */
      readonly sql: string | null;
      /** LIMIT count (−1 = none) and OFFSET of the gold's outermost query. */
      readonly limit: number;
      readonly offset: number;
    };

/**
 * Plans the tie query for a gold whose outermost query has ORDER BY.
 * @param goldSql - the gold SQL as it will run.
 * @param visibleColumns - the gold result's column names (their count places hidden keys).
 * @example
 * planTieQuery('SELECT name FROM t ORDER BY age LIMIT 2', ['name'])
 * // { kind: 'ordered', keys: [{ hidden: 0 }], hiddenExpressions: ['age'], sql: 'SELECT name, age FROM t ORDER BY age ', limit: 2, offset: 0 }
 */
export function planTieQuery(goldSql: string, visibleColumns: readonly string[], parse?: SqliteParse, dialect: Dialect = 'sqlite'): TiePlan {
  const read = readOuterQuery(goldSql, parse, dialect);
  if (read.kind === 'unreadable') return { kind: 'unknown', reason: 'the AST layer cannot read the gold' };
  if (read.kind === 'unsupported') return { kind: 'unknown', reason: `unsupported statement ${read.statementType}` };
  const { compound, selectList, orderBy, limit: limitClause } = read.query;
  if (orderBy === null) return { kind: 'unordered' };
  if (selectList === undefined) return { kind: 'unknown', reason: 'no select list' };
  const distinct = selectList.distinct;
  const text = (range: SourceRange): string => goldSql.slice(range[0], range[1]);
  const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

  // Visible position of each select item, valid only until the first `*` (which expands).
  const itemInfo: { alias?: string; exprText: string; aliasExpr?: SourceRange; position: number | null }[] = [];
  let starSeen = false;
  selectList.items.forEach((item, index) => {
    if (item.star) starSeen = true;
    const position = starSeen ? null : index;
    if (item.alias !== undefined) itemInfo.push({ alias: item.alias.toLowerCase(), exprText: norm(text(item.expr)), aliasExpr: item.expr, position });
    else itemInfo.push({ exprText: norm(text(item.expr)), position });
  });

  const keys: SortKeyRef[] = [];
  const hidden: string[] = [];
  const keySpecs: SortKeySpec[] = orderBy.map((spec) => ({ text: text(spec.expr), descending: spec.descending, nulls: spec.nulls }));
  for (const spec of orderBy) {
    if (spec.ordinal !== undefined) {
      const k = spec.ordinal;
      if (k < 1 || k > visibleColumns.length) return { kind: 'unknown', reason: `ORDER BY ${k} is out of range` };
      keys.push({ visible: k - 1 });
      continue;
    }
    const keyText = norm(text(spec.expr));
    if (spec.identifier !== undefined) {
      const name = spec.identifier.toLowerCase();
      const aliased = itemInfo.find((info) => info.alias === name);
      if (aliased !== undefined) {
        if (aliased.position !== null) keys.push({ visible: aliased.position });
        else if (compound || distinct || aliased.aliasExpr === undefined) return { kind: 'unknown', reason: `sort key ${name} is an alias after *` };
        else {
          keys.push({ hidden: hidden.length });
          hidden.push(text(aliased.aliasExpr));
        }
        continue;
      }
      if (compound) {
        const position = visibleColumns.findIndex((column) => column.toLowerCase() === name);
        if (position >= 0) {
          keys.push({ visible: position });
          continue;
        }
      }
    }
    const same = itemInfo.find((info) => info.position !== null && info.exprText === keyText);
    if (same !== undefined && same.position !== null) {
      keys.push({ visible: same.position });
      continue;
    }
    if (compound) return { kind: 'unknown', reason: `sort key ${keyText} of a compound select is not a result column` };
    if (distinct) return { kind: 'unknown', reason: `DISTINCT with sort key ${keyText} outside the select list` };
    keys.push({ hidden: hidden.length });
    hidden.push(text(spec.expr));
  }

  let limit = -1;
  let offset = 0;
  if (limitClause !== null) {
    const { count, offset: off } = limitClause;
    if (count === 'other' || off === 'other') return { kind: 'unknown', reason: 'LIMIT / OFFSET is not an integer literal' };
    limit = count === 'absent' || count < 0 ? -1 : count;
    offset = off === 'absent' ? 0 : Math.max(0, off);
  }
  if (hidden.length === 0 && limitClause === null) {
    return { kind: 'ordered', keys, specs: keySpecs, hiddenExpressions: hidden, sql: null, limit, offset };
  }
  // Build: select list + hidden keys, LIMIT removed (the limit clause ends the statement).
  const insertAt = selectList.end;
  const cutFrom = limitClause?.range[0] ?? goldSql.length;
  const cutTo = limitClause?.range[1] ?? goldSql.length;
  let sql: string;
  if (hidden.length > 0) {
    sql = goldSql.slice(0, insertAt) + ', ' + hidden.join(', ') + goldSql.slice(insertAt, cutFrom) + goldSql.slice(cutTo);
  } else {
    sql = goldSql.slice(0, cutFrom) + goldSql.slice(cutTo);
  }
  return { kind: 'ordered', keys, specs: keySpecs, hiddenExpressions: hidden, sql, limit, offset };
}

/**
 * Tie segments of the gold result from the full ordered rows (visible columns then hidden keys).
 *
 * @param fullRows - every row of the gold without LIMIT, in order, hidden keys appended.
 * @param goldRows - the gold result's rows (the window `[offset, offset + goldRows.length)`).
 * @returns segments covering the gold positions, and whether a cut group has differing rows; or
 *   `null` when the full rows do not agree with the gold result.
 */
export function tieSegmentsFrom(
  fullRows: readonly Row[],
  goldRows: readonly Row[],
  visibleCount: number,
  keys: readonly SortKeyRef[],
  offset: number,
): { segments: TieSegment[]; nondeterministic: boolean } | null {
  const start = offset;
  const end = offset + goldRows.length;
  if (end > fullRows.length) return null;
  const keyOf = (row: Row): string =>
    keys.map((key) => cellKey(row['visible' in key ? key.visible : visibleCount + key.hidden]!)).join('\u0001');
  const visible = (row: Row): Row => row.slice(0, visibleCount);
  const rowKey = (row: Row): string => row.map(cellKey).join('\u0001');
  const segments: TieSegment[] = [];
  let nondeterministic = false;
  let groupStart = 0;
  for (let i = 1; i <= fullRows.length; i += 1) {
    if (i < fullRows.length && keyOf(fullRows[i]!) === keyOf(fullRows[groupStart]!)) continue;
    const groupEnd = i;
    const s = Math.max(groupStart, start);
    const e = Math.min(groupEnd, end);
    if (s < e) {
      const cut = e - s < groupEnd - groupStart;
      const pool = cut ? fullRows.slice(groupStart, groupEnd).map(visible) : goldRows.slice(s - start, e - start);
      if (cut && !isSubMultiset(goldRows.slice(s - start, e - start), pool, rowKey)) return null;
      if (cut && new Set(pool.map(rowKey)).size > 1) nondeterministic = true;
      segments.push({ start: s - start, end: e - start, pool });
    }
    groupStart = i;
  }
  if (goldRows.length === 0) return { segments: [], nondeterministic: false };
  // Uncut groups: the gold rows must be those of the full rows at the same positions.
  for (const segment of segments) {
    if (segment.pool.length !== segment.end - segment.start) continue;
    const expected = fullRows.slice(start + segment.start, start + segment.end).map(visible);
    if (!isSubMultiset(segment.pool, expected, rowKey)) return null;
  }
  return { segments, nondeterministic };
}

/**
 * The sort key values of the gold's rows and the NULL counts of the keys over the full rows.
 *
 * @param fullRows - every row of the gold without LIMIT, in order, hidden keys appended.
 * @param window - the gold's positions in `fullRows`: `[offset, offset + count)`.
 * @returns key values per gold position (key values are shared within a tie group, so the full
 *   rows' values at the same positions are the gold rows' values).
 */
export function sortKeyFactsFrom(
  fullRows: readonly Row[],
  window: { readonly offset: number; readonly count: number },
  visibleCount: number,
  keys: readonly SortKeyRef[],
  specs: readonly SortKeySpec[],
): SortKeyFacts {
  const keyCells = (row: Row): Row => keys.map((key) => row['visible' in key ? key.visible : visibleCount + key.hidden]!);
  const all = fullRows.map(keyCells);
  return {
    specs,
    values: all.slice(window.offset, window.offset + window.count),
    fullCount: fullRows.length,
    nullCounts: keys.map((_, k) => all.filter((cells) => cells[k] === null).length),
  };
}

function isSubMultiset(rows: readonly Row[], pool: readonly Row[], key: (row: Row) => string): boolean {
  const counts = new Map<string, number>();
  for (const row of pool) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
  for (const row of rows) {
    const k = key(row);
    const left = counts.get(k) ?? 0;
    if (left === 0) return false;
    counts.set(k, left - 1);
  }
  return true;
}

/** Inputs of {@link resolveGoldOrdering}. */
export interface GoldOrderingInput {
  readonly engine: Engine;
  /** Database (snapshot) path the gold ran on. */
  readonly db: string;
  /** The gold SQL exactly as it ran. */
  readonly goldSql: string;
  readonly goldResult: QueryResult;
  readonly policy: ComparisonPolicy;
  /** Deadline for the tie query, ms (engine default when absent). */
  readonly timeoutMs?: number;
  /** The parser to read the gold with (default `parseSql(sql, dialect)`; the ladder passes its item's memo). */
  readonly parse?: SqliteParse;
  /**
   * The gold's dialect, which its ORDER BY is read in (default `sqlite`): the fixture's, as the
   * engine that ran it (`engine.dialect`). NULLs sort where that engine put them: the tie groups
   * come from its own rows.
   */
  readonly dialect?: Dialect;
}

/**
 * Decides the gold's ordering under the policy, running the tie query when the policy is
 * tie-aware and the gold is ordered. Never throws for the gold's own faults: a failing tie query
 * gives `tiesUnknownReason`.
 */
export async function resolveGoldOrdering(input: GoldOrderingInput): Promise<GoldOrdering> {
  const { policy, goldSql, goldResult } = input;
  if (policy.rowOrder === 'ignore') return { ordered: false, source: 'policy' };
  if (policy.rowOrder === 'gold-text-order-by') return { ordered: textHasOrderBy(goldSql), source: 'text' };
  const dialect = input.dialect ?? 'sqlite';
  const detected = detectOuterOrderBy(goldSql, input.parse, dialect);
  if (!detected.ordered) return { ordered: false, source: detected.source };
  if (!policy.tieAware) return { ordered: true, source: detected.source };
  if (detected.source === 'token-scan') {
    return { ordered: true, source: 'token-scan', tiesUnknownReason: 'the AST layer cannot read the gold' };
  }
  const plan = planTieQuery(goldSql, goldResult.columns, input.parse, dialect);
  if (plan.kind === 'unordered') return { ordered: false, source: 'ast' };
  if (plan.kind === 'unknown') return { ordered: true, source: 'ast', tiesUnknownReason: plan.reason };
  let fullRows: readonly Row[] = goldResult.rows;
  if (plan.sql !== null) {
    const outcome = await input.engine.execute({
      db: input.db,
      sql: plan.sql,
      ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    });
    if (!outcome.ok) {
      const transient = outcome.error.code === 'timeout' || outcome.error.code === 'memory_limit' || outcome.error.code === 'engine_failure';
      return { ordered: true, source: 'ast', tiesUnknownReason: `tie query failed: ${outcome.error.message}`, ...(transient ? { transient } : {}) };
    }
    fullRows = outcome.result.rows;
  }
  const ties = tieSegmentsFrom(fullRows, goldResult.rows, goldResult.columns.length, plan.keys, plan.sql === null ? 0 : plan.offset);
  if (ties === null) return { ordered: true, source: 'ast', tiesUnknownReason: 'tie query rows disagree with the gold result' };
  const offset = plan.sql === null ? 0 : plan.offset;
  const sortKeys = sortKeyFactsFrom(fullRows, { offset, count: goldResult.rows.length }, goldResult.columns.length, plan.keys, plan.specs);
  return { ordered: true, source: 'ast', segments: ties.segments, nondeterministic: ties.nondeterministic, sortKeys };
}
