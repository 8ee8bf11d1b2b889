/**
 * The optional LLM judge for prose faithfulness beyond numbers (*Text-to-SQL Evals* §9: check
 * numeric grounding first, then add answer judges). It catches what number matching cannot: a
 * misread column, the wrong entity, a trend the rows do not show, a direction word ("up" when the
 * rows went down).
 *
 * This module only builds the prompt and reads the verdict; the call goes through promptfoo's
 * grading provider in assertions/answer-grounding.ts, is off by default, and never happens without
 * a configured provider. {@link runFaithfulnessJudge} takes the provider as a parameter (the slice of
 * promptfoo's ApiProvider it uses is declared here, so the core does not depend on promptfoo).
 */
import { createHash } from 'node:crypto';
import type { Cell, Row } from '../engine/engine.js';
import { plainCell } from '../format.js';
import type { JudgeIdentity } from './calibration-record.js';

/** What the judge sees. */
export interface FaithfulnessInput {
  readonly question?: string;
  readonly sql?: string;
  readonly columns?: readonly string[];
  readonly rows: readonly Row[];
  readonly answer: string;
  /** Numbers the grounding rung could not match (text), shown to the judge as already flagged. */
  readonly ungroundedNumbers?: readonly string[];
}

/** Default number of result rows shown to the judge. */
export const DEFAULT_JUDGE_MAX_ROWS = 20;

/**
 * Builds the judge prompt. Rows beyond `maxRows` are cut and the cut is stated, so the judge does
 * not call a true statement about unseen rows unfaithful without knowing it.
 *
 * @param maxRows - rows shown (default {@link DEFAULT_JUDGE_MAX_ROWS}).
 * @returns one prompt asking for `{"faithful": boolean, "score": number in [0,1], "reasons": string[]}`.
 */
export function buildFaithfulnessPrompt(input: FaithfulnessInput, maxRows: number = DEFAULT_JUDGE_MAX_ROWS): string {
  const shown = input.rows.slice(0, maxRows);
  const header = input.columns && input.columns.length > 0 ? input.columns.join(' | ') : '(column names not given)';
  const table = shown.map((row) => row.map(plainCell).join(' | ')).join('\n');
  const cut = input.rows.length > shown.length ? `\n(${input.rows.length - shown.length} more rows not shown; ${input.rows.length} in total)` : '';
  const flagged = input.ungroundedNumbers && input.ungroundedNumbers.length > 0 ? input.ungroundedNumbers.join(', ') : 'none';
  return [
    'You check whether an answer written for a user is faithful to the SQL result it summarizes.',
    'Judge only faithfulness to the result below: the answer must not state anything the rows do not support',
    '(wrong entity, wrong column, wrong unit, invented trend or comparison, wrong direction such as "up" for a decrease).',
    'Rounding that keeps the stated precision is fine. Do not judge whether the SQL itself is correct.',
    '',
    `Question: ${input.question ?? '(not given)'}`,
    `SQL: ${input.sql ?? '(not given)'}`,
    `Result (${input.rows.length} rows):`,
    header,
    table === '' ? '(no rows)' : table + cut,
    '',
    `Answer: ${input.answer}`,
    `Numbers already flagged as not found in the result: ${flagged}`,
    '',
    'Reply with one JSON object and nothing else:',
    '{"faithful": true or false, "score": a number from 0 (unfaithful) to 1 (faithful), "reasons": ["one short reason per problem, or why it is faithful"]}',
  ].join('\n');
}

/** The version name of {@link buildFaithfulnessPrompt}'s wording; a calibration record names it. */
export const FAITHFULNESS_PROMPT_VERSION = 'faithfulness-v1';

/**
 * SHA-256 (hex) of the prompt's template: the prompt built from placeholders, so that any change
 * of its wording changes the hash and a calibration of the old wording no longer counts.
 */
export const FAITHFULNESS_PROMPT_HASH = createHash('sha256')
  .update(buildFaithfulnessPrompt({ question: '{{question}}', sql: '{{sql}}', columns: ['{{column}}'], rows: [['{{cell}}']], answer: '{{answer}}', ungroundedNumbers: ['{{number}}'] }))
  .digest('hex');

/**
 * The identity a faithfulness calibration record must name for this provider to count: task
 * `faithfulness`, the provider's id, its model (the provider's `modelName`, else its
 * `config.model`, else the id's last `:` part, as for the equivalence judge) and this prompt's
 * version and hash.
 */
export function faithfulnessJudgeIdentity(provider: JudgeProvider): JudgeIdentity {
  const id = provider.id();
  const { modelName, config } = provider as { modelName?: unknown; config?: unknown };
  const configModel = config !== null && typeof config === 'object' ? (config as { model?: unknown }).model : undefined;
  const model = typeof modelName === 'string' && modelName !== '' ? modelName : typeof configModel === 'string' && configModel !== '' ? configModel : (id.split(':').at(-1) ?? id);
  return { task: 'faithfulness', provider: id, model, promptVersion: FAITHFULNESS_PROMPT_VERSION, promptHash: FAITHFULNESS_PROMPT_HASH };
}

/** A read verdict, or why the reply could not be read. */
export type FaithfulnessVerdict =
  | { readonly ok: true; readonly faithful: boolean; readonly score: number; readonly reasons: readonly string[] }
  | { readonly ok: false; readonly error: string };

/**
 * Reads the judge's reply: the first JSON object in it (fenced or not). `faithful` must be a
 * boolean; `score` defaults to 1 / 0 from `faithful` and must lie in [0, 1]; `reasons` must be a list
 * of strings (a single string is accepted).
 * @example
 * parseFaithfulnessVerdict('```json\n{"faithful": false, "score": 0.2, "reasons": ["says up, rows go down"]}\n```')
 * // { ok: true, faithful: false, score: 0.2, reasons: ['says up, rows go down'] }
 */
export function parseFaithfulnessVerdict(reply: string): FaithfulnessVerdict {
  const json = firstJsonObject(reply);
  if (json === undefined) return { ok: false, error: `judge reply holds no JSON object: ${reply.slice(0, 120)}` };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, error: `judge reply is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'judge reply is not a JSON object' };
  const record = value as Record<string, unknown>;
  const faithful = record['faithful'];
  if (typeof faithful !== 'boolean') return { ok: false, error: `judge reply: "faithful" must be true or false, received ${JSON.stringify(faithful)}` };
  const score = record['score'] ?? (faithful ? 1 : 0);
  if (typeof score !== 'number' || !(score >= 0 && score <= 1)) return { ok: false, error: `judge reply: "score" must be a number in [0, 1], received ${JSON.stringify(score)}` };
  const rawReasons = record['reasons'] ?? [];
  const reasons = typeof rawReasons === 'string' ? [rawReasons] : rawReasons;
  if (!Array.isArray(reasons) || !reasons.every((reason) => typeof reason === 'string')) return { ok: false, error: 'judge reply: "reasons" must be a list of strings' };
  return { ok: true, faithful, score, reasons: reasons as string[] };
}

function firstJsonObject(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i += 1;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth += 1;
    else if (ch === '}') {
      depth -= 1;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

/** The slice of a promptfoo ApiProvider the judge uses (promptfoo 0.121 `callApi`). */
export interface JudgeProvider {
  id(): string;
  callApi(prompt: string): Promise<{ output?: unknown; error?: string; tokenUsage?: unknown }>;
}

/** The outcome of one judge call: the verdict plus the provider, prompt and raw reply for metadata. */
export interface FaithfulnessJudgement {
  readonly provider: string;
  readonly verdict: FaithfulnessVerdict;
  readonly prompt: string;
  /** The reply text (or the provider's error). */
  readonly raw: string;
  readonly tokenUsage?: unknown;
}

/**
 * Asks the provider once and reads the verdict. Never throws for the provider's failures: an error
 * reply becomes `verdict.ok: false`.
 */
export async function runFaithfulnessJudge(provider: JudgeProvider, input: FaithfulnessInput, maxRows?: number): Promise<FaithfulnessJudgement> {
  const prompt = buildFaithfulnessPrompt(input, maxRows);
  const id = provider.id();
  try {
    const response = await provider.callApi(prompt);
    if (response.error) return { provider: id, prompt, raw: response.error, verdict: { ok: false, error: `judge provider error: ${response.error}` } };
    const raw = typeof response.output === 'string' ? response.output : JSON.stringify(response.output ?? '');
    return { provider: id, prompt, raw, verdict: parseFaithfulnessVerdict(raw), ...(response.tokenUsage !== undefined ? { tokenUsage: response.tokenUsage } : {}) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { provider: id, prompt, raw: message, verdict: { ok: false, error: `judge provider threw: ${message}` } };
  }
}
