/**
 * The gold audit: the check a team runs before trusting a dataset. Every gold of every item runs
 * on every snapshot the item names (role-scoped copies where it has a role), through the runtime's
 * engine and gold cache, and is judged by the gold checks (src/compare/gold-checks.ts) — the
 * module the execution rung takes its verdict flags from:
 * - the text: clock, randomness and time-zone reads, LIMIT without ORDER BY;
 * - each result: errors and timeouts, ties at a LIMIT cut found from the data (the tie query of
 *   the tie-aware ordering, whatever the audit's policy), ties inside an ordered result, NULL sort
 *   keys, one all-NULL row, the rows a LIMIT without ORDER BY drops;
 * - the item: golds that disagree on a snapshot (a later gold judged against the first by L4
 *   under the audit's policy), a result identical on every snapshot;
 * - the dataset: an empty result without a non-empty twin item (twins.ts);
 * - with earlier runs, the items where most runs agree with each other against the gold
 *   (audit-runs.ts); with `strength`, fixture strength per item (audit-strength.ts).
 * The checks of one result on one snapshot are in audit-result.ts.
 *
 * Golds run as written (the policy's Spider rewrites are for comparisons, not for what a gold
 * returns).
 */
import { resolvePolicy, type ComparisonPolicy, type PolicyInput, type PresetName } from '../compare/policy.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import type { ExecutionOutcome, QueryResult } from '../engine/engine.js';
import { runGoldChecks, type GoldCheckSeverity } from '../compare/gold-checks.js';
import { checkGoldRun, checkGoldsAgree, checkSameOnEverySnapshot, planLimitCut, type GoldResultFinding } from '../compare/gold-result-checks.js';
import { checkResult } from './audit-result.js';
import { runGoldsOnSnapshots } from './verify-golds.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { createParseMemo } from '../rungs/parse-memo.js';
import { positionAt, type ParseResult } from '../sql/parse.js';
import { AUDIT_KIND_ORDER, createFinding, type AuditFinding, type AuditFindingKind } from './audit-finding.js';
import { judgeRuns, type AuditRun, type RunVerdict } from './audit-runs.js';
import type { AuditItem, AuditSource } from './audit-source.js';
// audit-strength.ts (the suite builder and the database generator) is imported only with `strength`.
import type { measureStrength, StrengthOptions } from './audit-strength.js';
import type { ReviewStatus } from '../review/review-status.js';
import { createTwinFinder } from './twins.js';

/** Options of {@link auditGolds}. */
export interface AuditOptions {
  /** The front end's runtime (engine, gold cache, fixtures). */
  readonly runtime: LadderRuntime;
  /** The policy golds are compared under (golds with golds, runs with golds); default `default`. */
  readonly policy?: PresetName | PolicyInput | ComparisonPolicy;
  /** Earlier runs (`--runs`). */
  readonly runs?: readonly AuditRun[];
  /** Measure fixture strength per item (slow: neighbour queries of every gold). */
  readonly strength?: boolean | StrengthOptions;
  /** Items audited at once (default 4). */
  readonly concurrency?: number;
  /** Called after each item's golds ran: items done and the total. */
  readonly onItem?: (done: number, total: number) => void;
}

/** One gold's result on one snapshot, as the report lists it. */
export type GoldResultSummary = { readonly rows: number } | { readonly error: string };

/** One audited item. */
export interface AuditedItem {
  readonly id: string;
  readonly source: string;
  readonly db: string;
  readonly role: string | null;
  readonly golds: number;
  /** Each snapshot with each gold's row count or error. */
  readonly snapshots: readonly { readonly name: string; readonly path: string; readonly checksum: string | null; readonly results: readonly GoldResultSummary[] }[];
  /** Each run's verdict (with `runs`). */
  readonly runs?: readonly RunVerdict[];
  /** Fixture strength (with `strength`). */
  readonly strength?: { readonly neighbours: number; readonly distinguished: number; readonly strength: number };
}

/** The whole audit. */
export interface AuditReport {
  readonly input: { readonly kind: AuditSource['kind']; readonly path: string };
  /** The preset of the comparison policy. */
  readonly policy: PresetName;
  readonly counts: {
    /** Items loaded (with or without gold). */
    readonly loaded: number;
    /** Items with gold SQL, audited. */
    readonly audited: number;
    /** `answer` items without gold SQL (unscored; each a `no_gold` finding). */
    readonly withoutGold: number;
    readonly golds: number;
    /** Gold executions: golds × snapshots. */
    readonly goldRuns: number;
    readonly error: number;
    readonly warning: number;
    readonly info: number;
  };
  /** Findings per kind (kinds with none left out), in report order. */
  readonly byKind: Readonly<Partial<Record<AuditFindingKind, { readonly findings: number; readonly items: number }>>>;
  readonly items: readonly AuditedItem[];
  /** Findings by item (dataset order), then kind (report order), snapshot and gold. */
  readonly findings: readonly AuditFinding[];
  /** The runs given, with how many items each has an output for. */
  readonly runs: readonly { readonly spec: string; readonly label: string; readonly format: AuditRun['format']; readonly outputs: number }[];
  /** Dataset-level strength (with `strength`). */
  readonly strength?: { readonly neighbours: number; readonly distinguished: number; readonly strength: number };
  /** A dataset's review state: pairs waiting in the review queue, golds added by review (src/review/). */
  readonly review?: ReviewStatus;
}

interface ItemState {
  readonly item: AuditItem;
  readonly findings: AuditFinding[];
  /** The snapshots the golds ran on. */
  readonly snapshots: readonly Snapshot[];
  readonly summary: AuditedItem;
  /** Snapshot name → the reference gold's result (the first gold that ran there). */
  readonly reference: ReadonlyMap<string, QueryResult>;
}

/**
 * Audits every item of `source` (see the module doc).
 * @returns the report; findings never throw — a gold's own fault is a finding.
 * @throws LadderError `invalid_option` for a bad policy; engine misuse (a closed engine).
 */
export async function auditGolds(source: AuditSource, options: AuditOptions): Promise<AuditReport> {
  // Apply defaults, validate and interpret the options.
  const policy = resolvePolicy(options.policy);
  const runs = options.runs ?? [];
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const { runtime } = options;

  const states: ItemState[] = new Array(source.items.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < source.items.length) {
      const index = next;
      next += 1;
      states[index] = await auditItem(source.items[index]!, source, runtime, policy);
      done += 1;
      options.onItem?.(done, source.items.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, source.items.length)) }, worker));

  findEmptyWithoutTwin(states);
  const runVerdicts = new Map<string, readonly RunVerdict[]>();
  if (runs.length > 0) {
    let nextRun = 0;
    const runWorker = async (): Promise<void> => {
      while (nextRun < states.length) {
        const state = states[nextRun]!;
        nextRun += 1;
        if (state.snapshots.length === 0) continue;
        const judged = await judgeRuns({ item: state.item, snapshots: state.snapshots, runs, runtime, policy });
        runVerdicts.set(state.item.id, judged.verdicts);
        if (judged.finding !== undefined) state.findings.push(judged.finding);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, states.length)) }, runWorker));
  }
  let strength: Awaited<ReturnType<typeof measureStrength>> | undefined;
  if (options.strength !== undefined && options.strength !== false) {
    // L5's generated databases are SQLite files: strength is measured on SQLite items only.
    const measured = states.filter((state) => state.snapshots.length > 0 && state.snapshots.every((snapshot) => snapshot.engine !== 'postgres')).map((state) => state.item);
    const strengthModule = await import('./audit-strength.js');
    strength = await strengthModule.measureStrength(source, measured, runtime.engine(), policy, options.strength === true ? {} : options.strength);
    for (const found of strength.findings) states.find((state) => state.item.id === found.item)?.findings.push(found);
  }

  const kindRank = new Map(AUDIT_KIND_ORDER.map((kind, i) => [kind, i]));
  const findings: AuditFinding[] = [...source.loadErrors, ...source.withoutGold];
  for (const state of states) {
    const snapshotRank = new Map(state.snapshots.map((s, i) => [s.name, i]));
    const rank = (f: AuditFinding): number => (f.snapshot === null ? -1 : snapshotRank.get(f.snapshot) ?? state.snapshots.length);
    findings.push(...[...state.findings].map((f) => atGold(f, state.item)).sort((a, b) => kindRank.get(a.kind)! - kindRank.get(b.kind)! || rank(a) - rank(b) || (a.gold ?? -1) - (b.gold ?? -1)));
  }
  const count = (severity: GoldCheckSeverity): number => findings.filter((f) => f.severity === severity).length;
  const byKind: Partial<Record<AuditFindingKind, { findings: number; items: number }>> = {};
  for (const kind of AUDIT_KIND_ORDER) {
    const of = findings.filter((f) => f.kind === kind);
    if (of.length > 0) byKind[kind] = { findings: of.length, items: new Set(of.map((f) => f.item ?? f.source)).size };
  }
  const items = states.map((state): AuditedItem => {
    const measured = strength?.strength.get(state.item.id);
    const verdicts = runVerdicts.get(state.item.id);
    return {
      ...state.summary,
      ...(verdicts === undefined ? {} : { runs: verdicts }),
      ...(measured === undefined ? {} : { strength: { neighbours: measured.neighbours, distinguished: measured.distinguished, strength: measured.strength } }),
    };
  });
  let overall: AuditReport['strength'];
  if (strength !== undefined) {
    const neighbours = [...strength.strength.values()].reduce((n, s) => n + s.neighbours, 0);
    const distinguished = [...strength.strength.values()].reduce((n, s) => n + s.distinguished, 0);
    overall = { neighbours, distinguished, strength: neighbours === 0 ? 1 : distinguished / neighbours };
  }
  return {
    input: { kind: source.kind, path: source.path },
    policy: policy.preset,
    counts: {
      loaded: source.loaded,
      audited: source.items.length,
      withoutGold: source.withoutGold.length,
      golds: source.items.reduce((n, item) => n + item.golds.length, 0),
      goldRuns: states.reduce((n, state) => n + state.item.golds.length * state.snapshots.length, 0),
      error: count('error'),
      warning: count('warning'),
      info: count('info'),
    },
    byKind,
    items,
    findings,
    runs: runs.map((run) => ({ spec: run.spec, label: run.label, format: run.format, outputs: run.outputs.size })),
    ...(overall === undefined ? {} : { strength: overall }),
  };
}

/** Runs and judges one item's golds. */
async function auditItem(item: AuditItem, source: AuditSource, runtime: LadderRuntime, policy: ComparisonPolicy): Promise<ItemState> {
  const where = { item: item.id, source: item.source, role: item.role ?? null };
  const findings: AuditFinding[] = [];
  const fromGold = (found: GoldResultFinding, snapshot: string | null): AuditFinding =>
    createFinding({ ...where, kind: found.kind, snapshot, gold: found.goldIndex, message: found.message, rows: found.rows });
  const summary = (snapshots: AuditedItem['snapshots']): AuditedItem => ({ id: item.id, source: item.source, db: item.db, role: item.role ?? null, golds: item.golds.length, snapshots });

  const resolved = await source.resolve(item);
  // The text, in its databases' dialect; one parse per SQL text of the item, shared by every check
  // (as the ladder's parse memo).
  const dialect = resolved.ok && resolved.snapshots[0]?.engine === 'postgres' ? 'postgres' : 'sqlite';
  const memo = createParseMemo(dialect);
  const parse = (sql: string): ParseResult => memo.parse(sql);
  const text = runGoldChecks({ golds: item.golds, parse, dialect, ...(item.asOfDate === undefined ? {} : { asOfDate: item.asOfDate }) });
  if (!resolved.ok) {
    findings.push(...text.map((found) => createFinding({ ...where, kind: found.kind, gold: found.goldIndex, message: found.message, details: { construct: found.construct, line: found.line, column: found.column } })), ...resolved.findings);
    return { item, findings, snapshots: [], summary: summary([]), reference: new Map() };
  }
  findings.push(...resolved.unknown);
  const snapshots = resolved.snapshots;

  // Every gold on every snapshot.
  const runs = await runGoldsOnSnapshots({ golds: item.golds, snapshots, runtime, policy, ...(item.goldOrdered === undefined ? {} : { goldOrdered: item.goldOrdered }) });
  const limitCutFound = item.golds.map(() => false);
  const limitCutChecked = item.golds.map(() => 0);
  const reference = new Map<string, QueryResult>();
  const perGold: (QueryResult | undefined)[][] = item.golds.map(() => snapshots.map(() => undefined));
  let orderMatters0: boolean | undefined;
  const subqueryFailures = new Set<string>();
  for (const { snapshot, outcomes, agreement } of runs) {
    for (const [g, outcome] of outcomes.entries()) {
      const failed = checkGoldRun(g, outcome);
      if (failed !== undefined) {
        findings.push(fromGold(failed, snapshot.name));
        continue;
      }
      const result = (outcome as Extract<ExecutionOutcome, { ok: true }>).result;
      perGold[g]![snapshots.indexOf(snapshot)] = result;
      if (!reference.has(snapshot.name)) reference.set(snapshot.name, result);
      const checked = await checkResult({ item, goldIndex: g, snapshot, result, runtime, parse, subqueryFailures });
      if (g === 0) orderMatters0 ??= checked.orderMatters;
      if (checked.limitCut !== 'none') limitCutChecked[g] = limitCutChecked[g]! + 1;
      if (checked.limitCut === 'drops') limitCutFound[g] = true;
      findings.push(...checked.findings.map((found) => fromGold(found, snapshot.name)), ...checked.ofTheGold.map((found) => fromGold(found, null)));
    }
    for (const [g, verdict] of agreement.entries()) {
      const first = verdict?.details.snapshots[0];
      if (first?.verdict === undefined || first.columns === undefined) continue;
      const disagree = checkGoldsAgree(g, 0, first.verdict, first.columns);
      if (disagree !== undefined) findings.push(fromGold(disagree, snapshot.name));
    }
  }

  // The text findings: the outermost LIMIT without ORDER BY is replaced by its data findings.
  for (const found of text) {
    const plan = found.kind === 'limit_without_order_by' ? planLimitCut(item.golds[found.goldIndex]!, parse) : undefined;
    const outer = plan !== undefined && positionAt(item.golds[found.goldIndex]!, plan.start).line === found.line && positionAt(item.golds[found.goldIndex]!, plan.start).column === found.column;
    if (outer && limitCutFound[found.goldIndex]) continue;
    const checkedEverywhere = outer && limitCutChecked[found.goldIndex] === snapshots.length && snapshots.length > 0;
    const message = checkedEverywhere ? `${found.message}; it drops no differing row on any snapshot today` : found.message;
    findings.push(createFinding({ ...where, kind: found.kind, gold: found.goldIndex, message, details: { construct: found.construct, line: found.line, column: found.column } }));
  }

  // Across snapshots: the first gold's results.
  const firstResults = perGold[0]!;
  if (snapshots.length > 1 && firstResults.every((r) => r !== undefined)) {
    const same = checkSameOnEverySnapshot(0, snapshots.map((s) => s.name), firstResults as QueryResult[], orderMatters0 ?? false);
    if (same !== undefined) findings.push(fromGold(same, null));
  }

  const summarySnapshots = runs.map(({ snapshot, outcomes }) => ({
    name: snapshot.name,
    path: snapshot.path,
    checksum: snapshot.checksum ?? null,
    results: outcomes.map((outcome): GoldResultSummary => (outcome.ok ? { rows: outcome.result.rows.length } : { error: `${outcome.error.code}: ${outcome.error.message}` })),
  }));
  return { item, findings, snapshots, summary: summary(summarySnapshots), reference };
}

/** `empty_without_twin`: an empty result on a snapshot where no twin returns rows. */
function findEmptyWithoutTwin(states: readonly ItemState[]): void {
  const twins = createTwinFinder(states.map((state) => state.item));
  const byId = new Map(states.map((state) => [state.item.id, state]));
  for (const state of states) {
    for (const snapshot of state.snapshots) {
      const result = state.reference.get(snapshot.name);
      if (result === undefined || result.rows.length > 0) continue;
      const candidates = twins.twinsOf(state.item);
      const nonEmpty = candidates.filter(({ item }) => (byId.get(item.id)?.reference.get(snapshot.name)?.rows.length ?? 0) > 0);
      if (nonEmpty.length > 0) continue;
      const named = candidates.map(({ item, declared }) => `${item.id}${declared ? ' (pair tag)' : ''}`);
      const message =
        named.length === 0
          ? `the gold returns no rows on ${snapshot.name} and the item has no twin: any query that returns nothing passes it (add an item with the same question about a value that has rows, and name it in a pair tag)`
          : `the gold returns no rows on ${snapshot.name} and so do its twins ${named.join(', ')}: any query that returns nothing passes them all`;
      state.findings.push(
        createFinding({
          kind: 'empty_without_twin',
          item: state.item.id,
          source: state.item.source,
          snapshot: snapshot.name,
          role: state.item.role ?? null,
          gold: 0,
          message,
          details: { columns: result.columns, twins: candidates.map(({ item, declared }) => ({ id: item.id, declared })) },
        }),
      );
    }
  }
}

/** A finding about one gold points at that gold's own line (the item's `file:line` otherwise). */
function atGold(finding: AuditFinding, item: AuditItem): AuditFinding {
  const at = finding.gold === null ? undefined : item.goldSources?.[finding.gold];
  return at === undefined || finding.source === at ? finding : { ...finding, source: at };
}
