/**
 * What a gold audit reports: one {@link AuditFinding} per problem, each naming the item, the
 * snapshot (and role) and the rows, and the catalogue of kinds with their severities. The kinds of
 * a gold's own checks come from the gold checks module (src/compare/gold-checks.ts), the one place
 * a gold is judged; the audit adds what needs the whole dataset, earlier runs or the generator.
 */
import { GOLD_CHECK_KINDS, type GoldCheckKind, type GoldCheckSeverity } from '../compare/gold-checks.js';
import type { FindingRows } from '../compare/gold-result-checks.js';

/** Kinds only the audit reports (they need other items, earlier runs or the generator). */
export type AuditOnlyKind =
  /** A dataset record (or Spider gold line) that did not load; `file:line`. */
  | 'dataset_error'
  /** The item's fixture, role or database could not be resolved. */
  | 'fixture_error'
  /** The item names a snapshot its fixture does not have. */
  | 'unknown_snapshot'
  /** An `answer` item without gold SQL: unscored, nothing grades it (its promptfoo rows fail). */
  | 'no_gold'
  /** The gold returns no rows on a snapshot and no twin item returns rows there. */
  | 'empty_without_twin'
  /** Most of the earlier runs agree with each other and not with the gold. */
  | 'runs_agree_against_gold'
  /** Neighbour queries of the gold that the snapshots cannot tell apart from it. */
  | 'weak_fixture';

/** Every kind an audit reports. */
export type AuditFindingKind = GoldCheckKind | AuditOnlyKind;

/** Severities, worst first. */
export const SEVERITIES: readonly GoldCheckSeverity[] = ['error', 'warning', 'info'];

/** A kind's severity and one line about it. */
export interface AuditKindInfo {
  readonly severity: GoldCheckSeverity;
  readonly summary: string;
}

/** Every kind with its severity, in report order. */
export const AUDIT_FINDING_KINDS: Readonly<Record<AuditFindingKind, AuditKindInfo>> = Object.freeze({
  dataset_error: { severity: 'error', summary: 'a record that did not load' },
  fixture_error: { severity: 'error', summary: "the item's fixture, role or database cannot be resolved" },
  unknown_snapshot: { severity: 'error', summary: 'the item names a snapshot its fixture does not have' },
  no_gold: { severity: 'warning', summary: 'an answer item without gold SQL: unscored, nothing grades it (its promptfoo rows fail)' },
  gold_error: GOLD_CHECK_KINDS.gold_error,
  gold_timeout: GOLD_CHECK_KINDS.gold_timeout,
  golds_disagree: GOLD_CHECK_KINDS.golds_disagree,
  clock_dependent_gold: GOLD_CHECK_KINDS.clock_dependent_gold,
  random_dependent_gold: GOLD_CHECK_KINDS.random_dependent_gold,
  timezone_dependent_gold: GOLD_CHECK_KINDS.timezone_dependent_gold,
  tie_at_limit: GOLD_CHECK_KINDS.tie_at_limit,
  limit_without_order_by: GOLD_CHECK_KINDS.limit_without_order_by,
  ties_in_result: GOLD_CHECK_KINDS.ties_in_result,
  null_sort_key: GOLD_CHECK_KINDS.null_sort_key,
  empty_without_twin: { severity: 'warning', summary: 'the gold returns no rows and no twin item returns rows on that snapshot' },
  all_null_row: GOLD_CHECK_KINDS.all_null_row,
  runs_agree_against_gold: { severity: 'warning', summary: 'most earlier runs agree with each other against the gold (a likely wrong gold)' },
  same_on_every_snapshot: GOLD_CHECK_KINDS.same_on_every_snapshot,
  weak_fixture: { severity: 'info', summary: 'the snapshots cannot tell some neighbour queries apart from the gold' },
  ties_unchecked: GOLD_CHECK_KINDS.ties_unchecked,
});

/** Every kind, in report order. */
export const AUDIT_KIND_ORDER: readonly AuditFindingKind[] = Object.keys(AUDIT_FINDING_KINDS) as AuditFindingKind[];

/** One problem the audit found. */
export interface AuditFinding {
  readonly kind: AuditFindingKind;
  readonly severity: GoldCheckSeverity;
  /** The item's id; `null` for a record whose id could not be read. */
  readonly item: string | null;
  /** Where the item is written: `file:line`. */
  readonly source: string | null;
  /** The snapshot it was found on; `null` for findings of the text or of every snapshot. */
  readonly snapshot: string | null;
  /** The role whose copy of the snapshot the gold ran on; `null` for the full database. */
  readonly role: string | null;
  /** The gold's index in the item (0-based, as L4 reasons name it); `null` when no one gold. */
  readonly gold: number | null;
  /** One line. */
  readonly message: string;
  /** The rows the finding is about (kept and left out at a cut, the tied rows, …). */
  readonly rows: readonly FindingRows[];
  /** Extra facts for machines (the runs that agree, the survivors, the position in the text). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Builds a finding with the kind's severity. */
export function createFinding(fields: Omit<AuditFinding, 'severity' | 'rows' | 'snapshot' | 'role' | 'gold' | 'source'> & Partial<Pick<AuditFinding, 'rows' | 'snapshot' | 'role' | 'gold' | 'source'>>): AuditFinding {
  return {
    kind: fields.kind,
    severity: AUDIT_FINDING_KINDS[fields.kind].severity,
    item: fields.item,
    source: fields.source ?? null,
    snapshot: fields.snapshot ?? null,
    role: fields.role ?? null,
    gold: fields.gold ?? null,
    message: fields.message,
    rows: fields.rows ?? [],
    ...(fields.details === undefined ? {} : { details: fields.details }),
  };
}
