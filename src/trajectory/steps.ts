/**
 * The trajectory of an agentic text-to-SQL run: what the agent did before its final output, as a
 * list of steps in the provider output (`{ "sql", "answer"?, "steps": [...] }`, or a
 * clarification `{ "action": "clarify", "message", "steps": [...] }`). Step kinds:
 *
 * | kind      | fields                                              | what it stands for |
 * |-----------|-----------------------------------------------------|--------------------|
 * | `schema`  | `call`? (string: `list_tables`, `describe orders`)  | a schema look-up (a tool call that reads the catalog, not the data) |
 * | `sql`     | `sql` (string), `error`? (string), `rowCount`? (integer ≥ 0) | a SQL execution; `error` / `rowCount` as the agent saw them |
 * | `clarify` | `message` (string)                                  | a clarifying question put to the user |
 * | `answer`  | `sql`?, `answer`? (strings)                         | the final answer; at most one, and the last step |
 *
 * Today's `"probes": [...]` (a list of SQL strings) reads as `sql` steps, in order. The agent's
 * `error` and `rowCount` are kept for the process metrics that count what the agent saw (failed
 * executions, error recovery); the cost of a probe is never taken from the agent's report but
 * measured by re-running it (probe-cost.ts).
 *
 * Reading promptfoo's traces (OpenTelemetry spans) into steps is a later source: {@link
 * TrajectorySource} names where a trajectory came from, so a second reader only adds a value.
 */
import { LadderError } from '../errors.js';
import { describeReceived, suggestName } from '../options.js';
import { tryParseJsonObject } from '../sql/provider-output.js';

/** A schema look-up. */
export interface SchemaStep {
  readonly kind: 'schema';
  /** What was looked up, as the agent names it (`list_tables`, `describe orders`). */
  readonly call?: string;
}

/** A SQL execution (a probe, or the agent running its final query). */
export interface SqlStep {
  readonly kind: 'sql';
  readonly sql: string;
  /** The error the agent saw, when the execution failed. */
  readonly error?: string;
  /** The row count the agent saw, when it reported one. */
  readonly rowCount?: number;
}

/** A clarifying question put to the user. */
export interface ClarifyStep {
  readonly kind: 'clarify';
  readonly message: string;
}

/** The final answer (optional: without it, the output itself is the answer). */
export interface AnswerStep {
  readonly kind: 'answer';
  readonly sql?: string;
  readonly answer?: string;
}

/** One step of a trajectory. */
export type TrajectoryStep = SchemaStep | SqlStep | ClarifyStep | AnswerStep;

/** Where a trajectory was read from: the output's `steps`, or its legacy `probes` list. */
export type TrajectorySource = 'steps' | 'probes';

/** A validated trajectory. */
export interface Trajectory {
  readonly source: TrajectorySource;
  readonly steps: readonly TrajectoryStep[];
}

/** Every step kind, in the order the docs list them. */
export const STEP_KINDS = ['schema', 'sql', 'clarify', 'answer'] as const;

/** The fields each kind accepts (beside `kind`). */
const STEP_FIELDS: Readonly<Record<TrajectoryStep['kind'], readonly string[]>> = {
  schema: ['call'],
  sql: ['sql', 'error', 'rowCount'],
  clarify: ['message'],
  answer: ['sql', 'answer'],
};

/** Most steps one trajectory may hold (a runaway agent's log is refused, not graded for minutes). */
export const MAX_STEPS = 1_000;

/**
 * Reads the trajectory of a provider output (a string holding a JSON object, or the object).
 *
 * @param output - the provider output as promptfoo hands it.
 * @param where - how messages name the output (`item wh-003`, `recording.jsonl:4 (item wh-003)`).
 * @returns the trajectory, or `undefined` when the output is not a JSON object or has neither
 *   `steps` nor `probes`.
 * @throws LadderError('input_invalid') naming `where`, the step's 1-based index and the field:
 *   `steps` not a list, a step that is not an object, an unknown kind or field (with a
 *   did-you-mean), a field of the wrong type, an `answer` step that is not the last, more than
 *   {@link MAX_STEPS} steps, `steps` and `probes` both given, a probe that is not a string.
 * @example
 * readTrajectory('{"sql":"SELECT 1","steps":[{"kind":"schema"},{"kind":"sql","sql":"SELECT 1","rowCount":1}]}', 'item a')
 * // { source: 'steps', steps: [{ kind: 'schema' }, { kind: 'sql', sql: 'SELECT 1', rowCount: 1 }] }
 */
export function readTrajectory(output: unknown, where: string): Trajectory | undefined {
  const object = typeof output === 'string' ? tryParseJsonObject(output) : output;
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return undefined;
  const record = object as Record<string, unknown>;
  const hasSteps = record['steps'] !== undefined;
  const hasProbes = record['probes'] !== undefined;
  if (hasSteps && hasProbes) throw invalid(where, '"steps" and "probes" are both given; give the probes as sql steps');
  if (hasProbes) return { source: 'probes', steps: readProbes(record['probes'], where) };
  if (!hasSteps) return undefined;
  const raw = record['steps'];
  if (!Array.isArray(raw)) throw invalid(where, `"steps" must be a list of steps; received ${describeReceived(raw)}`);
  if (raw.length > MAX_STEPS) throw invalid(where, `"steps" holds ${raw.length} steps; at most ${MAX_STEPS} are read`);
  const steps = raw.map((step, i) => readStep(step, i, raw.length, where));
  return { source: 'steps', steps };
}

/** The legacy `probes` list as `sql` steps. */
function readProbes(raw: unknown, where: string): SqlStep[] {
  if (!Array.isArray(raw)) throw invalid(where, `"probes" must be a list of SQL strings; received ${describeReceived(raw)}`);
  if (raw.length > MAX_STEPS) throw invalid(where, `"probes" holds ${raw.length} probes; at most ${MAX_STEPS} are read`);
  return raw.map((probe, i) => {
    if (typeof probe !== 'string') throw invalid(where, `probe ${i + 1}: must be a SQL string; received ${describeReceived(probe)}`);
    return { kind: 'sql', sql: probe };
  });
}

function readStep(raw: unknown, index: number, count: number, where: string): TrajectoryStep {
  const at = `step ${index + 1}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(where, `${at}: must be an object with a "kind"; received ${describeReceived(raw)}`);
  const step = raw as Record<string, unknown>;
  const kind = step['kind'];
  if (typeof kind !== 'string' || !(STEP_KINDS as readonly string[]).includes(kind)) {
    const hint = typeof kind === 'string' ? suggestName(kind, STEP_KINDS) : undefined;
    throw invalid(where, `${at}: "kind" must be one of ${STEP_KINDS.join(', ')}${hint !== undefined ? ` (did you mean ${hint}?)` : ''}; received ${describeReceived(kind)}`);
  }
  const known = STEP_FIELDS[kind as TrajectoryStep['kind']];
  for (const key of Object.keys(step)) {
    if (key === 'kind' || known.includes(key)) continue;
    const hint = suggestName(key, known);
    throw invalid(where, `${at} (${kind}): "${key}" is not a field of a ${kind} step${hint !== undefined ? ` (did you mean "${hint}"?)` : ''}; fields: ${known.join(', ') || 'none'}`);
  }
  const text = (field: string, required: boolean): string | undefined => {
    const value = step[field];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || (required && value.trim() === '')) {
      throw invalid(where, `${at} (${kind}): "${field}" must be a ${required ? 'non-empty ' : ''}string; received ${describeReceived(value)}`);
    }
    return value;
  };
  switch (kind as TrajectoryStep['kind']) {
    case 'schema': {
      const call = text('call', false);
      return { kind: 'schema', ...(call !== undefined ? { call } : {}) };
    }
    case 'sql': {
      const sql = text('sql', true)!;
      const error = text('error', false);
      const rowCount = step['rowCount'];
      if (rowCount !== undefined && (typeof rowCount !== 'number' || !Number.isInteger(rowCount) || rowCount < 0)) {
        throw invalid(where, `${at} (sql): "rowCount" must be an integer ≥ 0; received ${describeReceived(rowCount)}`);
      }
      if (error !== undefined && rowCount !== undefined) throw invalid(where, `${at} (sql): "error" and "rowCount" are both given; a failed execution returns no rows`);
      return { kind: 'sql', sql, ...(error !== undefined ? { error } : {}), ...(rowCount !== undefined ? { rowCount: rowCount as number } : {}) };
    }
    case 'clarify':
      return { kind: 'clarify', message: text('message', true)! };
    case 'answer': {
      if (index !== count - 1) throw invalid(where, `${at} (answer): the answer step must be the last; ${count - index - 1} more follow`);
      const sql = text('sql', false);
      const answer = text('answer', false);
      return { kind: 'answer', ...(sql !== undefined ? { sql } : {}), ...(answer !== undefined ? { answer } : {}) };
    }
  }
}

function invalid(where: string, message: string): LadderError {
  return new LadderError('input_invalid', `${where}: trajectory: ${message}`);
}

/** The SQL steps with their 1-based step index (what the gates and the probe-cost re-run read). */
export function sqlSteps(trajectory: Trajectory | undefined): Array<{ readonly step: number; readonly sql: string }> {
  if (trajectory === undefined) return [];
  return trajectory.steps.flatMap((step, i) => (step.kind === 'sql' ? [{ step: i + 1, sql: step.sql }] : []));
}
