/**
 * Semantics-preserving rewrites of real Spider golds, generated from their tokens, for the check
 * that the counterexample search never refutes an equivalent query. Ten kinds; each generator
 * rewrites only where the rewrite holds on every database the schema allows (conditions in each
 * kind's comment), and gives up (null) elsewhere:
 *
 * - `alias_renaming`: every table alias renamed.
 * - `join_order`: the first two tables of an inner join swapped (not under GROUP BY or LIMIT, where
 *   SQLite may then pick another row for a bare column or a tie).
 * - `in_exists`: `x NOT IN (sub)` → `NOT EXISTS` (plain when both sides are NOT NULL / keys, else
 *   the NULL-aware form); `x = (SELECT agg …)` → `x IN (…)` and → `EXISTS (… HAVING agg = x)`.
 * - `cte_subquery`: an uncorrelated subquery hoisted into a `WITH` clause.
 * - `between_comparisons`: `x BETWEEN a AND b` → `x >= a AND x <= b`; `COUNT(*) > k` →
 *   `COUNT(*) BETWEEN k + 1 AND 2^63 − 1`; `x = v` → `x BETWEEN v AND v`.
 * - `count_star_pk`: `COUNT(*)` → `COUNT(t.pk)` for the first table's single-column key (inner
 *   joins only; keys are never NULL in generated data).
 * - `commuted_predicate`: `a op b` → `b op' a`, or the two conjuncts of a WHERE swapped.
 * - `redundant_distinct`: `DISTINCT` added where the select list holds the key of a table whose
 *   every join partner is joined on its own key (rows are unique already).
 * - `not_equal`: `a != b` → `NOT (a = b)`; `a = v` → `NOT (a <> v)`.
 * - `derived_table_join`: a joined table replaced by `(SELECT * FROM t) AS alias`.
 */
import type { DatabaseSchema, TableSchema } from '../src/semantic/model/schema-reader.js';
import { tokenizeSqlite, type SqliteToken } from '../src/sql/sqlite-lexer.js';

export const REWRITE_KINDS = [
  'alias_renaming',
  'join_order',
  'in_exists',
  'cte_subquery',
  'between_comparisons',
  'count_star_pk',
  'commuted_predicate',
  'redundant_distinct',
  'not_equal',
  'derived_table_join',
] as const;
export type RewriteKind = (typeof REWRITE_KINDS)[number];

export interface GoldRewrite {
  readonly kind: RewriteKind;
  /** Which rewrite of the kind, e.g. `NOT IN → NOT EXISTS (NULL-aware)`. */
  readonly form: string;
  readonly dbId: string;
  readonly gold: string;
  readonly rewrite: string;
}

interface Tok extends SqliteToken {
  readonly lower: string;
  /** Parenthesis depth before the token. */
  readonly depth: number;
  readonly index: number;
}

function tokens(sql: string): Tok[] {
  let depth = 0;
  return tokenizeSqlite(sql).map((t, index) => {
    if (t.kind === 'punctuation' && t.value === ')') depth -= 1;
    const tok = { ...t, lower: t.kind === 'word' ? t.value.toLowerCase() : t.value, depth, index };
    if (t.kind === 'punctuation' && t.value === '(') depth += 1;
    return tok;
  });
}

type Edit = readonly [start: number, end: number, text: string];

function applyEdits(sql: string, edits: readonly Edit[]): string {
  let out = sql;
  for (const [start, end, text] of [...edits].sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
  return out;
}

const CLAUSE_END = new Set(['where', 'group', 'order', 'limit', 'having', 'union', 'intersect', 'except']);
const COMPARISONS = new Set(['=', '<', '>', '<=', '>=', '!=', '<>']);

/** Multi-character operators start at `t` (`!=`, `<=`, `>=`, `<>`, `==`): the operator and how many tokens it spans. */
function operatorAt(toks: readonly Tok[], i: number): { op: string; width: number } | null {
  const a = toks[i];
  if (a === undefined || a.kind !== 'punctuation') return null;
  const b = toks[i + 1];
  if (b !== undefined && b.kind === 'punctuation' && b.start === a.end) {
    const two = a.value + b.value;
    if (['!=', '<=', '>=', '<>', '=='].includes(two)) return { op: two, width: 2 };
  }
  return ['=', '<', '>'].includes(a.value) ? { op: a.value, width: 1 } : null;
}

/** A simple operand ending before `i` (exclusive) or starting at `i`: `col`, `t.col`, a literal, `count(*)`, `f(x)`. */
function operandAt(toks: readonly Tok[], i: number): { from: number; to: number } | null {
  const t = toks[i];
  if (t === undefined) return null;
  if (t.kind === 'string' || t.kind === 'number' || t.kind === 'double_quoted') {
    if (t.kind === 'double_quoted' && toks[i + 1]?.value === '.') return { from: i, to: i + 2 };
    return { from: i, to: i };
  }
  if (t.kind === 'punctuation' && t.value === '-' && toks[i + 1]?.kind === 'number') return { from: i, to: i + 1 };
  if (t.kind !== 'word' && t.kind !== 'quoted_identifier') return null;
  if (toks[i + 1]?.value === '.' && toks[i + 2] !== undefined) return { from: i, to: i + 2 };
  if (toks[i + 1]?.value === '(') {
    const close = matching(toks, i + 1);
    return close === null ? null : { from: i, to: close };
  }
  return { from: i, to: i };
}

/** The operand that ends at token `i` (inclusive). */
function operandEndingAt(toks: readonly Tok[], i: number): { from: number; to: number } | null {
  const t = toks[i];
  if (t === undefined) return null;
  if (t.kind === 'punctuation' && t.value === ')') {
    const open = openingOf(toks, i);
    if (open === null || open === 0) return null;
    const name = toks[open - 1]!;
    return name.kind === 'word' ? { from: open - 1, to: i } : null;
  }
  if (t.kind === 'string' || t.kind === 'number') return { from: i, to: i };
  if (t.kind !== 'word' && t.kind !== 'quoted_identifier' && t.kind !== 'double_quoted') return null;
  if (toks[i - 1]?.value === '.' && toks[i - 2] !== undefined) return { from: i - 2, to: i };
  return { from: i, to: i };
}

function matching(toks: readonly Tok[], open: number): number | null {
  const depth = toks[open]!.depth;
  for (let i = open + 1; i < toks.length; i += 1) if (toks[i]!.value === ')' && toks[i]!.depth === depth) return i;
  return null;
}

function openingOf(toks: readonly Tok[], close: number): number | null {
  const depth = toks[close]!.depth;
  for (let i = close - 1; i >= 0; i -= 1) if (toks[i]!.value === '(' && toks[i]!.depth === depth) return i;
  return null;
}

function text(sql: string, toks: readonly Tok[], from: number, to: number): string {
  return sql.slice(toks[from]!.start, toks[to]!.end);
}

function findTable(schema: DatabaseSchema, name: string): TableSchema | undefined {
  return schema.tables.find((t) => t.name.toLowerCase() === name.toLowerCase());
}

/** A table in a FROM list: its name, alias and token range. */
interface FromTable {
  readonly table: TableSchema;
  readonly alias: string | null;
  /** Token range of `name [AS] alias`. */
  readonly from: number;
  readonly to: number;
  /** Tokens of the `ON …` condition after it (null for the first table). */
  readonly on: { readonly from: number; readonly to: number } | null;
  readonly joinKeyword: number | null;
}

/** The FROM clause at `depth` starting after token `fromIndex` (`FROM`): plain tables joined by [INNER] JOIN … ON. */
function readFrom(toks: readonly Tok[], fromIndex: number, schema: DatabaseSchema): { tables: FromTable[]; end: number } | null {
  const depth = toks[fromIndex]!.depth;
  const tables: FromTable[] = [];
  let i = fromIndex + 1;
  let joinKeyword: number | null = null;
  for (;;) {
    const nameTok = toks[i];
    if (nameTok === undefined || (nameTok.kind !== 'word' && nameTok.kind !== 'double_quoted' && nameTok.kind !== 'quoted_identifier')) return null;
    const table = findTable(schema, nameTok.value);
    if (table === undefined) return null;
    let alias: string | null = null;
    let to = i;
    if (toks[i + 1]?.lower === 'as' && toks[i + 2]?.kind === 'word') {
      alias = toks[i + 2]!.value;
      to = i + 2;
    } else if (toks[i + 1]?.kind === 'word' && !['join', 'inner', 'left', 'on', 'where', 'group', 'order', 'limit', 'having', 'union', 'intersect', 'except', 'natural', 'cross'].includes(toks[i + 1]!.lower)) {
      alias = toks[i + 1]!.value;
      to = i + 1;
    }
    let on: { from: number; to: number } | null = null;
    let next = to + 1;
    if (tables.length > 0) {
      if (toks[next]?.lower !== 'on') return null;
      let end = next + 1;
      while (end < toks.length && !(toks[end]!.depth === depth && (CLAUSE_END.has(toks[end]!.lower) || ['join', 'inner', 'left', 'cross', 'natural'].includes(toks[end]!.lower) || toks[end]!.value === ')' || toks[end]!.kind === 'semicolon'))) end += 1;
      on = { from: next + 1, to: end - 1 };
      next = end;
    }
    tables.push({ table, alias, from: i, to, on, joinKeyword });
    const t = toks[next];
    if (t !== undefined && t.depth === depth && t.lower === 'join') {
      joinKeyword = next;
      i = next + 1;
      continue;
    }
    if (t !== undefined && t.depth === depth && t.lower === 'inner' && toks[next + 1]?.lower === 'join') {
      joinKeyword = next;
      i = next + 2;
      continue;
    }
    if (t !== undefined && t.depth === depth && (t.lower === 'left' || t.lower === 'cross' || t.lower === 'natural' || t.value === ',')) return null;
    return { tables, end: next };
  }
}

/** The first `SELECT … FROM` at depth 0 (the first member of a compound). */
function outerSelect(toks: readonly Tok[]): { select: number; from: number } | null {
  const select = toks.findIndex((t) => t.depth === 0 && t.lower === 'select');
  if (select < 0) return null;
  const from = toks.findIndex((t, i) => i > select && t.depth === 0 && t.lower === 'from');
  return from < 0 ? null : { select, from };
}

function has(toks: readonly Tok[], word: string, depth = 0): boolean {
  return toks.some((t) => t.depth === depth && t.lower === word);
}

const ident = (name: string): string => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name}"`);

// --- the kinds -------------------------------------------------------------------------------

/** Renames every table alias (`T1` → `alias_1`), in every scope, consistently. */
function aliasRenaming(sql: string): string | null {
  const toks = tokens(sql);
  const aliases = new Map<string, string>();
  toks.forEach((t, i) => {
    if (t.lower === 'as' && toks[i + 1]?.kind === 'word' && (toks[i - 1]?.kind === 'word' || toks[i - 1]?.kind === 'double_quoted') && toks[i - 2] !== undefined && ['from', 'join'].includes(toks[i - 2]!.lower)) {
      const alias = toks[i + 1]!.lower;
      if (!aliases.has(alias)) aliases.set(alias, `alias_${aliases.size + 1}`);
    }
  });
  if (aliases.size === 0) return null;
  const edits: Edit[] = [];
  toks.forEach((t, i) => {
    if (t.kind !== 'word' || !aliases.has(t.lower)) return;
    const qualifier = toks[i + 1]?.value === '.';
    const declared = toks[i - 1]?.lower === 'as';
    if (qualifier || declared) edits.push([t.start, t.end, aliases.get(t.lower)!]);
  });
  return applyEdits(sql, edits);
}

/** Swaps the first two tables of the outer query's inner join. */
function joinOrder(sql: string, schema: DatabaseSchema): string | null {
  const toks = tokens(sql);
  if (has(toks, 'group') || has(toks, 'limit') || has(toks, 'union') || has(toks, 'intersect') || has(toks, 'except')) return null;
  const outer = outerSelect(toks);
  if (outer === null) return null;
  if (toks.slice(outer.select, outer.from).some((t) => t.value === '*' && toks[t.index - 1]?.value !== '(')) return null;
  const from = readFrom(toks, outer.from, schema);
  if (from === null || from.tables.length < 2) return null;
  const [a, b] = from.tables as [FromTable, FromTable];
  const aText = text(sql, toks, a.from, a.to);
  const bText = text(sql, toks, b.from, b.to);
  return applyEdits(sql, [
    [toks[a.from]!.start, toks[a.to]!.end, bText],
    [toks[b.from]!.start, toks[b.to]!.end, aText],
  ]);
}

/** `col NOT IN (sub)` → NOT EXISTS; `col = (SELECT agg …)` → IN or EXISTS … HAVING. */
function inExists(sql: string, schema: DatabaseSchema): string[] {
  const toks = tokens(sql);
  const out: string[] = [];
  const outer = outerSelect(toks);
  if (outer === null) return out;
  const from = readFrom(toks, outer.from, schema);
  for (let i = 0; i < toks.length; i += 1) {
    const t = toks[i]!;
    // x NOT IN ( SELECT … )
    if (t.depth === 0 && t.lower === 'not' && toks[i + 1]?.lower === 'in' && toks[i + 2]?.value === '(' && toks[i + 3]?.lower === 'select') {
      const lhs = operandEndingAt(toks, i - 1);
      const close = matching(toks, i + 2);
      if (lhs === null || close === null) continue;
      // Only as a conjunct of the WHERE clause (NULL and FALSE then filter alike).
      const before = toks[lhs.from - 1]?.lower;
      const after = toks[close + 1];
      if (!(before === 'where' || before === 'and') || (after !== undefined && after.depth === 0 && after.lower === 'or') || has(toks, 'or')) continue;
      const q = qualifyOuter(sql, toks, lhs, from);
      if (q === null) continue;
      const sub = text(sql, toks, i + 3, close - 1);
      const safe = notNullColumn(toks, lhs, from, schema) && subqueryColumnNotNull(sql.slice(toks[i + 3]!.start, toks[close - 1]!.end), schema);
      const condition = safe ? `in_sub.v = ${q.text}` : `in_sub.v = ${q.text} OR in_sub.v IS NULL OR ${q.text} IS NULL`;
      out.push(applyEdits(sql, [...q.edits, [toks[lhs.from]!.start, toks[close]!.end, `NOT EXISTS (WITH in_sub(v) AS (${sub}) SELECT 1 FROM in_sub WHERE ${condition})`]]));
    }
    // x op ( SELECT agg(…) FROM … ) with no GROUP BY: exactly one row, so `=` is IN, and any
    // comparison is EXISTS of that one row under HAVING.
    const op = operatorAt(toks, i);
    if (t.depth === 0 && op !== null && toks[i + op.width]?.value === '(' && toks[i + op.width + 1]?.lower === 'select') {
      const open = i + op.width;
      const lhs = operandEndingAt(toks, i - 1);
      const close = matching(toks, open);
      if (lhs === null || close === null) continue;
      const inner = toks.slice(open + 1, close);
      const aggregate = inner[1];
      if (aggregate === undefined || !['min', 'max', 'avg', 'sum', 'count'].includes(aggregate.lower) || inner.some((x) => ['group', 'limit', 'union', 'intersect', 'except', 'having'].includes(x.lower))) continue;
      const aggClose = matching(toks, open + 2);
      const fromAt = inner.findIndex((x) => x.lower === 'from' && x.depth === toks[open + 1]!.depth);
      if (aggClose === null || fromAt < 0 || toks[aggClose + 1] !== inner[fromAt]) continue;
      const before = toks[lhs.from - 1]?.lower;
      if (!(before === 'where' || before === 'and') || has(toks, 'or')) continue;
      const q = qualifyOuter(sql, toks, lhs, from);
      if (q === null) continue;
      if (op.op === '=') {
        out.push(applyEdits(sql, [[toks[i]!.start, toks[i + op.width - 1]!.end, 'IN']]));
      }
      const aggText = text(sql, toks, open + 2, aggClose);
      const rest = sql.slice(inner[fromAt]!.start, toks[close - 1]!.end);
      out.push(applyEdits(sql, [...q.edits, [toks[lhs.from]!.start, toks[close]!.end, `EXISTS (SELECT ${aggText} ${rest} HAVING ${q.text} ${op.op} ${aggText})`]]));
    }
  }
  return out;
}

/**
 * The outer operand, qualified when it is a bare column of a one-table FROM (so an inner table of
 * the same name cannot capture it); a table without an alias gets one (`outer_t`).
 */
function qualifyOuter(sql: string, toks: readonly Tok[], lhs: { from: number; to: number }, from: { tables: FromTable[] } | null): { text: string; edits: Edit[] } | null {
  if (lhs.from !== lhs.to) return { text: text(sql, toks, lhs.from, lhs.to), edits: [] };
  if (from === null || from.tables.length !== 1) return null;
  const t = from.tables[0]!;
  if (t.alias !== null) return { text: `${t.alias}.${toks[lhs.from]!.value}`, edits: [] };
  return { text: `outer_t.${toks[lhs.from]!.value}`, edits: [[toks[t.to]!.end, toks[t.to]!.end, ' AS outer_t']] };
}

function columnOf(table: TableSchema | undefined, name: string): { notNull: boolean; key: boolean } | null {
  const column = table?.columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
  return column === undefined ? null : { notNull: column.notNull || column.primaryKeyPosition > 0, key: column.primaryKeyPosition > 0 };
}

function notNullColumn(toks: readonly Tok[], lhs: { from: number; to: number }, from: { tables: FromTable[] } | null, schema: DatabaseSchema): boolean {
  if (from === null) return false;
  const name = toks[lhs.to]!.value;
  const qualifier = lhs.to - lhs.from === 2 ? toks[lhs.from]!.lower : null;
  const table = qualifier === null ? (from.tables.length === 1 ? from.tables[0]!.table : undefined) : from.tables.find((t) => (t.alias ?? t.table.name).toLowerCase() === qualifier)?.table;
  void schema;
  return columnOf(table, name)?.notNull === true;
}

/** True when a one-column subquery `SELECT [q.]col FROM t …` (one table, or joins) reads a NOT NULL column. */
function subqueryColumnNotNull(sub: string, schema: DatabaseSchema): boolean {
  const toks = tokens(sub);
  const outer = outerSelect(toks);
  if (outer === null || has(toks, 'union') || has(toks, 'intersect') || has(toks, 'except')) return false;
  const from = readFrom(toks, outer.from, schema);
  const item = operandAt(toks, outer.select + 1);
  if (from === null || item === null || item.to + 1 !== outer.from) return false;
  return notNullColumn(toks, item, from, schema);
}

/** Hoists the first uncorrelated subquery into a CTE. */
function cteSubquery(sql: string): string | null {
  const toks = tokens(sql);
  for (let i = 0; i < toks.length; i += 1) {
    if (toks[i]!.value !== '(' || toks[i + 1]?.lower !== 'select') continue;
    const close = matching(toks, i);
    if (close === null) return null;
    const inner = toks.slice(i + 1, close);
    // Correlated: a qualifier the subquery does not declare.
    const declared = new Set<string>();
    inner.forEach((t, k) => {
      if (t.lower === 'as' && inner[k + 1]) declared.add(inner[k + 1]!.lower);
      if ((inner[k - 1]?.lower === 'from' || inner[k - 1]?.lower === 'join') && t.kind === 'word') declared.add(t.lower);
    });
    const qualifiers = inner.filter((t, k) => inner[k + 1]?.value === '.' && t.kind === 'word').map((t) => t.lower);
    if (qualifiers.some((q) => !declared.has(q))) continue;
    const body = text(sql, toks, i + 1, close - 1);
    const outerText = applyEdits(sql, [[toks[i]!.start, toks[close]!.end, '(SELECT * FROM hoisted_sub)']]);
    return `WITH hoisted_sub AS (${body}) ${outerText}`;
  }
  return null;
}

/** BETWEEN → two comparisons; COUNT(*) > k → BETWEEN; x = v → BETWEEN v AND v. */
function betweenComparisons(sql: string): string[] {
  const toks = tokens(sql);
  const out: string[] = [];
  const MAX = '9223372036854775807';
  for (let i = 0; i < toks.length; i += 1) {
    const t = toks[i]!;
    if (t.lower === 'between') {
      const x = operandEndingAt(toks, i - 1);
      const a = operandAt(toks, i + 1);
      if (x === null || a === null || toks[a.to + 1]?.lower !== 'and') continue;
      const b = operandAt(toks, a.to + 2);
      if (b === null || toks[x.from - 1]?.lower === 'not') continue;
      const xt = text(sql, toks, x.from, x.to);
      out.push(applyEdits(sql, [[toks[x.from]!.start, toks[b.to]!.end, `(${xt} >= ${text(sql, toks, a.from, a.to)} AND ${xt} <= ${text(sql, toks, b.from, b.to)})`]]));
    }
    // COUNT(*) > k or >= k (an integer, so BETWEEN k+1 AND the largest integer).
    if (t.lower === 'count' && toks[i + 1]?.value === '(' && toks[i + 2]?.value === '*' && toks[i + 3]?.value === ')') {
      const op = operatorAt(toks, i + 4);
      const k = toks[i + 4 + (op?.width ?? 0)];
      if (op === null || k === undefined || k.kind !== 'number' || !/^\d+$/.test(k.value) || !(op.op === '>' || op.op === '>=')) continue;
      const low = op.op === '>' ? BigInt(k.value) + 1n : BigInt(k.value);
      out.push(applyEdits(sql, [[toks[i + 4]!.start, k.end, `BETWEEN ${low} AND ${MAX}`]]));
    }
  }
  if (out.length > 0) return out;
  // x = literal in WHERE → x BETWEEN v AND v.
  for (let i = 0; i < toks.length; i += 1) {
    const op = operatorAt(toks, i);
    if (op === null || op.op !== '=') continue;
    const x = operandEndingAt(toks, i - 1);
    const v = toks[i + 1];
    if (x === null || v === undefined || !(v.kind === 'string' || v.kind === 'number' || v.kind === 'double_quoted') || toks[i + 2]?.value === '.') continue;
    if (!(toks[x.from - 1]?.lower === 'where' || toks[x.from - 1]?.lower === 'and')) continue;
    const vt = sql.slice(v.start, v.end);
    out.push(applyEdits(sql, [[toks[i]!.start, v.end, `BETWEEN ${vt} AND ${vt}`]]));
    break;
  }
  return out;
}

/** COUNT(*) → COUNT(t.pk) for the first table of the outer inner-join FROM. */
function countStarPk(sql: string, schema: DatabaseSchema): string | null {
  const toks = tokens(sql);
  const outer = outerSelect(toks);
  if (outer === null) return null;
  const from = readFrom(toks, outer.from, schema);
  if (from === null) return null;
  const first = from.tables[0]!;
  if (first.table.primaryKey.length !== 1) return null;
  const pk = `${first.alias ?? ident(first.table.name)}.${ident(first.table.primaryKey[0]!)}`;
  // Only COUNT(*) of the outer query (before a compound operator).
  const end = toks.findIndex((t) => t.depth === 0 && ['union', 'intersect', 'except'].includes(t.lower));
  const edits: Edit[] = [];
  for (let i = 0; i < (end < 0 ? toks.length : end); i += 1) {
    const t = toks[i]!;
    if (t.depth === 0 && t.lower === 'count' && toks[i + 1]?.value === '(' && toks[i + 2]?.value === '*' && toks[i + 3]?.value === ')') edits.push([toks[i + 2]!.start, toks[i + 2]!.end, pk]);
  }
  return edits.length === 0 ? null : applyEdits(sql, edits);
}

const FLIP: Readonly<Record<string, string>> = { '=': '=', '==': '==', '!=': '!=', '<>': '<>', '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

/** Swaps the operands of the first comparison in WHERE or ON; else the two conjuncts of a WHERE. */
function commutedPredicate(sql: string): string | null {
  const toks = tokens(sql);
  for (let i = 1; i < toks.length; i += 1) {
    const op = operatorAt(toks, i);
    if (op === null || !COMPARISONS.has(op.op) && op.op !== '==') continue;
    const left = operandEndingAt(toks, i - 1);
    const right = operandAt(toks, i + op.width);
    if (left === null || right === null) continue;
    const before = toks[left.from - 1]?.lower;
    if (!['where', 'on', 'and', 'having'].includes(before ?? '')) continue;
    const after = toks[right.to + 1];
    if (after !== undefined && (after.value === '.' || operatorAt(toks, right.to + 1) !== null || ['+', '-', '*', '/', '||'].includes(after.value))) continue;
    const l = text(sql, toks, left.from, left.to);
    const r = text(sql, toks, right.from, right.to);
    return applyEdits(sql, [[toks[left.from]!.start, toks[right.to]!.end, `${r} ${FLIP[op.op]} ${l}`]]);
  }
  return null;
}

/**
 * Adds DISTINCT where rows are unique already: the select list holds every GROUP BY expression,
 * or it holds a table's key and every other table is joined on its own key.
 */
function redundantDistinct(sql: string, schema: DatabaseSchema): string | null {
  const toks = tokens(sql);
  if (has(toks, 'union') || has(toks, 'intersect') || has(toks, 'except')) return null;
  const outer = outerSelect(toks);
  if (outer === null || toks[outer.select + 1]?.lower === 'distinct') return null;
  const squash = (from: number, to: number): string => toks.slice(from, to + 1).map((t) => t.lower).join('');
  const group = toks.findIndex((t) => t.depth === 0 && t.lower === 'group' && toks[t.index + 1]?.lower === 'by');
  if (group >= 0) {
    let end = group + 2;
    while (end < toks.length && !(toks[end]!.depth === 0 && ['having', 'order', 'limit'].includes(toks[end]!.lower)) && toks[end]!.kind !== 'semicolon') end += 1;
    const keys = splitTopLevel(toks, group + 2, end - 1).map(([a, b]) => squash(a, b));
    const items = splitTopLevel(toks, outer.select + 1, outer.from - 1).map(([a, b]) => (toks[b - 1]?.lower === 'as' ? squash(a, b - 2) : squash(a, b)));
    return keys.every((k) => items.includes(k)) ? applyEdits(sql, [[toks[outer.select]!.end, toks[outer.select]!.end, ' DISTINCT']]) : null;
  }
  const from = readFrom(toks, outer.from, schema);
  if (from === null) return null;
  const items = toks.slice(outer.select + 1, outer.from);
  if (items.some((t) => ['count', 'sum', 'avg', 'min', 'max'].includes(t.lower) && toks[t.index + 1]?.value === '(')) return null;
  const nameOf = (ft: FromTable): string => (ft.alias ?? ft.table.name).toLowerCase();
  // Columns of the select list: [qualifier|null, name].
  const selected: [string | null, string][] = [];
  for (let k = 0; k < items.length; k += 1) {
    const t = items[k]!;
    if (t.kind !== 'word' && t.kind !== 'double_quoted') continue;
    if (items[k + 1]?.value === '.') continue;
    const qualifier = items[k - 1]?.value === '.' ? items[k - 2]!.lower : null;
    selected.push([qualifier, t.value.toLowerCase()]);
  }
  const holdsKey = (ft: FromTable): boolean =>
    ft.table.primaryKey.length > 0 &&
    ft.table.primaryKey.every((pk) => selected.some(([q, c]) => c === pk.toLowerCase() && (q === nameOf(ft) || (q === null && from.tables.length === 1))));
  const keyed = from.tables.find(holdsKey);
  if (keyed === undefined) return null;
  // Every other table joined by equality on its own single-column key.
  for (const ft of from.tables) {
    if (ft === keyed) continue;
    if (ft.on === null) {
      // The first table: it must be joined to on its key by the next one's ON.
      const partner = from.tables[1]!;
      if (!joinsOnKey(toks, partner.on!, ft, nameOf(ft))) return null;
      continue;
    }
    if (!joinsOnKey(toks, ft.on, ft, nameOf(ft))) return null;
  }
  return applyEdits(sql, [[toks[outer.select]!.end, toks[outer.select]!.end, ' DISTINCT']]);
}

/** Comma-separated items at the depth of `from`, as token ranges. */
function splitTopLevel(toks: readonly Tok[], from: number, to: number): [number, number][] {
  const depth = toks[from]?.depth ?? 0;
  const out: [number, number][] = [];
  let start = from;
  for (let i = from; i <= to; i += 1) {
    if (toks[i]!.value === ',' && toks[i]!.depth === depth) {
      out.push([start, i - 1]);
      start = i + 1;
    }
  }
  if (start <= to) out.push([start, to]);
  return out;
}

function joinsOnKey(toks: readonly Tok[], on: { from: number; to: number }, ft: FromTable, name: string): boolean {
  if (ft.table.primaryKey.length !== 1) return false;
  const key = ft.table.primaryKey[0]!.toLowerCase();
  const cond = toks.slice(on.from, on.to + 1);
  if (cond.some((t) => t.lower === 'and' || t.lower === 'or')) return false;
  return cond.some((t, k) => t.lower === name && cond[k + 1]?.value === '.' && cond[k + 2]?.value.toLowerCase() === key);
}

/** `a != b` → `NOT (a = b)`; else the first `a = literal` of a WHERE → `NOT (a <> literal)`. */
function notEqual(sql: string): string | null {
  const toks = tokens(sql);
  let fallback: string | null = null;
  for (let i = 1; i < toks.length; i += 1) {
    const op = operatorAt(toks, i);
    if (op === null) continue;
    const left = operandEndingAt(toks, i - 1);
    const right = operandAt(toks, i + op.width);
    if (left === null || right === null) continue;
    const before = toks[left.from - 1]?.lower;
    if (!['where', 'and', 'on'].includes(before ?? '')) continue;
    const after = toks[right.to + 1];
    if (after !== undefined && (after.value === '.' || operatorAt(toks, right.to + 1) !== null)) continue;
    const l = text(sql, toks, left.from, left.to);
    const r = text(sql, toks, right.from, right.to);
    if (op.op === '!=' || op.op === '<>') return applyEdits(sql, [[toks[left.from]!.start, toks[right.to]!.end, `NOT (${l} = ${r})`]]);
    if (op.op === '=' && fallback === null && (toks[right.from]!.kind === 'string' || toks[right.from]!.kind === 'number' || toks[right.from]!.kind === 'double_quoted')) {
      fallback = applyEdits(sql, [[toks[left.from]!.start, toks[right.to]!.end, `NOT (${l} <> ${r})`]]);
    }
  }
  return fallback;
}

/** A joined table replaced by `(SELECT * FROM t) AS alias`. */
function derivedTableJoin(sql: string, schema: DatabaseSchema): string | null {
  const toks = tokens(sql);
  if (has(toks, 'group') || (has(toks, 'limit') && !has(toks, 'order'))) return null;
  const outer = outerSelect(toks);
  if (outer === null) return null;
  const from = readFrom(toks, outer.from, schema);
  if (from === null || from.tables.length < 2) return null;
  const second = from.tables[1]!;
  const alias = second.alias ?? second.table.name;
  return applyEdits(sql, [[toks[second.from]!.start, toks[second.to]!.end, `(SELECT * FROM ${ident(second.table.name)}) AS ${ident(alias)}`]]);
}

/**
 * Every rewrite of every gold (distinct golds only), in gold order then kind order.
 * @param golds - `{ sql, dbId }` items.
 * @param schemas - the schema of each db_id.
 */
export function buildGoldRewrites(golds: readonly { readonly sql: string; readonly dbId: string }[], schemas: ReadonlyMap<string, DatabaseSchema>): GoldRewrite[] {
  const seen = new Set<string>();
  const out: GoldRewrite[] = [];
  for (const { sql, dbId } of golds) {
    if (seen.has(sql)) continue;
    seen.add(sql);
    const schema = schemas.get(dbId)!;
    const add = (kind: RewriteKind, rewrite: string | null): void => {
      if (rewrite !== null && rewrite !== sql) out.push({ kind, form: formOf(kind, sql, rewrite), dbId, gold: sql, rewrite });
    };
    add('alias_renaming', aliasRenaming(sql));
    add('join_order', joinOrder(sql, schema));
    for (const r of inExists(sql, schema)) add('in_exists', r);
    add('cte_subquery', cteSubquery(sql));
    for (const r of betweenComparisons(sql)) add('between_comparisons', r);
    add('count_star_pk', countStarPk(sql, schema));
    add('commuted_predicate', commutedPredicate(sql));
    add('redundant_distinct', redundantDistinct(sql, schema));
    add('not_equal', notEqual(sql));
    add('derived_table_join', derivedTableJoin(sql, schema));
  }
  return out;
}

function formOf(kind: RewriteKind, gold: string, rewrite: string): string {
  const lower = gold.toLowerCase();
  switch (kind) {
    case 'in_exists':
      if (rewrite.includes('NOT EXISTS')) return rewrite.includes('in_sub.v IS NULL') ? 'NOT IN → NOT EXISTS (NULL-aware)' : 'NOT IN → NOT EXISTS (both sides NOT NULL)';
      return rewrite.includes('HAVING') ? 'comparison with an aggregate → EXISTS … HAVING' : '= (SELECT aggregate) → IN';
    case 'between_comparisons':
      if (lower.includes(' between ')) return 'BETWEEN → two comparisons';
      return rewrite.includes('9223372036854775807') ? 'COUNT(*) > k → BETWEEN' : 'x = v → x BETWEEN v AND v';
    case 'not_equal':
      return gold.includes('!=') ? 'a != b → NOT (a = b)' : 'a = v → NOT (a <> v)';
    case 'redundant_distinct':
      return lower.includes('group by') ? 'DISTINCT over the GROUP BY keys' : 'DISTINCT over a key';
    default:
      return kind;
  }
}

/**
 * Up to `perKind` rewrites of each kind, taking the forms of a kind in turn (so that a kind with a
 * common form and a rare one gets both), in gold order within a form.
 */
export function selectRewrites(all: readonly GoldRewrite[], perKind: number): GoldRewrite[] {
  return REWRITE_KINDS.flatMap((kind) => {
    const byForm = new Map<string, GoldRewrite[]>();
    for (const r of all) if (r.kind === kind) byForm.set(r.form, [...(byForm.get(r.form) ?? []), r]);
    const queues = [...byForm.values()];
    const out: GoldRewrite[] = [];
    for (let round = 0; out.length < perKind && queues.some((q) => q.length > round); round += 1) {
      for (const q of queues) if (q[round] !== undefined && out.length < perKind) out.push(q[round]!);
    }
    return out;
  });
}
