/**
 * What sql-parser-cst accepts but the databases' own grammars reject, so that L1 without an engine
 * fails it as the database would:
 * - a trailing comma in the SELECT list (`SELECT customer_id, FROM customers`): SQLite, PostgreSQL
 *   and MySQL answer a syntax error at `FROM`; BigQuery accepts it (GoogleSQL allows a trailing
 *   comma in the SELECT list), so it is not flagged there;
 * - a qualified name on a literal (`SELECT NULL.customer_id`, `1.x`, `'a'.b`): a literal is no
 *   table, row or record in any of the dialects, and each rejects it at the `.`.
 * The walk covers the whole tree: subqueries, CTEs, set operations.
 */
import type { Dialect } from './parse.js';
import { isSqlNode, type SqlNode } from './sql-tree.js';

/** The start and end offsets sql-parser-cst gives a node parsed with `includeRange`. */
function rangeOf(node: SqlNode | undefined): readonly [number, number] | undefined {
  const range = node?.['range'];
  return Array.isArray(range) && range.length === 2 ? (range as [number, number]) : undefined;
}

/** One construct the dialect's grammar rejects. */
export interface GrammarViolation {
  /** Offset of the construct in the text (0-based, UTF-16 units). */
  readonly start: number;
  /** One line, naming the construct and the database. */
  readonly message: string;
}

/** Dialects whose grammar accepts a trailing comma in the SELECT list. */
const TRAILING_SELECT_COMMA: readonly Dialect[] = ['bigquery'];

const LITERALS = new Set(['null_literal', 'number_literal', 'string_literal', 'boolean_literal', 'blob_literal']);

/**
 * The constructs of `tree` the dialect rejects (see the module doc), in text order.
 * @param tree - a sql-parser-cst tree parsed with `includeRange`.
 * @param dialect - the dialect the text is in.
 * @param database - the database's name for messages (`SQLite`).
 */
export function grammarViolations(tree: SqlNode, dialect: Dialect, database: string): GrammarViolation[] {
  const found: GrammarViolation[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isSqlNode(node)) return;
    if (node.type === 'select_clause' && !TRAILING_SELECT_COMMA.includes(dialect)) {
      const items = (node as { columns?: { items?: readonly SqlNode[] } }).columns?.items ?? [];
      const last = items[items.length - 1];
      if (items.length > 1 && last?.type === 'empty') {
        const before = items[items.length - 2]!;
        found.push({ start: rangeOf(before)?.[1] ?? rangeOf(node)?.[0] ?? 0, message: `a trailing comma ends the SELECT list: ${database} rejects it (syntax error at FROM)` });
      }
    }
    if (node.type === 'member_expr') {
      const object = (node as { object?: SqlNode }).object;
      if (object !== undefined && LITERALS.has(object.type)) {
        found.push({ start: rangeOf(object)?.[0] ?? rangeOf(node)?.[0] ?? 0, message: `a literal is qualified with a name (${object.type.replace('_literal', '').toUpperCase()}.…): ${database} rejects it (syntax error at ".")` });
      }
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'range') visit(value);
  };
  visit(tree);
  return found.sort((a, b) => a.start - b.start);
}
