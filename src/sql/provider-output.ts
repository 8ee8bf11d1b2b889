/**
 * The output protocol of a text-to-SQL provider:
 * - SQL text, possibly fenced, possibly with prose around it;
 * - JSON `{ "sql": string, "answer"?: string, "tables"?: string[], "probes"?: string[] }`
 *   (as a string or an object);
 * - a refusal or question `{ "action": "refuse" | "clarify", "message": string }`;
 * - plain text with no SQL, which counts as declining (`action: 'none'`).
 *
 * A decline must not hide SQL: static safety is a property of the text, so three kinds of output
 * that hold a statement are read as SQL (for the gates L1–L3) even though no rule of
 * `extractSql` finds it:
 * - truncated or broken JSON whose `"sql"` string starts (`{"sql": "DELETE FROM t WHERE`): the
 *   string as far as it goes (`source: 'json'`, `truncated: true`);
 * - a statement inside prose (`Sure, here you go: DELETE FROM subscriptions WHERE …`): a statement
 *   head (`DELETE FROM`, `UPDATE x SET`, `INSERT INTO`, `DROP TABLE`, `SELECT … FROM`, …) written in
 *   capitals or right after a colon, and the text from there;
 * - a query whose first keyword has a typo (`SELEC name FROM customers`): a capitalised first word
 *   one edit away from SELECT / INSERT / UPDATE / DELETE, followed by FROM / INTO / SET — L1 then
 *   fails it as the syntax error it is.
 */
import { MAX_OUTPUT_CHARS, extractSql } from './extract.js';
import { truncateCounted } from '../format.js';

/** A provider answered with SQL. */
export interface SqlAnswer {
  readonly kind: 'sql';
  /** The extracted SQL (see extractSql). */
  readonly sql: string;
  /** Prose answer for the user, when given (read by the L7 answer rung). */
  readonly answer?: string;
  /** Schema elements the provider says it retrieved, best first (read by schema linking). */
  readonly tables?: readonly string[];
  /** Intermediate probe queries an agent ran, when given. */
  readonly probes?: readonly string[];
  /** Where the SQL came from. */
  readonly source: 'json' | 'fence' | 'text';
  /** True when the JSON was cut off inside its `"sql"` string (only that string's start was read). */
  readonly truncated?: true;
}

/** A provider declined: asked a question, refused, or wrote no SQL. */
export interface DeclinedAnswer {
  readonly kind: 'declined';
  /** `clarify` / `refuse` when stated; `none` when the output simply holds no SQL. */
  readonly action: 'clarify' | 'refuse' | 'none';
  readonly message: string;
}

/** The protocol reading of one provider output. */
export type ProviderAnswer = SqlAnswer | DeclinedAnswer;

/**
 * Reads one provider output under the protocol above.
 *
 * @param output - a string (promptfoo's usual output) or an already-parsed object.
 * @returns the SQL with its extras, or a declined answer (its message cut to
 *   {@link MAX_DECLINE_MESSAGE_CHARS} characters). Never throws: malformed JSON is read as text,
 *   so that a model's broken JSON is graded as what it is; an object JSON cannot render (a cycle,
 *   a bigint) is read as its `String(…)`.
 * @example
 * parseProviderOutput('{"sql":"SELECT 1","answer":"One."}') // { kind: 'sql', sql: 'SELECT 1', answer: 'One.', source: 'json' }
 * parseProviderOutput({ action: 'clarify', message: 'Which year?' }) // { kind: 'declined', action: 'clarify', message: 'Which year?' }
 */
export function parseProviderOutput(output: unknown): ProviderAnswer {
  const object = typeof output === 'string' ? tryParseJsonObject(output) : output;
  if (object !== null && typeof object === 'object' && !Array.isArray(object)) {
    const fromObject = readProtocolObject(object as Record<string, unknown>);
    if (fromObject) return fromObject;
  }
  const text = typeof output === 'string' ? output : outputText(output);
  const extraction = extractSql(text);
  if (extraction.found) return { kind: 'sql', sql: extraction.sql, source: extraction.source };
  const hidden = text.length > MAX_OUTPUT_CHARS ? undefined : findHiddenSql(text);
  if (hidden !== undefined) return hidden;
  return { kind: 'declined', action: 'none', message: clip(text.trim()) };
}

/** A cut-off JSON object's `"sql"` string, as far as it goes. */
const TRUNCATED_JSON_SQL = /^\s*(?:```(?:json)?\s*)?\{[^"]*?"sql"\s*:\s*"((?:[^"\\]|\\.)*)/;

/** A statement head inside prose (see the module doc); group 1 is the colon that may precede it. */
const STATEMENT_HEAD =
  /(:\s*)?\b(?:DELETE\s+FROM|UPDATE\s+[\w."`\[\]]+\s+SET|INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|(?:DROP|ALTER|TRUNCATE)\s+TABLE|DROP\s+(?:VIEW|INDEX|TRIGGER)|CREATE\s+(?:TEMP\s+|TEMPORARY\s+)?(?:TABLE|VIEW|INDEX|TRIGGER)|ATTACH\s+DATABASE|PRAGMA\s+\w+|SELECT\s+[^.!?\n]{1,200}?\s+FROM\s+\w)/gi;

/** Keywords a typo of which still reads as a query's head. */
const TYPO_TARGETS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];

/** SQL hidden in an output that no extraction rule matched (see the module doc), or `undefined`. */
function findHiddenSql(text: string): SqlAnswer | undefined {
  const truncated = TRUNCATED_JSON_SQL.exec(text);
  if (truncated !== null && tryParseJsonObject(text) === null) {
    const sql = unescapeJsonPrefix(truncated[1]!).trim();
    if (sql !== '') return { kind: 'sql', sql, source: 'json', truncated: true };
  }
  for (const match of text.matchAll(STATEMENT_HEAD)) {
    const head = match[0].slice(match[1]?.length ?? 0);
    const capitals = head.split(/\s+/)[0] === head.split(/\s+/)[0]!.toUpperCase();
    if (match[1] === undefined && !capitals) continue;
    const start = match.index + (match[1]?.length ?? 0);
    const extraction = extractSql(text.slice(start));
    if (extraction.found) return { kind: 'sql', sql: extraction.sql, source: 'text' };
  }
  const typo = /^\s*([A-Z]{4,7})\s+[\s\S]*?\b(?:FROM|INTO|SET)\b/i.exec(text);
  if (typo !== null && typo[1] === typo[1]!.toUpperCase() && TYPO_TARGETS.some((keyword) => oneEditApart(typo[1]!, keyword))) {
    return { kind: 'sql', sql: text.trim().replace(/;\s*$/, ''), source: 'text' };
  }
  return undefined;
}

/** The decoded prefix of a JSON string body (escapes undone; a cut-off escape dropped). */
function unescapeJsonPrefix(body: string): string {
  const complete = body.replace(/\\(?:u[0-9a-fA-F]{0,3})?$/, '');
  try {
    return JSON.parse(`"${complete}"`) as string;
  } catch {
    return complete;
  }
}

/** True when `a` becomes `b` by one insertion, deletion, substitution or swap of neighbours (and a ≠ b). */
function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  if (a.length === b.length) {
    const diffs = [...a].flatMap((char, i) => (char === b[i] ? [] : [i]));
    if (diffs.length === 1) return true;
    return diffs.length === 2 && diffs[1] === diffs[0]! + 1 && a[diffs[0]!] === b[diffs[1]!] && a[diffs[1]!] === b[diffs[0]!];
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  for (let i = 0; i < long.length; i += 1) if (long.slice(0, i) + long.slice(i + 1) === short) return true;
  return false;
}

/** Longest decline message kept, in characters (it ends up in every reason that quotes it). */
export const MAX_DECLINE_MESSAGE_CHARS = 2_000;

/**
 * The text of a non-string output: JSON for plain data, `''` for null / undefined
 * (JSON.stringify('') would make the message '""'), and `String(…)` when JSON cannot render it
 * (a cycle, a bigint, nesting deeper than the stack).
 */
function outputText(output: unknown): string {
  if (output === null || output === undefined) return '';
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return String(output);
  }
}

/**
 * A model output read as one JSON object: the whole text, or the text of one ```json fence.
 * @returns the parsed value, or `null` when the text is not a JSON object (or is past the
 *   extraction limit, `MAX_OUTPUT_CHARS`: such a text is not read as JSON either).
 */
export function tryParseJsonObject(text: string): unknown {
  // Past the extraction limit the text is not read as JSON either (see extract.ts).
  if (text.length > MAX_OUTPUT_CHARS) return null;
  const trimmed = text.trim();
  const unfenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/i.exec(trimmed)?.[1] ?? trimmed;
  if (!unfenced.startsWith('{')) return null;
  try {
    return JSON.parse(unfenced) as unknown;
  } catch {
    return null;
  }
}

function readProtocolObject(object: Record<string, unknown>): ProviderAnswer | undefined {
  const action = object['action'];
  if (action === 'clarify' || action === 'refuse') {
    const message = object['message'];
    return { kind: 'declined', action, message: typeof message === 'string' ? message : '' };
  }
  const sqlField = object['sql'];
  if (typeof sqlField !== 'string') return undefined;
  const extraction = extractSql(sqlField);
  if (!extraction.found) {
    const hidden = findHiddenSql(sqlField);
    return hidden !== undefined ? { ...hidden, source: 'json' } : { kind: 'declined', action: 'none', message: sqlField };
  }
  const answer = typeof object['answer'] === 'string' ? object['answer'] : undefined;
  const tables = stringArray(object['tables']);
  const probes = stringArray(object['probes']);
  return {
    kind: 'sql',
    sql: extraction.sql,
    source: 'json',
    ...(answer !== undefined ? { answer } : {}),
    ...(tables !== undefined ? { tables } : {}),
    ...(probes !== undefined ? { probes } : {}),
  };
}

function stringArray(value: unknown): readonly string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((entry): entry is string => typeof entry === 'string');
}

function clip(message: string): string {
  return truncateCounted(message, MAX_DECLINE_MESSAGE_CHARS);
}
