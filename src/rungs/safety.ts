/**
 * L3 — static safety (reference 000 §3.3), fail closed: one read-only query and nothing else
 * anywhere in its tree. It is a fast filter and an offline metric; the boundary is the database
 * (read-only engine, role-scoped fixtures), which the red-team slice checks with this rung off.
 *
 * Fixed rules (violation kinds):
 * - `multiple_statements`, `not_a_query` — exactly one statement, and it is a query;
 * - `write_statement` (INSERT / UPDATE / DELETE / MERGE / REPLACE, also inside a CTE),
 *   `ddl_statement` (CREATE / DROP / ALTER / TRUNCATE / RENAME / COMMENT / REINDEX / ANALYZE …),
 *   `pragma` (PRAGMA statements and `pragma_*` table functions or tables), `attach` (ATTACH /
 *   DETACH), `vacuum` (VACUUM, VACUUM INTO), `transaction` (BEGIN / COMMIT / ROLLBACK /
 *   SAVEPOINT / RELEASE), `session_change` (SET / RESET), `privilege_statement` (GRANT / REVOKE),
 *   `procedure_call` (CALL / EXECUTE / PREPARE / DO), `data_export` (EXPORT DATA),
 *   `statement_not_allowed` (anything else that is not a query, e.g. EXPLAIN);
 * - `select_into` (SELECT … INTO table / variables / OUTFILE / DUMPFILE), `row_lock`
 *   (FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE);
 * - `blocked_function` (side-effect functions, see src/safety/functions.ts), `unknown_function`
 *   (not on the dialect's allow-list), `table_function` (a function in FROM, unless allowed),
 *   `system_table` (SQLite `sqlite_*` and `dbstat`, unless allowed);
 * - `not_analysed` — the AST layer cannot read the text, or its analysis is over a budget
 *   (size, tree depth, time: src/sql/analysis-budget.ts; the message then says "not analysed
 *   within budget"): failed closed (passed by the engine when SQLite prepared it and no policy
 *   is set).
 * Opt-in policies: `limit_missing`, `limit_invalid`, `limit_out_of_range` (LIMIT policy) and
 * `table_not_allowed` (allowed-tables policy, every scope; a SQLite CTE self-reference also counts
 * as the real table of that name).
 *
 * Everything is read from the parse tree, so comments and string contents can neither hide a
 * statement nor fake a LIMIT. Each violation has its kind and a 1-based position.
 *
 * Snowflake (node-sql-parser tree, no positions) is checked by src/safety/snowflake-safety.ts with
 * the same kinds; violations there are reported at 1:1.
 */
import type { Program } from 'sql-parser-cst';
import { catalogKey, defaultSchemaKey, identifierKey, isQuotedIdentifier } from '../sql/identifiers.js';
import { checkAnalysisBudget, withinAnalysisBudget } from '../sql/analysis-budget.js';
import { DIALECTS, positionAt, type Dialect } from '../sql/parse.js';
import type { References } from '../sql/references.js';
import { LadderError } from '../errors.js';
import { memoFor, type ParseMemo } from './parse-memo.js';
import { BLOCKED_FUNCTIONS, checkFunction, isPragmaFunction } from '../safety/functions.js';
import { resolveSafetyPolicy, type ResolvedSafetyPolicy, type SafetyPolicy } from '../safety/policy.js';
import { checkSnowflakeSafety } from '../safety/snowflake-safety.js';
import { createRungResult, type RungIssue, type RungResult } from './rung-result.js';

/** Input of {@link checkSafety}. */
export interface SafetyInput {
  /** The SQL text (everything the model produced as SQL; several statements are a violation). */
  readonly sql: string;
  readonly dialect: Dialect;
  /** Opt-in guardrails and vetted exceptions; see {@link SafetyPolicy}. */
  readonly policy?: SafetyPolicy;
  /**
   * True when SQLite's `prepare` accepted the text as one read-only query (L1 details). Only used
   * when the AST layer cannot read the text and no LIMIT / allowed-tables policy is set: the rung
   * then passes as "not analysed", because SQLite itself vouches that the statement is a
   * read-only query. With a policy set, an unreadable text fails closed.
   */
  readonly engineAccepted?: boolean;
  /** The item's shared parses (one parse per SQL text per item); absent → the rung parses itself. */
  readonly parses?: ParseMemo;
}

/** One safety violation (also an RungIssue). */
export interface SafetyViolation extends RungIssue {
  readonly line: number;
  readonly column: number;
}

/** Machine-readable details of an L3 result. */
export interface SafetyDetails {
  /** False when the AST layer could not read the text. */
  readonly analysed: boolean;
  readonly violations: readonly SafetyViolation[];
  /** Real tables read, as written, deduplicated (empty when not analysed). */
  readonly tables: readonly string[];
  /** Function names called (lower-case, deduplicated). */
  readonly functions: readonly string[];
  /** The outermost LIMIT as written (`undefined` when none, or not analysed). */
  readonly limit?: string;
  /** The policy in force, defaults applied. */
  readonly policy: ResolvedSafetyPolicy;
}

type AnyNode = { readonly type: string; readonly range?: [number, number]; readonly [key: string]: unknown };

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
};

const CLAUSE_KINDS: Readonly<Record<string, string>> = {
  into_table_clause: 'select_into',
  into_variables_clause: 'select_into',
  into_outfile_clause: 'select_into',
  into_dumpfile_clause: 'select_into',
  for_clause: 'row_lock',
  lock_in_share_mode_clause: 'row_lock',
};

const QUERY_TYPES = new Set(['select_stmt', 'compound_select_stmt']);

/**
 * Runs L3 on one SQL text.
 *
 * @returns `pass` when no rule is broken; `fail` with one positioned violation per finding.
 * @throws LadderError `invalid_argument` for a non-string `sql` or an unknown dialect;
 *   `invalid_option` for a bad policy.
 * @example
 * checkSafety({ sql: "SELECT * FROM orders /* LIMIT 10 *\/", dialect: 'sqlite', policy: { maxLimit: 100 } })
 * // fail: limit_missing at 1:1
 * checkSafety({ sql: "SELECT 'DROP TABLE orders' AS s", dialect: 'sqlite' })
 * // pass: the keyword is inside a string
 */
export function checkSafety(input: SafetyInput): RungResult<SafetyDetails> {
  // Validate arguments.
  if (typeof input?.sql !== 'string') throw new LadderError('invalid_argument', `sql must be a string; received ${typeof input?.sql}`);
  if (!DIALECTS.includes(input.dialect)) {
    throw new LadderError('invalid_argument', `dialect must be one of ${DIALECTS.join(', ')}; received ${JSON.stringify(input.dialect)}`);
  }
  // Interpret options.
  const policy = resolveSafetyPolicy(input.policy);

  const memo = memoFor(input.parses, input.dialect);
  const parsed = memo.parse(input.sql);
  if (!parsed.ok) return notAnalysed(input, policy, parsed.error.message, parsed.error.line ?? 1, parsed.error.column ?? 1);
  const analysed = withinAnalysisBudget(() =>
    parsed.kind === 'node-sql-parser'
      ? { analysed: true, policy, ...checkSnowflakeSafety(parsed.ast, policy, input.sql) }
      : analyseCst(input.sql, input.dialect, parsed.program, policy, memo),
  );
  if (!analysed.ok) return notAnalysed(input, policy, analysed.reason, 1, 1);
  if (typeof analysed.value === 'string') return notAnalysed(input, policy, analysed.value, 1, 1);
  return verdict(analysed.value);
}

/**
 * The verdict when the text could not be analysed (parse error, or over an analysis budget):
 * passed by the engine when SQLite prepared it as one read-only query and no policy asks for
 * more; otherwise failed closed with `not_analysed`.
 */
function notAnalysed(input: SafetyInput, policy: ResolvedSafetyPolicy, why: string, line: number, column: number): RungResult<SafetyDetails> {
  const empty: SafetyDetails = { analysed: false, violations: [], tables: [], functions: [], policy };
  const policyActive = policy.maxLimit !== undefined || policy.allowedTables !== undefined;
  if (input.dialect === 'sqlite' && input.engineAccepted === true && !policyActive) {
    return createRungResult({
      rung: 'safety',
      status: 'pass',
      reason: `passed by engine, not analysed: SQLite prepared it as one read-only query, but the AST layer could not read it (${why})`,
      details: empty,
    });
  }
  const violation: SafetyViolation = { kind: 'not_analysed', message: `cannot be analysed, failing closed: ${why}`, line, column };
  return verdict({ ...empty, violations: [violation] });
}

function verdict(details: SafetyDetails): RungResult<SafetyDetails> {
  const violations = details.violations;
  if (violations.length === 0) {
    return createRungResult({ rung: 'safety', status: 'pass', reason: 'one read-only query; no unsafe construct', details });
  }
  const first = violations[0]!;
  const more = violations.length > 1 ? ` (+${violations.length - 1} more)` : '';
  return createRungResult({
    rung: 'safety',
    status: 'fail',
    reason: `${first.kind}: ${first.message} at ${first.line}:${first.column}${more}`,
    issues: violations,
    details,
  });
}

/** The analysis of a parsed tree; a string when the references could not be resolved within budget. */
function analyseCst(sql: string, dialect: Dialect, program: Program, policy: ResolvedSafetyPolicy, memo: ParseMemo): SafetyDetails | string {
  const violations: SafetyViolation[] = [];
  const add = (kind: string, message: string, offset: number): void => {
    violations.push({ kind, message, ...positionAt(sql, offset) });
  };
  const statements = (program.statements as unknown as AnyNode[]).filter((statement) => statement.type !== 'empty');

  if (statements.length === 0) add('not_a_query', 'the text holds no statement', 0);
  if (statements.length > 1) {
    add('multiple_statements', `${statements.length} statements; exactly one query is allowed`, start(statements[1]!));
  }

  // References (tables in every scope, table functions) — only defined for a single statement.
  const collected = statements.length === 1 ? memo.references(sql) : undefined;
  // Fail closed: without the references no table or table-function rule could be checked.
  if (collected !== undefined && !collected.ok && collected.code === 'budget') return collected.reason;
  const references: References | undefined = collected?.ok ? collected : undefined;
  const tableFunctionStarts = new Set(references?.tableFunctions.map((fn) => fn.start) ?? []);

  const functions = new Set<string>();
  for (const statement of statements) {
    if (!isQuery(statement)) {
      const kind = STATEMENT_KINDS[statement.type] ?? ddlKind(statement.type) ?? 'not_a_query';
      add(kind, `${describeType(statement.type)} is not a read-only query`, start(statement));
    }
    walk(statement, (node, isRoot) => {
      if (!isRoot && node.type.endsWith('_stmt') && !QUERY_TYPES.has(node.type)) {
        const kind = STATEMENT_KINDS[node.type] ?? ddlKind(node.type) ?? 'statement_not_allowed';
        add(kind, `${describeType(node.type)} inside the query`, start(node));
      }
      const clauseKind = CLAUSE_KINDS[node.type];
      if (clauseKind) add(clauseKind, `${describeType(node.type)} is not allowed in a read-only query`, start(node));
      if (node.type === 'func_call') {
        const nameNode = node.name as AnyNode;
        const name = nameText(sql, nameNode);
        functions.add(name.toLowerCase());
        if (tableFunctionStarts.has(start(nameNode))) return;
        const decision = checkFunction(name, dialect, policy.allowedFunctions);
        if (!decision.allowed) add(decision.kind, `${name}(): ${decision.reason}`, start(nameNode));
      }
    });
  }

  if (references) {
    for (const fn of references.tableFunctions) {
      const blocked = BLOCKED_FUNCTIONS[lastPart(fn.name).toLowerCase()];
      if (isPragmaFunction(lastPart(fn.name))) {
        add('pragma', `${fn.name}: PRAGMA table functions read or change connection state`, fn.start);
      } else if (blocked !== undefined) {
        add('blocked_function', `${fn.name}(): ${blocked}`, fn.start);
      } else if (!tableFunctionAllowed(fn.name, policy.allowTableFunctions)) {
        add('table_function', `${fn.name}: table-valued functions are not allowed by the policy (allowTableFunctions)`, fn.start);
      }
    }
    for (const table of references.tables) {
      if (isPragmaFunction(table.name)) add('pragma', `${table.written}: PRAGMA tables read connection state`, table.start);
      else if (!policy.allowSystemTables && isSystemTable(table.name)) add('system_table', `${table.written}: SQLite internal table`, table.start);
    }
    if (policy.allowedTables) {
      const allowed = policy.allowedTables.map((entry) => allowedEntryKey(entry, dialect));
      for (const table of references.tables) {
        if (!allowed.some((entry) => tableMatches(entry, table.nameKey, table.schemaKey, dialect))) {
          const why = table.selfReference ? ' (a CTE naming itself reads the real table in other dialects)' : '';
          add('table_not_allowed', `${table.written} is not in allowedTables${why}`, table.start);
        }
      }
    }
  }

  let limitText: string | undefined;
  if (policy.maxLimit !== undefined && statements.length === 1 && isQuery(statements[0]!)) {
    const limit = outermostLimit(statements[0]!);
    limitText = limit ? sql.slice(start(limit.clause), limit.clause.range?.[1] ?? start(limit.clause)) : undefined;
    checkLimit(sql, statements[0]!, limit, policy.maxLimit, add);
  }

  violations.sort((a, b) => a.line - b.line || a.column - b.column);
  return {
    analysed: true,
    violations,
    tables: [...new Set(references?.tables.map((table) => table.written) ?? [])],
    functions: [...functions],
    ...(limitText !== undefined ? { limit: limitText } : {}),
    policy,
  };
}

function isQuery(node: AnyNode): boolean {
  if (QUERY_TYPES.has(node.type)) return true;
  return node.type === 'paren_expr' && isQuery(node.expr as AnyNode);
}

function ddlKind(type: string): string | undefined {
  return type.startsWith('create_') || type.startsWith('drop_') || type.startsWith('alter_') ? 'ddl_statement' : undefined;
}

function describeType(type: string): string {
  return type.replace(/_stmt$|_clause$/, '').replace(/_/g, ' ').toUpperCase();
}

function start(node: AnyNode): number {
  return node.range?.[0] ?? 0;
}

/** Visits every node once, depth first. */
function walk(root: AnyNode, visit: (node: AnyNode, isRoot: boolean) => void): void {
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

function nameText(sql: string, node: AnyNode): string {
  if (node.type === 'identifier') return String(node.name);
  if (node.type === 'member_expr') {
    const property = node.property as AnyNode;
    return `${nameText(sql, node.object as AnyNode)}.${property.type === 'identifier' ? String(property.name) : ''}`;
  }
  return node.range ? sql.slice(node.range[0], node.range[1]) : node.type;
}

function lastPart(name: string): string {
  const parts = name.split('.');
  return parts[parts.length - 1] ?? name;
}

function tableFunctionAllowed(name: string, setting: boolean | readonly string[]): boolean {
  if (setting === true) return true;
  if (setting === false) return false;
  const lowered = name.toLowerCase();
  return setting.some((allowed) => allowed.toLowerCase() === lowered || allowed.toLowerCase() === lastPart(lowered));
}

/** SQLite's internal tables and eponymous virtual tables that expose database internals. */
function isSystemTable(name: string): boolean {
  const lowered = name.toLowerCase();
  return lowered.startsWith('sqlite_') || lowered === 'dbstat';
}

interface AllowedEntry {
  readonly schema?: string;
  readonly name: string;
}

/** Policy entries are written like unquoted SQL names (`orders`, `hr.orders`); a quoted part is kept exact. */
function allowedEntryKey(entry: string, dialect: Dialect): AllowedEntry {
  const parts = entry.trim().split('.');
  const key = (part: string): string => {
    const quoted = isQuotedIdentifier(part);
    const bare = quoted ? part.slice(1, -1) : part;
    return identifierKey(bare, quoted, dialect);
  };
  const name = key(parts[parts.length - 1]!);
  return parts.length > 1 ? { schema: key(parts[parts.length - 2]!), name } : { name };
}

function tableMatches(entry: AllowedEntry, nameKey: string, schemaKey: string | undefined, dialect: Dialect): boolean {
  if (entry.name !== nameKey) return false;
  const defaultSchema = defaultSchemaKey(dialect);
  const referenceSchema = schemaKey ?? defaultSchema;
  const entrySchema = entry.schema ?? defaultSchema;
  if (referenceSchema === undefined || entrySchema === undefined) return referenceSchema === entrySchema;
  return catalogKey(referenceSchema, dialect) === catalogKey(entrySchema, dialect);
}

interface LimitFound {
  readonly clause: AnyNode;
  /** The row-count expression (LIMIT count or FETCH count); `undefined` for FETCH FIRST ROW ONLY. */
  readonly count: AnyNode | undefined;
}

/**
 * The LIMIT / FETCH that bounds the whole statement: in the top SELECT, or for a compound in its
 * last branch when that branch is not parenthesised (the parser attaches the compound's ORDER BY
 * and LIMIT there).
 */
function outermostLimit(statement: AnyNode, inCompound = false): LimitFound | undefined {
  let node: AnyNode = statement;
  while (node.type === 'paren_expr') node = node.expr as AnyNode;
  if (node.type === 'compound_select_stmt') return outermostLimit(node.right as AnyNode, true);
  if (node.type !== 'select_stmt') return undefined;
  const clauses = (node.clauses as AnyNode[]) ?? [];
  for (const clause of clauses) {
    if (clause.type === 'limit_clause' || clause.type === 'fetch_clause') return { clause, count: clause.count as AnyNode | undefined };
  }
  // `(SELECT … LIMIT n)` alone is bounded by its own LIMIT; as a compound's last branch it is not.
  const paren = clauses.find((clause) => clause.type === 'paren_expr');
  return paren && !inCompound ? outermostLimit(paren.expr as AnyNode) : undefined;
}

function checkLimit(
  sql: string,
  statement: AnyNode,
  limit: LimitFound | undefined,
  maxLimit: number,
  add: (kind: string, message: string, offset: number) => void,
): void {
  if (!limit) {
    add('limit_missing', `the outermost query has no LIMIT; an integer literal from 1 to ${maxLimit} is required`, start(statement));
    return;
  }
  const count = limit.count;
  if (count === undefined) {
    // FETCH FIRST ROW ONLY: one row.
    if (limit.clause.type === 'fetch_clause') return;
    add('limit_invalid', 'LIMIT without a row count', start(limit.clause));
    return;
  }
  const text = count.range ? sql.slice(count.range[0], count.range[1]) : '';
  const isIntegerLiteral = count.type === 'number_literal' && /^[0-9]+$/.test(text);
  if (!isIntegerLiteral) {
    add('limit_invalid', `LIMIT ${text || count.type} is not an integer literal from 1 to ${maxLimit}`, start(count));
    return;
  }
  const value = Number(text);
  if (value < 1 || value > maxLimit) {
    add('limit_out_of_range', `LIMIT ${text} is outside 1..${maxLimit}`, start(count));
  }
}
