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
import { positionAt } from '../sql/parse.js';
import { isSqlNode, keywordText, type SqlNode } from '../sql/sql-tree.js';
import { tokenizeSqlite, type SqliteToken } from '../sql/sqlite-lexer.js';
import { mergeOperators, numberValue } from './gold-literals.js';
import { createPrng, type Prng } from './prng.js';
import { equivalentOverDomain, type DomainComparison } from './domain-equivalence.js';
import { numberPerturbations, stringPerturbations } from './literal-perturbations.js';
import { cosmeticRanges, domainComparisons, equivalentEdits, isCosmeticDrop } from './neighbour-equivalence.js';
import { AGGREGATES, catalogFrom, rangeOf, readTree, visit, word, type ReadTree } from './neighbour-syntax.js';

export { numberPerturbations, stringPerturbations } from './literal-perturbations.js';
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
