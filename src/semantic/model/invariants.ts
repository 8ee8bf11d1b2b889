/**
 * A fixture's declared invariants (shapes and the manifest syntax: src/fixtures/fixture-invariant.ts):
 * read from the manifest's `invariants:` list with `file:line` errors, validated, bound to a
 * schema (names in the schema's spelling) and keyed for caches. Their SQL (violation queries,
 * quoting) is invariant-sql.ts.
 */
import path from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node as YamlNode, YAMLMap } from 'yaml';
import { LadderError } from '../../errors.js';
import { invalidValue, isPlainRecord, optionReader } from '../../options.js';
import {
  INVARIANT_KINDS,
  type FixtureInvariant,
  type FormatInvariant,
  type InvariantSource,
  type RangeInvariant,
  type ValuesInvariant,
} from '../../fixtures/fixture-invariant.js';
import { findColumn, findTable, type DatabaseSchema, type TableSchema } from './schema-reader.js';
import { readUserText } from '../../files/user-file.js';

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
  const text = readUserText(file, { what: 'fixture manifest' });
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
    return fail(node.get('kind', true) as YamlNode ?? node, invalidValue('kind', `one of ${INVARIANT_KINDS.join(', ')}`, kind).message);
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
 * Messages are src/options.ts's: the field named (with `naming.prefix`), what was expected and
 * what was received.
 * @param naming.prefix - put before every field name, e.g. `options.semantic.invariants[0].`.
 * @throws LadderError('invalid_option') naming the field, the expected and the received value.
 */
export function validateInvariantShape(raw: unknown, naming: { readonly prefix?: string } = {}): FixtureInvariant {
  const prefix = naming.prefix ?? '';
  if (!isPlainRecord(raw)) throw invalidValue(prefix === '' ? 'an invariant' : prefix.replace(/\.$/, ''), 'an object with a kind', raw);
  const read = optionReader(raw, { prefix, nullIsAbsent: false });
  const text = (key: string): string => {
    const value = read.string(key);
    if (value === undefined) throw read.invalid(key, 'a non-empty string', undefined);
    return value;
  };
  const columnRef = (): string => {
    const value = text('column');
    if (!/^[^.\s]+\.[^.\s]+$/.test(value)) throw read.invalid('column', '"table.column"', value);
    return value;
  };
  const optionalNumber = (key: string, name = key): number | undefined => {
    const value = read.raw(key);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw read.invalid(name, 'a finite number', value);
    return value;
  };
  const kind = read.oneOf('kind', INVARIANT_KINDS);
  switch (kind) {
    case 'values': {
      const values = read.raw('values');
      if (!Array.isArray(values) || values.length === 0 || values.some((v) => v !== null && typeof v !== 'string' && typeof v !== 'number')) {
        throw read.invalid('values', 'a non-empty list of strings, numbers or null', values);
      }
      return { kind, column: columnRef(), values: values as (string | number | null)[] };
    }
    case 'range': {
      const min = optionalNumber('min');
      const max = optionalNumber('max');
      const multipleOf = optionalNumber('multipleOf', 'multiple_of');
      const integer = read.boolean('integer');
      if (min === undefined && max === undefined && multipleOf === undefined && integer !== true) {
        throw new LadderError('invalid_option', `${prefix === '' ? 'a range' : prefix.replace(/\.$/, '')} must give at least one of min, max, integer, multiple_of`);
      }
      if (min !== undefined && max !== undefined && min > max) throw read.invalid('min', `at most max (${max})`, min);
      if (multipleOf !== undefined && !(multipleOf > 0)) throw read.invalid('multiple_of', 'a number > 0', multipleOf);
      return {
        kind,
        column: columnRef(),
        ...(min === undefined ? {} : { min }),
        ...(max === undefined ? {} : { max }),
        ...(integer === undefined ? {} : { integer }),
        ...(multipleOf === undefined ? {} : { multipleOf }),
      };
    }
    case 'format': {
      const format = read.oneOf('format', ['date', 'timestamp', 'time'] as const);
      if (format === undefined) throw read.invalid('format', 'one of "date", "timestamp", "time"', undefined);
      return { kind, column: columnRef(), format };
    }
    case 'derive':
      return { kind, column: columnRef(), sql: text('sql') };
    case 'children': {
      const min = optionalNumber('min');
      const max = optionalNumber('max');
      if (min === undefined || !Number.isInteger(min) || min < 0) throw read.invalid('min', 'an integer ≥ 0', read.raw('min'));
      if (max !== undefined && (!Number.isInteger(max) || max < min || max < 1)) throw read.invalid('max', `an integer ≥ ${Math.max(min, 1)} (min, and at least 1)`, max);
      return { kind, column: columnRef(), min, ...(max === undefined ? {} : { max }) };
    }
    case 'check':
      return { kind, table: text('table'), sql: text('sql') };
    case 'lookup':
      return { kind, table: text('table') };
    default:
      throw read.invalid('kind', `one of ${INVARIANT_KINDS.join(', ')}`, raw['kind']);
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
