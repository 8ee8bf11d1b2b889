/**
 * FROM items of a scope-aware resolution (rules in references.ts): joins with USING / NATURAL,
 * table names (a CTE shadows a real table; a SQLite circular self-reference is also recorded as
 * the table), derived tables, LATERAL, and table-valued functions.
 */
import type { CatalogTable } from './catalog-types.js';
import { identifierKey } from './identifiers.js';
import { isNode, type AnyNode, type ColumnSet, type Env, type Identifierish, type ReferenceScopes, type Scope, type Source } from './reference-scopes.js';
import { isSqliteTableFunction } from './sqlite-table-functions.js';

/** Adds the sources of one FROM item to `scope`; returns the sources it added (for USING / NATURAL). */
export function fromItem(r: ReferenceScopes, node: AnyNode, scope: Scope, env: Env, alias?: AnyNode): Source[] {
  switch (node.type) {
    case 'join_expr':
      return join(r, node, scope, env);
    case 'alias':
      return fromItem(r, node.expr as AnyNode, scope, env, node);
    case 'identifier':
    case 'member_expr':
    case 'bigquery_quoted_member_expr':
      return [relation(r, node, scope, alias)];
    case 'indexed_table':
    case 'not_indexed_table':
    case 'partitioned_table':
    case 'table_with_inheritance':
    case 'table_without_inheritance': {
      const inner = node.table as AnyNode;
      return inner.type === 'alias' ? fromItem(r, inner.expr as AnyNode, scope, env, inner) : [relation(r, inner, scope, alias)];
    }
    case 'paren_expr': {
      const inner = node.expr as AnyNode;
      if (inner.type === 'select_stmt' || inner.type === 'compound_select_stmt' || inner.type === 'paren_expr' && isQueryNode(inner.expr as AnyNode)) {
        const output = r.query(inner, env, 'derived');
        return [addDerived(r, scope, alias, output)];
      }
      return fromItem(r, inner, scope, env, alias);
    }
    case 'lateral_derived_table': {
      const inner = node.expr as AnyNode;
      const lateralEnv: Env = { outer: scope, ctes: env.ctes };
      if (inner.type === 'paren_expr') return [addDerived(r, scope, alias, r.query(inner, lateralEnv, 'derived'))];
      return fromItem(r, inner, scope, lateralEnv, alias);
    }
    case 'func_call':
    case 'func_call_with_column_definitions':
    case 'with_ordinality_expr':
    case 'rows_from_expr':
    case 'unnest_expr':
    case 'unnest_with_offset_expr':
      return [tableFunction(r, node, scope, alias)];
    default: {
      // PIVOT, TABLESAMPLE, FOR SYSTEM_TIME …: resolve the inner table expression when present.
      const inner = (node.expr ?? node.left) as AnyNode | undefined;
      const added = inner && typeof inner === 'object' ? fromItem(r, inner, scope, env, alias) : [];
      r.walkGeneric(node, scope, new Set(['expr', 'left']));
      return added;
    }
  }
}

/** A join: both sides' sources, USING / NATURAL columns merged, the ON condition resolved. */
function join(r: ReferenceScopes, node: AnyNode, scope: Scope, env: Env): Source[] {
  const left = fromItem(r, node.left as AnyNode, scope, env);
  const right = fromItem(r, node.right as AnyNode, scope, env);
  const operator = node.operator;
  const keywords = Array.isArray(operator) ? (operator as AnyNode[]) : typeof operator === 'object' ? [operator as AnyNode] : [];
  if (keywords.some((keyword) => keyword.name === 'NATURAL')) {
    for (const key of commonColumns(left, right)) scope.mergedColumns.add(key);
  }
  const specification = node.specification as AnyNode | undefined;
  if (specification?.type === 'join_using_specification') {
    const list = (specification.expr as AnyNode).expr as AnyNode;
    for (const item of (list.items as Identifierish[]) ?? []) {
      const key = r.key(item);
      scope.mergedColumns.add(key);
      for (const [side, sources] of [['left', left], ['right', right]] as const) {
        const owner = sources.find((source) => source.columns === null || source.columns.has(key));
        if (!owner) {
          r.unknownColumn(item, item.name, undefined, sources.flatMap((source) => [...(source.columns?.values() ?? [])]), `USING column ${item.name} is not in the ${side} side of the join`);
        } else {
          r.columns.push({ ...r.position(item), name: item.name, resolution: r.resolutionFor(owner, key), scope: scope.id });
        }
      }
    }
  } else if (specification?.type === 'join_on_specification') {
    r.expr(specification.expr as AnyNode, scope, 'other');
  }
  return [...left, ...right];
}

/** Resolves a table name; `expose: false` for a name that is read but adds no FROM source (`x IN t`). */
export function relation(r: ReferenceScopes, node: AnyNode, scope: Scope, alias?: AnyNode, expose = true): Source {
  const parts = r.nameParts(node);
  const aliasNode = alias?.alias as Identifierish | undefined;
  const aliasColumns = r.columnList(alias?.columnAliases as AnyNode | undefined);
  const last = parts[parts.length - 1]!;
  if (parts.length === 1) {
    const cte = scope.ctes.get(last.key);
    if (cte) {
      const selfReference = cte.defining;
      r.ctes.push({ ...r.position(node), name: last.name, scope: scope.id, selfReference });
      if (selfReference && cte.circularSelfReference) {
        // Recorded twice on purpose: SQLite reads the CTE, a policy must also see the table name.
        r.tables.push({ ...r.position(node), written: last.name, name: last.name, nameKey: last.key, ...(aliasNode ? { alias: aliasNode.name } : {}), unknown: false, selfReference: true, scope: scope.id });
      }
      const source: Source = {
        name: aliasNode?.name ?? cte.name,
        key: aliasNode ? r.key(aliasNode) : cte.key,
        kind: 'cte',
        columns: aliasColumns ?? (selfReference ? null : cte.columns),
        hasRowid: false,
      };
      if (expose) scope.sources.push(source);
      return source;
    }
  }
  const schemaPart = parts.length > 1 ? parts[parts.length - 2] : undefined;
  const table = r.catalog?.findTable({ ...(schemaPart ? { schema: schemaPart.key } : {}), name: last.key });
  const written = parts.map((part) => part.name).join('.');
  const unknown = r.catalog !== undefined && table === undefined;
  r.tables.push({
    ...r.position(node),
    written,
    ...(schemaPart ? { schema: schemaPart.name, schemaKey: schemaPart.key } : {}),
    name: last.name,
    nameKey: last.key,
    ...(aliasNode ? { alias: aliasNode.name } : {}),
    ...(table ? { table } : {}),
    unknown,
    selfReference: false,
    scope: scope.id,
  });
  if (unknown) {
    r.addUnresolved(node, 'unknown_table', written, `no such table: ${written}`, r.catalog!.tableNames());
  }
  const columns: ColumnSet = aliasColumns ?? (table ? tableColumns(r, table) : null);
  const source: Source = {
    name: aliasNode?.name ?? last.name,
    key: aliasNode ? r.key(aliasNode) : last.key,
    kind: table ? 'table' : 'unchecked',
    columns,
    ...(table ? { table } : {}),
    ...(!aliasNode && schemaPart ? { schemaKey: schemaPart.key } : {}),
    hasRowid: r.dialect === 'sqlite' && table?.kind === 'table',
  };
  if (expose) scope.sources.push(source);
  return source;
}

function tableColumns(r: ReferenceScopes, table: CatalogTable): Map<string, string> {
  return new Map(table.columns.map((column) => [identifierKey(column.name, true, r.dialect), column.name]));
}

function addDerived(r: ReferenceScopes, scope: Scope, alias: AnyNode | undefined, output: ColumnSet): Source {
  const aliasNode = alias?.alias as Identifierish | undefined;
  const source: Source = {
    name: aliasNode?.name ?? '',
    key: aliasNode ? r.key(aliasNode) : '',
    kind: 'derived',
    columns: r.columnList(alias?.columnAliases as AnyNode | undefined) ?? output,
    hasRowid: false,
  };
  scope.sources.push(source);
  return source;
}

/** Resolves a table-valued function call; `expose: false` when it adds no FROM source (`x IN f(…)`). */
export function tableFunction(r: ReferenceScopes, node: AnyNode, scope: Scope, alias: AnyNode | undefined, expose = true): Source {
  const call = findFuncCall(node);
  const nameNode = call?.name as AnyNode | undefined;
  const name = nameNode ? r.nameParts(nameNode).map((part) => part.name).join('.') : node.type;
  r.tableFunctions.push({ ...r.position(nameNode ?? node), name, scope: scope.id });
  const catalogTable = r.catalog?.findTable({ name: identifierKey(name.slice(name.lastIndexOf('.') + 1), false, r.dialect) });
  if (r.catalog && r.dialect === 'sqlite' && call && !catalogTable && !isSqliteTableFunction(name)) {
    // SQLite has no such table-valued function (sqlite-table-functions.ts), and no virtual table
    // of the catalog has that name (FTS5 `docs('query')`): `no such table`.
    r.addUnresolved(nameNode ?? node, 'unknown_table', name, `no such table: ${name} (not a table-valued function of SQLite)`, r.catalog.tableNames());
  }
  // Arguments may reference earlier FROM items (SQLite json_each(t.col)): resolve in this scope.
  r.walkGeneric(node, scope, new Set(['name']));
  const aliasNode = alias?.alias as Identifierish | undefined;
  const source: Source = {
    name: aliasNode?.name ?? name,
    key: aliasNode ? r.key(aliasNode) : identifierKey(name, false, r.dialect),
    kind: 'function',
    columns: r.columnList(alias?.columnAliases as AnyNode | undefined),
    hasRowid: false,
  };
  if (expose) scope.sources.push(source);
  return source;
}

function isQueryNode(node: AnyNode): boolean {
  return node.type === 'select_stmt' || node.type === 'compound_select_stmt' || (node.type === 'paren_expr' && isQueryNode(node.expr as AnyNode));
}

function findFuncCall(node: AnyNode): AnyNode | undefined {
  if (node.type === 'func_call') return node;
  for (const key of ['expr', 'func', 'funcCall']) {
    const child = node[key];
    if (isNode(child)) {
      const found = findFuncCall(child);
      if (found) return found;
    }
  }
  return undefined;
}

function commonColumns(left: Source[], right: Source[]): string[] {
  const leftKeys = new Set(left.flatMap((source) => [...(source.columns?.keys() ?? [])]));
  return right.flatMap((source) => [...(source.columns?.keys() ?? [])]).filter((key) => leftKeys.has(key));
}
