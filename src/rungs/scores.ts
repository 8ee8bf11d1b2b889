/**
 * The score table: every score the package reports — the ladder's rungs, the item's end-to-end
 * verdict, the LLM judge's score and the diagnostics — with its step, its named-score key, its
 * label for people, its role, and whether front ends switch it on. Every list of rungs or score
 * names (ladder order, the summary's and `compare`'s display order, the viewer's named scores, the
 * matchers' verdict labels, the optional rungs' options, the assertion table) is derived from this
 * table; a test fails when one is written by hand elsewhere.
 *
 * | id | step | score name | label | role | optional | default |
 * |----|------|------------|-------|------|----------|---------|
 * | `syntax` | L1 | `L1_syntax` | L1 syntax | gate | no | on |
 * | `schema` | L2 | `L2_schema` | L2 schema | gate | no | on |
 * | `safety` | L3 | `L3_safety` | L3 safety | gate | no | on |
 * | `execution` | L4 | `L4_execution` | L4 execution | executing | no | on |
 * | `semantic` | L5 | `L5_semantic` | L5 semantic | executing | yes | off |
 * | `efficiency` | L6 | `L6_efficiency` | L6 efficiency | executing | yes | off |
 * | `answer` | L7 | `L7_answer` | L7 answer grounding | executing | yes | on (runs when the output has a prose answer) |
 * | `endToEnd` | — | `end_to_end` | end-to-end | verdict | no | on |
 * | `judge` | L7 | `L7_judge` | L7 judge | judge | yes | off |
 * | `components`, `exactMatch`, `astDistance`, `schemaLinking`, `resultSimilarity`, `reliesOnRls` | — | the id | the id | diagnostic | yes | off |
 *
 * Adding a rung: its own file, and one entry here in ladder order (docs/development.md, "Adding a
 * rung"); the compiler then names the typed places that must hold it.
 */

/**
 * What a score is:
 * - `gate`: a static check of the text (L1–L3); one that does not pass keeps the executing rungs
 *   from running;
 * - `executing`: a rung that runs SQL (L4 and later), after the gates;
 * - `verdict`: the item's end-to-end verdict (not a rung);
 * - `judge`: an LLM judge's score beside a rung (reported, never in `end_to_end` by itself);
 * - `diagnostic`: graded partial credit, reported and never gating.
 */
export type ScoreRole = 'gate' | 'executing' | 'verdict' | 'judge' | 'diagnostic';

/** One entry of {@link SCORES}. */
export interface ScoreDescriptor {
  /** The ladder step (`L1` … `L7`); `null` for a score that is not on the ladder. */
  readonly step: `L${number}` | null;
  /** The promptfoo named-score key (`L1_syntax`, `end_to_end`, a diagnostic's id). */
  readonly scoreName: string;
  /** How messages name it for people (`L2 schema failed: …`). */
  readonly label: string;
  readonly role: ScoreRole;
  /** True when front ends switch it on or off (false: always reported). */
  readonly optional: boolean;
  /**
   * Whether the ladder as the front ends ship it (the promptfoo `ladder` assertion) runs it when
   * its option is not given. The core's `createLadderRungs` lists an optional rung only when asked.
   */
  readonly defaultOn: boolean;
  /** The rungs whose results it reads (an executing rung after L4 reads L4's). */
  readonly reads: readonly string[];
  /** Where its check lives, from the package root. */
  readonly source: string;
  /** The export name of its own promptfoo assertion (`assertions/<kebab-name>.ts:<name>`), or `null`. */
  readonly assertion: string | null;
}

/** The score table (see the module doc); ladder rungs in ladder order. */
export const SCORES = {
  syntax: { step: 'L1', scoreName: 'L1_syntax', label: 'L1 syntax', role: 'gate', optional: false, defaultOn: true, reads: [], source: 'src/rungs/syntax.ts', assertion: 'syntax' },
  schema: { step: 'L2', scoreName: 'L2_schema', label: 'L2 schema', role: 'gate', optional: false, defaultOn: true, reads: [], source: 'src/rungs/schema.ts', assertion: 'schema' },
  safety: { step: 'L3', scoreName: 'L3_safety', label: 'L3 safety', role: 'gate', optional: false, defaultOn: true, reads: [], source: 'src/rungs/safety.ts', assertion: 'safety' },
  execution: { step: 'L4', scoreName: 'L4_execution', label: 'L4 execution', role: 'executing', optional: false, defaultOn: true, reads: [], source: 'src/rungs/execution.ts', assertion: 'execution' },
  semantic: { step: 'L5', scoreName: 'L5_semantic', label: 'L5 semantic', role: 'executing', optional: true, defaultOn: false, reads: ['execution'], source: 'src/semantic/semantic-rung.ts', assertion: null },
  efficiency: { step: 'L6', scoreName: 'L6_efficiency', label: 'L6 efficiency', role: 'executing', optional: true, defaultOn: false, reads: ['execution'], source: 'src/rungs/efficiency.ts', assertion: 'efficiency' },
  answer: { step: 'L7', scoreName: 'L7_answer', label: 'L7 answer grounding', role: 'executing', optional: true, defaultOn: true, reads: ['execution'], source: 'src/rungs/answer.ts', assertion: 'answerGrounding' },
  endToEnd: { step: null, scoreName: 'end_to_end', label: 'end-to-end', role: 'verdict', optional: false, defaultOn: true, reads: [], source: 'src/rungs/ladder.ts', assertion: 'ladder' },
  judge: { step: 'L7', scoreName: 'L7_judge', label: 'L7 judge', role: 'judge', optional: true, defaultOn: false, reads: ['answer'], source: 'src/judge/faithfulness.ts', assertion: null },
  components: { step: null, scoreName: 'components', label: 'components', role: 'diagnostic', optional: true, defaultOn: false, reads: [], source: 'src/rungs/components.ts', assertion: 'components' },
  exactMatch: { step: null, scoreName: 'exactMatch', label: 'exactMatch', role: 'diagnostic', optional: true, defaultOn: false, reads: [], source: 'src/rungs/exact-match.ts', assertion: 'exactMatch' },
  astDistance: { step: null, scoreName: 'astDistance', label: 'astDistance', role: 'diagnostic', optional: true, defaultOn: false, reads: [], source: 'src/rungs/ast-distance.ts', assertion: 'astDistance' },
  schemaLinking: { step: null, scoreName: 'schemaLinking', label: 'schemaLinking', role: 'diagnostic', optional: true, defaultOn: false, reads: [], source: 'src/rungs/schema-linking.ts', assertion: 'schemaLinking' },
  resultSimilarity: { step: null, scoreName: 'resultSimilarity', label: 'resultSimilarity', role: 'diagnostic', optional: true, defaultOn: false, reads: [], source: 'src/rungs/result-similarity.ts', assertion: 'resultSimilarity' },
  reliesOnRls: { step: null, scoreName: 'reliesOnRls', label: 'relies_on_rls', role: 'diagnostic', optional: true, defaultOn: false, reads: [], source: 'src/diagnostics/relies-on-rls.ts', assertion: 'reliesOnRls' },
} as const satisfies Record<string, ScoreDescriptor>;

/** Every score id (see {@link SCORES}). */
export type ScoreId = keyof typeof SCORES;

/** The ids of {@link SCORES} whose role is one of `R`. */
type IdsWithRole<R extends ScoreRole> = { [K in ScoreId]: (typeof SCORES)[K]['role'] extends R ? K : never }[ScoreId];

/** A rung of the ladder: a gate or an executing rung. */
export type LadderRungId = IdsWithRole<'gate' | 'executing'>;
/** A gate (L1–L3). */
export type GateId = IdsWithRole<'gate'>;
/** A rung that executes SQL (every ladder rung after the gates). */
export type ExecutingRungId = IdsWithRole<'executing'>;
/** An executing rung a front end switches on or off (L5, L6, L7). */
export type OptionalRungId = { [K in ExecutingRungId]: (typeof SCORES)[K]['optional'] extends true ? K : never }[ExecutingRungId];
/** A diagnostic. */
export type DiagnosticId = IdsWithRole<'diagnostic'>;
/** The export name of a promptfoo assertion of the package. */
export type AssertionName = NonNullable<(typeof SCORES)[ScoreId]['assertion']>;

/** Every score id, in table order. */
export const SCORE_IDS = Object.keys(SCORES) as readonly ScoreId[];

function idsWithRole<R extends ScoreRole>(...roles: readonly R[]): readonly IdsWithRole<R>[] {
  return Object.freeze(SCORE_IDS.filter((id): id is IdsWithRole<R> => (roles as readonly ScoreRole[]).includes(SCORES[id].role)));
}

/** The ladder's rungs, in the order they run: the gates, then the executing rungs. */
export const LADDER_RUNG_IDS: readonly LadderRungId[] = idsWithRole('gate', 'executing');
/** The gates (L1–L3), in order. */
export const GATE_IDS: readonly GateId[] = idsWithRole('gate');
/** The executing rungs (L4 and later), in order. */
export const EXECUTING_RUNG_IDS: readonly ExecutingRungId[] = idsWithRole('executing');
/** The executing rungs a front end switches on (each off by default), in order. */
export const OPTIONAL_RUNG_IDS: readonly OptionalRungId[] = Object.freeze(EXECUTING_RUNG_IDS.filter((id): id is OptionalRungId => SCORES[id].optional));
/** The diagnostics, in table order. */
export const DIAGNOSTIC_IDS: readonly DiagnosticId[] = idsWithRole('diagnostic');

/** The named score key each ladder rung reports under. */
export const LADDER_SCORE_NAMES = Object.freeze(Object.fromEntries(LADDER_RUNG_IDS.map((id) => [id, SCORES[id].scoreName]))) as { readonly [K in LadderRungId]: (typeof SCORES)[K]['scoreName'] };

/** The end-to-end score's key (`end_to_end`). */
export const END_TO_END: (typeof SCORES)['endToEnd']['scoreName'] = SCORES.endToEnd.scoreName;

/**
 * Score names in display order: `end_to_end`, then the ladder rungs' in ladder order (the ladder
 * summary and `compare` list them so; any other name follows, by name).
 */
export const SCORE_NAME_ORDER: readonly string[] = Object.freeze([END_TO_END, ...LADDER_RUNG_IDS.map((id) => SCORES[id].scoreName)]);

/** True for a score id of the table. */
export function isScoreId(value: unknown): value is ScoreId {
  return typeof value === 'string' && Object.hasOwn(SCORES, value);
}

/** True for a gate id (L1–L3). */
export function isGateId(id: unknown): id is GateId {
  return isScoreId(id) && SCORES[id].role === 'gate';
}

/** True for a ladder rung id (a gate or an executing rung). */
export function isLadderRungId(id: unknown): id is LadderRungId {
  return isScoreId(id) && (SCORES[id].role === 'gate' || SCORES[id].role === 'executing');
}

/**
 * The named-score key of a score id (`execution` → `L4_execution`, a diagnostic → its id); any
 * other string is returned as it is (a stored row may name a rung this version does not know).
 */
export function scoreNameOf(id: string): string {
  return isScoreId(id) ? SCORES[id].scoreName : id;
}

/** How messages name a score for people (`L7 answer grounding`); any other string as it is. */
export function scoreLabelOf(id: string): string {
  return isScoreId(id) ? SCORES[id].label : id;
}

/**
 * The rank of a score name in {@link SCORE_NAME_ORDER}; names the table does not hold rank after
 * every one it holds (callers sort those by name).
 */
export function scoreNameRank(name: string): number {
  const index = SCORE_NAME_ORDER.indexOf(name);
  return index < 0 ? SCORE_NAME_ORDER.length : index;
}

/** The file and export of a promptfoo assertion: `assertions/answer-grounding.ts:answerGrounding`. */
export function assertionFileOf(name: AssertionName): `assertions/${string}.ts:${AssertionName}` {
  return `assertions/${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}.ts:${name}`;
}
