/**
 * Neighbour queries of a gold: near-misses a model could plausibly write, each one edit away from
 * the gold. A test suite is good when it tells the gold apart from every neighbour that is not
 * equivalent to it (Zhong, Yu & Klein, "Semantic Evaluation for Text-to-SQL with Distilled Test
 * Suites", EMNLP 2020, §3: drop any span of tokens; replace a token with another of its family —
 * aggregates, comparison operators, AND/OR, ASC/DESC, LIKE/NOT LIKE, IN/NOT IN, arithmetic
 * operators, column names; perturb literals: integers ±1 and random in ±(|v|+1), floats ±0.1,
 * strings by substrings and `%`). Added here, from the same idea: dropping whole predicates, join
 * conditions, clauses and list items (spans longer than a few tokens), LEFT ↔ INNER join, adding
 * DISTINCT, LIMIT k ± 1, a column swapped only for another column of the same table, changing case
 * of string literals, IS NULL ↔ IS NOT NULL, EXISTS ↔ NOT EXISTS, BETWEEN ↔ NOT BETWEEN, and a
 * DESC added to an ORDER BY key that has no direction.
 *
 * Edits are computed on the shared SQLite tokens (sql/sqlite-lexer.ts) and, when the AST layer can
 * read the gold, on its concrete syntax tree's source ranges; the gold's text outside an edit is
 * kept byte for byte. {@link findNeighbours} keeps the candidates SQLite prepares on the schema
 * and that differ from the gold beyond spelling ({@link equivalenceKey}: keyword case, `AS`,
 * `ASC`, `<>` vs `!=`); drops of an unused output alias or of a qualifier are not neighbours.
 */
import type { Catalog, Engine } from '../engine/engine.js';
import { parseSql, positionAt } from '../sql/parse.js';
import { collectReferences } from '../sql/references.js';
import { isSqlNode, keywordText, type SqlNode } from '../sql/sql-tree.js';
import { tokenizeSqlite, type SqliteToken } from '../sql/sqlite-lexer.js';
import { mergeOperators, numberValue } from './gold-literals.js';
import { createPrng, type Prng } from './prng.js';
import { equivalentOverDomain, type DomainComparison } from './domain-equivalence.js';
import { findColumn, findTable, type DatabaseSchema } from './schema-reader.js';

/** What a neighbour changed. */
export type NeighbourKind =
  | 'drop_span'
  | 'drop_predicate'
  | 'drop_join_condition'
  | 'drop_clause'
  | 'drop_item'
  | 'swap_aggregate'
  | 'swap_comparison'
  | 'swap_logic'
  | 'swap_order'
  | 'add_desc'
  | 'swap_like'
  | 'swap_in'
  | 'swap_null_test'
  | 'swap_exists'
  | 'swap_between'
  | 'swap_arithmetic'
  | 'swap_column'
  | 'swap_join'
  | 'add_distinct'
  | 'limit'
  | 'literal';

/** Every kind, in documentation order. */
export const NEIGHBOUR_KINDS: readonly NeighbourKind[] = [
  'drop_span', 'drop_predicate', 'drop_join_condition', 'drop_clause', 'drop_item', 'swap_aggregate', 'swap_comparison',
  'swap_logic', 'swap_order', 'add_desc', 'swap_like', 'swap_in', 'swap_null_test', 'swap_exists', 'swap_between',
  'swap_arithmetic', 'swap_column', 'swap_join', 'add_distinct', 'limit', 'literal',
];

/** One neighbour: the gold with one span replaced. */
export interface NeighbourCandidate {
  readonly sql: string;
  readonly kind: NeighbourKind;
  /** 0-based `[start, end)` of the replaced span in the gold, and what replaced it. */
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
  /** One line for people, e.g. `` `>=` → `>` `` or `` dropped `WHERE age > 3` ``. */
  readonly description: string;
}

/** Options of {@link listNeighbourCandidates}. */
export interface NeighbourOptions {
  /** Longest token span dropped as a span (default 4); predicates, clauses and items are dropped whole at any length. */
  readonly maxSpanTokens?: number;
  /** Seed of the random literal perturbations (default 0). */
  readonly seed?: string | number;
  /** Most replacement columns per column reference (default 12, sampled by the seed). */
  readonly maxColumnSwaps?: number;
  /** Catalog with views (from `engine.catalog`), for resolving columns of views. */
  readonly catalog?: Catalog;
  /**
   * Columns with a declared finite domain (`values` invariants, lookup tables), by column key
   * (`table.column`, lower-case), NULL included when allowed: a comparison edit that keeps the
   * comparison's truth over the domain is not a neighbour (domain-equivalence.ts).
   */
  readonly finiteDomains?: ReadonlyMap<string, DomainComparison['domain']>;
}

/** Candidates left out because they provably change nothing, by rule. */
export interface EquivalentCounts {
  /** A lone `AS` / `ASC`, a qualifier, an unused output alias, the `*` of `COUNT(*)`. */
  readonly cosmetic: number;
  /** DISTINCT where rows are already unique (one aggregate row, selected GROUP BY keys or primary key, EXISTS / IN subqueries). */
  readonly redundantDistinct: number;
  /** LEFT ↔ INNER on a NOT NULL foreign key to the joined table's key. */
  readonly keyJoin: number;
  /** A comparison whose truth is unchanged over the column's declared domain. */
  readonly domain: number;
}

const AGGREGATES = ['count', 'min', 'max', 'avg', 'sum'];
const COMPARISONS = ['=', '!=', '<', '>', '<=', '>='];
const ARITHMETIC = ['+', '-', '*', '/'];
const CLAUSES = new Set(['where_clause', 'group_by_clause', 'having_clause', 'order_by_clause', 'limit_clause']);

/**
 * Lists the neighbour candidates of a gold (not yet checked by SQLite).
 *
 * @param gold - the gold SQL as it runs.
 * @param schema - the schema (columns for swaps and NOT NULL facts).
 * @returns candidates with distinct texts, none equal to the gold, in a stable order.
 * @example
 * listNeighbourCandidates('SELECT name FROM t WHERE age > 30', schema).map((n) => n.sql)
 * // includes 'SELECT name FROM t WHERE age >= 30', 'SELECT name FROM t', 'SELECT name FROM t WHERE age > 31', …
 */
export function listNeighbourCandidates(gold: string, schema: DatabaseSchema, options: NeighbourOptions = {}): NeighbourCandidate[] {
  return collectCandidates(gold, schema, options).candidates;
}

function collectCandidates(gold: string, schema: DatabaseSchema, options: NeighbourOptions): { candidates: NeighbourCandidate[]; equivalent: EquivalentCounts } {
  const equivalent = { cosmetic: 0, redundantDistinct: 0, keyJoin: 0, domain: 0 };
  const rng = createPrng(`neighbours/${options.seed ?? 0}/${gold}`);
  const out: NeighbourCandidate[] = [];
  const seen = new Set<string>([collapse(gold)]);
  const tokens = mergeOperators(tokenizeSqlite(gold)).filter((t) => t.kind !== 'semicolon');
  const tree = readTree(gold, options.catalog ?? catalogFrom(schema));
  const cosmetic = tree ? cosmeticRanges(tree) : [];
  const redundant = tree ? equivalentEdits(gold, tree, schema) : { distinctAt: new Set<number>(), joinAt: new Set<number>() };
  const comparisons = tree && options.finiteDomains && options.finiteDomains.size > 0 ? domainComparisons(tree, options.finiteDomains) : [];
  const add = (kind: NeighbourKind, start: number, end: number, replacement: string, description: string): void => {
    const sql = splice(gold, start, end, replacement);
    const key = collapse(sql);
    if (key === '' || seen.has(key)) return;
    seen.add(key);
    if (replacement === '' && isCosmeticDrop(tokens, start, end, cosmetic)) {
      equivalent.cosmetic += 1;
      return;
    }
    if (kind === 'add_distinct' && redundant.distinctAt.has(start)) {
      equivalent.redundantDistinct += 1;
      return;
    }
    if (kind === 'swap_join' && [...redundant.joinAt].some((at) => at >= start && at < Math.max(end, start + 1))) {
      equivalent.keyJoin += 1;
      return;
    }
    if (comparisons.some((c) => equivalentOverDomain(gold, c, { start, end, replacement }))) {
      equivalent.domain += 1;
      return;
    }
    out.push({ sql, kind, start, end, replacement, description });
  };
  // Whole predicates, conditions, clauses and items first, so that a drop that is also a short
  // token span keeps the more telling kind.
  if (tree) treeNeighbours(gold, tree.statement, add);
  tokenNeighbours(gold, tokens, add, rng, options.maxSpanTokens ?? 4, tree?.stringLiteralStarts ?? new Set<number>());
  if (tree) columnSwaps(gold, tree, schema, add, rng, options);
  return { candidates: out, equivalent };
}

/** Comparisons `column op literals` whose column has a declared finite domain. */
function domainComparisons(tree: ReadTree, domains: ReadonlyMap<string, DomainComparison['domain']>): DomainComparison[] {
  if (!tree.references.ok) return [];
  // A view column takes the domain of the base-table columns of the same name when they all agree
  // (v_order_revenue.order_date is orders.order_date).
  const byName = new Map<string, string | null>();
  for (const [key, domain] of domains) {
    const name = key.slice(key.indexOf('.') + 1);
    const text = JSON.stringify(domain, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    byName.set(name, byName.has(name) && byName.get(name) !== text ? null : text);
  }
  const domainOf = (table: string, column: string, view: boolean): DomainComparison['domain'] | undefined => {
    const direct = domains.get(`${table}.${column}`.toLowerCase());
    if (direct !== undefined || !view) return direct;
    const name = column.toLowerCase();
    if (!byName.get(name)) return undefined;
    return [...domains].find(([key]) => key.slice(key.indexOf('.') + 1) === name)?.[1];
  };
  const refAt = new Map<number, { domain: DomainComparison['domain'] | undefined; end: number }>();
  for (const ref of tree.references.columns) {
    if (ref.resolution.kind === 'table') refAt.set(ref.start, { domain: domainOf(ref.resolution.table.name, ref.resolution.column, ref.resolution.table.kind === 'view'), end: ref.end });
  }
  const out: DomainComparison[] = [];
  visit(tree.statement, (node) => {
    if (node.type !== 'binary_expr' && node.type !== 'between_expr') return;
    const range = rangeOf(node);
    const left = rangeOf(node['left']);
    if (!range || !left) return;
    const ref = refAt.get(left[0]);
    if (!ref || ref.end !== left[1] || ref.domain === undefined) return;
    out.push({ start: range[0], end: range[1], columnStart: left[0], columnEnd: left[1], domain: ref.domain });
  });
  return out;
}

/**
 * Text a drop may remove without changing the query: an output alias (`AS total`, `total`) whose
 * name appears nowhere else in the gold.
 */
function cosmeticRanges(tree: ReadTree): [number, number][] {
  // Names something refers to as an output column: a select alias (ORDER BY total) or a column of
  // a derived table or CTE (the outer query reads the alias).
  const used = new Set<string>();
  if (tree.references.ok) {
    for (const ref of tree.references.columns) {
      if (ref.resolution.kind !== 'table' && ref.resolution.kind !== 'string_literal') used.add(ref.name.toLowerCase());
    }
  } else {
    return [];
  }
  const out: [number, number][] = [];
  visit(tree.statement, (node, parent, field) => {
    if (node.type !== 'alias' || parent?.type !== 'list_expr' || field !== 'items') return;
    const expr = rangeOf(node['expr']);
    const alias = rangeOf(node['alias']);
    const name = isSqlNode(node['alias']) ? String(node['alias']['name'] ?? '').toLowerCase() : '';
    if (!expr || !alias || name === '' || used.has(name)) return;
    out.push([expr[1], alias[1]]);
  });
  return out;
}

/**
 * Edits that provably change nothing, found on the tree:
 * - `distinctAt`: SELECT keywords after which DISTINCT is redundant — the select has only
 *   aggregates and no GROUP BY (one row), or every GROUP BY key is selected (rows are unique);
 * - `joinAt`: JOIN keywords where LEFT and INNER give the same rows — the condition is
 *   `child.fk = parent.key` with a NOT NULL single-column foreign key of a table on the left to
 *   the joined table's primary key or UNIQUE column (every left row has exactly one match).
 */
function equivalentEdits(gold: string, tree: ReadTree, schema: DatabaseSchema): { distinctAt: Set<number>; joinAt: Set<number> } {
  const distinctAt = new Set<number>();
  const joinAt = new Set<number>();
  const text = (node: unknown): string => {
    const range = rangeOf(node);
    return range ? gold.slice(range[0], range[1]).replace(/\s+/g, ' ').trim().toLowerCase() : '';
  };
  const refAt = new Map<number, { table: string; column: string }>();
  if (tree.references.ok) {
    for (const ref of tree.references.columns) {
      if (ref.resolution.kind === 'table' && ref.resolution.table.kind === 'table') refAt.set(ref.start, { table: ref.resolution.table.name, column: ref.resolution.column });
    }
  }
  // Subqueries of EXISTS and IN: duplicates never change the outcome.
  visit(tree.statement, (node) => {
    const op = keywordText(node['operator']);
    const sub = node.type === 'prefix_op_expr' && op === 'exists' ? node['expr'] : node.type === 'binary_expr' && (op === 'in' || op === 'not in') ? node['right'] : undefined;
    if (!isSqlNode(sub) || sub.type !== 'paren_expr' || !isSqlNode(sub['expr']) || sub['expr'].type !== 'select_stmt') return;
    const select = ((sub['expr']['clauses'] as SqlNode[] | undefined) ?? []).find((c) => c.type === 'select_clause');
    const keyword = select ? rangeOf(select['selectKw']) : undefined;
    if (keyword) distinctAt.add(keyword[1]);
  });
  visit(tree.statement, (node, parent) => {
    if (node.type === 'select_stmt' && parent?.type !== 'compound_select_stmt') {
      const clauses = (node['clauses'] as SqlNode[] | undefined) ?? [];
      const select = clauses.find((c) => c.type === 'select_clause');
      const groupBy = clauses.find((c) => c.type === 'group_by_clause');
      const from = clauses.find((c) => c.type === 'from_clause');
      const keyword = select ? rangeOf(select['selectKw']) : undefined;
      if (!select || !keyword) return;
      const columns = select['columns'];
      const items = (isSqlNode(columns) ? ((columns['items'] as SqlNode[]) ?? []) : []).map((item) => (item.type === 'alias' && isSqlNode(item['expr']) ? item['expr'] : item));
      if (items.length === 0) return;
      if (groupBy === undefined) {
        if (items.every((item) => aggregateOnly(item).ok) && items.some((item) => aggregateOnly(item).aggregates > 0)) distinctAt.add(keyword[1]);
        else if (from && selectsUniqueRows(items, from, schema, refAt)) distinctAt.add(keyword[1]);
      } else {
        const keys = isSqlNode(groupBy['columns']) ? (((groupBy['columns'] as SqlNode)['items'] as SqlNode[]) ?? []) : [];
        const selected = new Set(items.map(text));
        if (keys.length > 0 && keys.every((key) => selected.has(text(key)))) distinctAt.add(keyword[1]);
      }
    }
    if (node.type === 'join_expr') {
      const spec = node['specification'];
      const operator = node['operator'];
      const keywords = (Array.isArray(operator) ? operator : [operator]).filter(isSqlNode);
      const joinKeyword = keywords[keywords.length - 1];
      const joinRange = rangeOf(joinKeyword);
      if (!joinRange || !isSqlNode(spec) || spec.type !== 'join_on_specification') return;
      const condition = spec['expr'];
      if (!isSqlNode(condition) || condition.type !== 'binary_expr' || condition['operator'] !== '=') return;
      const right = node['right'];
      const rightTable = isSqlNode(right) ? (right.type === 'alias' ? right['expr'] : right) : undefined;
      const rightName = isSqlNode(rightTable) && rightTable.type === 'identifier' ? String(rightTable['name']).toLowerCase() : '';
      const sides = [condition['left'], condition['right']].map((side) => refAt.get(rangeOf(side)?.[0] ?? -1));
      for (const [childRef, parentRef] of [[sides[0], sides[1]], [sides[1], sides[0]]] as const) {
        if (!childRef || !parentRef || parentRef.table.toLowerCase() !== rightName || childRef.table.toLowerCase() === rightName) continue;
        const child = findTable(schema, childRef.table);
        const parentTable = findTable(schema, parentRef.table);
        if (!child || !parentTable) continue;
        const fk = child.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0]!.toLowerCase() === childRef.column.toLowerCase() && f.parentTable === parentTable.name);
        const fkColumn = findColumn(child, childRef.column);
        const parentKey = parentRef.column.toLowerCase();
        const unique = (parentTable.primaryKey.length === 1 && parentTable.primaryKey[0]!.toLowerCase() === parentKey) || parentTable.uniqueKeys.some((k) => k.length === 1 && k[0]!.toLowerCase() === parentKey);
        if (fk && fkColumn?.notNull && fk.parentColumns[0]!.toLowerCase() === parentKey && unique) joinAt.add(joinRange[0]);
      }
    }
  });
  return { distinctAt, joinAt };
}

/**
 * True when the select's rows are unique: it selects every column of the primary key (or of a
 * UNIQUE key of NOT NULL columns) of one FROM table,
 * and every other FROM table is joined on its own primary key or a UNIQUE column (so it adds at
 * most one row per row).
 */
function selectsUniqueRows(items: readonly SqlNode[], from: SqlNode, schema: DatabaseSchema, refAt: ReadonlyMap<number, { table: string; column: string }>): boolean {
  const tables: { name: string; joinedOn: SqlNode | undefined }[] = [];
  const collect = (node: unknown, condition: SqlNode | undefined): boolean => {
    if (!isSqlNode(node)) return false;
    if (node.type === 'join_expr') {
      const spec = node['specification'];
      const operator = keywordText(node['operator']);
      if (operator.includes('cross') || operator.includes('natural') || operator.includes('right') || operator.includes('full')) return false;
      return collect(node['left'], undefined) && collect(node['right'], isSqlNode(spec) && spec.type === 'join_on_specification' && isSqlNode(spec['expr']) ? spec['expr'] : undefined);
    }
    const base = node.type === 'alias' ? node['expr'] : node;
    if (!isSqlNode(base) || base.type !== 'identifier') return false;
    tables.push({ name: String(base['name']).toLowerCase(), joinedOn: condition });
    return true;
  };
  if (!collect(from['expr'], undefined) || tables.length === 0) return false;
  const selected = new Set(items.map((item) => refAt.get(rangeOf(item)?.[0] ?? -1)).filter((r) => r !== undefined).map((r) => `${r!.table}.${r!.column}`.toLowerCase()));
  const isKey = (tableName: string, column: string): boolean => {
    const table = findTable(schema, tableName);
    if (!table) return false;
    const c = column.toLowerCase();
    return (table.primaryKey.length === 1 && table.primaryKey[0]!.toLowerCase() === c) || table.uniqueKeys.some((k) => k.length === 1 && k[0]!.toLowerCase() === c);
  };
  return tables.some((root, r) => {
    const table = findTable(schema, root.name);
    if (!table) return false;
    // A selected primary key, or a selected UNIQUE key of NOT NULL columns (NULLs may repeat).
    const keys = [table.primaryKey, ...table.uniqueKeys.filter((k) => k.every((c) => findColumn(table, c)?.notNull))].filter((k) => k.length > 0);
    if (!keys.some((key) => key.every((c) => selected.has(`${table.name}.${c}`.toLowerCase())))) return false;
    return tables.every((other, o) => {
      if (o === r) return true;
      const condition = other.joinedOn;
      if (!condition || condition.type !== 'binary_expr' || condition['operator'] !== '=') return false;
      return [condition['left'], condition['right']].some((side) => {
        const ref = refAt.get(rangeOf(side)?.[0] ?? -1);
        return ref !== undefined && ref.table.toLowerCase() === other.name && isKey(ref.table, ref.column);
      });
    });
  });
}

/** Whether an expression reads columns only inside aggregates (so a select of such items has one row). */
function aggregateOnly(node: SqlNode): { ok: boolean; aggregates: number } {
  if (node.type === 'number_literal' || node.type === 'string_literal' || node.type === 'null_literal') return { ok: true, aggregates: 0 };
  if (node.type === 'func_call') {
    const name = isSqlNode(node['name']) ? String(node['name']['name'] ?? '').toLowerCase() : '';
    if (AGGREGATES.includes(name) || name === 'group_concat' || name === 'total') return node['over'] === undefined ? { ok: true, aggregates: 1 } : { ok: false, aggregates: 0 };
  }
  if (['func_call', 'binary_expr', 'paren_expr', 'prefix_op_expr', 'func_args', 'list_expr', 'cast_expr', 'case_expr', 'case_when', 'case_else'].includes(node.type)) {
    let aggregates = 0;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'range' || key === 'name') continue;
      const items = Array.isArray(value) ? value : [value];
      for (const item of items) {
        if (!isSqlNode(item) || item.type === 'keyword' || item.type === 'data_type') continue;
        const inner = aggregateOnly(item);
        if (!inner.ok) return { ok: false, aggregates: 0 };
        aggregates += inner.aggregates;
      }
    }
    return { ok: true, aggregates };
  }
  return { ok: false, aggregates: 0 };
}

/**
 * Drops that change nothing (paper §3 leaves these spans out): a lone `AS` or `ASC`, a qualifier
 * with its dot (`T1.`), an unused output alias, the `*` of `COUNT(*)`.
 */
function isCosmeticDrop(tokens: readonly SqliteToken[], start: number, end: number, cosmetic: readonly [number, number][]): boolean {
  if (cosmetic.some(([s, e]) => start >= s && end <= e)) return true;
  const first = tokens.findIndex((t) => t.start >= start);
  const inside = tokens.filter((t) => t.start >= start && t.end <= end);
  if (inside.length === 1 && ['as', 'asc', 'inner', 'outer'].includes(word(inside[0]))) return true;
  if (inside.length === 2 && inside[1]!.value === '.' && inside[0]!.kind !== 'string') return true;
  // COUNT(*) → COUNT(): SQLite counts rows either way.
  if (inside.length === 1 && inside[0]!.value === '*' && tokens[first - 1]?.value === '(' && word(tokens[first - 2]) === 'count' && tokens[first + 1]?.value === ')') return true;
  return false;
}

type Add = (kind: NeighbourKind, start: number, end: number, replacement: string, description: string) => void;

/** Replaces `[start, end)` and tidies the whitespace the edit leaves. */
function splice(sql: string, start: number, end: number, replacement: string): string {
  if (replacement === '') {
    const before = sql.slice(0, start).replace(/[ \t]+$/, '');
    const after = sql.slice(end).replace(/^[ \t]+/, '');
    const joiner = before === '' || after === '' || /^[),;]/.test(after) || /\($/.test(before) ? '' : ' ';
    return (before + joiner + after).trim();
  }
  return sql.slice(0, start) + replacement + sql.slice(end);
}

function collapse(sql: string): string {
  return sql.replace(/\s+/g, ' ').replace(/;\s*$/, '').trim();
}

function show(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return `\`${one.length > 60 ? `${one.slice(0, 57)}…` : one}\``;
}

function word(token: SqliteToken | undefined): string {
  return token !== undefined && token.kind === 'word' ? token.value.toLowerCase() : '';
}

function tokenNeighbours(gold: string, tokens: readonly SqliteToken[], add: Add, rng: Prng, maxSpan: number, stringStarts: ReadonlySet<number>): void {
  let depth = 0;
  const betweenDepths: number[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    const w = word(token);
    const next = tokens[i + 1];
    const previous = tokens[i - 1];
    if (token.value === '(') depth += 1;
    if (token.value === ')') depth -= 1;
    const replaceToken = (kind: NeighbourKind, replacement: string): void =>
      add(kind, token.start, token.end, replacement, `${show(token.value)} → ${show(replacement)}`);

    if (AGGREGATES.includes(w) && next?.value === '(') {
      for (const other of AGGREGATES) if (other !== w) replaceToken('swap_aggregate', matchCase(other, token.value));
    }
    if (token.kind === 'punctuation' && ['=', '==', '!=', '<>', '<', '>', '<=', '>='].includes(token.value)) {
      const canonical = token.value === '==' ? '=' : token.value === '<>' ? '!=' : token.value;
      for (const other of COMPARISONS) if (other !== canonical) replaceToken('swap_comparison', other);
    }
    if (w === 'between') betweenDepths.push(depth);
    if (w === 'and' && betweenDepths[betweenDepths.length - 1] === depth) {
      betweenDepths.pop();
    } else if (w === 'and' || w === 'or') {
      replaceToken('swap_logic', matchCase(w === 'and' ? 'or' : 'and', token.value));
    }
    if (w === 'asc' || w === 'desc') replaceToken('swap_order', matchCase(w === 'asc' ? 'desc' : 'asc', token.value));
    // NOT-able operators: LIKE, GLOB, IN (…), BETWEEN, EXISTS.
    const notable: Partial<Record<string, NeighbourKind>> = { like: 'swap_like', glob: 'swap_like', in: 'swap_in', between: 'swap_between', exists: 'swap_exists' };
    const notKind = notable[w];
    if (notKind !== undefined && (w !== 'in' || next?.value === '(')) {
      if (word(previous) === 'not') {
        add(notKind, previous!.start, token.end, token.value, `${show(gold.slice(previous!.start, token.end))} → ${show(token.value)}`);
      } else {
        replaceToken(notKind, `${matchCase('not', token.value)} ${token.value}`);
      }
    }
    if (w === 'is' && word(next) === 'not') add('swap_null_test', token.start, next!.end, token.value, `${show(gold.slice(token.start, next!.end))} → ${show(token.value)}`);
    else if (w === 'is' && word(next) === 'null') replaceToken('swap_null_test', `${token.value} ${matchCase('not', token.value)}`);
    if (w === 'join') {
      const p = word(previous);
      const pp = word(tokens[i - 2]);
      if (p === 'left' || (p === 'outer' && pp === 'left')) {
        const from = p === 'left' ? previous! : tokens[i - 2]!;
        add('swap_join', from.start, token.end, token.value, `${show(gold.slice(from.start, token.end))} → ${show(token.value)}`);
      } else if (p === 'inner') {
        add('swap_join', previous!.start, token.end, `${matchCase('left', token.value)} ${token.value}`, `${show(gold.slice(previous!.start, token.end))} → LEFT JOIN`);
      } else if (!['right', 'full', 'cross', 'natural', 'outer'].includes(p)) {
        replaceToken('swap_join', `${matchCase('left', token.value)} ${token.value}`);
      }
    }
    if (w === 'select' && !['distinct', 'all'].includes(word(next))) {
      const at = positionAt(gold, token.start);
      add('add_distinct', token.end, token.end, ` ${matchCase('distinct', token.value)}`, `added DISTINCT after the SELECT at line ${at.line}, column ${at.column}`);
    }
    if (w === 'count' && next?.value === '(') {
      const arg = tokens[i + 2];
      if (arg && arg.value !== '*' && arg.value !== ')' && word(arg) !== 'distinct') add('add_distinct', next.end, next.end, `${matchCase('distinct', token.value)} `, 'COUNT(…) → COUNT(DISTINCT …)');
    }
    if (token.kind === 'number') {
      const value = numberValue(token.value);
      if (value === undefined) continue;
      const limitLike = ['limit', 'offset'].includes(word(previous)) || (previous?.value === ',' && word(tokens[i - 3]) === 'limit');
      if (limitLike && typeof value === 'bigint') {
        for (const k of [value + 1n, value - 1n]) if (k >= 0n) add('limit', token.start, token.end, String(k), `${word(previous).toUpperCase() || 'LIMIT'} ${token.value} → ${k}`);
        continue;
      }
      for (const replacement of numberPerturbations(value, rng)) add('literal', token.start, token.end, replacement, `${show(token.value)} → ${show(replacement)}`);
    }
    const quoted = token.kind === 'string' ? "'" : token.kind === 'double_quoted' && stringStarts.has(token.start) ? '"' : null;
    if (quoted !== null) {
      for (const value of stringPerturbations(token.value, rng)) {
        const replacement = quoted + value.split(quoted).join(quoted + quoted) + quoted;
        add('literal', token.start, token.end, replacement, `${show(gold.slice(token.start, token.end))} → ${show(replacement)}`);
      }
    }
  }
  // Drop every span of up to maxSpan tokens (after the replacements, so that a drop giving the
  // same text as a replacement keeps the replacement's kind and equivalence check).
  for (let i = 0; i < tokens.length; i += 1) {
    for (let len = 1; len <= maxSpan && i + len <= tokens.length; len += 1) {
      const start = tokens[i]!.start;
      const end = tokens[i + len - 1]!.end;
      add('drop_span', start, end, '', `dropped ${show(gold.slice(start, end))}`);
    }
  }
}

function matchCase(replacement: string, original: string): string {
  return original === original.toUpperCase() ? replacement.toUpperCase() : original === original.toLowerCase() ? replacement.toLowerCase() : replacement;
}

/** Integers: ±1 and 3 random values in ±(|v| + 1); reals: ±0.1 and 2 random values in ±|v| (paper §3). */
export function numberPerturbations(value: bigint | number, rng: Prng): string[] {
  if (typeof value === 'bigint') {
    const out = [value + 1n, value - 1n];
    const bound = value < 0n ? -value + 1n : value + 1n;
    if (bound <= BigInt(Number.MAX_SAFE_INTEGER)) {
      for (let k = 0; k < 3; k += 1) out.push(BigInt(rng.int(-Number(bound), Number(bound))));
    }
    return [...new Set(out.filter((v) => v !== value).map((v) => v.toString()))];
  }
  const out = [value + 0.1, value - 0.1, (rng.next() * 2 - 1) * Math.abs(value), (rng.next() * 2 - 1) * Math.abs(value)];
  return [...new Set(out.filter((v) => v !== value && Number.isFinite(v)).map((v) => formatReal(v)))];
}

function formatReal(v: number): string {
  const text = String(Math.round(v * 1e6) / 1e6);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** Substrings, case changes and `%` added or removed (paper §3, plus case). */
export function stringPerturbations(value: string, rng: Prng): string[] {
  const out = new Set<string>();
  const core = value.replaceAll('%', '');
  if (value.length > 1) {
    out.add(value.slice(1));
    out.add(value.slice(0, -1));
    out.add(value.slice(0, Math.ceil(value.length / 2)));
    out.add(value.slice(Math.floor(value.length / 2)));
    for (let k = 0; k < 2; k += 1) {
      const a = rng.int(0, value.length - 1);
      const b = rng.int(a + 1, value.length);
      out.add(value.slice(a, b));
    }
  }
  out.add('');
  out.add(value.toUpperCase());
  out.add(value.toLowerCase());
  out.add(value.length > 0 ? value[0]!.toUpperCase() + value.slice(1).toLowerCase() : value);
  out.add(core);
  out.add(`%${core}`);
  out.add(`${core}%`);
  out.add(`%${core}%`);
  out.delete(value);
  return [...out];
}

interface ReadTree {
  readonly statement: SqlNode;
  /** Offsets of double-quoted tokens that SQLite reads as strings (legacy double quotes). */
  readonly stringLiteralStarts: ReadonlySet<number>;
  readonly references: ReturnType<typeof collectReferences>;
}

function readTree(gold: string, catalog: Catalog): ReadTree | undefined {
  const parsed = parseSql(gold, 'sqlite');
  if (!parsed.ok || parsed.kind !== 'cst') return undefined;
  const statements = (parsed.program.statements as unknown as SqlNode[]).filter((s) => s.type !== 'empty');
  if (statements.length !== 1) return undefined;
  const references = collectReferences({ sql: gold, dialect: 'sqlite', doubleQuotes: 'legacy', sqlRole: 'gold', program: parsed.program, catalog });
  const stringLiteralStarts = new Set<number>();
  if (references.ok) for (const ref of references.columns) if (ref.resolution.kind === 'string_literal') stringLiteralStarts.add(ref.start);
  return { statement: statements[0]!, stringLiteralStarts, references };
}

function rangeOf(node: unknown): [number, number] | undefined {
  const range = isSqlNode(node) ? node['range'] : undefined;
  return Array.isArray(range) ? (range as [number, number]) : undefined;
}

function visit(node: SqlNode, fn: (node: SqlNode, parent: SqlNode | undefined, field: string) => void, parent?: SqlNode, field = ''): void {
  fn(node, parent, field);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'range') continue;
    if (isSqlNode(value)) visit(value, fn, node, key);
    else if (Array.isArray(value)) for (const item of value) if (isSqlNode(item)) visit(item, fn, node, key);
  }
}

function treeNeighbours(gold: string, statement: SqlNode, add: Add): void {
  visit(statement, (node, parent, field) => {
    const range = rangeOf(node);
    if (range === undefined) return;
    if (node.type === 'binary_expr') {
      const op = keywordText(node['operator']);
      const left = rangeOf(node['left']);
      const right = rangeOf(node['right']);
      if (left && right && (op === 'and' || op === 'or')) {
        add('drop_predicate', left[0], right[0], '', `dropped ${show(gold.slice(left[0], right[0]))}`);
        add('drop_predicate', left[1], right[1], '', `dropped ${show(gold.slice(left[1], right[1]))}`);
      }
      if (left && right && (ARITHMETIC.includes(op) || op === '%')) {
        const offset = gold.slice(left[1], right[0]).indexOf(op);
        if (offset >= 0) {
          const at = left[1] + offset;
          for (const other of ARITHMETIC) if (other !== op) add('swap_arithmetic', at, at + op.length, other, `${show(op)} → ${show(other)}`);
        }
      }
    }
    if (node.type === 'join_on_specification' || node.type === 'join_using_specification') {
      add('drop_join_condition', range[0], range[1], '', `dropped ${show(gold.slice(range[0], range[1]))}`);
    }
    if (CLAUSES.has(node.type)) add('drop_clause', range[0], range[1], '', `dropped ${show(gold.slice(range[0], range[1]))}`);
    if (node.type === 'list_expr' && parent && ['select_clause', 'group_by_clause', 'order_by_clause', 'partition_by_clause'].includes(parent.type) && field !== 'modifiers') {
      const items = ((node['items'] as unknown[]) ?? []).map(rangeOf).filter((r): r is [number, number] => r !== undefined);
      if (items.length < 2) return;
      items.forEach((item, k) => {
        const [start, end] = k === 0 ? [item[0], items[1]![0]] : [items[k - 1]![1], item[1]];
        add('drop_item', start, end, '', `dropped ${show(gold.slice(item[0], item[1]))}`);
      });
    }
    if (node.type === 'order_by_clause') {
      const specifications = node['specifications'];
      const items = isSqlNode(specifications) && specifications.type === 'list_expr' ? ((specifications['items'] as unknown[]) ?? []) : [specifications];
      for (const item of items) {
        const itemRange = rangeOf(item);
        if (itemRange === undefined || (isSqlNode(item) && item.type === 'sort_specification' && item['direction'] !== undefined)) continue;
        add('add_desc', itemRange[1], itemRange[1], ' DESC', `${show(gold.slice(itemRange[0], itemRange[1]))} → ${show(`${gold.slice(itemRange[0], itemRange[1])} DESC`)}`);
      }
    }
  });
}

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function columnSwaps(gold: string, tree: ReadTree, schema: DatabaseSchema, add: Add, rng: Prng, options: NeighbourOptions): void {
  const refs = tree.references;
  if (!refs.ok) return;
  // COUNT arguments: a swap between two NOT NULL columns there changes nothing.
  const countArgs: [number, number][] = [];
  visit(tree.statement, (node) => {
    if (node.type !== 'func_call') return;
    const name = node['name'];
    if (!isSqlNode(name) || String(name['name'] ?? '').toLowerCase() !== 'count') return;
    const args = rangeOf(node['args']);
    if (args) countArgs.push(args);
  });
  const maxSwaps = options.maxColumnSwaps ?? 12;
  for (const ref of refs.columns) {
    const resolution = ref.resolution;
    if (resolution.kind !== 'table') continue;
    const written = gold.slice(ref.start, ref.end);
    const dot = written.lastIndexOf('.');
    const nameStart = ref.start + dot + 1;
    const baseTable = findTable(schema, resolution.table.name);
    const original = baseTable ? findColumn(baseTable, resolution.column) : undefined;
    const inCount = countArgs.some(([s, e]) => ref.start >= s && ref.end <= e);
    const others = resolution.table.columns.map((c) => c.name).filter((name) => name.toLowerCase() !== resolution.column.toLowerCase());
    const chosen = others.length > maxSwaps ? rng.shuffle(others).slice(0, maxSwaps) : others;
    for (const other of chosen) {
      if (inCount && original?.notNull && baseTable && findColumn(baseTable, other)?.notNull) continue;
      const replacement = PLAIN_IDENTIFIER.test(other) ? other : `"${other.replaceAll('"', '""')}"`;
      add('swap_column', nameStart, ref.end, replacement, `${show(written)} → ${show(replacement)}`);
    }
  }
}

function catalogFrom(schema: DatabaseSchema): Catalog {
  return {
    tables: schema.tables.map((t) => ({ name: t.name, kind: 'table' as const, schema: 'main', columns: t.columns.map((c) => ({ name: c.name, type: c.declaredType, primaryKey: c.primaryKeyPosition > 0 })) })),
  };
}

/** A neighbour SQLite accepts and that is not the gold under normalization. */
export interface Neighbour extends NeighbourCandidate {
  /** 0-based position in the gold's neighbour list (stable for a given gold, schema and seed). */
  readonly index: number;
}

/** Inputs of {@link findNeighbours}. */
export interface FindNeighboursInput extends NeighbourOptions {
  readonly engine: Engine;
  /** A database with the schema (the neighbours are prepared there, never run). */
  readonly db: string;
  /** The gold SQL as it runs (after the policy's rewrites). */
  readonly gold: string;
  readonly schema: DatabaseSchema;
  /** Applied to every candidate before it is prepared (the policy's rewrites for predictions). */
  readonly rewrite?: (sql: string) => string;
  /** Most neighbours kept (default 600; sampled by the seed when more prepare). */
  readonly maxNeighbours?: number;
  /** Deadline per prepare, ms. */
  readonly timeoutMs?: number;
}

/** Neighbours and what was filtered out. */
export interface NeighbourSet {
  readonly neighbours: readonly Neighbour[];
  /** Candidates listed. */
  readonly candidates: number;
  /** Candidates SQLite did not prepare. */
  readonly unprepared: number;
  /** Candidates equal to the gold (or to another candidate) up to spelling ({@link equivalenceKey}). */
  readonly equivalent: number;
  /** Candidates left out before preparing because they provably change nothing. */
  readonly provablyEquivalent: EquivalentCounts;
  /** Prepared, non-equivalent candidates left out by `maxNeighbours`. */
  readonly capped: number;
}

/**
 * Lists a gold's neighbours that prepare on the schema and differ from the gold.
 * @returns the neighbours (indexed), with counts of what was filtered out.
 */
export async function findNeighbours(input: FindNeighboursInput): Promise<NeighbourSet> {
  const { candidates, equivalent: provablyEquivalent } = collectCandidates(input.gold, input.schema, input);
  const goldKey = equivalenceKey(input.gold);
  const seen = new Set<string>([collapse(input.gold)]);
  const rewritten = candidates
    .map((c) => (input.rewrite ? { ...c, sql: input.rewrite(c.sql) } : c))
    .filter((c) => {
      const key = collapse(c.sql);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const prepared = await mapConcurrent(rewritten, 8, (c) =>
    input.engine.prepare({ db: input.db, sql: c.sql, ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }) }),
  );
  let unprepared = 0;
  let equivalent = 0;
  const kept: NeighbourCandidate[] = [];
  const keys = new Set<string>();
  rewritten.forEach((candidate, i) => {
    if (!prepared[i]!.ok) {
      unprepared += 1;
      return;
    }
    const key = equivalenceKey(candidate.sql);
    if (key === goldKey || keys.has(key)) {
      equivalent += 1;
      return;
    }
    keys.add(key);
    kept.push(candidate);
  });
  const max = input.maxNeighbours ?? 600;
  const rng = createPrng(`neighbour-cap/${input.seed ?? 0}/${input.gold}`);
  const chosen = kept.length > max ? rng.shuffle(kept.map((_, i) => i)).slice(0, max).sort((a, b) => a - b).map((i) => kept[i]!) : kept;
  return {
    neighbours: chosen.map((c, index) => ({ ...c, index })),
    candidates: candidates.length,
    unprepared,
    equivalent,
    provablyEquivalent,
    capped: kept.length - chosen.length,
  };
}

/**
 * A token key equal for texts that differ only in keyword case, `AS`, `ASC`, `INNER` / `OUTER`,
 * `<>` vs `!=`, `==` vs `=` or a trailing semicolon (cheaper than full normalization, which costs
 * a parse per candidate).
 */
export function equivalenceKey(sql: string): string {
  return mergeOperators(tokenizeSqlite(sql))
    .filter((t) => t.kind !== 'semicolon' && !['as', 'asc', 'inner', 'outer'].includes(word(t)))
    .map((t) => {
      if (t.kind === 'word') return t.value.toLowerCase();
      if (t.kind === 'quoted_identifier') return `"${t.value.toLowerCase()}"`;
      if (t.kind === 'string') return `'${t.value}'`;
      if (t.kind === 'double_quoted') return `"${t.value}"`;
      return t.value === '<>' ? '!=' : t.value === '==' ? '=' : t.value;
    })
    .join(' ');
}

/** Maps with at most `limit` promises pending, keeping order. */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next;
      next += 1;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
