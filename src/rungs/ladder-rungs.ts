/**
 * The shipped rung implementations wired into the ladder's {@link LadderRungs} shape, plus the
 * facts about L4 that reports need. Front ends (promptfoo assertions, CLI, vitest) call
 * `runLadder(input, createLadderRungs(options))`.
 *
 * Wiring rules:
 * - L2 gets `engineAccepted` from L1 (SQLite's prepare accepted the text), so a statement SQLite
 *   accepts is never failed because the AST layer could not read it.
 * - L3 gets the same flag, and the safety policy (LIMIT / allowed tables off by default).
 * - L6 (`runEfficiencyRung`) compares the prediction with the gold that matched in L4 (as run after
 *   the policy's rewrites), on the first snapshot.
 * - L7 (`runAnswerRung`) grounds the prose answer in the rows the prediction returns on the first
 *   snapshot.
 */
import type { SafetyPolicy } from '../safety/policy.js';
import { runAnswerRung } from './answer.js';
import { runEfficiencyRung } from './efficiency.js';
import { checkExecution } from './execution.js';
import type { ExecutionDetails } from './execution.js';
import type { LadderRungs } from './ladder.js';
import type { RungResult } from './rung-result.js';
import { checkSafety } from './safety.js';
import { checkSchema } from './schema.js';
import { checkSyntax } from './syntax.js';
import type { SyntaxDetails } from './syntax.js';

/** Which optional rungs to include. */
export interface LadderRungOptions {
  /** Include L6 (runs after a passed L4). Default false. */
  readonly efficiency?: boolean;
  /** Include L7 (runs when the output has a prose answer). Default false. */
  readonly answer?: boolean;
  /** Row order override from the dataset (`gold_result_ordered`). */
  readonly goldOrdered?: boolean;
}

/**
 * True when SQLite's own prepare accepted the text at L1 (`details.engineAccepted`), so that L2
 * and L3 never fail a statement the engine accepted only because the AST layer cannot read it.
 */
export function engineAccepted(syntax: RungResult): boolean {
  const details = syntax.details as Partial<SyntaxDetails> | null | undefined;
  return syntax.status === 'pass' && details?.engineAccepted === true;
}

/** The rung implementations for {@link runLadder}. */
export function createLadderRungs(options: LadderRungOptions = {}): LadderRungs {
  const rungs: LadderRungs = {
    syntax: (input) => checkSyntax(input.engine !== undefined && input.db !== undefined ? input : { sql: input.sql, dialect: input.dialect }),
    schema: (input) => checkSchema({ sql: input.sql, dialect: input.dialect, catalog: input.catalog, engineAccepted: engineAccepted(input.syntax), ...(input.doubleQuotes ? { doubleQuotes: input.doubleQuotes } : {}) }),
    safety: (input) => checkSafety({ sql: input.sql, dialect: input.dialect, engineAccepted: engineAccepted(input.syntax), ...(input.policy ? { policy: input.policy as SafetyPolicy } : {}) }),
    execution: (input) =>
      checkExecution({
        predictedSql: input.predictedSql,
        golds: input.golds,
        snapshots: input.snapshots,
        engine: input.engine,
        ...(input.policy !== undefined ? { policy: input.policy } : {}),
        ...(input.cache !== undefined ? { cache: input.cache } : {}),
        ...(input.doubleQuotes !== undefined ? { doubleQuotes: input.doubleQuotes } : {}),
        ...(input.asOfDate !== undefined ? { asOfDate: input.asOfDate } : {}),
        ...(options.goldOrdered !== undefined ? { goldOrdered: options.goldOrdered } : {}),
      }),
  };
  // L6 and L7 in the ladder's call shape, from their own modules (they validate their options).
  if (options.efficiency) rungs.efficiency = runEfficiencyRung;
  if (options.answer) rungs.answer = runAnswerRung;
  return rungs;
}

/** Facts about an L4 result for reports (see src/report/ladder-summary.ts). */
export interface ExecutionFacts {
  /** The prediction ran without error on every snapshot. */
  readonly executed: boolean;
  /** A gold failed on a snapshot. */
  readonly goldError: boolean;
  /** L4 passed with an empty gold result (flag `empty_gold`). */
  readonly emptyGoldMatch: boolean;
}

/** Reads {@link ExecutionFacts} from an execution RungResult (any status; absent → all false). */
export function executionFacts(execution: RungResult | undefined): ExecutionFacts {
  const details = execution?.details as Partial<ExecutionDetails> | null | undefined;
  if (!execution || !details || typeof details !== 'object') return { executed: false, goldError: false, emptyGoldMatch: false };
  const snapshots = details.snapshots ?? [];
  return {
    executed: snapshots.length > 0 && snapshots.every((snapshot) => snapshot.predictedError === undefined),
    goldError: (details.goldErrors ?? []).length > 0,
    emptyGoldMatch: execution.status === 'pass' && (details.flags ?? []).includes('empty_gold'),
  };
}
