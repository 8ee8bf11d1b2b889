/**
 * Normalization pass 3, `selectAliases`: select-list aliases in GROUP BY / HAVING / ORDER BY become
 * the aliased expression, and positions (`GROUP BY 1`) the select expression (not in compounds).
 */
import { child, children, clauseOf, identifierName, listItems, mapChildren, withFields, type SqlNode } from '../sql-tree.js';

/** Pass 3 (see normalize.ts). */
export function resolveSelectAliases(tree: SqlNode): SqlNode {
  const visit = (node: SqlNode, inCompound: boolean): SqlNode => {
    if (node.type === 'compound_select_stmt') {
      return mapChildren(node, (c, field) => visit(c, field === 'left' || field === 'right'));
    }
    const mapped = mapChildren(node, (c) => visit(c, false));
    return mapped.type === 'select_stmt' ? resolveAliasesInSelect(mapped, inCompound) : mapped;
  };
  return visit(tree, false);
}

function selectItems(select: SqlNode): readonly SqlNode[] {
  return listItems(child(clauseOf(select, 'select_clause') ?? { type: 'none' }, 'columns'));
}

function resolveAliasesInSelect(select: SqlNode, inCompound: boolean): SqlNode {
  const items = selectItems(select);
  const aliases = new Map<string, SqlNode>();
  for (const item of items) {
    if (item.type !== 'alias') continue;
    const name = identifierName(child(item, 'alias'));
    const expr = child(item, 'expr');
    if (name !== undefined && expr && identifierName(expr) !== name) aliases.set(name, expr);
  }
  const unaliased = items.map((item) => (item.type === 'alias' ? child(item, 'expr') ?? item : item));
  const substitute = (expr: SqlNode): SqlNode => substituteAliases(expr, aliases);
  const positional = (expr: SqlNode): SqlNode => {
    if (inCompound || expr.type !== 'number_literal') return expr;
    const index = Number(expr['value']);
    const target = Number.isInteger(index) ? unaliased[index - 1] : undefined;
    if (!target || target.type === 'all_columns' || (target.type === 'member_expr' && child(target, 'property')?.type === 'all_columns')) return expr;
    return target;
  };
  const clauses = children(select, 'clauses').map((clause) => {
    switch (clause.type) {
      case 'group_by_clause': {
        const columns = child(clause, 'columns');
        if (!columns) return clause;
        const rewritten = listItems(columns).map((c) => positional(substitute(c)));
        return withFields(clause, { columns: columns.type === 'list_expr' ? withFields(columns, { items: rewritten }) : rewritten[0]! });
      }
      case 'order_by_clause': {
        const specs = child(clause, 'specifications');
        if (!specs) return clause;
        const rewritten = listItems(specs).map((spec) => {
          if (spec.type === 'sort_specification') {
            const expr = child(spec, 'expr');
            return expr ? withFields(spec, { expr: positional(substitute(expr)) }) : spec;
          }
          return positional(substitute(spec));
        });
        return withFields(clause, { specifications: specs.type === 'list_expr' ? withFields(specs, { items: rewritten }) : rewritten[0]! });
      }
      case 'having_clause': {
        const expr = child(clause, 'expr');
        return expr ? withFields(clause, { expr: substitute(expr) }) : clause;
      }
      default:
        return clause;
    }
  });
  return withFields(select, { clauses });
}

function substituteAliases(expr: SqlNode, aliases: ReadonlyMap<string, SqlNode>): SqlNode {
  if (aliases.size === 0) return expr;
  if (expr.type === 'identifier') {
    const name = identifierName(expr);
    return name !== undefined && aliases.has(name) ? aliases.get(name)! : expr;
  }
  if (expr.type === 'select_stmt' || expr.type === 'compound_select_stmt' || expr.type === 'member_expr') return expr;
  if (expr.type === 'func_call') {
    // the function name is an identifier too: keep it
    return mapChildren(expr, (c, field) => (field === 'name' ? c : substituteAliases(c, aliases)));
  }
  return mapChildren(expr, (c) => substituteAliases(c, aliases));
}
