/**
 * The gold's syntax as the neighbour code reads it: its one statement's concrete syntax tree (with
 * source ranges), its resolved column references, the double-quoted tokens SQLite reads as strings,
 * and small walkers over both trees and tokens.
 */
import type { Catalog } from '../../engine/engine.js';
import { parseSql } from '../../sql/parse.js';
import { collectReferences } from '../../sql/references.js';
import { isSqlNode, type SqlNode } from '../../sql/sql-tree.js';
import type { SqliteToken } from '../../sql/sqlite-lexer.js';
import type { DatabaseSchema } from '../model/schema-reader.js';

/** SQL's aggregate functions the neighbour rules know. */
export const AGGREGATES: readonly string[] = ['count', 'min', 'max', 'avg', 'sum'];

/** A gold read once: its statement, the string-literal tokens and the references. */
export interface ReadTree {
  readonly statement: SqlNode;
  /** Offsets of double-quoted tokens that SQLite reads as strings (legacy double quotes). */
  readonly stringLiteralStarts: ReadonlySet<number>;
  readonly references: ReturnType<typeof collectReferences>;
}

/** Reads a gold with one statement (`undefined` when the AST layer cannot). */
export function readTree(gold: string, catalog: Catalog): ReadTree | undefined {
  const parsed = parseSql(gold, 'sqlite');
  if (!parsed.ok || parsed.kind !== 'cst') return undefined;
  const statements = (parsed.program.statements as unknown as SqlNode[]).filter((s) => s.type !== 'empty');
  if (statements.length !== 1) return undefined;
  const references = collectReferences({ sql: gold, dialect: 'sqlite', doubleQuotes: 'legacy', sqlRole: 'gold', program: parsed.program, catalog });
  const stringLiteralStarts = new Set<number>();
  if (references.ok) for (const ref of references.columns) if (ref.resolution.kind === 'string_literal') stringLiteralStarts.add(ref.start);
  return { statement: statements[0]!, stringLiteralStarts, references };
}

/** A node's `[start, end)` source range, when it has one. */
export function rangeOf(node: unknown): [number, number] | undefined {
  const range = isSqlNode(node) ? node['range'] : undefined;
  return Array.isArray(range) ? (range as [number, number]) : undefined;
}

/** Visits every node below `node` (depth first), with its parent and the field holding it. */
export function visit(node: SqlNode, fn: (node: SqlNode, parent: SqlNode | undefined, field: string) => void, parent?: SqlNode, field = ''): void {
  fn(node, parent, field);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'range') continue;
    if (isSqlNode(value)) visit(value, fn, node, key);
    else if (Array.isArray(value)) for (const item of value) if (isSqlNode(item)) visit(item, fn, node, key);
  }
}

/** A word token's lower-case text (`''` for other tokens). */
export function word(token: SqliteToken | undefined): string {
  return token !== undefined && token.kind === 'word' ? token.value.toLowerCase() : '';
}

/** The catalog of a schema as the reference resolver reads it. */
export function catalogFrom(schema: DatabaseSchema): Catalog {
  return {
    tables: schema.tables.map((t) => ({ name: t.name, kind: 'table' as const, schema: 'main', columns: t.columns.map((c) => ({ name: c.name, type: c.declaredType, primaryKey: c.primaryKeyPosition > 0 })) })),
  };
}
