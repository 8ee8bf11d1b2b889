/**
 * Offsets in a text to 1-based lines and columns, for every message that points into SQL or a
 * script. Free of the parser, so a fixture build or an engine can use it without loading one.
 */

/**
 * Converts a 0-based character offset in `sql` to a 1-based line and column: the line is one more
 * than the newlines before `offset`, the column counts from the last of them. For many offsets in
 * the same text use {@link lineLocator}, which indexes the text once; this call indexes it each
 * time. Never throws.
 * @param sql - the text the offset points into.
 * @param offset - 0-based UTF-16 offset (as in sql-parser-cst's `range`).
 */
export function positionAt(sql: string, offset: number): { line: number; column: number } {
  return lineLocator(sql)(offset);
}

/**
 * A converter of many offsets in one text to 1-based lines and columns, as {@link positionAt}
 * defines them. The text's line starts are indexed once and each offset is found by binary search,
 * so converting every reference of a long query costs O(n + k log n), not O(n·k), for n characters
 * and k offsets. Never throws.
 * @param sql - the text the offsets point into.
 * @returns `(offset) => { line, column }` for 0-based UTF-16 offsets.
 */
export function lineLocator(sql: string): (offset: number) => { line: number; column: number } {
  // lineStarts[k] is where line k + 2 starts: one past the k-th newline.
  const lineStarts: number[] = [];
  for (let i = sql.indexOf('\n'); i >= 0; i = sql.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  return (offset) => {
    // The number of line starts at or before `offset`: the newlines before it.
    let low = 0;
    let high = lineStarts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (lineStarts[middle]! <= offset) low = middle + 1;
      else high = middle;
    }
    return { line: low + 1, column: offset - (low === 0 ? 0 : lineStarts[low - 1]!) + 1 };
  };
}
