/**
 * The statement and clause kinds of L3 (static safety): which parse-tree node types are
 * violations and under which kind, plus the small tree helpers the rung walks with.
 * Node type names are sql-parser-cst's (`insert_stmt`, `into_table_clause`, …).
 */
import { checkAnalysisBudget } from '../sql/analysis-budget.js';

/** A sql-parser-cst node as the rung reads it: a type, an optional source range, any fields. */
export type AnyNode = { readonly type: string; readonly range?: [number, number]; readonly [key: string]: unknown };

/** Violation kind per statement node type that is not a query. */
const STATEMENT_KINDS: Readonly<Record<string, string>> = {
  insert_stmt: 'write_statement',
  update_stmt: 'write_statement',
  delete_stmt: 'write_statement',
  merge_stmt: 'write_statement',
  load_data_stmt: 'write_statement',
  truncate_stmt: 'ddl_statement',
  rename_table_stmt: 'ddl_statement',
  comment_stmt: 'ddl_statement',
  refresh_materialized_view_stmt: 'ddl_statement',
  reindex_stmt: 'ddl_statement',
  analyze_stmt: 'ddl_statement',
  pragma_stmt: 'pragma',
  attach_database_stmt: 'attach',
  detach_database_stmt: 'attach',
  vacuum_stmt: 'vacuum',
  start_transaction_stmt: 'transaction',
  commit_transaction_stmt: 'transaction',
  rollback_transaction_stmt: 'transaction',
  savepoint_stmt: 'transaction',
  release_savepoint_stmt: 'transaction',
  set_stmt: 'session_change',
  set_parameter_stmt: 'session_change',
  set_role_stmt: 'session_change',
  set_time_zone_parameter_stmt: 'session_change',
  reset_parameter_stmt: 'session_change',
  reset_role_stmt: 'session_change',
  grant_privilege_stmt: 'privilege_statement',
  grant_role_stmt: 'privilege_statement',
  revoke_privilege_stmt: 'privilege_statement',
  revoke_role_stmt: 'privilege_statement',
  call_stmt: 'procedure_call',
  execute_stmt: 'procedure_call',
  execute_immediate_stmt: 'procedure_call',
  prepare_stmt: 'procedure_call',
  deallocate_stmt: 'procedure_call',
  do_stmt: 'procedure_call',
  export_data_stmt: 'data_export',
  explain_stmt: 'statement_not_allowed',
  create_extension_stmt: 'extension',
  alter_extension_stmt: 'extension',
};

/** Violation kind per clause that turns a query into a write or a lock. */
const CLAUSE_KINDS: Readonly<Record<string, string>> = {
  into_table_clause: 'select_into',
  into_variables_clause: 'select_into',
  into_outfile_clause: 'select_into',
  into_dumpfile_clause: 'select_into',
  for_clause: 'row_lock',
  lock_in_share_mode_clause: 'row_lock',
};

/** The statement node types that are queries. */
const QUERY_TYPES = new Set(['select_stmt', 'compound_select_stmt']);

/**
 * The violation kind of a statement node that is not a query (`write_statement`, `pragma`, …);
 * `fallback` for a node type no rule names.
 */
export function statementKind(type: string, fallback: string): string {
  return STATEMENT_KINDS[type] ?? ddlKind(type) ?? fallback;
}

/** The violation kind of a clause node (`select_into`, `row_lock`), or `undefined` when allowed. */
export function clauseKind(type: string): string | undefined {
  return CLAUSE_KINDS[type];
}

/** True for a SELECT or compound SELECT, also in parentheses. */
export function isQuery(node: AnyNode): boolean {
  if (QUERY_TYPES.has(node.type)) return true;
  return node.type === 'paren_expr' && isQuery(node.expr as AnyNode);
}

function ddlKind(type: string): string | undefined {
  return type.startsWith('create_') || type.startsWith('drop_') || type.startsWith('alter_') ? 'ddl_statement' : undefined;
}

/** `insert_stmt` → `INSERT`, `into_table_clause` → `INTO TABLE`. */
export function describeType(type: string): string {
  return type.replace(/_stmt$|_clause$/, '').replace(/_/g, ' ').toUpperCase();
}

/** The node's start offset in the text (0 when it has no range). */
export function start(node: AnyNode): number {
  return node.range?.[0] ?? 0;
}

/** Visits every node once, depth first. */
export function walk(root: AnyNode, visit: (node: AnyNode, isRoot: boolean) => void): void {
  const stack: Array<[AnyNode, boolean]> = [[root, true]];
  while (stack.length > 0) {
    checkAnalysisBudget();
    const [node, isRoot] = stack.pop()!;
    visit(node, isRoot);
    for (const [key, value] of Object.entries(node)) {
      if (key === 'range' || key === 'leading' || key === 'trailing') continue;
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) stack.push([item, false]);
      } else if (isNode(value)) stack.push([value, false]);
    }
  }
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** The name of a function call as written (`fn`, `schema.fn`). */
export function nameText(sql: string, node: AnyNode): string {
  if (node.type === 'identifier') return String(node.name);
  if (node.type === 'member_expr') {
    const property = node.property as AnyNode;
    return `${nameText(sql, node.object as AnyNode)}.${property.type === 'identifier' ? String(property.name) : ''}`;
  }
  return node.range ? sql.slice(node.range[0], node.range[1]) : node.type;
}
