/**
 * Where the equivalence judge is asked, and what its answer makes of an item: the flowchart of
 * *Text-to-SQL Evals* §6 as two pure functions, so that the table below is tested verdict by
 * verdict.
 *
 * | execution says                                        | judge asked? (route)     | "equivalent"               | "not equivalent" |
 * |-------------------------------------------------------|--------------------------|----------------------------|------------------|
 * | a gate failed (L1–L3), or the prediction errors on every snapshot | no (`settled`) | —                    | — → `invalid`    |
 * | match, gold result not trivially small, no L5 witness | no (`settled`)           | — → `pass`                 |                  |
 * | match, and a verified L5 witness tells them apart     | no (`settled`)           | — → `lucky_match`          |                  |
 * | match on an empty or trivially small gold result      | yes (`possible_lucky_match`) | `pass` (witness: `lucky_match`, overruled) | `lucky_match` |
 * | results differ (L4 fail)                              | yes (`ex_failure`)       | `review` (witness: `wrong_result`, overruled) | `wrong_result` |
 * | nothing executed (no database)                        | yes (`no_database`)      | `pass`                     | `wrong_result`   |
 * | L4 unscored (no gold, no gold that runs)              | no: no judge verdict     |                            |                  |
 *
 * "Trivially small": no rows, or one row whose every cell is NULL, 0 or empty text (a count of
 * nothing, a sum over no rows), or at most `trivialRows` rows (default 0: only those).
 * A verified witness is L5's refutation (a snapshot, a database of the distilled suite, or the
 * counterexample search's shrunk and re-run database): the judge can never turn it into a pass.
 */
import type { JudgeOutcome, JudgeRoute } from '../../report/ladder-record.js';

/** What execution established about an item (read from a ladder run by `routingFactsOf`). */
export interface RoutingFacts {
  /** A gate (L1 syntax, L2 schema, L3 safety) failed, or the prediction failed to run everywhere. */
  readonly invalid: boolean;
  /** L4: `match` on every snapshot for some gold, `mismatch`, `unscored`, or `not_run` (no database). */
  readonly execution: 'match' | 'mismatch' | 'unscored' | 'not_run';
  /** On a match: the gold result was empty or trivially small on some snapshot. */
  readonly trivialGold: boolean;
  /** L5 refuted the prediction with a verified database. */
  readonly witness: boolean;
}

/** Where an item goes: the judge (`route` ≠ `settled`), or an outcome execution settled. */
export type Routing =
  | { readonly route: Exclude<JudgeRoute, 'settled'> }
  | { readonly route: 'settled'; readonly outcome: JudgeOutcome }
  | { readonly route: 'none'; readonly reason: string };

/** Routes an item (see the module table). */
export function routeItem(facts: RoutingFacts): Routing {
  if (facts.invalid) return { route: 'settled', outcome: 'invalid' };
  switch (facts.execution) {
    case 'unscored':
      return { route: 'none', reason: 'L4 unscored: no gold to judge against' };
    case 'not_run':
      return { route: 'no_database' };
    case 'mismatch':
      return { route: 'ex_failure' };
    case 'match':
      if (facts.trivialGold) return { route: 'possible_lucky_match' };
      return { route: 'settled', outcome: facts.witness ? 'lucky_match' : 'pass' };
  }
}

/** The outcome of an item the judge answered, and whether a witness overruled the judge. */
export interface JudgedOutcome {
  readonly outcome: JudgeOutcome;
  /** The judge said "equivalent" against a verified L5 witness: the outcome is a FAIL and the disagreement counts against the judge. */
  readonly witnessOverruled: boolean;
}

/** The flowchart outcome of the judge's answer on a route (see the module table). */
export function outcomeOf(route: Exclude<JudgeRoute, 'settled'>, equivalent: boolean, witness: boolean): JudgedOutcome {
  const overruled = equivalent && witness;
  switch (route) {
    case 'possible_lucky_match':
      return { outcome: equivalent && !witness ? 'pass' : 'lucky_match', witnessOverruled: overruled };
    case 'ex_failure':
      return { outcome: equivalent && !witness ? 'review' : 'wrong_result', witnessOverruled: overruled };
    case 'no_database':
      return { outcome: equivalent && !witness ? 'pass' : 'wrong_result', witnessOverruled: overruled };
  }
}

/**
 * The item's `end_to_end` under a counted (calibrated) judge: 0 for every FAIL outcome and for
 * `review` (not a pass until a person accepts it); for `pass`, the ladder's own value (its other
 * rungs, L7 for one, still count), or 1 when the ladder had none (no database).
 */
export function endToEndUnderJudge(outcome: JudgeOutcome, ladderEndToEnd: number | undefined): number {
  return outcome === 'pass' ? (ladderEndToEnd ?? 1) : 0;
}

/** Whether a result (rows of cells) is trivially small: see the module doc. */
export function isTrivialResult(rows: readonly (readonly unknown[])[], trivialRows = 0): boolean {
  if (rows.length <= trivialRows) return true;
  if (rows.length === 0) return true;
  return rows.length === 1 && rows[0]!.every((cell) => cell === null || cell === 0 || cell === 0n || cell === '' || (typeof cell === 'string' && cell.trim() === '0'));
}
