/**
 * The type rule of generated databases: which SQLite storage classes a column may hold. SQLite
 * stores any value in an ordinary table's column (only STRICT tables refuse), so a generator that
 * writes `'United Airlines'` into an INTEGER column makes a database no application could hold;
 * the rule here keeps a column to the storage classes its snapshots hold, its declared type gives
 * and its value kind produces. The contract of generated databases (database-contract.ts) checks
 * it on every database; the value pools use it to leave such values out before they are drawn.
 */
import type { GenValue, StorageClass } from './gen-value.js';
import type { Affinity } from './schema-reader.js';
import type { ValueKind } from './value-kind.js';

const BY_AFFINITY: Readonly<Record<Affinity, readonly StorageClass[]>> = {
  INTEGER: ['integer'],
  REAL: ['real'],
  NUMERIC: ['integer', 'real'],
  TEXT: ['text'],
  BLOB: [],
};

const BY_KIND: Readonly<Record<ValueKind, readonly StorageClass[]>> = {
  integer: ['integer'],
  // A REAL value with an integral value is stored as INTEGER under NUMERIC affinity.
  real: ['real', 'integer'],
  text: ['text'],
  date: ['text'],
  timestamp: ['text'],
  time: ['text'],
  blob: ['blob'],
};

/**
 * The storage classes a column may hold: those its snapshots hold, those its declared type's
 * affinity gives (https://sqlite.org/datatype3.html §3: INTEGER → integer, REAL → real, NUMERIC →
 * integer or real, TEXT → text, none → nothing beyond the others), and those its value kind
 * produces (dates and times are text).
 * @param affinity - the column's affinity (`affinityOf(declaredType)`).
 * @param kind - the column's value kind (`kindOf`).
 * @param observed - storage classes the snapshots hold in the column (NULL left out).
 * @example allowedStorageClasses('INTEGER', 'integer', ['integer']) // Set { 'integer' }
 */
export function allowedStorageClasses(affinity: Affinity, kind: ValueKind, observed: readonly StorageClass[]): ReadonlySet<StorageClass> {
  return new Set([...observed, ...BY_AFFINITY[affinity], ...BY_KIND[kind]]);
}

const NUMERIC_TEXT = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * The storage class a value gets when it is written into a column of this affinity (SQLite's
 * conversions, https://sqlite.org/datatype3.html §3: TEXT affinity turns numbers into text;
 * NUMERIC and INTEGER turn numeric text into numbers and integral reals into integers; REAL turns
 * integers into reals). `null` for NULL.
 * @example storedClassOf('12', 'INTEGER') // 'integer'
 * @example storedClassOf(5n, 'TEXT') // 'text'
 * @example storedClassOf('United Airlines', 'INTEGER') // 'text'
 */
export function storedClassOf(value: GenValue, affinity: Affinity): StorageClass | null {
  if (value === null) return null;
  if (value instanceof Uint8Array) return 'blob';
  if (typeof value === 'string') {
    if (affinity === 'TEXT' || affinity === 'BLOB' || !NUMERIC_TEXT.test(value)) return 'text';
    return numericClass(Number(value), affinity);
  }
  if (affinity === 'TEXT') return 'text';
  if (typeof value === 'bigint') return affinity === 'REAL' ? 'real' : 'integer';
  return affinity === 'BLOB' ? 'real' : numericClass(value, affinity);
}

function numericClass(n: number, affinity: Affinity): StorageClass {
  if (affinity === 'REAL') return 'real';
  return Number.isInteger(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER ? 'integer' : 'real';
}
