/**
 * Both results of a review pair on each snapshot: the reported gold and the candidate run through
 * the runtime's engine (the same read-only, killable engine as the ladder; the gold from the gold
 * cache), each cut to a preview for the reviewer. The stored run keeps only L4's differences, not
 * the two results, so the queue computes them when it is built.
 */
import type { ExecutionOutcome } from '../engine/engine.js';
import { snapshotOfFile, type Snapshot } from '../fixtures/snapshot.js';
import { engineDefaults } from '../rungs/execution.js';
import { toJsonSafe } from '../report/ladder-record.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';
import { errorText } from '../format.js';
import type { ResultPreview, SnapshotEvidence } from './review-entry.js';

/** Rows kept per result in a queue entry unless told otherwise. */
export const DEFAULT_PREVIEW_ROWS = 5;

/** Where an item runs and what to run. */
export interface EvidenceRequest {
  /** Fixture name; ignored when `dbPaths` is given. */
  readonly db: string | null;
  /** Absolute SQLite files of an item on plain files (one snapshot each). */
  readonly dbPaths: readonly string[];
  /** Snapshot names to run on (all of the fixture when empty). */
  readonly snapshots: readonly string[];
  readonly role: string | null;
  readonly gold: string;
  readonly candidate: string;
}

/**
 * Runs gold and candidate on each snapshot of the item.
 * @param verdicts - L4's verdict line per snapshot name, as the run stored it.
 * @returns one entry per snapshot in the fixture's order.
 * @throws LadderError from the fixture registry (unknown fixture or role, a fixture that cannot be
 *   built): the caller records it as the entry's `evidenceError`.
 */
export async function computeEvidence(request: EvidenceRequest, runtime: LadderRuntime, verdicts: ReadonlyMap<string, string>, previewRows: number = DEFAULT_PREVIEW_ROWS): Promise<SnapshotEvidence[]> {
  let snapshots: readonly Snapshot[];
  if (request.dbPaths.length > 0) snapshots = request.dbPaths.map((file) => snapshotOfFile(file));
  else {
    const fixture = await runtime.resolveFixture(request.db ?? '', request.role ?? undefined);
    snapshots = request.snapshots.length === 0 ? fixture.snapshots : fixture.snapshots.filter((snapshot) => request.snapshots.includes(snapshot.name));
  }
  const evidence: SnapshotEvidence[] = [];
  for (const snapshot of snapshots) {
    const engine = await runtime.engineForSnapshot(snapshot);
    const defaults = engineDefaults(engine);
    const doubleQuotes = defaults.doubleQuotes ?? 'legacy';
    const maxRows = defaults.maxRows;
    const run = (sql: string): Promise<ExecutionOutcome> => engine.execute({ db: snapshot.path, sql, doubleQuotes, ...(maxRows !== undefined ? { maxRows } : {}) });
    const gold = await runtime.goldCache.getOrRun({ snapshot, sql: request.gold, doubleQuotes, maxRows }, () => run(request.gold)).outcome;
    const candidate = await run(request.candidate);
    evidence.push({ snapshot: snapshot.name, gold: previewOf(gold, previewRows), candidate: previewOf(candidate, previewRows), verdict: verdicts.get(snapshot.name) ?? null });
  }
  return evidence;
}

function previewOf(outcome: ExecutionOutcome, previewRows: number): ResultPreview {
  if (!outcome.ok) return { ok: false, error: errorText(outcome.error.message) };
  const { columns, rows } = outcome.result;
  return { ok: true, columns: [...columns], rows: toJsonSafe(rows.slice(0, previewRows)) as unknown[][], rowCount: rows.length };
}
