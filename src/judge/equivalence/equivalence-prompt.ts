/**
 * The equivalence judge's prompt and the reading of its reply.
 *
 * The prompt follows the judge design of *Text-to-SQL Evals* §6: the question, the schema the
 * item's role sees, the gold and the candidate, and the evidence the ladder holds (result previews
 * on each snapshot, and when L5 ran, the database that tells the two apart with both results on
 * it); it asks what to consider (bounds, join types and NULLs, DISTINCT, grain, GROUP BY keys,
 * ORDER BY / LIMIT ties, dates) and what to ignore (aliases, formatting, column order, CTE or
 * subquery), and for the differences first, then `{"differences": [...], "equivalent": true|false}`.
 *
 * The template is versioned ({@link EQUIVALENCE_PROMPT_VERSION}) and hashed
 * ({@link EQUIVALENCE_PROMPT_HASH}, sha256 of the template text): a calibration record holds the
 * hash, so a changed prompt is a new, uncalibrated judge.
 */
import { createHash } from 'node:crypto';
import type { Row } from '../../engine/engine.js';
import { plainCell } from '../../format.js';

/** The prompt's version name. Change it (and the hash changes) whenever the template changes. */
export const EQUIVALENCE_PROMPT_VERSION = 'equivalence-v1';

/** The template; `{{name}}` slots are filled by {@link buildEquivalencePrompt}. */
export const EQUIVALENCE_PROMPT_TEMPLATE = [
  'You review SQL for an analytics team. Decide whether the CANDIDATE query returns the same answer as the REFERENCE query',
  'on every database this schema allows (any rows the constraints permit, not only the data shown), for the question asked.',
  '',
  'Check in particular: comparison bounds (< versus <=, BETWEEN ends), join type and what happens to rows without a match,',
  'NULL handling (NOT IN with NULLs, COUNT(column) versus COUNT(*)), DISTINCT and duplicate rows, the grain of aggregates and',
  'the GROUP BY keys, ORDER BY with LIMIT when values tie, and date or time-zone logic.',
  'Do not count as differences: aliases, formatting, the order of output columns, or a CTE written as a subquery.',
  '',
  'Question: {{question}}',
  '',
  'Schema:',
  '{{schema}}',
  '',
  'REFERENCE:',
  '{{gold}}',
  '',
  'CANDIDATE:',
  '{{candidate}}',
  '',
  'Evidence from running both:',
  '{{evidence}}',
  '',
  'First write each semantic difference you find, one per line. Then end with one JSON object on its own:',
  '{"differences": ["…"], "equivalent": true or false}',
].join('\n');

/** sha256 (hex) of {@link EQUIVALENCE_PROMPT_TEMPLATE}. */
export const EQUIVALENCE_PROMPT_HASH = createHash('sha256').update(EQUIVALENCE_PROMPT_TEMPLATE).digest('hex');

/** A query's result as shown to the judge: columns and rows (already capped and redacted), or its error. */
export type ResultPreview =
  | { readonly ok: true; readonly columns: readonly string[]; readonly rows: readonly Row[]; readonly rowCount: number }
  | { readonly ok: false; readonly error: string };

/** Both queries on one database. */
export interface EvidenceDatabase {
  /** `snapshot jan`, `L5 witness (3 rows)`. */
  readonly name: string;
  /** For a witness: the rows it holds, as `INSERT` statements. */
  readonly inserts?: readonly string[];
  readonly gold: ResultPreview;
  readonly candidate: ResultPreview;
}

/** What the judge is shown for one item. */
export interface EquivalenceJudgeInput {
  readonly question: string;
  /** DDL of the tables the item's role sees (with column descriptions as comments when known); `undefined` = not shared. */
  readonly schema?: string;
  readonly gold: string;
  readonly candidate: string;
  /** Result previews and the L5 witness; empty when there is no database or rows are not shared. */
  readonly evidence: readonly EvidenceDatabase[];
  /** Why the evidence is empty (`no database`, `rows not shared with this provider`). */
  readonly evidenceNote?: string;
}

/**
 * Fills the template.
 * @returns the prompt text; deterministic for the same input (the cache key depends on it).
 */
export function buildEquivalencePrompt(input: EquivalenceJudgeInput): string {
  const evidence = input.evidence.length > 0 ? input.evidence.map(renderDatabase).join('\n\n') : `(none: ${input.evidenceNote ?? 'nothing was run'})`;
  const slots: Record<string, string> = {
    question: input.question.trim() === '' ? '(not given)' : input.question.trim(),
    schema: input.schema === undefined || input.schema.trim() === '' ? '(not shared)' : input.schema.trim(),
    gold: input.gold.trim(),
    candidate: input.candidate.trim(),
    evidence,
  };
  return EQUIVALENCE_PROMPT_TEMPLATE.replace(/\{\{(\w+)\}\}/g, (_, name: string) => slots[name] ?? '');
}

function renderDatabase(database: EvidenceDatabase): string {
  const lines = [`On ${database.name}:`];
  if (database.inserts !== undefined && database.inserts.length > 0) lines.push('  rows:', ...database.inserts.map((statement) => `    ${statement}`));
  lines.push(`  REFERENCE → ${renderResult(database.gold)}`, `  CANDIDATE → ${renderResult(database.candidate)}`);
  return lines.join('\n');
}

function renderResult(result: ResultPreview): string {
  if (!result.ok) return `error: ${result.error}`;
  const header = `${result.rowCount} ${result.rowCount === 1 ? 'row' : 'rows'} (${result.columns.join(', ')})`;
  if (result.rows.length === 0) return header;
  const rows = result.rows.map((row) => `    ${row.map(plainCell).join(' | ')}`);
  const cut = result.rowCount > result.rows.length ? [`    … ${result.rowCount - result.rows.length} more not shown`] : [];
  return [header + ':', ...rows, ...cut].join('\n');
}

/** A read reply, or why it could not be read. */
export type EquivalenceVerdict =
  | { readonly ok: true; readonly equivalent: boolean; readonly differences: readonly string[] }
  | { readonly ok: false; readonly error: string };

/**
 * Reads the judge's reply: the last JSON object in it that has an `equivalent` field (the reply
 * lists differences first, and may quote JSON-like text in them). `equivalent` must be a boolean
 * (`"true"` / `"false"` strings accepted); `differences` a list of strings (a single string, or
 * absent, accepted).
 * @example
 * parseEquivalenceVerdict('LEFT JOIN keeps unmatched rows.\n{"differences": ["LEFT vs INNER JOIN"], "equivalent": false}')
 * // { ok: true, equivalent: false, differences: ['LEFT vs INNER JOIN'] }
 */
export function parseEquivalenceVerdict(reply: string): EquivalenceVerdict {
  const objects = jsonObjectsIn(reply);
  if (objects.length === 0) return { ok: false, error: `no JSON object in the reply: ${JSON.stringify(reply.slice(0, 120))}` };
  for (const value of objects.reverse()) {
    if (!('equivalent' in value)) continue;
    let equivalent = value['equivalent'];
    if (equivalent === 'true' || equivalent === 'false') equivalent = equivalent === 'true';
    if (typeof equivalent !== 'boolean') return { ok: false, error: `"equivalent" must be true or false; received ${JSON.stringify(equivalent)}` };
    const raw = value['differences'] ?? [];
    const differences = typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(differences) || !differences.every((entry) => typeof entry === 'string')) return { ok: false, error: '"differences" must be a list of strings' };
    return { ok: true, equivalent, differences: differences as string[] };
  }
  return { ok: false, error: 'no JSON object with an "equivalent" field in the reply' };
}

/** Every top-level JSON object in `text` that parses, in order (strings and escapes respected). */
function jsonObjectsIn(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  let start = -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (depth > 0 && inString) {
      if (ch === '\\') i += 1;
      else if (ch === '"') inString = false;
      continue;
    }
    if (depth > 0 && ch === '"') inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth += 1;
    } else if (ch === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) {
        try {
          const value: unknown = JSON.parse(text.slice(start, i + 1));
          if (value !== null && typeof value === 'object' && !Array.isArray(value)) found.push(value as Record<string, unknown>);
        } catch {
          // Not JSON (prose with braces): passed over.
        }
      }
    }
  }
  return found;
}
