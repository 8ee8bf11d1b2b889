/**
 * Counting the statements whose outcome depends on the machine rather than on the query: a
 * deadline passed (`timeout`), the child went over its memory cap (`memory_limit`) or died
 * (`engine_failure`). An L5 verdict that met any is never cached (verdict-cache.ts).
 */
import type { Engine, ExecutionOutcome, ExplainOutcome } from '../../engine/engine.js';

/** Error codes of the moment, not of the query. */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set(['timeout', 'memory_limit', 'engine_failure']);

/** An engine view that counts transient failures, and the count so far. */
export interface CountingEngine {
  /** Runs every call on the wrapped engine; `close` does not close it (the view owns nothing). */
  readonly engine: Engine;
  /** Statements that failed with a transient code since the view was made. */
  count(): number;
}

/**
 * Wraps an engine so that its transient failures are counted. Other properties (`options` of a
 * SQLite engine, read by the verdict cache's key) are passed through.
 */
export function countTransientFailures(engine: Engine): CountingEngine {
  let failures = 0;
  const seen = <T extends ExecutionOutcome | ExplainOutcome>(outcome: T): T => {
    if (!outcome.ok && TRANSIENT_CODES.has(outcome.error.code)) failures += 1;
    return outcome;
  };
  const view: Engine & { readonly options?: unknown } = {
    dialect: engine.dialect,
    ...('options' in engine ? { options: (engine as { readonly options?: unknown }).options } : {}),
    execute: async (request) => seen(await engine.execute(request)),
    prepare: async (request) => seen(await engine.prepare(request)),
    explain: async (request) => seen(await engine.explain(request)),
    catalog: (db) => engine.catalog(db),
    close: async () => undefined,
  };
  return { engine: view, count: () => failures };
}
