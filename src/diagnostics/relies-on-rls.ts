/**
 * `relies_on_rls` (diagnostic, never gates): would this prediction leak if production connections
 * were not role-scoped? For each of the item's role-scoped snapshots the prediction runs twice: as
 * the item's role, and as a read-only reader that sees every row but is not the owner (PostgreSQL:
 * the fixture's all-rows role, a `USING (true)` policy; SQLite: the full snapshot file). When the
 * two results differ as multisets of rows, the prediction is right for the role only because the
 * database filtered its rows: it is flagged (score 0, `status: fail`); when they agree on every
 * snapshot it does its own filtering (score 1). An item without a role is `skipped`.
 *
 * Meaningful for a prediction that passes L4: read it beside the ladder's verdict.
 */
import type { Cell, Engine } from '../engine/engine.js';
import { roleScopeOf } from '../engine/role-scope.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import { createRungResult, createSkippedResult, type RungResult } from '../rungs/rung-result.js';

/** Input of {@link checkReliesOnRls}. */
export interface ReliesOnRlsInput {
  readonly predictedSql: string;
  readonly engine: Engine;
  /** The item's snapshots (role-scoped ones: those the fixture registry handed out for a role). */
  readonly snapshots: readonly Snapshot[];
  /** Per-statement deadline (ms); the engine's default when absent. */
  readonly timeoutMs?: number;
}

/** Per snapshot: rows as the role and as the every-row reader. */
export interface ReliesOnRlsDetails {
  readonly role: string;
  readonly snapshots: readonly { readonly name: string; readonly asRole: number; readonly everyRow: number; readonly same: boolean }[];
}

/** A row as a comparable text (exact: decimals, dates and JSON keep their own text). */
function rowKey(row: readonly Cell[]): string {
  return JSON.stringify(row.map((cell) => (cell === null ? null : typeof cell === 'object' ? ['o', JSON.stringify(cell, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))] : [typeof cell, String(cell)])));
}

function multiset(rows: readonly (readonly Cell[])[]): string[] {
  return rows.map(rowKey).sort();
}

/**
 * Runs the diagnostic (see the module doc).
 * @returns `pass` (score 1) when the prediction's rows are the same as its role and as the
 *   every-row reader on every snapshot; `fail` (score 0) when they differ on one, naming it;
 *   `skipped` without a role-scoped snapshot or when the prediction fails as the role; `unscored`
 *   when it fails only as the every-row reader.
 */
export async function checkReliesOnRls(input: ReliesOnRlsInput): Promise<RungResult<ReliesOnRlsDetails | null>> {
  const scoped = input.snapshots.map((snapshot) => ({ snapshot, scope: roleScopeOf(snapshot.path) }));
  const role = scoped.find((entry) => entry.scope !== undefined)?.scope?.role;
  if (role === undefined) return createSkippedResult('reliesOnRls', 'the item has no role: nothing filters its rows');
  const limits = input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs };
  const snapshots: { name: string; asRole: number; everyRow: number; same: boolean }[] = [];
  for (const { snapshot, scope } of scoped) {
    if (scope === undefined) continue;
    const [asRole, everyRow] = await Promise.all([
      input.engine.execute({ db: snapshot.path, sql: input.predictedSql, ...limits }),
      input.engine.execute({ db: scope.everyRow, sql: input.predictedSql, ...limits }),
    ]);
    if (!asRole.ok) return createSkippedResult('reliesOnRls', `the prediction fails as role ${role} on snapshot ${snapshot.name}: ${asRole.error.message}`);
    if (!everyRow.ok) {
      return createRungResult({ rung: 'reliesOnRls', status: 'unscored', score: 0, reason: `the prediction fails as the every-row reader on snapshot ${snapshot.name}: ${everyRow.error.message}`, details: { role, snapshots } });
    }
    const a = multiset(asRole.result.rows);
    const b = multiset(everyRow.result.rows);
    snapshots.push({ name: snapshot.name, asRole: a.length, everyRow: b.length, same: a.length === b.length && a.every((key, index) => key === b[index]) });
  }
  const differing = snapshots.filter((entry) => !entry.same);
  if (differing.length === 0) {
    return createRungResult({ rung: 'reliesOnRls', status: 'pass', reason: `does its own filtering: the same rows as role ${role} and as a reader of every row on ${snapshots.map((s) => s.name).join(', ')}`, details: { role, snapshots }, namedScores: { reliesOnRls: 1 } });
  }
  const first = differing[0]!;
  return createRungResult({
    rung: 'reliesOnRls',
    status: 'fail',
    reason: `relies on row-level security: on snapshot ${first.name} it returns ${first.asRole} rows as role ${role} and ${first.everyRow} rows to a reader of every row; without a role-scoped connection it would answer with rows the role may not see${differing.length > 1 ? ` (+${differing.length - 1} more snapshots)` : ''}`,
    issues: differing.map((entry) => ({ kind: 'relies_on_rls', message: `snapshot ${entry.name}: ${entry.asRole} rows as role ${role}, ${entry.everyRow} rows as a reader of every row` })),
    details: { role, snapshots },
    namedScores: { reliesOnRls: 0 },
  });
}
