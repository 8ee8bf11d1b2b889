/**
 * Expressions of a scope-aware resolution (rules in references.ts): every column reference,
 * qualified or not, resolved innermost scope first (select-list aliases by clause, USING /
 * NATURAL columns, SQLite row ids and legacy double-quoted strings), and the subqueries inside.
 */
import { checkAnalysisBudget } from './analysis-budget.js';
import { relation, tableFunction } from './reference-from-items.js';
import { ROWID_KEYS, walkChildren, type AnyNode, type ClauseKind, type Identifierish, type NamePart, type ReferenceScopes, type Scope } from './reference-scopes.js';
import type { ColumnResolution } from './reference-types.js';

/**
 * Resolves the names in one expression: columns (qualified, unqualified, `*`), subqueries (a new
 * scope with this one as outer), window definitions, and SQLite's `x IN t` / `x IN f(…)`.
 */
export function expr(r: ReferenceScopes, node: AnyNode | undefined, scope: Scope, clause: ClauseKind): void {
  if (!node || typeof node !== 'object') return;
  checkAnalysisBudget();
  switch (node.type) {
    case 'identifier':
      columnRef(r, node as unknown as Identifierish, [], scope, clause);
      return;
    case 'member_expr': {
      const property = node.property as AnyNode;
      const qualifier = r.qualifierParts(node.object as AnyNode);
      if (qualifier && (property.type === 'identifier' || property.type === 'all_columns')) {
        if (property.type === 'all_columns') starRef(r, node, qualifier, scope);
        else columnRef(r, property as unknown as Identifierish, qualifier, scope, clause, node);
        return;
      }
      expr(r, node.object as AnyNode, scope, clause);
      if (property.type !== 'identifier') expr(r, property, scope, clause);
      return;
    }
    case 'select_stmt':
    case 'compound_select_stmt':
      r.query(node, { outer: scope, ctes: scope.ctes }, 'subquery');
      return;
    case 'func_call':
      expr(r, node.args as AnyNode | undefined, scope, clause);
      expr(r, node.filter as AnyNode | undefined, scope, clause);
      expr(r, node.over as AnyNode | undefined, scope, clause);
      return;
    case 'over_arg':
      if ((node.window as AnyNode).type !== 'identifier') expr(r, node.window as AnyNode, scope, clause);
      return;
    case 'window_definition':
      expr(r, node.partitionBy as AnyNode | undefined, scope, 'other');
      expr(r, node.orderBy as AnyNode | undefined, scope, 'other');
      expr(r, node.frame as AnyNode | undefined, scope, 'other');
      return;
    case 'alias':
      expr(r, node.expr as AnyNode, scope, clause);
      return;
    case 'binary_expr': {
      const operator = node.operator as AnyNode | string;
      expr(r, node.left as AnyNode, scope, clause);
      const right = node.right as AnyNode;
      if (isInOperator(operator) && (right.type === 'identifier' || right.type === 'member_expr')) {
        // SQLite `x IN t` / `x IN main.t`: the right side names a table (or CTE), not a column.
        relation(r, right, scope, undefined, false);
        return;
      }
      if (isInOperator(operator) && right.type === 'func_call') {
        // SQLite `x IN json_each(…)`: a table-valued function.
        tableFunction(r, right, scope, undefined, false);
        return;
      }
      const isCollate = typeof operator === 'object' && !Array.isArray(operator) && operator.name === 'COLLATE';
      if (!isCollate) expr(r, node.right as AnyNode, scope, clause);
      return;
    }
    case 'cast_arg':
      expr(r, node.expr as AnyNode, scope, clause);
      expr(r, node.format as AnyNode | undefined, scope, clause);
      return;
    case 'cast_operator_expr':
      expr(r, node.left as AnyNode, scope, clause);
      return;
    case 'named_arg':
      expr(r, node.value as AnyNode, scope, clause);
      return;
    case 'extract_from':
      expr(r, node.expr as AnyNode, scope, clause);
      return;
    case 'with_clause':
      return;
    default:
      walkChildren(node, (child) => expr(r, child, scope, clause));
  }
}

function starRef(r: ReferenceScopes, node: AnyNode, qualifier: NamePart[], scope: Scope): void {
  const written = qualifier.map((part) => part.name).join('.');
  const source = r.findSourceInChain(scope, qualifier);
  if (!source) {
    r.columns.push({ ...r.position(node), name: '*', qualifier: written, resolution: { kind: 'unknown_qualifier' }, scope: scope.id });
    r.addUnresolved(node, 'unknown_qualifier', `${written}.*`, `no such table: ${written}`, r.sourceNames(scope), written);
    return;
  }
  r.columns.push({ ...r.position(node), name: '*', qualifier: written, resolution: r.resolutionFor(source, '*'), scope: scope.id });
}

/** Records one column reference and, with a catalog, why it resolves to nothing. */
function columnRef(r: ReferenceScopes, identifier: Identifierish, qualifier: NamePart[], scope: Scope, clause: ClauseKind, whole?: AnyNode): void {
  const key = r.key(identifier);
  const positionNode = (whole ?? identifier) as AnyNode;
  const written = qualifier.map((part) => part.name).join('.');
  const record = (resolution: ColumnResolution): void => {
    r.columns.push({
      ...r.position(positionNode),
      name: identifier.name,
      ...(qualifier.length > 0 ? { qualifier: written } : {}),
      resolution,
      scope: scope.id,
    });
  };

  if (qualifier.length > 0) {
    const source = r.findSourceInChain(scope, qualifier);
    if (!source) {
      record({ kind: 'unknown_qualifier' });
      if (r.catalog) {
        r.addUnresolved(positionNode, 'unknown_qualifier', `${written}.${identifier.name}`, `no such column: ${written}.${identifier.name} (no table, alias or CTE ${written} in scope)`, r.sourceNames(scope), written);
      }
      return;
    }
    if (source.columns !== null && !source.columns.has(key) && !(source.hasRowid && ROWID_KEYS.has(key))) {
      record({ kind: 'unknown' });
      r.unknownColumn(identifier, `${written}.${identifier.name}`, positionNode, [...source.columns.values()], `no such column: ${written}.${identifier.name}`);
      return;
    }
    record(r.resolutionFor(source, key));
    return;
  }

  const aliasFirst = clause === 'order';
  const aliasVisible = clause === 'group' || clause === 'having' || clause === 'order' || (clause === 'where' && r.dialect === 'sqlite');
  if (aliasFirst && (scope.aliases.has(key) || scope.compoundOutputs.has(key))) {
    record({ kind: 'select_alias' });
    return;
  }
  for (let current: Scope | undefined = scope; current; current = current.parent) {
    const found = r.lookupColumn(current, key);
    if (found) {
      record(found);
      if (found.kind === 'ambiguous' && r.catalog) {
        r.addUnresolved(identifier as unknown as AnyNode, 'ambiguous_column', identifier.name, `ambiguous column name: ${identifier.name} (in ${found.sources.join(', ')})`, []);
      }
      return;
    }
    if (current === scope && aliasVisible && (scope.aliases.has(key) || scope.compoundOutputs.has(key))) {
      record({ kind: 'select_alias' });
      return;
    }
  }
  const candidates = (): string[] => r.visibleColumnNames(scope, aliasVisible);
  if (r.dialect === 'sqlite' && r.doubleQuotes === 'legacy' && identifier.text.startsWith('"')) {
    const columnPosition = r.isColumnPosition(identifier);
    if (!columnPosition || r.sqlRole === 'gold') {
      record({ kind: 'string_literal' });
      r.doubleQuotedStrings.push({ ...r.position(identifier), value: identifier.name, columnPosition });
      return;
    }
    record({ kind: 'unknown' });
    const literal = `'${identifier.name.replaceAll("'", "''")}'`;
    r.unknownColumn(identifier, identifier.text, undefined, candidates(), `no such column: ${identifier.text} (a column is expected here; legacy SQLite would read it as the string ${literal})`);
    return;
  }
  record({ kind: 'unknown' });
  r.unknownColumn(identifier, identifier.name, undefined, candidates(), `no such column: ${identifier.name}`);
}

/** `IN` or `NOT IN` (sql-parser-cst gives a keyword or a keyword list). */
function isInOperator(operator: unknown): boolean {
  if (Array.isArray(operator)) return operator.length > 0 && (operator[operator.length - 1] as AnyNode).name === 'IN';
  return typeof operator === 'object' && operator !== null && (operator as AnyNode).name === 'IN';
}
