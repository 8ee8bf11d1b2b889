/**
 * Reading one row of SQLite's `EXPLAIN QUERY PLAN` (the `detail` text) into a typed step.
 *
 * The texts follow SQLite's `sqlite3WhereExplainOneScan` and `explainComposite` (src/wherecode.c,
 * src/select.c) as printed by SQLite 3.53 (the build inside better-sqlite3 12), e.g.
 * `SCAN orders`, `SCAN o USING COVERING INDEX idx`, `SEARCH o USING INDEX idx (customer_id=? AND d>?)`,
 * `SEARCH c USING INTEGER PRIMARY KEY (rowid=?)`, `SEARCH t USING AUTOMATIC COVERING INDEX (x=?)`,
 * `USE TEMP B-TREE FOR ORDER BY`, `CORRELATED SCALAR SUBQUERY 1`, `MATERIALIZE t`,
 * `CO-ROUTINE (subquery-1)`, `UNION USING TEMP B-TREE`, `BLOOM FILTER ON o (customer_id=?)`.
 * Older SQLite (before 3.36) wrote `SCAN TABLE orders AS o`; that form is read too.
 *
 * Note: the plan names a table by its alias when the query gives one (`SCAN c`), so resolving the
 * base table needs the SQL (see table-aliases.ts).
 */

/** How a loop reaches its rows. */
export type LoopAccess =
  /** Every row of the table (`SCAN t`). */
  | 'table-scan'
  /** Every entry of an index that covers the query (`SCAN t USING COVERING INDEX i`). */
  | 'covering-index-scan'
  /** Every entry of an index, plus a table lookup per entry (`SCAN t USING INDEX i`). */
  | 'index-scan'
  /** A B-tree search on the rowid (`SEARCH t USING INTEGER PRIMARY KEY (rowid=?)`). */
  | 'rowid-search'
  /** A B-tree search on a declared index or a WITHOUT ROWID primary key. */
  | 'index-search'
  /** A search on an index SQLite builds for this statement (`USING AUTOMATIC … INDEX`). */
  | 'automatic-index-search'
  /** A scan of a materialized view, CTE or subquery (`SCAN (subquery-1)`, `SCAN t` for a CTE). */
  | 'subquery-scan'
  /** `SCAN CONSTANT ROW` (a FROM-less SELECT). */
  | 'constant-row';

/** The terms of an index constraint such as `(customer_id=? AND order_date>?)`. */
export interface IndexConstraint {
  /** Number of equality terms (`a=?`; an IN list also prints as `a=?`). */
  readonly equalities: number;
  /** Number of range bounds (`>`, `<`, `>=`, `<=`): 0, 1 or 2. */
  readonly rangeBounds: number;
  /** The text between the parentheses. */
  readonly text: string;
}

/** A loop over a table, index or subquery (`SCAN …` / `SEARCH …`). */
export interface LoopStep {
  readonly kind: 'loop';
  readonly access: LoopAccess;
  /** The name the plan prints: the alias when the query gave one, else the table or CTE name. */
  readonly name: string;
  /** The index used, when named (`null` for rowid, automatic indexes and plain scans). */
  readonly index: string | null;
  /** The constraint in parentheses for searches; `null` for scans. */
  readonly constraint: IndexConstraint | null;
  /** True when each index entry also costs a table-row lookup (a non-covering index). */
  readonly tableLookups: boolean;
}

/** What a temporary B-tree is built for. */
export type TempBTreePurpose = 'ORDER BY' | 'GROUP BY' | 'DISTINCT' | 'compound';

/** `USE TEMP B-TREE FOR …`, or a compound member that dedups through one (`UNION USING TEMP B-TREE`). */
export interface TempBTreeStep {
  readonly kind: 'temp-b-tree';
  readonly purpose: TempBTreePurpose;
}

/** `[CORRELATED] SCALAR|LIST SUBQUERY n`. Its body is the step's children. */
export interface SubqueryStep {
  readonly kind: 'subquery';
  readonly correlated: boolean;
  readonly form: 'scalar' | 'list';
}

/** `MATERIALIZE name` or `CO-ROUTINE name`: a subquery or CTE computed for a later `SCAN name`. */
export interface MaterializeStep {
  readonly kind: 'materialize';
  readonly form: 'materialize' | 'co-routine';
  /** `t` or `(subquery-1)`, as the later `SCAN` prints it. */
  readonly name: string;
}

/** `CREATE BLOOM FILTER` / `BLOOM FILTER ON t (…)`: a cheap pre-filter, no rows visited. */
export interface BloomFilterStep {
  readonly kind: 'bloom-filter';
}

/** `COMPOUND QUERY`, `MERGE (UNION)` or `MULTI-INDEX OR`: its children are members whose rows add up. */
export interface CompoundStep {
  readonly kind: 'compound';
}

/** Any other line (`LEFT-MOST SUBQUERY`, `UNION ALL`, `LEFT`, …): a block of its own. */
export interface BlockStep {
  readonly kind: 'block';
}

/** One classified plan line. */
export type PlanStepKind = LoopStep | TempBTreeStep | SubqueryStep | MaterializeStep | BloomFilterStep | CompoundStep | BlockStep;

const LOOP = /^(SCAN|SEARCH) (?:TABLE )?(\(subquery-\d+\)|\S+)(?: AS (\S+))?(.*)$/;
const CONSTRAINT = /\((.*)\)/; // first '(' to last ')': `(ANY(a) AND b=?)`, `(order_id=?) LEFT-JOIN`

/**
 * Classifies one `EXPLAIN QUERY PLAN` detail text.
 *
 * @param detail - SQLite's text for one plan row.
 * @returns the typed step; texts that name no known operation are a `block`.
 * @example
 * classifyPlanDetail('SEARCH o USING INDEX idx_orders_cust_date (customer_id=?)')
 * // { kind: 'loop', access: 'index-search', name: 'o', index: 'idx_orders_cust_date',
 * //   constraint: { equalities: 1, rangeBounds: 0, text: 'customer_id=?' }, tableLookups: true }
 */
export function classifyPlanDetail(detail: string): PlanStepKind {
  const text = detail.trim();
  if (text === 'SCAN CONSTANT ROW') {
    return { kind: 'loop', access: 'constant-row', name: '', index: null, constraint: null, tableLookups: false };
  }
  const tempFor = /^USE TEMP B-TREE FOR (.*)$/.exec(text);
  if (tempFor) return { kind: 'temp-b-tree', purpose: tempBTreePurpose(tempFor[1]!) };
  if (/ USING TEMP B-TREE$/.test(text)) return { kind: 'temp-b-tree', purpose: 'compound' };
  const subquery = /^(CORRELATED )?(SCALAR|LIST) SUBQUERY(?: \d+)?$/.exec(text);
  if (subquery) return { kind: 'subquery', correlated: subquery[1] !== undefined, form: subquery[2] === 'SCALAR' ? 'scalar' : 'list' };
  const materialize = /^(MATERIALIZE|CO-ROUTINE) (.+)$/.exec(text);
  if (materialize) return { kind: 'materialize', form: materialize[1] === 'MATERIALIZE' ? 'materialize' : 'co-routine', name: materialize[2]!.trim() };
  if (/^(CREATE BLOOM FILTER|BLOOM FILTER ON )/.test(text)) return { kind: 'bloom-filter' };
  if (text === 'COMPOUND QUERY' || text === 'MULTI-INDEX OR' || /^MERGE \(/.test(text)) return { kind: 'compound' };
  const loop = LOOP.exec(text);
  if (loop) return classifyLoop(loop[1] as 'SCAN' | 'SEARCH', loop[3] ?? loop[2]!, loop[4] ?? '');
  return { kind: 'block' };
}

function tempBTreePurpose(what: string): TempBTreePurpose {
  if (/DISTINCT/i.test(what)) return 'DISTINCT';
  if (/GROUP BY/.test(what)) return 'GROUP BY';
  return 'ORDER BY';
}

function classifyLoop(verb: 'SCAN' | 'SEARCH', name: string, rest: string): LoopStep {
  const constraintText = CONSTRAINT.exec(rest)?.[1];
  const constraint = verb === 'SEARCH' && constraintText !== undefined ? parseConstraint(constraintText) : null;
  const using = rest.trim();
  const named = /USING (?:COVERING )?INDEX (\S+)/.exec(using)?.[1] ?? null;
  let access: LoopAccess;
  if (/USING AUTOMATIC/.test(using)) access = 'automatic-index-search';
  else if (/USING INTEGER PRIMARY KEY/.test(using)) access = 'rowid-search';
  else if (verb === 'SEARCH') access = 'index-search';
  else if (/USING COVERING INDEX/.test(using)) access = 'covering-index-scan';
  else if (/USING INDEX/.test(using)) access = 'index-scan';
  else if (name.startsWith('(subquery-')) access = 'subquery-scan';
  else access = 'table-scan';
  const index = access === 'automatic-index-search' ? null : named;
  const tableLookups = (access === 'index-scan' || access === 'index-search') && named !== null && !/USING COVERING INDEX/.test(using);
  return { kind: 'loop', access, name, index, constraint, tableLookups };
}

/**
 * Reads an index constraint text such as `customer_id=? AND order_date>?`.
 * `ANY(col)` (skip-scan) counts as neither an equality nor a bound.
 */
export function parseConstraint(text: string): IndexConstraint {
  let equalities = 0;
  let rangeBounds = 0;
  for (const term of text.split(' AND ')) {
    const t = term.trim();
    if (/^ANY\(/.test(t)) continue;
    if (/[<>]=?\?$/.test(t)) rangeBounds += 1;
    else if (/=\?$/.test(t)) equalities += 1;
  }
  return { equalities, rangeBounds, text };
}
