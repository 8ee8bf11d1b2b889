/**
 * SQL normalization: an ordered list of passes, each one pure function from a sql-parser-cst tree
 * to a new tree (the sqlglot optimizer shape: one rule per function, an ordered tuple callers can
 * replace). Used by exact match, clause components and the AST distance.
 *
 * The passes (in {@link NORMALIZATION_PASSES} order):
 * 1. `canonicalTokens` — keyword case, identifier case and quoting (`"Name"`, `` `Name` ``, `[Name]`
 *    → `name`), string quoting (`'x'`), `<>` → `!=`, `==` → `=`, `INNER JOIN` → `JOIN`,
 *    `LEFT OUTER JOIN` → `LEFT JOIN`. In SQLite, a double-quoted token
 *    in a value position (right operand of a comparison, LIKE, IN list item, BETWEEN bound) is read
 *    as a string literal, as stock SQLite does when it names no column (https://www.sqlite.org/quirks.html#dblquote);
 *    with `columnsByTable`, a token naming a known column stays a column.
 * 2. `tableAliases` — per SELECT scope: `FROM orders AS o … o.amount` → `FROM orders … orders.amount`;
 *    a table used twice (self-join) gets canonical aliases `orders_1`, `orders_2` in order of
 *    appearance; with a single table in scope, qualifiers naming it are dropped (`orders.amount` →
 *    `amount`). Correlated references keep the outer table's name.
 * 3. `selectAliases` — per SELECT: `ORDER BY total` / `GROUP BY total` / `HAVING total > 1` where
 *    `total` is a select-list alias become the aliased expression, and positional `GROUP BY 1` /
 *    `ORDER BY 1` become the first select expression (not in compound selects, not `*`).
 * 4. `outputAliases` — drops `AS name` from select-list items (column names are not compared).
 * 5. `comparisons` — orients `=, !=, <, <=, >, >=`: a literal goes right, otherwise the sides are
 *    ordered by their text, mirroring the operator (`'2024' <= a` → `a >= '2024'`); a side of
 *    more than `ORDERED_SIDE_NODES` nodes keeps its place (ordering a chain of comparisons
 *    by text at every level was quadratic: 3 s for 1 000 levels).
 * 6. `conjunctions` — sorts the operands of AND chains and of OR chains by their text.
 *
 * One file per pass in normalize/; parsing (with its cache) is in parse.ts, tree helpers in
 * sql-tree.ts.
 */
import { withinAnalysisBudget } from './analysis-budget.js';
import { parseStatement, type Dialect } from './parse.js';
import { renderSql, type SqlNode } from './sql-tree.js';
import { canonicalTokens } from './normalize/canonical-tokens.js';
import { orientComparisons } from './normalize/comparisons.js';
import { sortConjunctions } from './normalize/conjunctions.js';
import { dropOutputAliases } from './normalize/output-aliases.js';
import { resolveSelectAliases } from './normalize/select-aliases.js';
import { resolveTableAliases } from './normalize/table-aliases.js';

/** Names of the normalization passes, in the order they run. */
export type NormalizationPass =
  | 'canonicalTokens'
  | 'tableAliases'
  | 'selectAliases'
  | 'outputAliases'
  | 'comparisons'
  | 'conjunctions';

/** Every pass, in run order. */
export const NORMALIZATION_PASSES: readonly NormalizationPass[] = [
  'canonicalTokens',
  'tableAliases',
  'selectAliases',
  'outputAliases',
  'comparisons',
  'conjunctions',
];

/** Options of {@link normalizeSql} / {@link normalizeTree}. */
export interface NormalizeOptions {
  /** Passes to run (run order is always {@link NORMALIZATION_PASSES}). Default: all. */
  readonly passes?: readonly NormalizationPass[];
  /**
   * Lower-cased column names per lower-cased table name (e.g. from the engine's catalog, see
   * {@link columnsByTableOf}). With it, `tableAliases` also qualifies a bare column in a scope with
   * several tables by the one table that has it (`name` → `singer.name`), as Spider's evaluator
   * does with its schema; a column several tables have stays bare.
   */
  readonly columnsByTable?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Builds {@link NormalizeOptions.columnsByTable} from a catalog (tables and views). */
export function columnsByTableOf(catalog: { readonly tables: readonly { readonly name: string; readonly columns: readonly { readonly name: string }[] }[] }): ReadonlyMap<string, ReadonlySet<string>> {
  return new Map(catalog.tables.map((t) => [t.name.toLowerCase(), new Set(t.columns.map((c) => c.name.toLowerCase()))]));
}

/** Result of {@link normalizeSql}. */
export type NormalizeResult =
  | { readonly ok: true; readonly tree: SqlNode; readonly text: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses one SQL statement and normalizes it.
 *
 * @param sql - one statement (a trailing semicolon is allowed).
 * @param dialect - a sql-parser-cst dialect (`snowflake` has no CST and is reported as not normalizable).
 * @returns the normalized tree and its one-line text, or `ok: false` with a reason
 *   (`parse error: …`, `not one statement`, `not analysed within budget: …` when the text is
 *   over a size, depth or time budget of analysis-budget.ts, …). Never throws for bad SQL.
 * @example
 * normalizeSql("SELECT o.region FROM orders AS o WHERE '2024' <= o.created_at GROUP BY 1", 'sqlite').text
 * // "select region from orders where created_at >= '2024' group by region"
 */
export function normalizeSql(sql: string, dialect: Dialect, options: NormalizeOptions = {}): NormalizeResult {
  const statement = parseStatement(sql, dialect);
  if (!statement.ok) return statement;
  const normalized = withinAnalysisBudget(() => {
    const tree = normalizeTree(statement.tree, dialect, options);
    return { tree, text: renderSql(tree) };
  });
  return normalized.ok ? { ok: true, ...normalized.value } : { ok: false, reason: normalized.reason };
}

/**
 * Runs the selected passes over a parsed statement (pure: the input tree is not changed).
 * @param tree - a statement node from {@link parseStatement}.
 */
export function normalizeTree(tree: SqlNode, dialect: Dialect, options: NormalizeOptions = {}): SqlNode {
  const selected = new Set(options.passes ?? NORMALIZATION_PASSES);
  const key = `${dialect}:${NORMALIZATION_PASSES.filter((p) => selected.has(p)).join(',')}:${options.columnsByTable ? schemaId(options.columnsByTable) : ''}`;
  let cached = normalizedCache.get(tree);
  const hit = cached?.get(key);
  if (hit) return hit;
  const out = runPasses(tree, dialect, selected, options.columnsByTable);
  if (!cached) {
    cached = new Map();
    normalizedCache.set(tree, cached);
  }
  cached.set(key, out);
  return out;
}

/** Normalized trees per parsed tree and pass selection (trees are immutable, so reuse is safe). */
const normalizedCache = new WeakMap<SqlNode, Map<string, SqlNode>>();

const schemaIds = new WeakMap<object, number>();
let nextSchemaId = 1;
function schemaId(columns: object): number {
  const known = schemaIds.get(columns);
  if (known !== undefined) return known;
  const id = nextSchemaId;
  nextSchemaId += 1;
  schemaIds.set(columns, id);
  return id;
}

function runPasses(
  tree: SqlNode,
  dialect: Dialect,
  selected: ReadonlySet<NormalizationPass>,
  columnsByTable: ReadonlyMap<string, ReadonlySet<string>> | undefined,
): SqlNode {
  let out = tree;
  if (selected.has('canonicalTokens')) out = canonicalTokens(out, dialect, columnsByTable);
  if (selected.has('tableAliases')) out = resolveTableAliases(out, columnsByTable);
  if (selected.has('selectAliases')) out = resolveSelectAliases(out);
  if (selected.has('outputAliases')) out = dropOutputAliases(out);
  if (selected.has('comparisons')) out = orientComparisons(out);
  if (selected.has('conjunctions')) out = sortConjunctions(out);
  return out;
}
