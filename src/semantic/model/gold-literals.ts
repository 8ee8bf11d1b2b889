/**
 * The constants a gold compares columns with (`status = 'paid'`, `age > 30`, `name LIKE 'A%'`,
 * `d BETWEEN '2024-01-01' AND '2024-12-31'`, `x IN (1, 2)`), each tied to the column(s) it is
 * compared with. The database generator puts these constants, and values next to them, into
 * those columns: random data rarely hits `'paid'` by chance, and without rows on both sides of a
 * constant a predicate and its neighbour (`>` vs `>=`) return the same rows.
 *
 * Columns are resolved scope by scope with `collectReferences` (sql/references.ts); a column of a
 * view, CTE or derived table is mapped to every base-table column of the same name. When the AST
 * layer cannot read the gold, a token scan pairs `column <op> literal` instead.
 */
import type { Catalog } from '../../engine/engine.js';
import { collectReferences, type ColumnReference } from '../../sql/references.js';
import { parseSql } from '../../sql/parse.js';
import { tokenizeSqlite, type SqliteToken } from '../../sql/sqlite-lexer.js';
import { isSqlNode, keywordText, type SqlNode } from '../../sql/sql-tree.js';
import type { GenValue } from './gen-value.js';
import type { DatabaseSchema } from './schema-reader.js';

/** A base-table column a constant is compared with. */
export interface ColumnTarget {
  readonly table: string;
  readonly column: string;
}

/** One constant of a gold and where it is compared. */
export interface GoldLiteral {
  /** INTEGER → bigint, REAL → number, TEXT → string. */
  readonly value: GenValue;
  /** The literal as written. */
  readonly text: string;
  /** 0-based `[start, end)` offsets in the gold text. */
  readonly start: number;
  readonly end: number;
  /** Lower-case operator: `=`, `!=`, `<`, `<=`, `>`, `>=`, `like`, `not like`, `glob`, `in`, `not in`, `between`, `not between`. */
  readonly operator: string;
  /** Columns it is compared with; several when the name is ambiguous; empty when unknown. */
  readonly columns: readonly ColumnTarget[];
  /** True when the column side is wrapped in a function or expression (`LOWER(name) = 'bob'`). */
  readonly wrapped: boolean;
}

const COMPARISONS = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=', 'like', 'not like', 'glob', 'not glob', 'in', 'not in', 'is', 'is not']);

/**
 * Lists the constants a gold compares columns with.
 *
 * @param sql - the gold SQL (SQLite).
 * @param schema - the database schema (base tables and their columns).
 * @param catalog - optional catalog with views (from `engine.catalog`), for scope resolution.
 * @returns literals in source order; never throws for unreadable SQL (falls back to tokens).
 * @example
 * extractGoldLiterals("SELECT * FROM t WHERE t.a >= 5", schema)
 * // [{ value: 5n, text: '5', operator: '>=', columns: [{ table: 't', column: 'a' }], wrapped: false, … }]
 */
export function extractGoldLiterals(sql: string, schema: DatabaseSchema, catalog?: Catalog): GoldLiteral[] {
  const parsed = parseSql(sql, 'sqlite');
  if (!parsed.ok || parsed.kind !== 'cst') return tokenLiterals(sql, schema);
  const statements = (parsed.program.statements as unknown as SqlNode[]).filter((s) => s.type !== 'empty');
  if (statements.length !== 1) return tokenLiterals(sql, schema);
  const refs = collectReferences({ sql, dialect: 'sqlite', catalog: catalog ?? catalogOf(schema), doubleQuotes: 'legacy', sqlRole: 'gold', program: parsed.program });
  const byStart = new Map<number, ColumnReference>();
  if (refs.ok) for (const ref of refs.columns) byStart.set(ref.start, ref);
  const byName = columnsByName(schema);
  const referenced = new Set(refs.ok ? refs.tables.map((t) => (t.table?.name ?? t.name).toLowerCase()) : []);
  const out: GoldLiteral[] = [];

  const targetsOf = (node: SqlNode): { columns: ColumnTarget[]; wrapped: boolean } | undefined => {
    const direct = node.type === 'identifier' || node.type === 'member_expr';
    const refsInside: ColumnReference[] = [];
    visit(node, (n) => {
      if ((n.type === 'identifier' || n.type === 'member_expr') && rangeOf(n)) {
        const ref = byStart.get(rangeOf(n)![0]);
        if (ref && ref.resolution.kind !== 'string_literal') refsInside.push(ref);
      }
    });
    const ref = refsInside[0];
    if (ref === undefined) return undefined;
    return { columns: resolveTargets(ref, byName, referenced), wrapped: !direct };
  };
  const literalsOf = (node: SqlNode): { value: GenValue; start: number; end: number }[] => {
    if (node.type === 'paren_expr') {
      const inner = node['expr'];
      if (isSqlNode(inner) && inner.type === 'list_expr') return ((inner['items'] as SqlNode[]) ?? []).flatMap(literalsOf);
      return isSqlNode(inner) ? literalsOf(inner) : [];
    }
    const literal = literalValue(node, sql, byStart);
    return literal === undefined ? [] : [literal];
  };
  const add = (columnSide: SqlNode, literalSide: SqlNode, operator: string): void => {
    const target = targetsOf(columnSide);
    if (target === undefined) return;
    for (const literal of literalsOf(literalSide)) {
      out.push({ ...literal, text: sql.slice(literal.start, literal.end), operator, columns: target.columns, wrapped: target.wrapped });
    }
  };

  visit(statements[0]!, (node) => {
    if (node.type === 'binary_expr') {
      const operator = keywordText(node['operator']);
      if (!COMPARISONS.has(operator)) return;
      const left = node['left'];
      const right = node['right'];
      if (!isSqlNode(left) || !isSqlNode(right)) return;
      const op = operator === '==' ? '=' : operator === '<>' ? '!=' : operator;
      if (literalsOf(right).length > 0) add(left, right, op);
      else if (literalsOf(left).length > 0) add(right, left, mirror(op));
    } else if (node.type === 'between_expr') {
      const left = node['left'];
      const operator = keywordText(node['betweenKw']);
      if (!isSqlNode(left)) return;
      for (const bound of [node['begin'], node['end']]) if (isSqlNode(bound)) add(left, bound, operator);
    }
  });
  return out.sort((a, b) => a.start - b.start);
}

function mirror(op: string): string {
  return op === '<' ? '>' : op === '>' ? '<' : op === '<=' ? '>=' : op === '>=' ? '<=' : op;
}

function rangeOf(node: SqlNode): [number, number] | undefined {
  const range = node['range'];
  return Array.isArray(range) ? (range as [number, number]) : undefined;
}

function visit(node: SqlNode, fn: (node: SqlNode) => void): void {
  fn(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'range') continue;
    if (isSqlNode(value)) visit(value, fn);
    else if (Array.isArray(value)) for (const item of value) if (isSqlNode(item)) visit(item, fn);
  }
}

/** The literal a node stands for: numbers, strings, `-number`, and double-quoted strings (legacy SQLite). */
function literalValue(node: SqlNode, sql: string, byStart: Map<number, ColumnReference>): { value: GenValue; start: number; end: number } | undefined {
  const range = rangeOf(node);
  if (range === undefined) return undefined;
  if (node.type === 'number_literal') {
    const value = numberValue(sql.slice(range[0], range[1]));
    return value === undefined ? undefined : { value, start: range[0], end: range[1] };
  }
  if (node.type === 'string_literal') return { value: String(node['value']), start: range[0], end: range[1] };
  if (node.type === 'prefix_op_expr' && (node['operator'] === '-' || node['operator'] === '+')) {
    const inner = node['expr'];
    if (!isSqlNode(inner) || inner.type !== 'number_literal') return undefined;
    const innerRange = rangeOf(inner)!;
    const value = numberValue(sql.slice(innerRange[0], innerRange[1]));
    if (value === undefined) return undefined;
    const negated = node['operator'] === '-' ? (typeof value === 'bigint' ? -value : -value) : value;
    return { value: negated, start: range[0], end: range[1] };
  }
  if (node.type === 'identifier') {
    const ref = byStart.get(range[0]);
    if (ref?.resolution.kind === 'string_literal') return { value: ref.name, start: range[0], end: range[1] };
  }
  return undefined;
}

/** An integer literal as bigint, anything else numeric as number; `undefined` for hex blobs and the like. */
export function numberValue(text: string): bigint | number | undefined {
  if (/^[0-9]+$/.test(text)) return BigInt(text);
  if (/^0x[0-9a-f]+$/i.test(text)) return BigInt(text);
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** A base-table column; an ambiguous name maps to the tables of that name the query reads; other sources by name. */
function resolveTargets(ref: ColumnReference, byName: Map<string, ColumnTarget[]>, referenced: ReadonlySet<string>): ColumnTarget[] {
  const resolution = ref.resolution;
  if (resolution.kind === 'table' && resolution.table.kind === 'table') return [{ table: resolution.table.name, column: resolution.column }];
  const all = byName.get(ref.name.toLowerCase()) ?? [];
  if (resolution.kind === 'ambiguous') return all.filter((t) => referenced.has(t.table.toLowerCase()));
  return all;
}

function columnsByName(schema: DatabaseSchema): Map<string, ColumnTarget[]> {
  const out = new Map<string, ColumnTarget[]>();
  for (const table of schema.tables) {
    for (const column of table.columns) {
      const key = column.name.toLowerCase();
      out.set(key, [...(out.get(key) ?? []), { table: table.name, column: column.name }]);
    }
  }
  return out;
}

/** A catalog of the schema's base tables (no views), for scope resolution. */
export function catalogOf(schema: DatabaseSchema): Catalog {
  return {
    tables: schema.tables.map((t) => ({
      name: t.name,
      kind: 'table' as const,
      schema: 'main',
      columns: t.columns.map((c) => ({ name: c.name, type: c.declaredType, primaryKey: c.primaryKeyPosition > 0 })),
    })),
  };
}

const TOKEN_OPERATORS = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=']);

/** Fallback: `name <op> literal` and `name LIKE literal` over the tokens, columns matched by name. */
function tokenLiterals(sql: string, schema: DatabaseSchema): GoldLiteral[] {
  const byName = columnsByName(schema);
  const tokens = mergeOperators(tokenizeSqlite(sql));
  const out: GoldLiteral[] = [];
  for (let i = 2; i < tokens.length; i += 1) {
    const literal = tokens[i]!;
    const op = tokens[i - 1]!;
    const column = tokens[i - 2]!;
    const opText = op.value.toLowerCase();
    if (!TOKEN_OPERATORS.has(opText) && opText !== 'like') continue;
    if (column.kind !== 'word' && column.kind !== 'quoted_identifier' && column.kind !== 'double_quoted') continue;
    let value: GenValue | undefined;
    if (literal.kind === 'number') value = numberValue(literal.value);
    else if (literal.kind === 'string' || (literal.kind === 'double_quoted' && !byName.has(literal.value.toLowerCase()))) value = literal.value;
    if (value === undefined) continue;
    out.push({
      value,
      text: sql.slice(literal.start, literal.end),
      start: literal.start,
      end: literal.end,
      operator: opText === '==' ? '=' : opText === '<>' ? '!=' : opText,
      columns: byName.get(column.value.toLowerCase()) ?? [],
      wrapped: false,
    });
  }
  return out;
}

/** Two-character operators (`>=`, `<=`, `!=`, `<>`, `==`, `||`, `<<`, `>>`) joined into one token. */
export function mergeOperators(tokens: readonly SqliteToken[]): SqliteToken[] {
  const out: SqliteToken[] = [];
  for (const token of tokens) {
    const previous = out[out.length - 1];
    if (previous && previous.kind === 'punctuation' && token.kind === 'punctuation' && previous.end === token.start && TWO_CHAR.has(previous.value + token.value)) {
      out[out.length - 1] = { kind: 'punctuation', start: previous.start, end: token.end, value: previous.value + token.value };
    } else {
      out.push(token);
    }
  }
  return out;
}

const TWO_CHAR = new Set(['>=', '<=', '!=', '<>', '==', '||', '<<', '>>']);
