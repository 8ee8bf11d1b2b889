/**
 * The state of one scope-aware resolution (see references.ts for the rules): the references found
 * so far, the scopes with their sources (tables, CTEs, derived tables, table functions), and the
 * lookups every part of the resolver shares — a column in a scope chain, a qualifier's source,
 * names as comparison keys, positions, and unresolved names with their did-you-mean.
 *
 * The walk itself (queries, FROM items, expressions) lives in references.ts,
 * reference-from-items.ts and reference-columns.ts; it calls back into {@link ReferenceScopes.query}
 * and {@link ReferenceScopes.expr}, which the resolver implements.
 */
import type { Node } from 'sql-parser-cst';
import type { CatalogTable } from './catalog-types.js';
import type { CatalogIndex } from './catalog-index.js';
import { identifierKey, isQuotedIdentifier, writtenName } from './identifiers.js';
import { lineLocator, type Dialect, type DoubleQuoteMode } from './parse.js';
import { suggestSchemaName } from './name-suggestions.js';
import { columnPositionIdentifiers } from './column-positions.js';
import type {
  ColumnReference,
  ColumnResolution,
  CteReference,
  DoubleQuotedString,
  ScopeInfo,
  SourcePosition,
  TableFunctionReference,
  TableReference,
  UnresolvedName,
} from './reference-types.js';

/** A sql-parser-cst node read by field name. */
export type AnyNode = Node & { readonly [key: string]: unknown };

/** An identifier node: `text` as written (quotes included), `name` unquoted. */
export interface Identifierish {
  readonly type: 'identifier';
  readonly text: string;
  readonly name: string;
  readonly range?: [number, number];
}

/** Output columns: comparison key → name as written; `null` when unknown (accept any). */
export type ColumnSet = Map<string, string> | null;

/** A CTE visible in a scope. */
export interface Cte {
  readonly key: string;
  readonly name: string;
  columns: ColumnSet;
  /** Set while the body is being resolved. */
  defining: boolean;
  /**
   * SQLite only: a self-reference in this CTE's body is the `circular reference` case (the body is
   * not a compound, so it cannot be a recursive CTE); policy checks treat it as the real table.
   */
  readonly circularSelfReference: boolean;
}

/** One FROM source of a scope. */
export interface Source {
  /** Name the source is exposed under (alias, else table / CTE / function name); '' for an unaliased derived table. */
  readonly name: string;
  readonly key: string;
  readonly kind: 'table' | 'cte' | 'derived' | 'function' | 'unchecked';
  readonly columns: ColumnSet;
  readonly table?: CatalogTable;
  /** For an unaliased table: the schema key written (or default), to match `schema.table.col`. */
  readonly schemaKey?: string;
  readonly hasRowid: boolean;
}

/** One SELECT scope. */
export interface Scope {
  readonly id: number;
  readonly parent: Scope | undefined;
  readonly ctes: ReadonlyMap<string, Cte>;
  readonly sources: Source[];
  /** Column keys joined by USING / NATURAL: unqualified use is not ambiguous. */
  readonly mergedColumns: Set<string>;
  /** Select-list aliases: key → name. */
  readonly aliases: Map<string, string>;
  /** Output names of earlier compound branches (ORDER BY of a compound). */
  compoundOutputs: Set<string>;
}

/** What a query being resolved sees: the enclosing scope (for correlation) and the CTEs. */
export interface Env {
  readonly outer: Scope | undefined;
  readonly ctes: ReadonlyMap<string, Cte>;
}

/** Which clause an expression is in (controls alias visibility). */
export type ClauseKind = 'select' | 'where' | 'group' | 'having' | 'order' | 'other';

/** SQLite's implicit row-id column names of a table. */
export const ROWID_KEYS = new Set(['rowid', 'oid', '_rowid_']);

/** One part of a dotted name, as written and as a comparison key. */
export interface NamePart {
  readonly name: string;
  readonly key: string;
}

/**
 * The state and shared lookups of one resolution. Subclassed by the resolver in references.ts,
 * which supplies the walk over queries and expressions.
 */
export abstract class ReferenceScopes {
  readonly tables: TableReference[] = [];
  readonly ctes: CteReference[] = [];
  readonly tableFunctions: TableFunctionReference[] = [];
  readonly columns: ColumnReference[] = [];
  readonly unresolved: UnresolvedName[] = [];
  readonly doubleQuotedStrings: DoubleQuotedString[] = [];
  /** The statement being resolved, set by the resolver before it starts (read by {@link isColumnPosition}). */
  statement: Node | undefined;
  private columnPositions: ReadonlySet<object> | undefined;
  private locate: ((offset: number) => { line: number; column: number }) | undefined;
  readonly scopes: ScopeInfo[] = [];
  private nextScope = 0;
  /** WITH clauses already resolved at compound level. */
  readonly handledWith = new WeakSet<object>();

  /**
   * Whether `identifier` (a node of {@link statement}) stands in a column position
   * (column-positions.ts). The positions are found on first use: only a double-quoted name that
   * resolves to no column needs them.
   */
  isColumnPosition(identifier: object): boolean {
    if (this.statement === undefined) return false;
    this.columnPositions ??= columnPositionIdentifiers(this.statement);
    return this.columnPositions.has(identifier);
  }

  constructor(
    readonly sql: string,
    readonly dialect: Dialect,
    readonly catalog: CatalogIndex | undefined,
    readonly doubleQuotes: DoubleQuoteMode,
    readonly sqlRole: 'predicted' | 'gold',
  ) {}


  /** Resolves any query-shaped node in `env`; returns its output columns (`null`: unknown). */
  abstract query(node: AnyNode, env: Env, kind: ScopeInfo['kind'], compoundOutputs?: Set<string>): ColumnSet;

  /** Resolves the names in one expression, in `scope`, in a clause (alias visibility). */
  abstract expr(node: AnyNode | undefined, scope: Scope, clause: ClauseKind): void;

  /** Walks every child node with {@link expr} in `scope` (used for constructs with no scope rules). */
  walkGeneric(node: AnyNode, scope: Scope, skip: ReadonlySet<string> = new Set()): void {
    walkChildren(node, (child) => this.expr(child, scope, 'other'), skip);
  }

  newScope(env: Env, kind: ScopeInfo['kind']): Scope {
    const scope: Scope = {
      id: this.nextScope++,
      parent: env.outer,
      ctes: env.ctes,
      sources: [],
      mergedColumns: new Set(),
      aliases: new Map(),
      compoundOutputs: new Set(),
    };
    return scope;
  }

  /** A scope with no sources and no enclosing scope (LIMIT / OFFSET expressions); CTEs stay visible. */
  isolatedScope(ctes: ReadonlyMap<string, Cte>): Scope {
    const scope = this.newScope({ outer: undefined, ctes }, 'subquery');
    this.scopes.push({ id: scope.id, kind: 'subquery', sources: [] });
    return scope;
  }

  columnList(paren: AnyNode | undefined): ColumnSet {
    if (!paren) return null;
    const items = ((paren.expr as AnyNode).items as Identifierish[]) ?? [];
    return new Map(items.map((item) => [this.key(item), item.name]));
  }

  /** Resolution of an unqualified column in one scope, or `undefined` when no source has it. */
  lookupColumn(scope: Scope, key: string): ColumnResolution | undefined {
    const known = scope.sources.filter((source) => source.columns !== null && (source.columns.has(key) || (source.hasRowid && ROWID_KEYS.has(key))));
    if (known.length === 1 || (known.length > 1 && scope.mergedColumns.has(key))) return this.resolutionFor(known[0]!, key);
    if (known.length > 1) {
      if (ROWID_KEYS.has(key) && known.every((source) => !source.columns!.has(key))) return this.resolutionFor(known[0]!, key);
      return { kind: 'ambiguous', sources: known.map((source) => source.name) };
    }
    const open = scope.sources.find((source) => source.columns === null);
    return open ? this.resolutionFor(open, key) : undefined;
  }

  resolutionFor(source: Source, key: string): ColumnResolution {
    switch (source.kind) {
      case 'table':
        return { kind: 'table', table: source.table!, column: source.columns?.get(key) ?? key };
      case 'cte':
      case 'derived':
      case 'function':
        return { kind: source.kind, source: source.name };
      case 'unchecked':
        return { kind: 'unchecked', source: source.name };
    }
  }

  findSourceInChain(scope: Scope, qualifier: NamePart[]): Source | undefined {
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      const source = this.findSource(current, qualifier);
      if (source) return source;
    }
    return undefined;
  }

  findSource(scope: Scope, qualifier: NamePart[]): Source | undefined {
    const last = qualifier[qualifier.length - 1];
    if (!last) return undefined;
    if (qualifier.length === 1) return scope.sources.find((source) => source.key === last.key && source.key !== '');
    // schema.table.column: only an unaliased table in that schema (or the default schema).
    const schema = qualifier[qualifier.length - 2]!;
    return scope.sources.find((source) => {
      if (source.kind !== 'table' || source.key !== last.key || source.table === undefined) return false;
      if (source.schemaKey !== undefined) return source.schemaKey === schema.key;
      return this.catalog?.findTable({ schema: schema.key, name: last.key }) === source.table;
    });
  }

  visibleColumnNames(scope: Scope, withAliases: boolean): string[] {
    const names = new Set<string>();
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      for (const source of current.sources) for (const name of source.columns?.values() ?? []) names.add(name);
    }
    if (withAliases) for (const name of scope.aliases.values()) names.add(name);
    return [...names];
  }

  sourceNames(scope: Scope): string[] {
    const names = new Set<string>();
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      for (const source of current.sources) if (source.name !== '') names.add(source.name);
    }
    return [...names];
  }

  unknownColumn(node: Identifierish, written: string, whole: AnyNode | undefined, candidates: string[], message: string): void {
    if (!this.catalog) return;
    this.addUnresolved((whole ?? node) as AnyNode, 'unknown_column', written, message, candidates, node.name);
  }

  addUnresolved(node: AnyNode, kind: UnresolvedName['kind'], name: string, message: string, candidates: readonly string[], compareName?: string): void {
    const found = suggestSchemaName(compareName ?? name.split('.').pop() ?? name, candidates);
    // As it must be written to denote the catalog's name (`"Region Name"` on PostgreSQL).
    const suggestion = found === undefined ? undefined : writtenName(found, this.dialect);
    this.unresolved.push({
      ...this.position(node),
      kind,
      name,
      message: suggestion ? `${message}; did you mean ${suggestion}?` : message,
      ...(suggestion ? { suggestion } : {}),
    });
  }

  key(identifier: Identifierish): string {
    return identifierKey(identifier.name, isQuotedIdentifier(identifier.text), this.dialect);
  }

  /** Parts of an entity name (`a`, `s.a`, `db.s.a`); a non-name node gives one part of its text. */
  nameParts(node: AnyNode): NamePart[] {
    const parts = this.qualifierParts(node);
    if (parts) return parts;
    const text = node.range ? this.sql.slice(node.range[0], node.range[1]) : String(node.type);
    return [{ name: text, key: identifierKey(text, false, this.dialect) }];
  }

  /** Parts of a dotted name made only of identifiers, else `undefined`. */
  qualifierParts(node: AnyNode): NamePart[] | undefined {
    if (node.type === 'identifier') {
      const identifier = node as unknown as Identifierish;
      return [{ name: identifier.name, key: this.key(identifier) }];
    }
    if (node.type === 'bigquery_quoted_member_expr') return this.qualifierParts(node.expr as AnyNode);
    if (node.type === 'member_expr' && (node.property as AnyNode).type === 'identifier') {
      const head = this.qualifierParts(node.object as AnyNode);
      const property = node.property as Identifierish;
      return head ? [...head, { name: property.name, key: this.key(property) }] : undefined;
    }
    return undefined;
  }

  position(node: { readonly range?: [number, number] }): SourcePosition {
    const [start, end] = node.range ?? [0, 0];
    // Every table and column reference has a position: index this text's lines once.
    this.locate ??= lineLocator(this.sql);
    return { ...this.locate(start), start, end };
  }
}

/** Calls `visit` on each child node of `node` (not keywords, data types, or the fields in `skip`). */
export function walkChildren(node: AnyNode, visit: (child: AnyNode) => void, skip: ReadonlySet<string> = new Set()): void {
  for (const [key, value] of Object.entries(node)) {
    if (key === 'range' || key === 'leading' || key === 'trailing' || key === 'type' || skip.has(key)) continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) visit(item);
    } else if (isNode(value)) {
      if (value.type === 'keyword' || value.type.startsWith('data_type')) continue;
      visit(value);
    }
  }
}

/** True for a parse-tree node (an object with a string `type`). */
export function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
