/** Results written by `replay-sqlite.py` (stock Python `sqlite3`) as engine results. */
import type { Cell, QueryResult } from '../src/engine/engine.js';

/** One query's result as the replay script writes it: cells tagged with their storage class. */
export interface PythonResult {
  readonly columns: string[];
  readonly rows: (null | Record<string, string>)[][];
}

/** A replayed result as a {@link QueryResult} (integers beyond 2^53 as bigint, blobs as bytes). */
export function fromPythonResult(result: PythonResult): QueryResult {
  const cell = (value: null | Record<string, string>): Cell => {
    if (value === null) return null;
    if ('int' in value) {
      const n = BigInt(value['int']!);
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    if ('real' in value) return Number(value['real']);
    if ('blob' in value) return Uint8Array.from(Buffer.from(value['blob']!, 'hex'));
    return value['text']!;
  };
  return { columns: result.columns, rows: result.rows.map((row) => row.map(cell)), doubleQuoteFallback: false, executedSql: '', elapsedMs: 0 };
}
