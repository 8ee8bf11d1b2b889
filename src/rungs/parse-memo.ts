/**
 * One parse per SQL text per item: the rungs of one ladder run (L1 syntax, L2 schema, L3 safety,
 * L6's alias reading) share the tree of the predicted SQL instead of parsing it again, and L2 and
 * L3 share one reference resolution.
 *
 * A memo lives for one item (one ladder run, one `check`, one red-team prediction) and is never
 * shared between items, so a tree is never handed to code that might keep or change it across items.
 * Trees are treated as read-only by every rung.
 */
import type { Catalog, DoubleQuoteMode } from '../engine/engine.js';
import { LadderError } from '../errors.js';
import { parseSql, parseSqlAhead, whenParsedAhead } from '../sql/parse.js';
import type { Dialect, ParseResult } from '../sql/parse.js';
import { collectReferences } from '../sql/references.js';
import type { References, ReferencesFailure } from '../sql/references.js';

/** Options of {@link ParseMemo.references}. */
export interface MemoReferenceOptions {
  /** The role-visible catalog (L2); absent → tables and columns collected, not checked (L3). */
  readonly catalog?: Catalog;
  /** SQLite only: how double-quoted tokens naming no column are read (default `legacy`). */
  readonly doubleQuotes?: DoubleQuoteMode;
  /** Whose SQL it is (default `predicted`; see `collectReferences`). */
  readonly sqlRole?: 'predicted' | 'gold';
}

/** Parses and reference resolutions of one item's SQL texts, each computed once. */
export interface ParseMemo {
  readonly dialect: Dialect;
  /** {@link parseSql} of `sql`, computed once per text. */
  parse(sql: string): ParseResult;
  /**
   * Starts the parse of `sql` in the parser thread and returns at once (`parseSqlAhead`), so that a
   * later {@link ParseMemo.parse} of the same text finds it done or under way instead of blocking
   * this thread for the whole parse. Nothing for a text this memo has, or a memo of another dialect
   * than `sqlite` (only SQLite parses are started ahead). Never throws for the text.
   */
  parseAhead(sql: string): void;
  /**
   * Resolves once the parse {@link ParseMemo.parseAhead} started for `sql` is done, so that the
   * {@link ParseMemo.parse} that follows does not block this thread (an async rung awaits this
   * instead, and its thread grades other items meanwhile); at once for a text this memo has or
   * that is not being parsed ahead. Never rejects.
   */
  whenParsed(sql: string): Promise<void>;
  /**
   * {@link collectReferences} of `sql` on its memoized tree, once per (text, catalog, double-quote
   * mode). Without a catalog, a resolution made with one is reused: the tables, CTEs and table
   * functions it lists do not depend on the catalog (only column resolutions do).
   */
  references(sql: string, options?: MemoReferenceOptions): References | ReferencesFailure;
  /** Parser calls made so far (for tests and the parse-count figure). */
  readonly parses: number;
}

/**
 * Creates the memo of one item.
 * @example
 * const memo = createParseMemo('sqlite');
 * await checkSyntax({ sql, dialect: 'sqlite', parses: memo }); checkSafety({ sql, dialect: 'sqlite', parses: memo });
 * memo.parses // 1
 */
export function createParseMemo(dialect: Dialect): ParseMemo {
  const trees = new Map<string, ParseResult>();
  const resolutions = new Map<
    string,
    Array<{ readonly catalog: Catalog | undefined; readonly doubleQuotes: DoubleQuoteMode; readonly sqlRole: 'predicted' | 'gold'; readonly result: References | ReferencesFailure }>
  >();
  let parses = 0;
  const parse = (sql: string): ParseResult => {
    let tree = trees.get(sql);
    if (tree === undefined) {
      parses += 1;
      tree = parseSql(sql, dialect);
      trees.set(sql, tree);
    }
    return tree;
  };
  return {
    dialect,
    parse,
    parseAhead(sql) {
      if (dialect === 'sqlite' && !trees.has(sql)) parseSqlAhead(sql);
    },
    whenParsed(sql) {
      return dialect === 'sqlite' && !trees.has(sql) ? whenParsedAhead(sql) : Promise.resolve();
    },
    references(sql, options = {}) {
      const doubleQuotes = options.doubleQuotes ?? 'legacy';
      const sqlRole = options.sqlRole ?? 'predicted';
      const known = resolutions.get(sql) ?? [];
      const found = known.find((entry) =>
        options.catalog === undefined ? entry.result.ok : entry.catalog === options.catalog && entry.doubleQuotes === doubleQuotes && entry.sqlRole === sqlRole,
      );
      if (found !== undefined) return found.result;
      const tree = parse(sql);
      let result: References | ReferencesFailure;
      if (!tree.ok) result = { ok: false, code: 'parse_error', reason: tree.error.message };
      else {
        result = collectReferences({
          sql,
          dialect,
          ...(options.catalog !== undefined ? { catalog: options.catalog } : {}),
          ...(options.doubleQuotes !== undefined ? { doubleQuotes: options.doubleQuotes } : {}),
          ...(options.sqlRole !== undefined ? { sqlRole: options.sqlRole } : {}),
          ...(tree.kind === 'cst' ? { program: tree.program } : {}),
        });
      }
      known.push({ catalog: options.catalog, doubleQuotes, sqlRole, result });
      resolutions.set(sql, known);
      return result;
    },
    get parses() {
      return parses;
    },
  };
}

/**
 * The memo a rung uses: the caller's, checked to be for the rung's dialect, or a fresh one.
 * @throws LadderError `invalid_argument` when the memo was made for another dialect.
 */
export function memoFor(parses: ParseMemo | undefined, dialect: Dialect): ParseMemo {
  if (parses === undefined) return createParseMemo(dialect);
  if (parses.dialect !== dialect) {
    throw new LadderError('invalid_argument', `parses must be a memo for dialect ${dialect}; received one for ${parses.dialect}`);
  }
  return parses;
}
