/**
 * The output protocol of a text-to-SQL provider:
 * - SQL text, possibly fenced, possibly with prose around it;
 * - JSON `{ "sql": string, "answer"?: string, "tables"?: string[], "probes"?: string[] }`
 *   (as a string or an object);
 * - a refusal or question `{ "action": "refuse" | "clarify", "message": string }`;
 * - plain text with no SQL, which counts as declining (`action: 'none'`).
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
  return { kind: 'declined', action: 'none', message: clip(text.trim()) };
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

function tryParseJsonObject(text: string): unknown {
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
  if (!extraction.found) return { kind: 'declined', action: 'none', message: sqlField };
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
