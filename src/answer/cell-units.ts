/**
 * Which result columns already hold percentages (or per-mille values), so that L7 knows how a
 * stated `85%` may be compared with a cell: against 100·v for a fraction cell (0.8519), against v
 * only when the column is in percent units (85.19). Never both: with both readings, `0.85%` and
 * even `1%` would be grounded in 0.8519.
 *
 * Evidence that a column is in percent units (per-mille: the same with 1000 and `permille`):
 * - its name has a percent word: `pct`, `percent`, `percentage`, `pcnt` as a word of the name
 *   (`rate_pct`, `pctShipped`, `percent_of_total`; not `percentile`), or a `%` sign;
 * - its expression in the outermost select list multiplies by 100 (`100.0 * a / b`,
 *   `ROUND(x * 100, 1)`), directly or through the CTE / derived-table column it names
 *   (`WITH s AS (SELECT 100.0 * a / b AS share …) SELECT share FROM s`).
 *
 * Columns are matched to select-list items by position; after a `*` item positions are unknown and
 * only names count. SQL the AST layer cannot read gives name evidence only.
 */
import { parseSql, type Dialect, type ParseResult } from '../sql/parse.js';
import { children, child, identifierName, isSqlNode, listItems, type SqlNode } from '../sql/sql-tree.js';

/** The unit of a column's values: 1 (plain numbers, fractions), 100 (percent), 1000 (per mille). */
export type CellUnit = 1 | 100 | 1000;

/** Input of {@link resultColumnUnits}. */
export interface ColumnUnitsInput {
  /** Column names of the result, by position. */
  readonly columns?: readonly string[];
  /** The SQL that produced the result. */
  readonly sql?: string;
  /** Dialect of `sql` (default `sqlite`). */
  readonly dialect?: Dialect;
  /** The parser to read `sql` with (default `parseSql`; the ladder passes its item's parse memo). */
  readonly parse?: (sql: string) => ParseResult;
}

const PERCENT_WORDS = new Set(['pct', 'percent', 'percentage', 'pcnt']);
const PER_MILLE_WORDS = new Set(['permille', 'promille']);

/**
 * The unit of each result column (see the module doc).
 *
 * @returns one {@link CellUnit} per column of `columns` (or per select-list item when no names are
 *   given); `[]` when neither is known.
 * @example
 * resultColumnUnits({ columns: ['region', 'share'], sql: 'SELECT region, 100.0 * a / b AS share FROM t' }) // [1, 100]
 * resultColumnUnits({ columns: ['rate_pct'] }) // [100]
 */
export function resultColumnUnits(input: ColumnUnitsInput): CellUnit[] {
  const dialect = input.dialect ?? 'sqlite';
  const fromSql = input.sql === undefined ? [] : expressionUnits(input.sql, input.parse ?? ((text) => parseSql(text, dialect)));
  const width = input.columns?.length ?? fromSql.length;
  const units: CellUnit[] = [];
  for (let column = 0; column < width; column += 1) {
    const name = input.columns?.[column];
    units.push((name !== undefined ? nameUnit(name) : undefined) ?? fromSql[column] ?? 1);
  }
  return units;
}

/** The unit a column name states, or `undefined` when it states none. */
export function nameUnit(name: string): CellUnit | undefined {
  if (name.includes('\u2030')) return 1000;
  if (name.includes('%')) return 100;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  if (words.some((word) => PER_MILLE_WORDS.has(word)) || /per_?mille/.test(name.toLowerCase())) return 1000;
  if (words.some((word) => PERCENT_WORDS.has(word))) return 100;
  return undefined;
}

/** Units from the outermost select list, by position (`undefined` for positions after a `*`). */
function expressionUnits(sql: string, parse: (sql: string) => ParseResult): (CellUnit | undefined)[] {
  const parsed = parse(sql);
  if (!parsed.ok || parsed.kind !== 'cst') return [];
  const statement = parsed.program.statements.find((candidate) => candidate.type !== 'empty') as unknown as SqlNode | undefined;
  const outer = statement ? leftmostSelect(statement) : undefined;
  if (!outer) return [];
  const named = namedExpressions(statement!);
  const items = listItems(child(selectClause(outer) ?? { type: 'none' }, 'columns'));
  const units: (CellUnit | undefined)[] = [];
  for (const item of items) {
    if (item.type === 'all_columns' || (item.type === 'member_expr' && child(item, 'property')?.type === 'all_columns')) break;
    const expr = item.type === 'alias' ? child(item, 'expr') : item;
    units.push(expr ? unitOf(expr, named, new Set()) : 1);
  }
  return units;
}

/** 100 or 1000 when the expression multiplies by it (or names a CTE / derived column that does). */
function unitOf(expr: SqlNode, named: ReadonlyMap<string, readonly SqlNode[]>, seen: Set<string>): CellUnit {
  if (multipliesBy(expr, 1000)) return 1000;
  if (multipliesBy(expr, 100)) return 100;
  const name = identifierName(expr.type === 'member_expr' ? child(expr, 'property') : expr);
  if (name === undefined || seen.has(name)) return 1;
  seen.add(name);
  for (const inner of named.get(name) ?? []) {
    const unit = unitOf(inner, named, seen);
    if (unit !== 1) return unit;
  }
  return 1;
}

function multipliesBy(node: SqlNode, factor: number): boolean {
  if (node.type === 'binary_expr' && node['operator'] === '*') {
    const sides = [child(node, 'left'), child(node, 'right')];
    if (sides.some((side) => side?.type === 'number_literal' && side['value'] === factor)) return true;
  }
  if (node.type === 'select_stmt' || node.type === 'compound_select_stmt') return false;
  for (const value of Object.values(node)) {
    if (isSqlNode(value) && multipliesBy(value, factor)) return true;
    if (Array.isArray(value) && value.some((entry) => isSqlNode(entry) && multipliesBy(entry, factor))) return true;
  }
  return false;
}

/** Every aliased select-list expression of the statement, by lower-cased alias (CTEs, derived tables). */
function namedExpressions(statement: SqlNode): Map<string, SqlNode[]> {
  const named = new Map<string, SqlNode[]>();
  const visit = (node: SqlNode): void => {
    if (node.type === 'select_clause') {
      for (const item of listItems(child(node, 'columns'))) {
        const alias = identifierName(child(item, 'alias'));
        const expr = child(item, 'expr');
        if (item.type === 'alias' && alias !== undefined && expr) named.set(alias, [...(named.get(alias) ?? []), expr]);
      }
    }
    for (const value of Object.values(node)) {
      if (isSqlNode(value)) visit(value);
      else if (Array.isArray(value)) for (const entry of value) if (isSqlNode(entry)) visit(entry);
    }
  };
  visit(statement);
  return named;
}

function leftmostSelect(node: SqlNode): SqlNode | undefined {
  let current: SqlNode | undefined = node;
  while (current && current.type !== 'select_stmt') {
    if (current.type === 'compound_select_stmt') current = child(current, 'left');
    else if (current.type === 'paren_expr') current = child(current, 'expr');
    else return undefined;
  }
  const body = current ? children(current, 'clauses').find((clause) => clause.type === 'paren_expr') : undefined;
  return body ? leftmostSelect(child(body, 'expr')!) : current;
}

function selectClause(select: SqlNode): SqlNode | undefined {
  return children(select, 'clauses').find((clause) => clause.type === 'select_clause');
}
