/**
 * Result cells that JavaScript has no exact primitive for, shared by every engine. SQLite produces
 * none of them (its storage classes map to `null`, `number`, `bigint`, `string`, `Uint8Array`);
 * PostgreSQL produces them for `numeric`, dates and times, `json`/`jsonb` and arrays
 * (engine/postgres/pg-cells.ts). Each keeps the engine's own text, printed under the session
 * settings the engine pins, so nothing is rounded on the way: a `numeric(30,10)` keeps every digit,
 * a `timestamptz` keeps its microseconds.
 *
 * Every class has `toString()` (the text, for messages), `toJSON()` (a tagged object such as
 * `{ "$decimal": "12.50" }`, since no plain cell is an object) and `toSql()` (a literal of the
 * value, for tables of rows). Equality lives in compare/cell-key.ts.
 */

/** An exact decimal (`numeric`): the text as the engine prints it, e.g. `12.50`, `-0.0001`, `NaN`, `Infinity`. */
export class DecimalCell {
  readonly kind = 'decimal' as const;
  /** @param text - the engine's text: optional sign, digits, optional fraction; or `NaN`, `Infinity`, `-Infinity`. */
  constructor(readonly text: string) {}
  /** The nearest double. */
  toNumber(): number {
    return Number(this.text);
  }
  toString(): string {
    return this.text;
  }
  toJSON(): { readonly $decimal: string } {
    return { $decimal: this.text };
  }
  /** `12`, `12.50::numeric` (a fractional decimal says its type: it can print like a double it does not equal), `'NaN'::numeric`. */
  toSql(): string {
    if (!/^[-+]?\d/.test(this.text)) return `'${this.text}'::numeric`;
    return this.text.includes('.') ? `${this.text}::numeric` : this.text;
  }
}

/** The date and time types, by their PostgreSQL names. */
export type TemporalType = 'date' | 'time' | 'timetz' | 'timestamp' | 'timestamptz' | 'interval';

/**
 * A date, time, timestamp or interval, as the engine prints it under the pinned settings
 * (ISO dates, UTC, PostgreSQL-style intervals): `2024-03-01`, `2024-03-01 12:00:00.5`,
 * `2024-03-01 12:00:00+00`, `13:45:00`, `1 year 2 mons 3 days 04:05:06`.
 */
export class TemporalCell {
  readonly kind = 'temporal' as const;
  constructor(readonly type: TemporalType, readonly text: string) {}
  toString(): string {
    return this.text;
  }
  toJSON(): Readonly<Record<`$${TemporalType}`, string>> {
    return { [`$${this.type}`]: this.text } as Record<`$${TemporalType}`, string>;
  }
  toSql(): string {
    const name = { date: 'DATE', time: 'TIME', timetz: 'TIME WITH TIME ZONE', timestamp: 'TIMESTAMP', timestamptz: 'TIMESTAMPTZ', interval: 'INTERVAL' }[this.type];
    return `${name} '${this.text}'`;
  }
}

/** A JSON document (`json` keeps its text as written; `jsonb` as the engine normalized it). */
export class JsonCell {
  readonly kind = 'json' as const;
  /**
   * @param text - the document's text.
   * @param binary - true for `jsonb`.
   */
  constructor(readonly text: string, readonly binary: boolean) {}
  toString(): string {
    return this.text;
  }
  toJSON(): { readonly $json: string } | { readonly $jsonb: string } {
    return this.binary ? { $jsonb: this.text } : { $json: this.text };
  }
  toSql(): string {
    return `'${this.text.replaceAll("'", "''")}'::${this.binary ? 'jsonb' : 'json'}`;
  }
}

/** An array value; a multi-dimensional array holds arrays. */
export class ArrayCell {
  readonly kind = 'array' as const;
  constructor(readonly elements: readonly Cell[]) {}
  toString(): string {
    return `{${this.elements.map((element) => (element === null ? 'NULL' : String(element))).join(',')}}`;
  }
  toJSON(): { readonly $array: readonly Cell[] } {
    return { $array: this.elements };
  }
  toSql(): string {
    return `ARRAY[${this.elements.map(cellLiteral).join(', ')}]`;
  }
}

/** A typed cell (an object cell): {@link DecimalCell}, {@link TemporalCell}, {@link JsonCell}, {@link ArrayCell}. */
export type TypedCell = DecimalCell | TemporalCell | JsonCell | ArrayCell;

/**
 * One result cell. SQLite storage classes map to: NULL → `null`, INTEGER → `number` when it is a
 * safe integer (|n| ≤ 2^53 − 1) and `bigint` otherwise, REAL → `number`, TEXT → `string`,
 * BLOB → `Uint8Array`. PostgreSQL adds `boolean`, and the typed cells for `numeric`, dates and
 * times, `json`/`jsonb` and arrays (docs/engine.md, "Cells").
 */
export type Cell = null | number | bigint | string | boolean | Uint8Array | TypedCell;

/** The cells SQLite produces (its five storage classes). */
export type SqliteCell = null | number | bigint | string | Uint8Array;

/** True for the object cells of this module. */
export function isTypedCell(cell: unknown): cell is TypedCell {
  return cell instanceof DecimalCell || cell instanceof TemporalCell || cell instanceof JsonCell || cell instanceof ArrayCell;
}

/**
 * A cell as a SQL literal: `NULL`, `'it''s'`, `42`, `TRUE`, `x'0a1b'`, `12.50`, `DATE '2024-03-01'`,
 * `ARRAY[1, 2]`.
 */
export function cellLiteral(cell: Cell): string {
  if (cell === null) return 'NULL';
  if (typeof cell === 'string') return `'${cell.replaceAll("'", "''")}'`;
  if (typeof cell === 'number' || typeof cell === 'bigint') return String(cell);
  if (typeof cell === 'boolean') return cell ? 'TRUE' : 'FALSE';
  if (cell instanceof Uint8Array) return `x'${Buffer.from(cell).toString('hex')}'`;
  return cell.toSql();
}
