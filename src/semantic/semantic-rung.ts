/**
 * The ladder's entry for the L5 semantic rung (`L5_semantic`): when it runs (after a passed L4, on
 * SQLite) and what it runs, `checkSemantic` (check-semantic.ts, which states the rule).
 *
 * L5 is off by default, and every front end imports this module to build its rung table: the
 * entry imports the checking code (the suite builder, the counterexample search, the database
 * generator) on its first run, so that a front end with L5 off loads none of it.
 */
import type { ExecutingRung, LadderContext, LadderResults } from '../rungs/ladder-rungs.js';
import { createSkippedResult, scoreNameOf } from '../rungs/rung-result.js';
import { DATABASE_NAMES } from '../sql/parse.js';
import type { SemanticOptions } from './semantic-options.js';
import type { SemanticService } from './semantic-service.js';

/**
 * The ladder's L5 entry: listed when created (front ends create it only when L5 is on), counts in
 * `end_to_end`, runs after a passed L4 on SQLite, `skipped` otherwise (on another dialect with a
 * reason that says it was not run and why; a skipped L5 does not count in `end_to_end`). Its first run that is not
 * skipped imports the checking code (check-semantic.ts); creating the entry loads nothing of it.
 * @param options - L5's validated options ({@link SemanticOptions}, from `readSemanticOptions`).
 * @param service - the front end's shared suites and searchers: its runtime's `semantic()`, a
 *   promise that is awaited on the first run that is not skipped (a rejection surfaces there).
 * @returns the rung table's entry; its `run` resolves to the `checkSemantic` result, or `skipped`
 *   naming why (L4 not passed, a dialect other than SQLite), and rejects with LadderError only for
 *   misuse (no gold, a missing database, a bad option), as `checkSemantic` does.
 * @example createLadderRungs({ semantic: createSemanticRung(readSemanticOptions(true), runtime.semantic()) })
 */
export function createSemanticRung(options: SemanticOptions, service: SemanticService | Promise<SemanticService>): ExecutingRung<'semantic'> {
  const ready = Promise.resolve(service);
  // Awaited only by a run that is not skipped: a rejection no run awaits is not an unhandled one.
  ready.catch(() => undefined);
  return {
    listed: () => true,
    endToEnd: true,
    async run(context: Pick<LadderContext, 'sql' | 'golds' | 'dialect' | 'fixture' | 'engine' | 'goldCache' | 'policy' | 'asOfDate'>, earlier: Pick<LadderResults, 'execution'>) {
      const execution = earlier.execution;
      if (execution === undefined || execution.status !== 'pass') return createSkippedResult('semantic', `${scoreNameOf('execution')} ${execution?.status ?? 'skipped'}`);
      if (context.dialect !== 'sqlite') {
        return createSkippedResult(
          'semantic',
          `not run: L5 builds its test-suite and counterexample databases as SQLite files, so it runs on SQLite items only; this item is ${DATABASE_NAMES[context.dialect]} (L4 alone decides end_to_end)`,
        );
      }
      const [{ checkSemantic }, shared] = await Promise.all([import('./check-semantic.js'), ready]);
      return checkSemantic({
        predictedSql: context.sql,
        golds: context.golds,
        snapshots: context.fixture.snapshots,
        invariants: context.fixture.invariants ?? [],
        engine: context.engine,
        policy: context.policy.comparison,
        options,
        service: shared,
        goldCache: context.goldCache,
        ...(context.policy.goldOrdered === undefined ? {} : { goldOrdered: context.policy.goldOrdered }),
        ...(context.asOfDate === undefined ? {} : { asOfDate: context.asOfDate }),
      });
    },
  };
}
