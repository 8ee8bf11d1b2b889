/**
 * Reads a database schema from a SQLite file: what the database generator needs to fill any
 * schema (a bundled fixture, a user's fixture or a Spider database) without being told about it.
 *
 * Read with SQLite's own introspection (https://sqlite.org/pragma.html): `table_list` (rowid or
 * not, STRICT), `table_xinfo` (declared type, NOT NULL, default, primary-key position, generated
 * columns), `index_list` / `index_info` (UNIQUE constraints and unique indexes),
 * `foreign_key_list` (foreign keys; a missing parent column list means the parent's primary key).
 * The file is opened read-only and nothing in it runs: triggers and views are listed, not executed.
 */
import { createHash } from 'node:crypto';
import { scratch } from '../scratch/scratch-engine.js';
import type { ScratchDatabase } from '../scratch/scratch-database.js';
import { LadderError } from '../../errors.js';
import { tokenizeSqlite } from '../../sql/sqlite-lexer.js';

/**
 * SQLite column affinity, from the declared type by the rules of
 * https://sqlite.org/datatype3.html §3.1 (INT → INTEGER; CHAR, CLOB, TEXT → TEXT; BLOB or no type →
 * BLOB; REAL, FLOA, DOUB → REAL; anything else → NUMERIC).
 */
export type Affinity = 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC';

/** One column of a table. */
export interface ColumnSchema {
  readonly name: string;
  /** The declared type as written (may be empty). */
  readonly declaredType: string;
  readonly affinity: Affinity;
  /** Declared NOT NULL, or part of a primary key that SQLite keeps non-NULL (rowid alias, WITHOUT ROWID, STRICT). */
  readonly notNull: boolean;
  /** The DEFAULT expression as written, or `null`. */
  readonly defaultSql: string | null;
  /** 1-based position in the primary key; 0 when not part of it. */
  readonly primaryKeyPosition: number;
  /** A generated (computed) column: never inserted. */
  readonly generated: boolean;
  /** Values of a `CHECK (column IN (literal, …))` constraint, when the table declares one. */
  readonly checkValues?: readonly (string | number)[];
}

/** A foreign key: `columns` of the child reference `parentColumns` of `parentTable`. */
export interface ForeignKey {
  /** The child's columns, in key order. */
  readonly columns: readonly string[];
  /** The parent table's name as the schema spells it. */
  readonly parentTable: string;
  /** The referenced columns (the parent's primary key when the declaration names none). */
  readonly parentColumns: readonly string[];
}

/** One table. */
export interface TableSchema {
  readonly name: string;
  /** The `CREATE TABLE` statement as stored in `sqlite_schema`. */
  readonly createSql: string;
  /** Columns in declaration order. */
  readonly columns: readonly ColumnSchema[];
  /** Primary-key columns in key order; empty when the table has none (rowid only). */
  readonly primaryKey: readonly string[];
  /** The INTEGER PRIMARY KEY column that aliases the rowid, or `null`. */
  readonly rowidAlias: string | null;
  readonly withoutRowid: boolean;
  readonly strict: boolean;
  /** Column sets that must be unique (UNIQUE constraints and unique indexes on plain columns), primary key excluded. */
  readonly uniqueKeys: readonly (readonly string[])[];
  /** True when some unique index is on an expression or is partial (checked by SQLite on insert, not in memory). */
  readonly hasOpaqueUniqueIndex: boolean;
  readonly foreignKeys: readonly ForeignKey[];
  /** True when the CREATE TABLE text has a CHECK constraint (enforced by SQLite on insert). */
  readonly hasCheck: boolean;
}

/** A view, index or trigger kept as its SQL text. */
export interface SchemaObject {
  readonly name: string;
  /** Table the index or trigger belongs to; the view's own name for views. */
  readonly table: string;
  readonly sql: string;
}

/** A foreign key the generator cannot honour (its parent table or columns do not exist). */
export interface BrokenForeignKey {
  readonly table: string;
  readonly columns: readonly string[];
  readonly parentTable: string;
  readonly reason: string;
}

/** Everything the generator needs to know about a database. */
export interface DatabaseSchema {
  /** Ordinary tables in `sqlite_schema` order (internal `sqlite_*` tables and virtual tables excluded). */
  readonly tables: readonly TableSchema[];
  readonly views: readonly SchemaObject[];
  /** Explicit `CREATE INDEX` statements (automatic indexes of constraints are not listed). */
  readonly indexes: readonly SchemaObject[];
  /** Triggers are listed but never copied into generated databases (they would rewrite generated rows). */
  readonly triggers: readonly SchemaObject[];
  /** Virtual tables, which the generator cannot fill (listed so that callers can say so). */
  readonly virtualTables: readonly string[];
  readonly brokenForeignKeys: readonly BrokenForeignKey[];
  /** sha256 (hex) of every `sqlite_schema` SQL text in order: the schema's identity in cache keys. */
  readonly fingerprint: string;
}

/**
 * Affinity of a declared type (https://sqlite.org/datatype3.html §3.1, rules applied in order).
 * @example affinityOf('VARCHAR(20)') // 'TEXT'
 * @example affinityOf('') // 'BLOB'
 */
export function affinityOf(declaredType: string): Affinity {
  const type = declaredType.toUpperCase();
  if (type.includes('INT')) return 'INTEGER';
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'TEXT';
  if (type.includes('BLOB') || type.trim() === '') return 'BLOB';
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return 'REAL';
  return 'NUMERIC';
}

/**
 * Reads the schema of a SQLite file.
 *
 * @param file - path of an existing SQLite database; opened read-only, never modified.
 * @returns the tables (columns, keys, constraints), views, indexes, triggers and a fingerprint.
 * @throws LadderError `db_not_found` when the file does not exist, `input_invalid` when it is not
 *   a SQLite database.
 */
export function readSchema(file: string): DatabaseSchema {
  let db: ScratchDatabase;
  try {
    db = scratch.open(file, { integers: 'number' });
  } catch (error) {
    throw new LadderError('db_not_found', `cannot open ${file} read-only: ${(error as Error).message}`, { cause: error });
  }
  try {
    return readOpenSchema(db, file);
  } catch (error) {
    if (error instanceof LadderError) throw error;
    throw new LadderError('input_invalid', `cannot read the schema of ${file}: ${(error as Error).message}`, { cause: error });
  } finally {
    db.close();
  }
}

interface MasterRow {
  readonly type: string;
  readonly name: string;
  readonly tbl_name: string;
  readonly sql: string | null;
}

function readOpenSchema(db: ScratchDatabase, file: string): DatabaseSchema {
  const master = db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid').records() as MasterRow[];
  const fingerprint = createHash('sha256');
  for (const row of master) fingerprint.update(`${row.type}\u0000${row.name}\u0000${row.sql ?? ''}\u0001`);
  const tableList = new Map<string, { withoutRowid: boolean; strict: boolean }>();
  for (const row of db.prepare("SELECT name, wr, strict FROM pragma_table_list WHERE schema = 'main'").records() as { name: string; wr: number; strict: number }[]) {
    tableList.set(row.name, { withoutRowid: row.wr === 1, strict: row.strict === 1 });
  }

  const tables: TableDraft[] = [];
  const virtualTables: string[] = [];
  const views: SchemaObject[] = [];
  const indexes: SchemaObject[] = [];
  const triggers: SchemaObject[] = [];
  for (const row of master) {
    if (row.name.startsWith('sqlite_')) continue;
    if (row.type === 'view' && row.sql) views.push({ name: row.name, table: row.tbl_name, sql: row.sql });
    else if (row.type === 'index' && row.sql) indexes.push({ name: row.name, table: row.tbl_name, sql: row.sql });
    else if (row.type === 'trigger' && row.sql) triggers.push({ name: row.name, table: row.tbl_name, sql: row.sql });
    else if (row.type === 'table' && row.sql) {
      if (/^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(row.sql)) {
        virtualTables.push(row.name);
        continue;
      }
      tables.push(readTable(db, row.name, row.sql, tableList.get(row.name) ?? { withoutRowid: false, strict: false }));
    }
  }
  if (tables.length === 0 && master.length === 0 && !isSqliteFile(db)) {
    throw new LadderError('input_invalid', `${file} holds no tables`);
  }
  const { resolved, broken } = resolveForeignKeys(tables);
  return { tables: resolved, views, indexes, triggers, virtualTables, brokenForeignKeys: broken, fingerprint: fingerprint.digest('hex') };
}

function isSqliteFile(db: ScratchDatabase): boolean {
  return typeof db.prepare('SELECT sqlite_version()').value() === 'string';
}

interface XInfoRow {
  readonly cid: number;
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly dflt_value: string | null;
  readonly pk: number;
  readonly hidden: number;
}

interface RawForeignKey {
  readonly columns: string[];
  readonly parentTable: string;
  readonly parentColumns: (string | null)[];
}

type TableDraft = Omit<TableSchema, 'foreignKeys'> & { readonly rawForeignKeys: readonly RawForeignKey[] };

function readTable(db: ScratchDatabase, name: string, createSql: string, kind: { withoutRowid: boolean; strict: boolean }): TableDraft {
  const info = db.prepare('SELECT cid, name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid').records(name) as XInfoRow[];
  const pkColumns = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  const rowidAlias =
    !kind.withoutRowid && pkColumns.length === 1 && pkColumns[0]!.type.trim().toUpperCase() === 'INTEGER' ? pkColumns[0]!.name : null;
  const checkValues = checkInLists(createSql);
  const columns: ColumnSchema[] = info.map((c) => ({
    name: c.name,
    declaredType: c.type,
    affinity: affinityOf(c.type),
    // SQLite lets a non-rowid PRIMARY KEY column hold NULL in ordinary rowid tables (a legacy
    // quirk); the generator never puts NULL in a key column anyway.
    notNull: c.notnull === 1 || c.name === rowidAlias || (c.pk > 0 && (kind.withoutRowid || kind.strict)),
    defaultSql: c.dflt_value,
    primaryKeyPosition: c.pk,
    generated: c.hidden === 2 || c.hidden === 3,
    ...(checkValues.has(c.name.toLowerCase()) ? { checkValues: checkValues.get(c.name.toLowerCase())! } : {}),
  }));

  const uniqueKeys: string[][] = [];
  let hasOpaqueUniqueIndex = false;
  const indexList = db.prepare('SELECT name, "unique", origin, partial FROM pragma_index_list(?) ORDER BY seq').records(name) as { name: string; unique: number; origin: string; partial: number }[];
  for (const index of indexList) {
    if (index.unique !== 1 || index.origin === 'pk') continue;
    const keyColumns = db.prepare('SELECT cid, name FROM pragma_index_info(?) ORDER BY seqno').records(index.name) as { cid: number; name: string | null }[];
    if (index.partial === 1 || keyColumns.some((c) => c.cid < 0 || c.name === null)) {
      hasOpaqueUniqueIndex = true;
      continue;
    }
    uniqueKeys.push(keyColumns.map((c) => c.name!));
  }

  const fkRows = db.prepare('SELECT id, seq, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq').records(name) as { id: number; seq: number; table: string; from: string; to: string | null }[];
  const byId = new Map<number, RawForeignKey>();
  for (const fk of fkRows) {
    let entry = byId.get(fk.id);
    if (entry === undefined) {
      entry = { columns: [], parentTable: fk.table, parentColumns: [] };
      byId.set(fk.id, entry);
    }
    entry.columns.push(fk.from);
    entry.parentColumns.push(fk.to);
  }

  return {
    name,
    createSql,
    columns,
    primaryKey: pkColumns.map((c) => c.name),
    rowidAlias,
    withoutRowid: kind.withoutRowid,
    strict: kind.strict,
    uniqueKeys: dedupeKeys(uniqueKeys),
    hasOpaqueUniqueIndex,
    // PRAGMA foreign_key_list lists keys in reverse declaration order; keep declaration order.
    rawForeignKeys: [...byId.entries()].sort((a, b) => b[0] - a[0]).map(([, fk]) => fk),
    hasCheck: tokenizeSqlite(createSql).some((t) => t.kind === 'word' && t.value.toUpperCase() === 'CHECK'),
  };
}

/**
 * `CHECK (name IN ('a', 'b', 3))` constraints, by lower-case column name: the tokens `CHECK ( name
 * IN ( literal , … ) )` exactly; any other CHECK is left to SQLite to enforce on insert.
 */
export function checkInLists(createSql: string): Map<string, (string | number)[]> {
  const tokens = tokenizeSqlite(createSql);
  const out = new Map<string, (string | number)[]>();
  for (let i = 0; i + 5 < tokens.length; i += 1) {
    if (!(tokens[i]!.kind === 'word' && tokens[i]!.value.toUpperCase() === 'CHECK' && tokens[i + 1]!.value === '(')) continue;
    const column = tokens[i + 2]!;
    if (!['word', 'double_quoted', 'quoted_identifier'].includes(column.kind) || tokens[i + 3]!.value.toUpperCase() !== 'IN' || tokens[i + 4]!.value !== '(') continue;
    const values: (string | number)[] = [];
    let j = i + 5;
    for (; j < tokens.length; j += 2) {
      const literal = tokens[j]!;
      if (literal.kind === 'string') values.push(literal.value);
      else if (literal.kind === 'number' && Number.isFinite(Number(literal.value))) values.push(Number(literal.value));
      else break;
      if (tokens[j + 1]?.value !== ',') break;
    }
    if (values.length > 0 && tokens[j + 1]?.value === ')' && tokens[j + 2]?.value === ')') out.set(column.value.toLowerCase(), values);
  }
  return out;
}

function dedupeKeys(keys: string[][]): string[][] {
  const seen = new Set<string>();
  return keys.filter((key) => {
    const id = key.map((c) => c.toLowerCase()).join('\u0000');
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Resolves parent names case-insensitively and fills omitted parent columns with the parent's primary key. */
function resolveForeignKeys(drafts: readonly TableDraft[]): { resolved: TableSchema[]; broken: BrokenForeignKey[] } {
  const byName = new Map(drafts.map((t) => [t.name.toLowerCase(), t]));
  const broken: BrokenForeignKey[] = [];
  const resolved = drafts.map((draft): TableSchema => {
    const foreignKeys: ForeignKey[] = [];
    for (const fk of draft.rawForeignKeys) {
      const parent = byName.get(fk.parentTable.toLowerCase());
      const fail = (reason: string): void => void broken.push({ table: draft.name, columns: fk.columns, parentTable: fk.parentTable, reason });
      if (parent === undefined) {
        fail(`parent table ${fk.parentTable} does not exist`);
        continue;
      }
      const childColumns = fk.columns.map((c) => draft.columns.find((col) => col.name.toLowerCase() === c.toLowerCase())?.name);
      if (childColumns.some((c) => c === undefined)) {
        fail(`column ${fk.columns.join(', ')} does not exist in ${draft.name}`);
        continue;
      }
      let parentColumns: (string | undefined)[];
      if (fk.parentColumns.every((c) => c === null)) {
        parentColumns = parent.primaryKey.length === fk.columns.length ? [...parent.primaryKey] : [];
        if (parentColumns.length === 0) {
          fail(`no parent columns named and ${parent.name}'s primary key has ${parent.primaryKey.length} columns`);
          continue;
        }
      } else {
        parentColumns = fk.parentColumns.map((c) => parent.columns.find((col) => col.name.toLowerCase() === (c ?? '').toLowerCase())?.name);
      }
      if (parentColumns.some((c) => c === undefined)) {
        fail(`parent column ${fk.parentColumns.join(', ')} does not exist in ${parent.name}`);
        continue;
      }
      foreignKeys.push({ columns: childColumns as string[], parentTable: parent.name, parentColumns: parentColumns as string[] });
    }
    const { rawForeignKeys: _raw, ...table } = draft;
    return { ...table, foreignKeys };
  });
  return { resolved, broken };
}

/** The table named `name` (case-insensitive), or `undefined`. */
export function findTable(schema: DatabaseSchema, name: string): TableSchema | undefined {
  const key = name.toLowerCase();
  return schema.tables.find((t) => t.name.toLowerCase() === key);
}

/** The column named `name` of `table` (case-insensitive), or `undefined`. */
export function findColumn(table: TableSchema, name: string): ColumnSchema | undefined {
  const key = name.toLowerCase();
  return table.columns.find((c) => c.name.toLowerCase() === key);
}

/** Columns a row gets values for on INSERT (generated columns are computed by SQLite). */
export function insertableColumns(table: TableSchema): string[] {
  return table.columns.filter((c) => !c.generated).map((c) => c.name);
}
