/**
 * L3 safety rules over node-sql-parser's Snowflake tree (sql-parser-cst has no Snowflake dialect).
 * Same violation kinds as src/rungs/safety.ts. node-sql-parser's Snowflake grammar reads little
 * beyond queries (DELETE, COPY INTO, EXECUTE IMMEDIATE, CALL do not parse), so most non-queries
 * already fail closed as `not_analysed` before reaching this module.
 *
 * Positions: the tree is re-read with `includeLocations` (in the parser thread, under the same time
 * budget as every parse, so node-sql-parser is never loaded into the caller's thread); nodes without
 * a location report 1:1.
 */
import { parseInWorker } from '../sql/bounded-parse.js';
import { checkFunction } from './functions.js';
import type { ResolvedSafetyPolicy } from './policy.js';

/** A violation with a 1-based position. */
export interface SnowflakeViolation {
  readonly kind: string;
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** What {@link checkSnowflakeSafety} found. */
export interface SnowflakeSafetyFindings {
  readonly violations: SnowflakeViolation[];
  /** Real tables read, as written (`db.schema.table` parts joined), deduplicated. */
  readonly tables: string[];
  /** Function names called, lower-case, deduplicated. */
  readonly functions: string[];
  /** The outermost LIMIT / TOP count as written, when present. */
  readonly limit?: string;
}

type Obj = { readonly [key: string]: unknown };

const STATEMENT_KINDS: Readonly<Record<string, string>> = {
  insert: 'write_statement',
  replace: 'write_statement',
  update: 'write_statement',
  delete: 'write_statement',
  merge: 'write_statement',
  create: 'ddl_statement',
  drop: 'ddl_statement',
  alter: 'ddl_statement',
  truncate: 'ddl_statement',
  rename: 'ddl_statement',
  use: 'session_change',
  set: 'session_change',
  grant: 'privilege_statement',
  revoke: 'privilege_statement',
  call: 'procedure_call',
  exec: 'procedure_call',
  execute: 'procedure_call',
  lock: 'row_lock',
  unlock: 'row_lock',
  transaction: 'transaction',
};

/**
 * Checks node-sql-parser statements (as returned by `parseSql(sql, 'snowflake')`).
 *
 * @param statements - node-sql-parser AST list, one per statement.
 * @param policy - the resolved policy.
 * @param sql - the SQL text, re-read with locations for positions (optional).
 */
export function checkSnowflakeSafety(statements: readonly unknown[], policy: ResolvedSafetyPolicy, sql?: string): SnowflakeSafetyFindings {
  const located = sql !== undefined ? relocate(sql) : undefined;
  const asts = (located ?? statements) as Obj[];
  const violations: SnowflakeViolation[] = [];
  const tables = new Set<string>();
  const functions = new Set<string>();
  const add = (kind: string, message: string, node?: unknown): void => {
    const loc = (node as { loc?: { start?: { line?: number; column?: number } } } | undefined)?.loc?.start;
    violations.push({ kind, message, line: loc?.line ?? 1, column: loc?.column ?? 1 });
  };

  if (asts.length !== 1) add('multiple_statements', `${asts.length} statements; exactly one query is allowed`);
  for (const statement of asts) {
    if (statement.type !== 'select') {
      add(STATEMENT_KINDS[String(statement.type)] ?? 'not_a_query', `${String(statement.type).toUpperCase()} is not a read-only query`, statement);
    }
    visitSelect(statement, new Set());
  }

  let limit: string | undefined;
  if (policy.maxLimit !== undefined && asts.length === 1 && asts[0]!.type === 'select') {
    limit = checkLimit(asts[0]!, policy.maxLimit, add, located ? sql : undefined);
  }
  return { violations, tables: [...tables], functions: [...functions], ...(limit !== undefined ? { limit } : {}) };

  function visitSelect(select: Obj, outerCtes: ReadonlySet<string>): void {
    const ctes = new Set(outerCtes);
    for (const cte of (select.with as Obj[] | null) ?? []) {
      const name = String((cte.name as Obj | undefined)?.value ?? '').toUpperCase();
      const body = (cte.stmt as Obj | undefined)?.ast as Obj | undefined;
      if (body) visitSelect(body, ctes);
      ctes.add(name);
    }
    for (let branch: Obj | undefined = select; branch; branch = branch._next as Obj | undefined) {
      visitBranch(branch, ctes);
    }
  }

  function visitBranch(select: Obj, ctes: ReadonlySet<string>): void {
    if (select.type !== 'select') {
      add(STATEMENT_KINDS[String(select.type)] ?? 'statement_not_allowed', `${String(select.type).toUpperCase()} inside the query`, select);
    }
    const into = select.into as Obj | null | undefined;
    if (into && into.position !== null && into.position !== undefined) add('select_into', 'SELECT … INTO is not allowed in a read-only query', select);
    if (select.for_update || select.locking_read) add('row_lock', 'FOR UPDATE is not allowed in a read-only query', select);
    for (const item of (select.from as Obj[] | null) ?? []) visitFrom(item, ctes);
    for (const key of Object.keys(select)) {
      if (key === 'from' || key === 'with' || key === '_next' || key === 'loc') continue;
      visitExpr(select[key], ctes);
    }
  }

  function visitFrom(item: Obj, ctes: ReadonlySet<string>): void {
    const expr = item.expr as Obj | undefined;
    if (typeof item.table === 'string') {
      const parts = [item.db, item.schema, item.table].filter((part): part is string => typeof part === 'string' && part !== '');
      const unique = parts.filter((part, index) => parts.indexOf(part) === index);
      const written = unique.join('.');
      if (unique.length === 1 && ctes.has(unique[0]!.toUpperCase())) return;
      tables.add(written);
      if (policy.allowedTables && !policy.allowedTables.some((entry) => sameName(entry, unique))) {
        add('table_not_allowed', `${written} is not in allowedTables`, item);
      }
    } else if (expr?.ast) {
      visitSelect(expr.ast as Obj, ctes);
    } else if (expr && (expr.type === 'function' || expr.type === 'tables')) {
      const name = functionName(expr);
      if (policy.allowTableFunctions !== true && !(Array.isArray(policy.allowTableFunctions) && policy.allowTableFunctions.some((allowed) => allowed.toLowerCase() === name))) {
        add('table_function', `${name}: table-valued functions are not allowed by the policy (allowTableFunctions)`, item);
      }
    } else if (expr) {
      visitExpr(expr, ctes);
    }
    visitExpr(item.on, ctes);
  }

  function visitExpr(value: unknown, ctes: ReadonlySet<string>): void {
    if (Array.isArray(value)) {
      for (const item of value) visitExpr(item, ctes);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const node = value as Obj;
    if (node.ast && typeof node.ast === 'object') {
      visitSelect(node.ast as Obj, ctes);
      return;
    }
    if (node.type === 'select') {
      visitSelect(node, ctes);
      return;
    }
    if (node.type === 'function' || node.type === 'aggr_func') {
      const name = functionName(node);
      functions.add(name);
      const decision = checkFunction(name, 'snowflake', policy.allowedFunctions);
      if (!decision.allowed) add(decision.kind, `${name}(): ${decision.reason}`, node);
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'loc' || key === 'name') continue;
      visitExpr(child, ctes);
    }
  }
}

function functionName(node: Obj): string {
  const name = node.name;
  if (typeof name === 'string') return name.toLowerCase();
  const parts = ((name as Obj | undefined)?.name as Obj[] | undefined) ?? [];
  return parts.map((part) => String(part.value)).join('.').toLowerCase();
}

function sameName(entry: string, parts: readonly string[]): boolean {
  const wanted = entry.split('.').map((part) => part.toUpperCase());
  const written = parts.map((part) => part.toUpperCase());
  // Compare whole: an entry `hr.orders` matches only a reference qualified with `hr`.
  return wanted.length === written.length && wanted.every((part, index) => part === written[index]);
}

function checkLimit(select: Obj, maxLimit: number, add: (kind: string, message: string, node?: unknown) => void, sql: string | undefined): string | undefined {
  let last: Obj = select;
  while (last._next) last = last._next as Obj;
  const limit = last.limit as Obj | null | undefined;
  const values = (limit?.value as Obj[] | undefined) ?? [];
  const top = select.top as Obj | null | undefined;
  const count = values.length === 2 && limit?.seperator === ',' ? values[1] : values[0] ?? (top ? (top.value as Obj | undefined) ?? top : undefined);
  if (!count) {
    add('limit_missing', `the outermost query has no LIMIT; an integer literal from 1 to ${maxLimit} is required`, select);
    return undefined;
  }
  const value = count.value;
  // The literal's text decides (`1e9` parses to an integer value): digits only, read from the source.
  const loc = (limit?.loc as { start?: { offset?: number }; end?: { offset?: number } } | undefined);
  const clauseText = sql !== undefined && loc?.start?.offset !== undefined ? sql.slice(loc.start.offset, loc.end?.offset) : undefined;
  const digitsOnly = clauseText === undefined ? false : clauseText.replace(/^\s*limit\s+/i, '').split(/\s*(?:,|offset)\s*/i).every((part) => /^[0-9]+$/.test(part.trim()));
  if (count.type !== 'number' || typeof value !== 'number' || !Number.isSafeInteger(value) || (top === undefined || top === null ? !digitsOnly : false)) {
    add('limit_invalid', `LIMIT is not an integer literal from 1 to ${maxLimit}`, limit ?? select);
    return String(value ?? count.type);
  }
  if (value < 1 || value > maxLimit) add('limit_out_of_range', `LIMIT ${value} is outside 1..${maxLimit}`, limit ?? select);
  return String(value);
}

function relocate(sql: string): unknown[] | undefined {
  const parsed = parseInWorker('node-sql-parser', sql, { database: 'snowflake', parseOptions: { includeLocations: true } });
  if (!parsed.ok) return undefined;
  return Array.isArray(parsed.value) ? parsed.value : [parsed.value];
}
