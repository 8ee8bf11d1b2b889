/**
 * Normalization pass 2, `tableAliases`: per SELECT scope, table aliases become table names, a
 * self-joined table gets canonical aliases (`orders_1`, `orders_2`), a sole table's qualifier is
 * dropped, and with the columns per table a bare column is qualified by the one table that has it.
 */
import { child, children, clauseOf, fromSources, identifierName, mapChildren, tableName, withFields, type SqlNode } from '../sql-tree.js';

interface TableSource {
  /** Lower-cased table name, or undefined for a subquery / table function. */
  readonly table: string | undefined;
  readonly alias: string | undefined;
}

function describeSource(source: SqlNode): TableSource {
  if (source.type === 'alias') {
    const inner = child(source, 'expr');
    return { table: tableName(inner), alias: identifierName(child(source, 'alias')) };
  }
  return { table: tableName(source), alias: undefined };
}

interface AliasScope {
  /** alias or table name (lower-case) → canonical qualifier. */
  readonly qualifiers: ReadonlyMap<string, string>;
  /** The single table of this scope, whose qualifier is dropped. */
  readonly soleTable: string | undefined;
  /** Bare column name → canonical qualifier of the one table in scope that has it (null: ambiguous). */
  readonly bare: ReadonlyMap<string, string | null>;
  /** Columns per table, when the caller gave them (see `NormalizeOptions.columnsByTable` in normalize.ts). */
  readonly columnsByTable: ReadonlyMap<string, ReadonlySet<string>> | undefined;
}

/** Pass 2 (see normalize.ts). */
export function resolveTableAliases(tree: SqlNode, columnsByTable?: ReadonlyMap<string, ReadonlySet<string>>): SqlNode {
  return rewriteScopes(tree, { qualifiers: new Map(), soleTable: undefined, bare: new Map(), columnsByTable });
}

/** Fields whose identifiers are names, not column references. */
const NAME_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  func_call: new Set(['name']),
  alias: new Set(['alias']),
  common_table_expr: new Set(['table', 'columns']),
};

function rewriteScopes(node: SqlNode, scope: AliasScope): SqlNode {
  if (node.type === 'select_stmt') return rewriteSelect(node, scope);
  if (node.type === 'join_using_specification') return node;
  if (node.type === 'identifier') {
    const name = identifierName(node);
    const qualifier = name === undefined ? undefined : scope.bare.get(name);
    if (qualifier === undefined || qualifier === null || qualifier === scope.soleTable) return node;
    return { type: 'member_expr', object: { type: 'identifier', text: qualifier, name: qualifier }, property: node };
  }
  const names = NAME_FIELDS[node.type];
  if (names) return mapChildren(node, (c, field) => (names.has(field) ? c : rewriteScopes(c, scope)));
  if (node.type === 'member_expr') {
    const object = child(node, 'object');
    const qualifier = identifierName(object);
    const property = child(node, 'property');
    if (object && qualifier !== undefined && property && scope.qualifiers.has(qualifier)) {
      const canonical = scope.qualifiers.get(qualifier)!;
      if (canonical === scope.soleTable) return property;
      return withFields(node, { object: withFields(object, { text: canonical, name: canonical }) });
    }
  }
  return mapChildren(node, (c) => rewriteScopes(c, scope));
}

function rewriteSelect(select: SqlNode, outer: AliasScope): SqlNode {
  const from = clauseOf(select, 'from_clause');
  const sources = fromSources(child(from ?? { type: 'none' }, 'expr')).map(describeSource);
  const counts = new Map<string, number>();
  for (const s of sources) if (s.table !== undefined) counts.set(s.table, (counts.get(s.table) ?? 0) + 1);
  const qualifiers = new Map(outer.qualifiers);
  const seen = new Map<string, number>();
  const renames = new Map<string, string | null>(); // alias → new alias (null: drop the alias)
  for (const s of sources) {
    if (s.table === undefined) {
      if (s.alias !== undefined) qualifiers.set(s.alias, s.alias);
      continue;
    }
    const n = (seen.get(s.table) ?? 0) + 1;
    seen.set(s.table, n);
    if ((counts.get(s.table) ?? 0) > 1) {
      const canonical = `${s.table}_${n}`;
      if (s.alias !== undefined) {
        qualifiers.set(s.alias, canonical);
        renames.set(s.alias, canonical);
      }
    } else {
      qualifiers.set(s.table, s.table);
      if (s.alias !== undefined) {
        qualifiers.set(s.alias, s.table);
        renames.set(s.alias, null);
      }
    }
  }
  const tables = sources.filter((s) => s.table !== undefined);
  const soleTable = sources.length === 1 && tables.length === 1 ? tables[0]!.table : undefined;
  const bare = new Map(outer.bare);
  if (outer.columnsByTable) {
    const seenHere = new Set<string>();
    const occurrence = new Map<string, number>();
    for (const s of sources) {
      if (s.table === undefined) continue;
      const n = (occurrence.get(s.table) ?? 0) + 1;
      occurrence.set(s.table, n);
      const canonical = (counts.get(s.table) ?? 0) > 1 ? `${s.table}_${n}` : s.table;
      for (const column of outer.columnsByTable.get(s.table) ?? []) {
        bare.set(column, seenHere.has(column) ? null : canonical);
        seenHere.add(column);
      }
    }
  }
  const scope: AliasScope = { qualifiers, soleTable, bare, columnsByTable: outer.columnsByTable };
  const clauses = children(select, 'clauses').map((clause) =>
    clause.type === 'from_clause' ? rewriteFrom(clause, scope, renames) : rewriteScopes(clause, scope),
  );
  return withFields(select, { clauses });
}

function rewriteFrom(from: SqlNode, scope: AliasScope, renames: ReadonlyMap<string, string | null>): SqlNode {
  const rewriteSource = (node: SqlNode): SqlNode => {
    if (node.type === 'join_expr') {
      return mapChildren(node, (c, field) =>
        field === 'left' || field === 'right' ? rewriteSource(c) : rewriteScopes(c, scope),
      );
    }
    if (node.type === 'alias') {
      const aliasName = identifierName(child(node, 'alias'));
      const inner = child(node, 'expr')!;
      const innerRewritten = rewriteScopes(inner, scope);
      if (aliasName !== undefined && renames.has(aliasName)) {
        const renamed = renames.get(aliasName);
        if (renamed === null || renamed === undefined) return innerRewritten;
        const aliasNode = child(node, 'alias')!;
        return withFields(node, { expr: innerRewritten, alias: withFields(aliasNode, { text: renamed, name: renamed }) });
      }
      return withFields(node, { expr: innerRewritten });
    }
    if (node.type === 'identifier' || node.type === 'member_expr') return node; // a table name
    return rewriteScopes(node, scope);
  };
  const expr = child(from, 'expr');
  return expr ? withFields(from, { expr: rewriteSource(expr) }) : from;
}
