/**
 * Fixture invariants: rules the fixture's data obeys that the schema cannot express, declared so
 * that the database generator keeps them. Random data that breaks such a rule (an order whose
 * `order_total` is not the sum of its lines) would reject correct predictions that rely on it.
 *
 * Declared in the fixture manifest under `invariants:` (docs/test-suites.md, "Fixture invariants"):
 *
 * ```yaml
 * invariants:
 *   - kind: derive            # the column is computed from the row (and other tables)
 *     column: orders.order_total
 *     sql: (SELECT SUM(quantity * unit_price - COALESCE(discount, 0)) FROM order_items i WHERE i.order_id = orders.order_id)
 *   - kind: values            # the column holds only these values (null: NULL allowed)
 *     column: orders.status
 *     values: [COMPLETED, SHIPPED, PENDING, CANCELLED]
 *   - kind: range             # numbers within bounds, optionally integral or multiples of a step
 *     column: order_items.quantity
 *     min: 1
 *     max: 10
 *     integer: true
 *   - kind: format            # text in SQLite's date / time format
 *     column: orders.ordered_at
 *     format: timestamp       # date 'YYYY-MM-DD' | timestamp 'YYYY-MM-DD HH:MM:SS' | time 'HH:MM:SS'
 *   - kind: children          # every parent row has between min and max child rows
 *     column: order_items.order_id
 *     min: 1
 *     max: 4
 *   - kind: check             # a condition on every row of the table (may read other tables)
 *     table: order_items
 *     sql: discount IS NULL OR discount <= quantity * unit_price
 *   - kind: lookup            # rows are copied from the fixture's snapshots (reference tables)
 *     table: regions
 * ```
 *
 * Every invariant has a violation query ({@link invariantViolationSql}), so the same declaration is
 * checked on the fixture's own snapshots (does the data really obey it?) and on every generated
 * database. A `derive` whose SQL calls `ladder_random()` (a seeded choice, e.g. "a user of the same
 * customer") is a generation rule, not a function of the row; pair it with a `check`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node as YamlNode, YAMLMap } from 'yaml';
import { LadderError } from '../errors.js';
import { findColumn, findTable, type DatabaseSchema, type TableSchema } from './schema-reader.js';
import { tokenizeSqlite } from '../sql/sqlite-lexer.js';

/** Where a declaration came from (for messages): `file:line`, or a caller's label. */
export interface InvariantSource {
  readonly file?: string;
  readonly line?: number;
}

interface InvariantBase {
  /** Why the rule holds, for people (optional). */
  readonly note?: string;
  readonly source?: InvariantSource;
}

/** The column holds only `values` (SQLite equality); `null` in the list allows NULL. */
export interface ValuesInvariant extends InvariantBase {
  readonly kind: 'values';
  /** `table.column`. */
  readonly column: string;
  readonly values: readonly (string | number | null)[];
}

/** Numbers within bounds; NULL is allowed when the schema allows it. */
export interface RangeInvariant extends InvariantBase {
  readonly kind: 'range';
  readonly column: string;
  readonly min?: number;
  readonly max?: number;
  /** Whole numbers only. */
  readonly integer?: boolean;
  /** Every value is a multiple of this positive step (e.g. 0.25 for quarter dollars). */
  readonly multipleOf?: number;
}

/** Text in one of SQLite's date and time formats (https://sqlite.org/lang_datefunc.html). */
export interface FormatInvariant extends InvariantBase {
  readonly kind: 'format';
  readonly column: string;
  /** `date` = 'YYYY-MM-DD', `timestamp` = 'YYYY-MM-DD HH:MM:SS', `time` = 'HH:MM:SS'. */
  readonly format: 'date' | 'timestamp' | 'time';
}

/** The column is computed: `sql` is an expression over the row's table (correlated subqueries allowed). */
export interface DeriveInvariant extends InvariantBase {
  readonly kind: 'derive';
  readonly column: string;
  readonly sql: string;
}

/** Every row of the referenced parent has between `min` and `max` rows referencing it through `column`. */
export interface ChildrenInvariant extends InvariantBase {
  readonly kind: 'children';
  /** The child's foreign-key column, `table.column`. */
  readonly column: string;
  readonly min: number;
  readonly max?: number;
}

/** `sql` holds (is not false) for every row of `table`; it may read other tables. */
export interface CheckInvariant extends InvariantBase {
  readonly kind: 'check';
  readonly table: string;
  readonly sql: string;
}

/** The table's rows are copied from the fixture's snapshots (a subset); for reference tables. */
export interface LookupInvariant extends InvariantBase {
  readonly kind: 'lookup';
  readonly table: string;
}

/** One declared invariant. */
export type FixtureInvariant =
  | ValuesInvariant
  | RangeInvariant
  | FormatInvariant
  | DeriveInvariant
  | ChildrenInvariant
  | CheckInvariant
  | LookupInvariant;

/** Every invariant kind, in documentation order. */
export const INVARIANT_KINDS = ['values', 'range', 'format', 'derive', 'children', 'check', 'lookup'] as const;

/** The name of the seeded random function a `derive` may call during generation. */
export const RANDOM_FUNCTION = 'ladder_random';

const KEYS: Readonly<Record<FixtureInvariant['kind'], readonly string[]>> = {
  values: ['column', 'values'],
  range: ['column', 'min', 'max', 'integer', 'multiple_of'],
  format: ['column', 'format'],
  derive: ['column', 'sql'],
  children: ['column', 'min', 'max'],
  check: ['table', 'sql'],
  lookup: ['table'],
};

/**
 * Reads the `invariants:` list of a fixture manifest. A manifest without the key has none.
 *
 * @param manifestFile - path of `fixture.yaml`.
 * @returns the invariants in declaration order, each with its `file:line`.
 * @throws LadderError `input_invalid` with `file:line` for a malformed entry (unknown kind or key,
 *   missing field, wrong type, `min > max`, a non-positive step).
 */
export function readFixtureInvariants(manifestFile: string): FixtureInvariant[] {
  const file = path.resolve(manifestFile);
  const text = readFileSync(file, 'utf8');
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const lineOf = (node: YamlNode | null | undefined): number => (node?.range ? lineCounter.linePos(node.range[0]).line : 1);
  const fail = (node: YamlNode | null | undefined, message: string): never => {
    throw new LadderError('input_invalid', `${file}:${lineOf(node)}: invariants: ${message}`);
  };
  if (doc.errors[0]) throw new LadderError('input_invalid', `${file}:${lineCounter.linePos(doc.errors[0].pos[0]).line}: ${doc.errors[0].message}`);
  const root = doc.contents;
  if (!isMap(root)) return [];
  const list = root.get('invariants', true) as YamlNode | undefined;
  if (list === undefined || list === null) return [];
  if (!isSeq(list)) return fail(list, 'must be a list of { kind, … } entries');
  return list.items.map((item) => readEntry(item as YamlNode, { file, fail, lineOf }));
}

interface ReadContext {
  readonly file: string;
  readonly fail: (node: YamlNode | null | undefined, message: string) => never;
  readonly lineOf: (node: YamlNode | null | undefined) => number;
}

function readEntry(node: YamlNode, ctx: ReadContext): FixtureInvariant {
  const { fail } = ctx;
  if (!isMap(node)) return fail(node, 'each entry must be a mapping with a kind');
  const kind = scalar(node, 'kind');
  if (typeof kind !== 'string' || !(INVARIANT_KINDS as readonly string[]).includes(kind)) {
    return fail(node.get('kind', true) as YamlNode ?? node, `kind must be one of ${INVARIANT_KINDS.join(', ')}; received ${JSON.stringify(kind)}`);
  }
  const k = kind as FixtureInvariant['kind'];
  const allowed = new Set(['kind', 'note', ...KEYS[k]]);
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!allowed.has(key)) fail(pair.key as YamlNode, `${kind}: unknown key "${key}"; allowed keys: ${[...allowed].join(', ')}`);
  }
  const source: InvariantSource = { file: ctx.file, line: ctx.lineOf(node) };
  const note = optionalString(node, 'note', fail);
  const base = { source, ...(note === undefined ? {} : { note }) };
  const raw: Record<string, unknown> = { kind };
  for (const key of KEYS[k]) {
    const value = node.get(key, true) as YamlNode | undefined;
    if (value === undefined) continue;
    raw[key === 'multiple_of' ? 'multipleOf' : key] = isSeq(value) ? value.items.map((v) => (isScalar(v) ? v.value : undefined)) : isScalar(value) ? value.value : undefined;
  }
  try {
    return { ...validateInvariantShape(raw), ...base } as FixtureInvariant;
  } catch (error) {
    return fail(node, `${kind}: ${(error as Error).message}`);
  }
}

function scalar(map: YAMLMap, key: string): unknown {
  const node = map.get(key, true) as YamlNode | undefined;
  return node !== undefined && isScalar(node) ? node.value : undefined;
}

function optionalString(map: YAMLMap, key: string, fail: ReadContext['fail']): string | undefined {
  const node = map.get(key, true) as YamlNode | undefined;
  if (node === undefined) return undefined;
  const value = isScalar(node) ? node.value : undefined;
  if (typeof value !== 'string') fail(node, `${key} must be a string`);
  return value as string;
}

/**
 * Checks the shape of one invariant given as a plain object (camelCase keys) and returns it typed.
 * @throws TypeError / RangeError naming the field, the expected and the received value.
 */
export function validateInvariantShape(raw: unknown): FixtureInvariant {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new TypeError('an invariant must be an object with a kind');
  const entry = raw as Record<string, unknown>;
  const kind = entry['kind'];
  const text = (key: string): string => {
    const value = entry[key];
    if (typeof value !== 'string' || value.trim() === '') throw new TypeError(`${key} must be a non-empty string; received ${JSON.stringify(value)}`);
    return value;
  };
  const columnRef = (): string => {
    const value = text('column');
    if (!/^[^.\s]+\.[^.\s]+$/.test(value)) throw new TypeError(`column must be "table.column"; received ${JSON.stringify(value)}`);
    return value;
  };
  const optionalNumber = (key: string): number | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`${key} must be a finite number; received ${JSON.stringify(value)}`);
    return value;
  };
  switch (kind) {
    case 'values': {
      const values = entry['values'];
      if (!Array.isArray(values) || values.length === 0 || values.some((v) => v !== null && typeof v !== 'string' && typeof v !== 'number')) {
        throw new TypeError('values must be a non-empty list of strings, numbers or null');
      }
      return { kind, column: columnRef(), values: values as (string | number | null)[] };
    }
    case 'range': {
      const min = optionalNumber('min');
      const max = optionalNumber('max');
      const multipleOf = optionalNumber('multipleOf');
      const integer = entry['integer'];
      if (integer !== undefined && typeof integer !== 'boolean') throw new TypeError(`integer must be true or false; received ${JSON.stringify(integer)}`);
      if (min === undefined && max === undefined && multipleOf === undefined && integer !== true) throw new TypeError('give at least one of min, max, integer, multiple_of');
      if (min !== undefined && max !== undefined && min > max) throw new RangeError(`min (${min}) must not exceed max (${max})`);
      if (multipleOf !== undefined && !(multipleOf > 0)) throw new RangeError(`multiple_of must be > 0; received ${multipleOf}`);
      return {
        kind,
        column: columnRef(),
        ...(min === undefined ? {} : { min }),
        ...(max === undefined ? {} : { max }),
        ...(integer === undefined ? {} : { integer: integer as boolean }),
        ...(multipleOf === undefined ? {} : { multipleOf }),
      };
    }
    case 'format': {
      const format = entry['format'];
      if (format !== 'date' && format !== 'timestamp' && format !== 'time') throw new TypeError(`format must be date, timestamp or time; received ${JSON.stringify(format)}`);
      return { kind, column: columnRef(), format };
    }
    case 'derive':
      return { kind, column: columnRef(), sql: text('sql') };
    case 'children': {
      const min = optionalNumber('min');
      const max = optionalNumber('max');
      if (min === undefined || !Number.isInteger(min) || min < 0) throw new RangeError(`min must be an integer ≥ 0; received ${JSON.stringify(entry['min'])}`);
      if (max !== undefined && (!Number.isInteger(max) || max < min || max < 1)) throw new RangeError(`max must be an integer ≥ max(min, 1); received ${max}`);
      return { kind, column: columnRef(), min, ...(max === undefined ? {} : { max }) };
    }
    case 'check':
      return { kind, table: text('table'), sql: text('sql') };
    case 'lookup':
      return { kind, table: text('table') };
    default:
      throw new TypeError(`kind must be one of ${INVARIANT_KINDS.join(', ')}; received ${JSON.stringify(kind)}`);
  }
}

/** An invariant bound to the schema: names resolved to the schema's spelling. */
export type BoundInvariant = FixtureInvariant & { readonly tableName: string; readonly columnName?: string };

/**
 * Resolves every invariant's table and column against the schema.
 * @returns the invariants with `tableName` / `columnName` in the schema's spelling.
 * @throws LadderError `input_invalid` naming the invariant (`file:line` when known) for an unknown
 *   table or column, a `children` column that is not a foreign key, a range on a text column, or
 *   two `derive` rules for one column.
 */
export function bindInvariants(schema: DatabaseSchema, invariants: readonly FixtureInvariant[]): BoundInvariant[] {
  const derived = new Set<string>();
  return invariants.map((invariant) => {
    const where = describeInvariant(invariant);
    const fail = (message: string): never => {
      throw new LadderError('input_invalid', `${where}: ${message}`);
    };
    const tableRef = 'table' in invariant ? invariant.table : invariant.column.split('.')[0]!;
    const table = findTable(schema, tableRef) ?? fail(`no table ${tableRef} in the schema (tables: ${schema.tables.map((t) => t.name).join(', ')})`);
    if (!('column' in invariant)) return { ...invariant, tableName: table.name };
    const columnRef = invariant.column.split('.')[1]!;
    const column = findColumn(table, columnRef) ?? fail(`no column ${columnRef} in ${table.name} (columns: ${table.columns.map((c) => c.name).join(', ')})`);
    if (invariant.kind === 'children' && !table.foreignKeys.some((fk) => fk.columns.length === 1 && fk.columns[0] === column.name)) {
      fail(`${table.name}.${column.name} is not a single-column foreign key`);
    }
    if (invariant.kind === 'derive') {
      const key = `${table.name}.${column.name}`.toLowerCase();
      if (derived.has(key)) fail(`${table.name}.${column.name} is derived twice`);
      derived.add(key);
    }
    return { ...invariant, tableName: table.name, columnName: column.name };
  });
}

/** `file:line: kind column` (or `invariant kind column` without a source), for messages. */
export function describeInvariant(invariant: FixtureInvariant): string {
  const target = 'column' in invariant ? invariant.column : invariant.table;
  const at = invariant.source?.file ? `${invariant.source.file}:${invariant.source.line ?? 1}: ` : '';
  return `${at}invariant ${invariant.kind} ${target}`;
}

/** Double-quotes an identifier for SQLite. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL literal for a declared value (strings single-quoted, numbers as written). */
export function sqlLiteral(value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value);
  return `'${value.replaceAll("'", "''")}'`;
}

/** True when the SQL text calls the seeded random function. */
export function usesRandom(sql: string): boolean {
  return tokenizeSqlite(sql).some((t) => t.kind === 'word' && t.value.toLowerCase() === RANDOM_FUNCTION);
}

/**
 * A query returning the number of rows that break the invariant (0 = kept), or `null` when the
 * invariant cannot be checked on a database alone (`lookup`, which compares with the snapshots, and
 * a `derive` that calls `ladder_random()`).
 *
 * @example
 * invariantViolationSql(bound({ kind: 'format', column: 'orders.order_date', format: 'date' }))
 * // SELECT COUNT(*) FROM "orders" WHERE "order_date" IS NOT NULL AND (typeof("order_date") <> 'text' OR date("order_date") IS NOT "order_date")
 */
export function invariantViolationSql(invariant: BoundInvariant, schema?: DatabaseSchema): string | null {
  const t = quoteIdentifier(invariant.tableName);
  const c = invariant.columnName === undefined ? '' : quoteIdentifier(invariant.columnName);
  switch (invariant.kind) {
    case 'values': {
      const listed = invariant.values.filter((v) => v !== null);
      const nullAllowed = invariant.values.includes(null);
      const outside = listed.length === 0 ? `${c} IS NOT NULL` : `${c} NOT IN (${listed.map(sqlLiteral).join(', ')})`;
      return `SELECT COUNT(*) FROM ${t} WHERE ${nullAllowed ? `${c} IS NOT NULL AND ${outside}` : `${c} IS NULL OR ${outside}`}`;
    }
    case 'range': {
      const tests: string[] = [];
      if (invariant.min !== undefined) tests.push(`${c} < ${invariant.min}`);
      if (invariant.max !== undefined) tests.push(`${c} > ${invariant.max}`);
      if (invariant.integer) tests.push(`${c} <> CAST(${c} AS INTEGER)`);
      if (invariant.multipleOf !== undefined) tests.push(`ABS(${c} / ${invariant.multipleOf} - ROUND(${c} / ${invariant.multipleOf})) > 1e-9`);
      return `SELECT COUNT(*) FROM ${t} WHERE ${c} IS NOT NULL AND (typeof(${c}) NOT IN ('integer', 'real') OR ${tests.join(' OR ')})`;
    }
    case 'format': {
      const fn = invariant.format === 'date' ? 'date' : invariant.format === 'time' ? 'time' : 'datetime';
      return `SELECT COUNT(*) FROM ${t} WHERE ${c} IS NOT NULL AND (typeof(${c}) <> 'text' OR ${fn}(${c}) IS NOT ${c})`;
    }
    case 'derive':
      return usesRandom(invariant.sql) ? null : `SELECT COUNT(*) FROM ${t} WHERE ${c} IS NOT (${invariant.sql})`;
    case 'check':
      return `SELECT COUNT(*) FROM ${t} WHERE NOT (${invariant.sql})`;
    case 'children': {
      const table = schema === undefined ? undefined : findTable(schema, invariant.tableName);
      const fk = table?.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0] === invariant.columnName);
      if (fk === undefined) return null;
      const p = quoteIdentifier(fk.parentTable);
      const pc = quoteIdentifier(fk.parentColumns[0]!);
      const count = `(SELECT COUNT(*) FROM ${t} AS child WHERE child.${c} = parent.${pc})`;
      const tests = [`${count} < ${invariant.min}`, ...(invariant.max === undefined ? [] : [`${count} > ${invariant.max}`])];
      return `SELECT COUNT(*) FROM ${p} AS parent WHERE ${tests.join(' OR ')}`;
    }
    case 'lookup':
      return null;
  }
}

/** Invariants that narrow the values of one column (values, range, format), by `table.column` (lower-case). */
export function columnDomains(invariants: readonly BoundInvariant[]): Map<string, (ValuesInvariant | RangeInvariant | FormatInvariant)[]> {
  const out = new Map<string, (ValuesInvariant | RangeInvariant | FormatInvariant)[]>();
  for (const invariant of invariants) {
    if (invariant.kind !== 'values' && invariant.kind !== 'range' && invariant.kind !== 'format') continue;
    const key = columnKey(invariant.tableName, invariant.columnName!);
    out.set(key, [...(out.get(key) ?? []), invariant]);
  }
  return out;
}

/** The map key of a column: `table.column`, lower-case. */
export function columnKey(table: string, column: string): string {
  return `${table}.${column}`.toLowerCase();
}

/** True when the invariant list makes `table` a lookup table. */
export function isLookupTable(invariants: readonly BoundInvariant[], table: TableSchema): boolean {
  return invariants.some((i) => i.kind === 'lookup' && i.tableName === table.name);
}

/** A stable JSON form of the invariants (sources dropped) for cache keys. */
export function canonicalInvariants(invariants: readonly FixtureInvariant[]): string {
  return JSON.stringify(
    invariants.map((invariant) => {
      const { source: _source, note: _note, ...rest } = invariant as FixtureInvariant & { tableName?: string; columnName?: string };
      const { tableName: _t, columnName: _c, ...plain } = rest as Record<string, unknown>;
      return Object.fromEntries(Object.entries(plain).sort(([a], [b]) => a.localeCompare(b)));
    }),
  );
}
