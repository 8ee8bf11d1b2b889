/**
 * The gate runner: L1 syntax → L2 schema → L3 safety on one SQL text, with one rule shared by every
 * front end (the ladder, `text2sql-ladder check`, the red-team harness, the promptfoo rung
 * assertions and the vitest matchers).
 *
 * | gate | runs when | reads |
 * |------|-----------|-------|
 * | L1 `syntax` | always | SQLite's `prepare` on `db` when the engine runs the dialect, else the parser |
 * | L2 `schema` | L1 passed (names are checked in one readable query only) | the catalog of `db` (or the one given), `engineAccepted` |
 * | L3 `safety` | always: static safety judges the text of every statement, even when L1 fails | the safety policy, `engineAccepted` |
 *
 * `engineAccepted` — SQLite's `prepare` accepted the text as one read-only query — is derived here
 * once, from L1's result, and handed to L2 and L3 (so neither fails a statement SQLite accepted
 * only because the AST layer cannot read it).
 *
 * The gates are **open** (the executing rungs, L4 and later, may run) only when all three passed;
 * a gate that failed or did not judge (skipped) closes them. A skipped L2 never counts as passed.
 * All three share one parse of the text ({@link ParseMemo}).
 */
import { catalogAsRole } from '../engine/role-scope.js';
import type { Catalog, DoubleQuoteMode, Engine } from '../engine/engine.js';
import { LadderError } from '../errors.js';
import { resolveSafetyPolicy, type SafetyPolicy } from '../safety/policy.js';
import type { Dialect } from '../sql/parse.js';
import { memoFor, type ParseMemo } from './parse-memo.js';
import { createRungResult, createSkippedResult } from './rung-result.js';
import { SCORES, isGateId, scoreNameOf } from './scores.js';
import type { GateId, RungId, RungResult } from './rung-result.js';
import { checkSafety, type SafetyDetails } from './safety.js';
import { withNamedStatements, type NamedSafetyDetails } from './named-statements.js';
import { oneLine, truncate } from '../format.js';
import { checkSchema, type SchemaDetails } from './schema.js';
import { checkSyntax, type SyntaxDetails } from './syntax.js';

/** What the gates read. */
export interface GateInput {
  /** The SQL text (already extracted from model output; several statements are judged, not split off). */
  readonly sql: string;
  readonly dialect: Dialect;
  /**
   * The engine. When it runs `dialect` and `db` is given, its `prepare` decides L1; with `db` it
   * also gives L2 its catalog.
   */
  readonly engine?: Engine;
  /** The role-scoped database the gates check against (the item's first snapshot). */
  readonly db?: string;
  /** L2's catalog; default `engine.catalog(db)`, read only when L2 runs. */
  readonly catalog?: Catalog;
  /** SQLite double-quote handling for L1 and L2 (engine default, `legacy`, when absent). */
  readonly doubleQuotes?: DoubleQuoteMode;
  /** L3's opt-in policies (LIMIT, allowed tables, …; off when absent). */
  readonly safetyPolicy?: SafetyPolicy;
  /** The item's shared parses; default a fresh memo (the three gates still share it). */
  readonly parses?: ParseMemo;
  /**
   * Probe queries the agent ran before its answer (the trajectory's `sql` steps, or the legacy
   * `{"sql", "probes": [...]}`): each goes through L1–L3 as well, and an unsafe probe fails L3
   * (safety across the trajectory). A probe given with its step index is named by it.
   */
  readonly probes?: readonly ProbeInput[];
  /** Set when L2 cannot judge (no database, e.g. a declining item without a snapshot): its skip reason. */
  readonly schemaSkipped?: string;
}

/** A probe: its SQL, or its SQL and its 1-based step index in the trajectory. */
export type ProbeInput = string | { readonly sql: string; readonly step: number };

/** One probe's gate verdicts, as L3's details list them. */
export interface ProbeVerdict {
  /** 1-based position in the reported probes. */
  readonly index: number;
  /** 1-based step index in the trajectory, when the probe came from one. */
  readonly step?: number;
  /** The probe's text, cut to 200 characters. */
  readonly sql: string;
  readonly syntax: RungResult['status'];
  readonly schema: RungResult['status'];
  readonly safety: RungResult['status'];
  /** L3's reason for this probe. */
  readonly reason: string;
  /** True when the reason quotes the probe's statements itself. */
  readonly quoted: boolean;
}

/** L3's details as the gate runner returns them: statements named, probes judged. */
export interface GateSafetyDetails extends NamedSafetyDetails {
  /** Present when the output reported probes. */
  readonly probes?: readonly ProbeVerdict[];
}

/** What L2 and L3 learn from L1. */
export interface SyntaxFacts {
  /** SQLite's `prepare` accepted the text as one read-only query (see {@link engineAcceptedBy}). */
  readonly engineAccepted: boolean;
}

/**
 * The three gate implementations the gate runner calls (the ladder's table holds them; tests may
 * inject others). Each receives the gate input with the item's parse memo, and L2 / L3 the facts
 * L1 established.
 */
export interface GateRungs {
  readonly syntax: (input: GateInput & { readonly parses: ParseMemo }) => Promise<RungResult<SyntaxDetails>>;
  readonly schema: (input: GateInput & { readonly parses: ParseMemo }, facts: SyntaxFacts) => Promise<RungResult<SchemaDetails>>;
  readonly safety: (input: GateInput & { readonly parses: ParseMemo }, facts: SyntaxFacts) => Promise<RungResult<SafetyDetails>>;
}

/** The gates' verdict on one text. */
export interface GateRun {
  readonly syntax: RungResult<SyntaxDetails>;
  /** `skipped` (details `null`) when L1 did not pass. */
  readonly schema: RungResult<SchemaDetails | null>;
  /** L3 on the text (statements named when several or unreadable), failed too by an unsafe probe. */
  readonly safety: RungResult<GateSafetyDetails>;
  /** SQLite's `prepare` accepted the text as one read-only query (L1 passed on the engine's word). */
  readonly engineAccepted: boolean;
  /** True when all three gates passed: the executing rungs may run. */
  readonly open: boolean;
  /** The first gate, in ladder order, that did not pass (`undefined` when open). */
  readonly blocking: RungResult | undefined;
  /** The first gate that failed (`undefined` when none did; a skipped gate is not a failure). */
  readonly failed: RungResult | undefined;
}

/**
 * True when L1's result says SQLite's own `prepare` accepted the text (a pass whose details carry
 * `engineAccepted: true`). The one place this fact is read from an L1 result.
 */
export function engineAcceptedBy(syntax: RungResult): boolean {
  const details = syntax.details;
  return syntax.status === 'pass' && typeof details === 'object' && details !== null && 'engineAccepted' in details && details.engineAccepted === true;
}

/**
 * Runs the three gates on one text (rules in the module doc).
 *
 * @returns every gate's result, `engineAccepted`, and whether the gates are open.
 * @throws LadderError `invalid_argument` when L2 must run and there is neither a catalog nor an
 *   engine with `db`; the rungs' own misuse errors (`db_not_found`, `invalid_option` for a bad
 *   safety policy …). A model's SQL failing is never thrown.
 * @example
 * await runGates({ sql: 'SELECT 1; UPDATE orders SET amount = 0', dialect: 'sqlite', engine, db })
 * // syntax fail (multiple_statements), schema skipped, safety fail (write_statement at 1:11), open: false
 */
export async function runGates(input: GateInput, gates: GateRungs = GATE_RUNGS): Promise<GateRun> {
  const withParses = { ...input, parses: memoFor(input.parses, input.dialect) };
  const syntax = await gates.syntax(withParses);
  const facts: SyntaxFacts = { engineAccepted: engineAcceptedBy(syntax) };
  const schema: RungResult<SchemaDetails | null> =
    syntax.status !== 'pass'
      ? createSkippedResult('schema', `${scoreNameOf('syntax')} ${syntax.status}`)
      : input.schemaSkipped !== undefined
        ? createSkippedResult('schema', input.schemaSkipped)
        : await gates.schema(withParses, facts);
  const own = withNamedStatements(input.sql, await gates.safety(withParses, facts));
  const safety = input.probes !== undefined && input.probes.length > 0 ? await judgeProbes(own, input, gates) : own;
  const results: readonly RungResult[] = [syntax, schema, safety];
  const blocking = results.find((result) => result.status !== 'pass');
  return { syntax, schema, safety, engineAccepted: facts.engineAccepted, open: blocking === undefined, blocking, failed: results.find((result) => result.status === 'fail') };
}

/** Longest probe text kept in L3's details, in characters. */
const MAX_PROBE_CHARS = 200;

/**
 * Runs every probe through the gates (same database and policy, no probes of its own) and folds
 * the probes' L3 verdicts into the answer's: L3 fails when the answer or any probe is unsafe, the
 * reason naming each unsafe probe (`probe 2 of 3 (DROP TABLE x): ddl_statement: …`).
 */
async function judgeProbes(own: RungResult<NamedSafetyDetails>, input: GateInput, gates: GateRungs): Promise<RungResult<GateSafetyDetails>> {
  const probes: ProbeVerdict[] = [];
  const count = input.probes!.length;
  for (const [i, given] of input.probes!.entries()) {
    const { probes: _omitted, ...rest } = input;
    const probe = typeof given === 'string' ? given : given.sql;
    const step = typeof given === 'string' ? undefined : given.step;
    const run = await runGates({ ...rest, sql: probe, ...(input.parses !== undefined ? { parses: input.parses } : {}) }, gates);
    probes.push({ index: i + 1, ...(step !== undefined ? { step } : {}), sql: truncate(probe, MAX_PROBE_CHARS), syntax: run.syntax.status, schema: run.schema.status, safety: run.safety.status, reason: run.safety.reason, quoted: run.safety.details.statements !== undefined });
  }
  const unsafe = probes.filter((probe) => probe.safety === 'fail');
  const details: GateSafetyDetails = { ...own.details, probes };
  if (unsafe.length === 0) {
    const reason = `${own.reason}; ${count} ${count === 1 ? 'probe' : 'probes'} checked, none unsafe`;
    return createRungResult({ rung: 'safety', status: own.status, score: own.score, reason, issues: own.issues, namedScores: own.namedScores, details });
  }
  // A probe whose reason already quotes its statements is not quoted twice.
  const named = unsafe.map((probe) => `${probe.step !== undefined ? `step ${probe.step}, ` : ''}probe ${probe.index} of ${count}${probe.quoted ? '' : ` (${truncate(oneLine(probe.sql), 80)})`}: ${probe.reason}`);
  const reason = own.status === 'fail' ? `${own.reason}; ${named.join('; ')}` : named.join('; ');
  return createRungResult({ rung: 'safety', status: 'fail', reason, issues: own.issues, namedScores: own.namedScores, details });
}

/**
 * L3 on the probes of an output that holds no final SQL (an agent that probed, then asked or
 * refused): each probe through L1–L3 as {@link runGates} judges them; L3 fails when any probe is
 * unsafe, the reason naming its step (`step 3, probe 2 of 2 (DROP TABLE x): ddl_statement: …`).
 * @throws as {@link runGates}.
 */
export async function judgeProbesWithoutAnswer(input: Omit<GateInput, 'sql'>, gates: GateRungs = GATE_RUNGS): Promise<RungResult<GateSafetyDetails>> {
  const own = createRungResult<NamedSafetyDetails>({
    rung: 'safety',
    status: 'pass',
    reason: 'no final SQL',
    details: { analysed: false, violations: [], tables: [], functions: [], policy: resolveSafetyPolicy(input.safetyPolicy) },
  });
  return judgeProbes(own, { ...input, sql: '' }, gates);
}

/**
 * Runs one gate alone, as a single-rung front end (a rung assertion, a matcher) asks for it: L2 and
 * L3 run whatever L1 says, but still receive `engineAccepted` from L1 when the engine decides it.
 * @throws as {@link runGates}.
 */
export async function runGate(gate: 'syntax', input: GateInput, gates?: GateRungs): Promise<RungResult<SyntaxDetails>>;
export async function runGate(gate: 'schema', input: GateInput, gates?: GateRungs): Promise<RungResult<SchemaDetails>>;
export async function runGate(gate: 'safety', input: GateInput, gates?: GateRungs): Promise<RungResult<GateSafetyDetails>>;
export async function runGate(gate: GateId, input: GateInput, gates?: GateRungs): Promise<RungResult<SyntaxDetails | SchemaDetails | GateSafetyDetails>>;
export async function runGate(gate: GateId, input: GateInput, gates: GateRungs = GATE_RUNGS): Promise<RungResult<SyntaxDetails | SchemaDetails | GateSafetyDetails>> {
  const withParses = { ...input, parses: memoFor(input.parses, input.dialect) };
  if (gate === 'syntax') return gates.syntax(withParses);
  const facts: SyntaxFacts = { engineAccepted: enginePrepares(input) ? engineAcceptedBy(await gates.syntax(withParses)) : false };
  if (gate === 'schema') return gates.schema(withParses, facts);
  const own = withNamedStatements(input.sql, await gates.safety(withParses, facts));
  return input.probes !== undefined && input.probes.length > 0 ? judgeProbes(own, input, gates) : own;
}

/** A gate's step label: `L1`, `L2`, `L3` (another rung: its named score). */
export function gateStep(rung: RungId): string {
  return isGateId(rung) ? SCORES[rung].step : scoreNameOf(rung);
}

/** True when SQLite's `prepare` decides L1: an engine that runs the dialect and a database. */
function enginePrepares(input: GateInput): boolean {
  return input.engine !== undefined && input.db !== undefined && input.engine.dialect === input.dialect;
}

/** The shipped gates: checkSyntax, checkSchema, checkSafety wired to the gate input. */
export const GATE_RUNGS: GateRungs = {
  syntax: (input) =>
    checkSyntax({
      sql: input.sql,
      dialect: input.dialect,
      parses: input.parses,
      ...(enginePrepares(input) ? { engine: input.engine!, db: input.db! } : {}),
      ...(input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {}),
    }),
  schema: async (input, facts) => {
    let catalog = input.catalog;
    if (catalog === undefined) {
      if (input.engine === undefined || input.db === undefined) {
        throw new LadderError('invalid_argument', 'L2 schema needs a catalog: give catalog, or engine and db');
      }
      // A role's snapshot: names the whole database has beyond the role fail as not visible to it.
      catalog = await catalogAsRole(input.engine, input.db);
    }
    return checkSchema({
      sql: input.sql,
      dialect: input.dialect,
      catalog,
      parses: input.parses,
      engineAccepted: facts.engineAccepted,
      ...(input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {}),
    });
  },
  safety: async (input, facts) => judgeSafety(input, facts),
};

/**
 * L3 as the gate runner runs it, synchronously: for a front end that judges safety alone and has
 * no engine (the `toBeSafeSql` matcher), so `engineAccepted` is false unless given.
 * @throws LadderError `invalid_option` for a bad safety policy.
 */
export function judgeSafety(input: GateInput, facts: SyntaxFacts = { engineAccepted: false }): RungResult<SafetyDetails> {
  return checkSafety({
    sql: input.sql,
    dialect: input.dialect,
    engineAccepted: facts.engineAccepted,
    ...(input.parses !== undefined ? { parses: input.parses } : {}),
    ...(input.safetyPolicy !== undefined ? { policy: input.safetyPolicy } : {}),
  });
}
