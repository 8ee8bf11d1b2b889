/**
 * PostgreSQL values (text format, under the session settings the engine pins: `DateStyle` ISO,
 * `TimeZone` UTC, `IntervalStyle` postgres, `extra_float_digits` 3, `bytea_output` hex) into
 * {@link Cell}s, exactly:
 *
 * | type | cell |
 * |---|---|
 * | `int2`, `int4`, `oid` | `number` |
 * | `int8` | `number` when |n| ≤ 2^53 − 1, else `bigint` |
 * | `float4`, `float8` | `number` (shortest text that reads back the same double; `NaN`, `±Infinity`) |
 * | `numeric` | {@link DecimalCell} (every digit and the scale kept) |
 * | `bool` | `boolean` |
 * | `bytea` | `Uint8Array` |
 * | `date`, `time`, `timetz`, `timestamp`, `timestamptz`, `interval` | {@link TemporalCell} |
 * | `json`, `jsonb` | {@link JsonCell} |
 * | arrays of any type | {@link ArrayCell} of the element type's cells |
 * | everything else (`text`, `varchar`, `uuid`, enums, `money`, `inet`, ranges, composites, …) | `string` (the type's text) |
 *
 * Types are known by OID: built-in ones from a table; others (arrays of enums or domains, types of
 * an extension) by their `pg_type` row, looked up once per engine (`typelem`, `typdelim`).
 */
import { ArrayCell, DecimalCell, JsonCell, TemporalCell, type Cell, type TemporalType } from '../cells.js';

/** How one type's text becomes a cell. */
export type CellDecoder = (text: string) => Cell;

const integer: CellDecoder = (text) => Number(text);
const int8: CellDecoder = (text) => {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
};
const float: CellDecoder = (text) => (text === 'Infinity' ? Infinity : text === '-Infinity' ? -Infinity : Number(text));
const temporal =
  (type: TemporalType): CellDecoder =>
  (text) =>
    new TemporalCell(type, text);
const bytea: CellDecoder = (text) => (text.startsWith('\\x') ? new Uint8Array(Buffer.from(text.slice(2), 'hex')) : new Uint8Array(Buffer.from(text, 'latin1')));

/** Decoders of the built-in scalar types, by OID (src/include/catalog/pg_type.dat). */
const SCALARS: ReadonlyMap<number, CellDecoder> = new Map<number, CellDecoder>([
  [16, (text) => text === 't'],
  [17, bytea],
  [20, int8],
  [21, integer],
  [23, integer],
  [26, integer],
  [700, float],
  [701, float],
  [1700, (text) => new DecimalCell(text)],
  [1082, temporal('date')],
  [1083, temporal('time')],
  [1266, temporal('timetz')],
  [1114, temporal('timestamp')],
  [1184, temporal('timestamptz')],
  [1186, temporal('interval')],
  [114, (text) => new JsonCell(text, false)],
  [3802, (text) => new JsonCell(text, true)],
]);

/** Built-in array types: array OID → element OID (pg_type.dat `typarray`). */
const ARRAYS: ReadonlyMap<number, number> = new Map([
  [1000, 16], [1001, 17], [1002, 18], [1003, 19], [1016, 20], [1005, 21], [1007, 23], [1009, 25], [1028, 26],
  [1021, 700], [1022, 701], [1014, 1042], [1015, 1043], [1231, 1700], [1182, 1082], [1183, 1083], [1270, 1266],
  [1115, 1114], [1185, 1184], [1187, 1186], [199, 114], [3807, 3802], [2951, 2950], [1040, 829], [1041, 869], [651, 650],
]);

/** What the engine knows of a type that is not built in (a `pg_type` row). */
export interface TypeInfo {
  /** Element type of an array type, else 0. */
  readonly element: number;
  /** Delimiter of the type's elements in array text (`,`; `;` for `box`). */
  readonly delimiter: string;
}

/** True when the decoder for `oid` needs a `pg_type` look-up first (user-defined types have OIDs from 16384). */
export function needsTypeInfo(oid: number, known: ReadonlyMap<number, TypeInfo>): boolean {
  return !SCALARS.has(oid) && !ARRAYS.has(oid) && !known.has(oid) && oid >= 10_000;
}

/**
 * The decoder for a column of type `oid`.
 * @param known - `pg_type` facts of types that are not built in.
 */
export function decoderFor(oid: number, known: ReadonlyMap<number, TypeInfo> = new Map()): CellDecoder {
  const scalar = SCALARS.get(oid);
  if (scalar !== undefined) return scalar;
  const element = ARRAYS.get(oid) ?? (known.get(oid)?.element || undefined);
  if (element !== undefined) {
    const decodeElement = decoderFor(element, known);
    const delimiter = known.get(element)?.delimiter ?? ',';
    return (text) => parseArray(text, decodeElement, delimiter);
  }
  return (text) => text;
}

/**
 * Reads PostgreSQL's array text (`{1,2,NULL}`, `{{a,b},{c,d}}`, `{"x y","q\"r"}`, with an optional
 * `[1:2]=` bounds prefix) into nested {@link ArrayCell}s; elements through `decodeElement`.
 * @throws Error for text that is not array text.
 */
export function parseArray(text: string, decodeElement: CellDecoder, delimiter = ','): ArrayCell {
  let at = text.startsWith('[') ? text.indexOf('=') + 1 : 0;
  const readLevel = (): ArrayCell => {
    if (text[at] !== '{') throw new Error(`malformed array text: ${text}`);
    at += 1;
    const elements: Cell[] = [];
    if (text[at] === '}') {
      at += 1;
      return new ArrayCell(elements);
    }
    for (;;) {
      if (text[at] === '{') {
        elements.push(readLevel());
      } else if (text[at] === '"') {
        at += 1;
        let value = '';
        while (at < text.length && text[at] !== '"') {
          if (text[at] === '\\') at += 1;
          value += text[at] ?? '';
          at += 1;
        }
        at += 1;
        elements.push(decodeElement(value));
      } else {
        let end = at;
        while (end < text.length && text[end] !== delimiter && text[end] !== '}') end += 1;
        const raw = text.slice(at, end).trim();
        at = end;
        elements.push(raw === 'NULL' ? null : decodeElement(raw));
      }
      if (text[at] === delimiter) {
        at += 1;
        continue;
      }
      if (text[at] === '}') {
        at += 1;
        return new ArrayCell(elements);
      }
      throw new Error(`malformed array text: ${text}`);
    }
  };
  return readLevel();
}
