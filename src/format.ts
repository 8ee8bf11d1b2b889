/**
 * Text formatting shared by every layer and front end: one-line reasons, cut text, error messages,
 * and result cells and rows written as SQL literals. Reasons, CLI output, matcher messages and
 * audit reports all format through here, so a cell or a cut looks the same everywhere.
 */

/**
 * Characters no message carries as they are, since a terminal acts on them: the C0 controls
 * (ESC starts the sequences that retitle a window or clear the screen), DEL, the C1 controls
 * (U+009B is a one-character CSI), and the Unicode controls that reorder or break what a
 * terminal shows (bidirectional embeddings, overrides and isolates, the Arabic letter mark, the
 * line and paragraph separators).
 */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const CONTROL_CHARACTERS_GLOBAL = new RegExp(CONTROL_CHARACTERS.source, 'g');
const CONTROLS_BUT_NEWLINE_GLOBAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * The one escaping rule for text that quotes user or model input (SQL, an error of SQLite or of
 * a server, a value, a file's content): each character of {@link CONTROL_CHARACTERS} becomes its
 * JSON escape, `\u001b` (six characters), so a message shows what was there and a terminal acts on
 * none of it. The form is JSON's own, so a JSON string that holds escaped text decodes back to
 * the same characters. Text without such characters is returned as it is, without a copy.
 * @param options.keepNewlines - keep `\n` (a message with hint lines below it); default false.
 * @example escapeControls('near "\u001b]0;x\u0007": syntax error') // 'near "\\u001b]0;x\\u0007": syntax error'
 */
export function escapeControls(text: string, options: { readonly keepNewlines?: boolean } = {}): string {
  if (!CONTROL_CHARACTERS.test(text)) return text;
  const pattern = options.keepNewlines === true ? CONTROLS_BUT_NEWLINE_GLOBAL : CONTROL_CHARACTERS_GLOBAL;
  return text.replace(pattern, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * One line: every whitespace run (newlines included) becomes one space, ends trimmed, and any
 * other control character is escaped ({@link escapeControls}). Text that is one clean line already
 * is returned as it is without a copy (reasons are, and reports read thousands).
 * @example oneLine('SELECT a\n  FROM t ') // 'SELECT a FROM t'
 */
export function oneLine(text: string): string {
  const folded = /[\t\n\r\f\v]| {2}|^\s|\s$/.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
  return escapeControls(folded);
}

/**
 * At most `maxChars` characters: longer text keeps its first `maxChars − 1` and ends in `…`.
 * @example truncate('abcdef', 4) // 'abc…'
 */
export function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

/**
 * An error (or anything thrown) as one line: its message, with `Name: ` first when `withName`.
 * @example errorText(new TypeError('bad\nvalue'), { withName: true }) // 'TypeError: bad value'
 */
export function errorText(error: unknown, options: { readonly withName?: boolean } = {}): string {
  if (!(error instanceof Error)) return oneLine(String(error));
  return oneLine(options.withName ? `${error.name}: ${error.message}` : error.message);
}

/**
 * One result cell as a SQL literal: `NULL`, `'it''s'`, `42`, `1.5`, `9007199254740993` (bigint,
 * exact digits), `x'0a1b'` (blob), `TRUE`; a typed cell (engine/cells.ts) by its own `toSql()`
 * (`12.50`, `DATE '2024-03-01'`). Anything else is JSON.
 */
export function formatCell(cell: unknown): string {
  if (cell === null || cell === undefined) return 'NULL';
  if (typeof cell === 'string') return `'${cell.replaceAll("'", "''")}'`;
  if (typeof cell === 'number' || typeof cell === 'bigint') return String(cell);
  if (typeof cell === 'boolean') return cell ? 'TRUE' : 'FALSE';
  if (cell instanceof Uint8Array) return `x'${Buffer.from(cell).toString('hex')}'`;
  if (typeof (cell as { toSql?: unknown }).toSql === 'function') return (cell as { toSql(): string }).toSql();
  return JSON.stringify(cell) ?? String(cell);
}

/** A row as `(a, b)`, each cell by {@link formatCell}. */
export function formatRow(row: readonly unknown[]): string {
  return `(${row.map(formatCell).join(', ')})`;
}

/**
 * One cell as plain text, for prose such as a judge's prompt: text as it is (no quotes), `NULL`,
 * `x'0a1b'` for blobs, numbers and bigints by their digits.
 */
export function plainCell(cell: unknown): string {
  if (cell === null || cell === undefined) return 'NULL';
  if (cell instanceof Uint8Array) return `x'${Buffer.from(cell).toString('hex')}'`;
  return String(cell);
}

/**
 * A pipe table (`| a | b |`, a `|---|` rule, one line per row), cells by {@link formatCell}, each
 * cut to `maxCellChars` (default 60) with `…`, every line indented by `indent` spaces.
 */
export function formatPipeTable(columns: readonly string[], rows: readonly (readonly unknown[])[], options: { readonly indent?: number; readonly maxCellChars?: number } = {}): string {
  const maxCellChars = options.maxCellChars ?? 60;
  const body = rows.map((row) => row.map((cell) => truncate(formatCell(cell), maxCellChars)));
  const widths = columns.map((name, index) => Math.max(name.length, ...body.map((row) => (row[index] ?? '').length)));
  const pad = ' '.repeat(options.indent ?? 2);
  const line = (cells: readonly string[]): string => `${pad}| ${cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join(' | ')} |`;
  const rule = `${pad}|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [line(columns), rule, ...body.map((row) => line(row))].join('\n');
}

/**
 * At most `maxChars` characters of `text`, followed by `… (+N characters)` when cut, so that the
 * reader knows how much is missing.
 * @example truncateCounted('abcdef', 4) // 'abcd… (+2 characters)'
 */
export function truncateCounted(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… (+${text.length - maxChars} characters)`;
}

/** `word` for one, else its plural (`many`, by default `word` + `s`): `plural(2, 'row')` → `rows`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return n === 1 ? word : many;
}

/** The count and the word that goes with it: `counted(1, 'row')` → `1 row`, `counted(3, 'row')` → `3 rows`. */
export function counted(n: number, word: string, many = `${word}s`): string {
  return `${n} ${plural(n, word, many)}`;
}
