/**
 * Tie groups of an ordered gold: rows tied on the gold's sort keys may come in any order, and a
 * LIMIT / OFFSET that cuts through a tie group makes the gold nondeterministic (any valid tie
 * choice is accepted).
 *
 * Sort keys are often not among the selected columns (79 of 96 ordered golds in the shared Spider
 * slice), so the tie groups come from running the gold with its sort keys appended as hidden
 * columns and its LIMIT removed. The SQL is built from the parse tree's source ranges (never by
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
  findClause,
  outerSelect,
  parseSingleStatement,
  textHasOrderBy,
  type CstNode,
  type GoldOrdering,
  type SortKeyFacts,
  type SortKeySpec,
  type SqliteParse,
  type TieSegment,
} from './gold-ordering.js';
import type { ComparisonPolicy } from './policy.js';

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
export function planTieQuery(goldSql: string, visibleColumns: readonly string[], parse?: SqliteParse): TiePlan {
  const statement = parseSingleStatement(goldSql, parse);
  if (statement === undefined) return { kind: 'unknown', reason: 'the AST layer cannot read the gold' };
  const outer = outerSelect(statement);
  if (outer === undefined) return { kind: 'unknown', reason: `unsupported statement ${statement.type}` };
  const orderBy = findClause(outer, 'order_by_clause');
  if (orderBy === undefined) return { kind: 'unordered' };
  const compound = statement.type === 'compound_select_stmt';
  const firstSelect = compound ? leftMost(statement) : outer;
  const selectClause = firstSelect === undefined ? undefined : findClause(firstSelect, 'select_clause');
  if (selectClause === undefined) return { kind: 'unknown', reason: 'no select list' };
  const items = (((selectClause['columns'] as CstNode | undefined)?.['items'] as CstNode[] | undefined) ?? []);
  const distinct = ((selectClause['modifiers'] as CstNode[] | undefined) ?? []).some((m) => m.type === 'select_distinct');
  const text = (node: CstNode): string => (node.range ? goldSql.slice(node.range[0], node.range[1]) : '');
  const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

  // Visible position of each select item, valid only until the first `*` (which expands).
  const itemInfo: { alias?: string; exprText: string; aliasExpr?: CstNode; position: number | null }[] = [];
  let starSeen = false;
  items.forEach((item, index) => {
    const isStar = item.type === 'all_columns' || (item.type === 'member_expr' && (item['property'] as CstNode | undefined)?.type === 'all_columns');
    if (isStar) starSeen = true;
    const position = starSeen ? null : index;
    if (item.type === 'alias') {
      const aliasNode = item['alias'] as CstNode;
      const expr = item['expr'] as CstNode;
      itemInfo.push({ alias: String(aliasNode['name'] ?? aliasNode['text']).toLowerCase(), exprText: norm(text(expr)), aliasExpr: expr, position });
    } else {
      itemInfo.push({ exprText: norm(text(item)), position });
    }
  });

  const specs = (((orderBy['specifications'] as CstNode | undefined)?.['items'] as CstNode[] | undefined) ?? []);
  const keys: SortKeyRef[] = [];
  const hidden: string[] = [];
  const keySpecs: SortKeySpec[] = specs.map((spec) => sortKeySpec(spec, text));
  for (const spec of specs) {
    const expr = spec.type === 'sort_specification' ? (spec['expr'] as CstNode) : spec;
    if (expr.type === 'number_literal' && Number.isInteger(expr['value'])) {
      const k = Number(expr['value']);
      if (k < 1 || k > visibleColumns.length) return { kind: 'unknown', reason: `ORDER BY ${k} is out of range` };
      keys.push({ visible: k - 1 });
      continue;
    }
    const keyText = norm(text(expr));
    if (expr.type === 'identifier') {
      const name = String(expr['name'] ?? expr['text']).toLowerCase();
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
    hidden.push(text(expr));
  }

  const limitClause = findClause(outer, 'limit_clause');
  let limit = -1;
  let offset = 0;
  if (limitClause !== undefined) {
    const count = limitClause['count'] as CstNode | undefined;
    const off = limitClause['offset'] as CstNode | undefined;
    const literal = (node: CstNode | undefined): number | undefined =>
      node === undefined ? 0 : node.type === 'number_literal' && Number.isInteger(node['value']) ? Number(node['value']) : undefined;
    const c = literal(count);
    const o = literal(off);
    if (c === undefined || o === undefined) return { kind: 'unknown', reason: 'LIMIT / OFFSET is not an integer literal' };
    limit = count === undefined ? -1 : c < 0 ? -1 : c;
    offset = Math.max(0, o);
  }
  if (hidden.length === 0 && limitClause === undefined) {
    return { kind: 'ordered', keys, specs: keySpecs, hiddenExpressions: hidden, sql: null, limit, offset };
  }
  // Build: select list + hidden keys, LIMIT removed (the limit clause ends the statement).
  const columnsNode = selectClause['columns'] as CstNode;
  const insertAt = columnsNode.range![1];
  const cutFrom = limitClause?.range?.[0] ?? goldSql.length;
  const cutTo = limitClause?.range?.[1] ?? goldSql.length;
  let sql: string;
  if (hidden.length > 0) {
    sql = goldSql.slice(0, insertAt) + ', ' + hidden.join(', ') + goldSql.slice(insertAt, cutFrom) + goldSql.slice(cutTo);
  } else {
    sql = goldSql.slice(0, cutFrom) + goldSql.slice(cutTo);
  }
  return { kind: 'ordered', keys, specs: keySpecs, hiddenExpressions: hidden, sql, limit, offset };
}

/** One ORDER BY term: its text, direction and any `NULLS FIRST` / `NULLS LAST`. */
function sortKeySpec(spec: CstNode, text: (node: CstNode) => string): SortKeySpec {
  if (spec.type !== 'sort_specification') return { text: text(spec), descending: false, nulls: null };
  const direction = spec['direction'] as CstNode | undefined;
  const nulls = (spec['nullHandlingKw'] as CstNode[] | undefined)?.[1];
  const placement = typeof nulls?.['name'] === 'string' ? (nulls['name'] as string).toLowerCase() : undefined;
  return {
    text: text(spec['expr'] as CstNode),
    descending: direction?.type === 'sort_direction_desc',
    nulls: placement === 'first' || placement === 'last' ? placement : null,
  };
}

function leftMost(node: CstNode): CstNode | undefined {
  let current: CstNode | undefined = node;
  while (current !== undefined && current.type === 'compound_select_stmt') current = current['left'] as CstNode | undefined;
  return current?.type === 'select_stmt' ? current : undefined;
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
  /** The parser to read the gold with (default `parseSql(sql, 'sqlite')`; the ladder passes its item's memo). */
  readonly parse?: SqliteParse;
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
  const detected = detectOuterOrderBy(goldSql, input.parse);
  if (!detected.ordered) return { ordered: false, source: detected.source };
  if (!policy.tieAware) return { ordered: true, source: detected.source };
  if (detected.source === 'token-scan') {
    return { ordered: true, source: 'token-scan', tiesUnknownReason: 'the AST layer cannot read the gold' };
  }
  const plan = planTieQuery(goldSql, goldResult.columns, input.parse);
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
