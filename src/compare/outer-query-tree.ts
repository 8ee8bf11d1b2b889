/**
 * The outermost query of a gold, read from its sql-parser-cst tree or, when they decide it, from
 * its SQLite tokens (sql/outer-query.ts): what row order and tie groups need (the first member's
 * select list, the trailing ORDER BY and LIMIT). Both readers give the same {@link OuterQuery};
 * the token reader answers most golds without loading the parser.
 */
import { parseSql } from '../sql/parse.js';
import type { Dialect, ParseResult } from '../sql/parse.js';
import { readOuterQueryFromTokens, type LimitOperand, type OuterQuery, type OuterSelectItem, type OuterSortKey, type SourceRange } from '../sql/outer-query.js';
import { BoundedMap } from '../bounded-map.js';

/**
 * A parser for the gold's dialect (default `parseSql(sql, dialect)`; the ladder passes its item's
 * parse memo). Named for SQLite, the first dialect; any dialect's parser fits.
 */
export type SqliteParse = (sql: string) => ParseResult;

/** A loose view of sql-parser-cst nodes (only the fields this layer reads). */
export interface CstNode {
  readonly type: string;
  readonly range?: [number, number];
  readonly [key: string]: unknown;
}

/**
 * What {@link readOuterQuery} found: the outermost query; `unreadable` when the tree cannot be read
 * (a syntax error, a budget, more than one statement); `unsupported` when the statement is not a
 * SELECT (its tree type is given).
 */
export type OuterQueryRead =
  | { readonly kind: 'query'; readonly query: OuterQuery }
  | { readonly kind: 'unreadable' }
  | { readonly kind: 'unsupported'; readonly statementType: string };

/**
 * The outermost query of one statement in `dialect` (default `sqlite`): for SQLite from its tokens
 * when they decide it, else from the parse tree (`parse`, default `parseSql(sql, dialect)`); other
 * dialects always from the tree (the token reader knows SQLite's tokens only). Results of recent
 * texts are kept (the same gold is read for its order and for its tie query, and for each provider).
 * @param sql - the gold as it runs (the engine accepted it; see `readOuterQueryFromTokens`).
 */
export function readOuterQuery(sql: string, parse?: SqliteParse, dialect: Dialect = 'sqlite'): OuterQueryRead {
  if (dialect === 'sqlite') {
    const fromTokens = outerQueryFromTokens(sql);
    if (fromTokens !== undefined) return { kind: 'query', query: fromTokens };
  }
  return readOuterQueryFromTree(sql, parse ?? ((text) => parseSql(text, dialect)));
}

/** {@link readOuterQuery} from the parse tree only (the reference the token reader must agree with). */
export function readOuterQueryFromTree(sql: string, parse?: SqliteParse): OuterQueryRead {
  const statement = parseSingleStatement(sql, parse);
  if (statement === undefined) return { kind: 'unreadable' };
  const query = outerQueryFromTree(statement);
  return query === undefined ? { kind: 'unsupported', statementType: statement.type } : { kind: 'query', query };
}

/**
 * Whether the tokens decide `sql`'s outermost query (so no parse is needed for its order or ties).
 * @example tokensDecideOuterQuery('SELECT a FROM t ORDER BY a') // true
 * @example tokensDecideOuterQuery('WITH c AS (SELECT 1) SELECT * FROM c ORDER BY 1') // false
 */
export function tokensDecideOuterQuery(sql: string): boolean {
  return outerQueryFromTokens(sql) !== undefined;
}

const recentReads = new BoundedMap<string, OuterQuery | null>(256);

function outerQueryFromTokens(sql: string): OuterQuery | undefined {
  const known = recentReads.get(sql);
  if (known !== undefined) return known ?? undefined;
  const query = readOuterQueryFromTokens(sql);
  recentReads.set(sql, query === undefined ? null : Object.freeze(query));
  return query;
}

/**
 * Parses one SQLite statement with the AST layer; `undefined` when it cannot be read or holds more
 * than one statement (empty statements after a trailing `;` are ignored).
 */
export function parseSingleStatement(sql: string, parse: SqliteParse = (text) => parseSql(text, 'sqlite')): CstNode | undefined {
  const parsed = parse(sql);
  if (!parsed.ok || parsed.kind !== 'cst') return undefined;
  const statements = (parsed.program.statements as unknown as CstNode[]).filter((s) => s.type !== 'empty');
  return statements.length === 1 ? statements[0] : undefined;
}

/**
 * The select_stmt whose clauses hold the outermost ORDER BY / LIMIT: the statement itself, or the
 * right-most member of a compound select.
 */
export function outerSelect(node: CstNode): CstNode | undefined {
  let current: CstNode | undefined = node;
  while (current !== undefined && current.type === 'compound_select_stmt') current = current['right'] as CstNode | undefined;
  return current?.type === 'select_stmt' ? current : undefined;
}

/** The left-most select_stmt of a compound select (the statement itself when it is not one). */
export function leftMostSelect(node: CstNode): CstNode | undefined {
  let current: CstNode | undefined = node;
  while (current !== undefined && current.type === 'compound_select_stmt') current = current['left'] as CstNode | undefined;
  return current?.type === 'select_stmt' ? current : undefined;
}

/** The first clause of `type` among a select_stmt's own clauses. */
export function findClause(select: CstNode, type: string): CstNode | undefined {
  const clauses = (select['clauses'] as CstNode[] | undefined) ?? [];
  return clauses.find((clause) => clause.type === type);
}

/** The {@link OuterQuery} of a parsed statement; `undefined` when its outermost query is not a select_stmt. */
export function outerQueryFromTree(statement: CstNode): OuterQuery | undefined {
  const outer = outerSelect(statement);
  if (outer === undefined) return undefined;
  const compound = statement.type === 'compound_select_stmt';
  const first = compound ? leftMostSelect(statement) : outer;
  const selectClause = first === undefined ? undefined : findClause(first, 'select_clause');
  const orderBy = findClause(outer, 'order_by_clause');
  // PostgreSQL's `OFFSET n` alone and `FETCH FIRST n ROWS` are clauses of their own: a cut the tie
  // query does not rebuild, so they read as a LIMIT that is no literal (ties unknown).
  const cut = findClause(outer, 'offset_clause') ?? findClause(outer, 'fetch_clause');
  const limit = findClause(outer, 'limit_clause');
  if (cut !== undefined) {
    return {
      compound,
      ...(selectClause === undefined ? {} : { selectList: selectListOf(selectClause) }),
      orderBy: orderBy === undefined ? null : ((((orderBy['specifications'] as CstNode | undefined)?.['items'] as CstNode[] | undefined) ?? []).map(sortKeyOf)),
      limit: { range: rangeOf(cut), count: 'other', offset: 'other' },
    };
  }
  return {
    compound,
    ...(selectClause === undefined ? {} : { selectList: selectListOf(selectClause) }),
    orderBy: orderBy === undefined ? null : ((((orderBy['specifications'] as CstNode | undefined)?.['items'] as CstNode[] | undefined) ?? []).map(sortKeyOf)),
    limit:
      limit === undefined
        ? null
        : { range: rangeOf(limit), count: limitOperand(limit['count'] as CstNode | undefined), offset: limitOperand(limit['offset'] as CstNode | undefined) },
  };
}

function rangeOf(node: CstNode): SourceRange {
  return node.range ?? [0, 0];
}

function selectListOf(selectClause: CstNode): NonNullable<OuterQuery['selectList']> {
  const columns = selectClause['columns'] as CstNode | undefined;
  const nodes = (columns?.['items'] as CstNode[] | undefined) ?? [];
  const items = nodes.map((item): OuterSelectItem => {
    const star = item.type === 'all_columns' || (item.type === 'member_expr' && (item['property'] as CstNode | undefined)?.type === 'all_columns');
    if (item.type !== 'alias') return { expr: rangeOf(item), star };
    const alias = item['alias'] as CstNode;
    return { expr: rangeOf(item['expr'] as CstNode), alias: String(alias['name'] ?? alias['text']), star };
  });
  const distinct = ((selectClause['modifiers'] as CstNode[] | undefined) ?? []).some((m) => m.type === 'select_distinct');
  return { distinct, items, end: columns?.range?.[1] ?? 0 };
}

function sortKeyOf(spec: CstNode): OuterSortKey {
  const isSpec = spec.type === 'sort_specification';
  const expr = isSpec ? (spec['expr'] as CstNode) : spec;
  const direction = isSpec ? (spec['direction'] as CstNode | undefined) : undefined;
  const nullsWord = isSpec ? (spec['nullHandlingKw'] as CstNode[] | undefined)?.[1] : undefined;
  const placement = typeof nullsWord?.['name'] === 'string' ? (nullsWord['name'] as string).toLowerCase() : undefined;
  return {
    expr: rangeOf(expr),
    ...(expr.type === 'number_literal' && Number.isInteger(expr['value']) ? { ordinal: Number(expr['value']) } : {}),
    ...(expr.type === 'identifier' ? { identifier: String(expr['name'] ?? expr['text']) } : {}),
    descending: direction?.type === 'sort_direction_desc',
    nulls: placement === 'first' || placement === 'last' ? placement : null,
  };
}

function limitOperand(node: CstNode | undefined): LimitOperand {
  if (node === undefined) return 'absent';
  return node.type === 'number_literal' && Number.isInteger(node['value']) ? Number(node['value']) : 'other';
}
