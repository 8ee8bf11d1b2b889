/**
 * The public API of the `text2sql-ladder` package entry: a deliberate list of what users of the
 * core need, grouped by task and documented one by one in docs/api.md. Everything else is
 * internal; code inside this repository imports from the defining module, never from here.
 * Adapters have their own entries: promptfoo assertions in `text2sql-ladder/assertions`, vitest
 * matchers in `text2sql-ladder/vitest` and `text2sql-ladder/matchers`.
 */

// Errors: misuse throws a LadderError with a stable code; a model's SQL failing never throws
export { LadderError, isLadderError, isMisuseError, MISUSE_CODES } from './errors.js';
export type { LadderErrorCode } from './errors.js';

// The ladder: one runtime per front end, the rung table, the runner
export { createLadderRuntime } from './runtime/ladder-runtime.js';
export type { LadderRuntime } from './runtime/ladder-runtime.js';
export { createLadderRungs } from './rungs/ladder-rungs.js';
export { runLadder } from './rungs/ladder.js';
export type { LadderInput, LadderResult } from './rungs/ladder.js';
export { LADDER_RUNG_IDS } from './rungs/rung-result.js';
export { SCORES } from './rungs/scores.js';
export type { RungIssue, RungResult } from './rungs/rung-result.js';

// The rungs, one function each (L1–L3 gates, L4 execution, L6 efficiency, L7 answer)
export { runGates } from './rungs/gates.js';
export { checkSyntax } from './rungs/syntax.js';
export { checkSchema } from './rungs/schema.js';
export { checkSafety } from './rungs/safety.js';
export { checkExecution } from './rungs/execution.js';
export { checkEfficiency } from './rungs/efficiency.js';
export { checkAnswerGrounding } from './rungs/answer.js';
export { runFaithfulnessJudge } from './judge/faithfulness.js';

// The LLM equivalence judge: routed by execution, overruled by L5 witnesses, counted after calibration
export { runJudgeStep } from './judge/equivalence/judge-step.js';
export { judgeFromFunction } from './judge/equivalence/ask-judge.js';
export type { EquivalenceJudge } from './judge/equivalence/ask-judge.js';
export { calibrateEquivalenceJudge } from './judge/equivalence/calibrate.js';
export { findPassingCalibration, readCalibrationRecord } from './judge/calibration-record.js';
export type { CalibrationRecord } from './judge/calibration-record.js';
export { judgeStatistics } from './judge/judge-statistics.js';
export type { JudgeRecord } from './report/ladder-record.js';

// Diagnostics (never gates)
export { scoreComponents } from './rungs/components.js';
export { scoreExactMatch } from './rungs/exact-match.js';
export { scoreAstDistance } from './rungs/ast-distance.js';
export { scoreSchemaLinking } from './rungs/schema-linking.js';
export { scoreResultSimilarity } from './rungs/result-similarity.js';
export { checkReliesOnRls } from './diagnostics/relies-on-rls.js';
export type { ReliesOnRlsInput, ReliesOnRlsDetails } from './diagnostics/relies-on-rls.js';

// SQL: model output, dialects, catalogs
export { parseProviderOutput } from './sql/provider-output.js';
export type { Dialect } from './sql/parse.js';
export { catalogFromDdl, catalogFromObject, loadCatalog } from './sql/catalog.js';
export type { Catalog } from './sql/catalog-types.js';

// The engine: a pool of killable child processes over read-only SQLite
export { createSqliteEngine } from './engine/sqlite/sqlite-engine.js';
export type { SqliteEngineOptions } from './engine/sqlite/sqlite-engine-options.js';
export type { Engine, QueryResult } from './engine/engine.js';
// PostgreSQL: a private server started for the run, or the user's by URL
export { createPostgresEngine } from './engine/postgres/postgres-engine.js';
export type { PostgresEngineOptions } from './engine/postgres/postgres-engine-options.js';
export { ArrayCell, DecimalCell, JsonCell, TemporalCell } from './engine/cells.js';
export type { Cell } from './engine/cells.js';

// Result comparison under an explicit policy
export { compareResults } from './compare/compare-results.js';
export type { Verdict } from './compare/verdict.js';
export { PRESETS, resolvePolicy } from './compare/policy.js';
export type { ComparisonPolicy, PolicyInput } from './compare/policy.js';

// Fixtures and datasets
export { resolveFixture } from './fixtures/registry.js';
export type { Snapshot } from './fixtures/snapshot.js';
export { loadDataset } from './dataset/load.js';
export type { DatasetItem } from './dataset/item.js';

// Spider- and BIRD-format evaluation
export { readPredictions, readSpiderGold } from './benchmarks/spider/read-spider-files.js';
export { evaluateSpider } from './harness/evaluate-spider.js';
export { computeRves, computeVes, createEngineTimingSource, measureTimeRatio } from './efficiency/ves.js';

// Semantic correctness (L5): test suites distilled from generated databases, fixture strength
export { buildTestSuite, evaluateOnSuite } from './semantic/suite/test-suite.js';
export type { TestSuite } from './semantic/suite/test-suite.js';
export { fixtureStrength } from './semantic/suite/fixture-strength.js';
export { readFixtureInvariants } from './semantic/model/invariants.js';
export { checkSemantic } from './semantic/check-semantic.js';
export { createSemanticRung } from './semantic/semantic-rung.js';
export { readSemanticOptions } from './semantic/semantic-options.js';
export type { SemanticOptions } from './semantic/semantic-options.js';
export { searchCounterexample } from './semantic/search/counterexample-search.js';
export { renderWitness } from './semantic/search/witness-format.js';

// The gold audit
export { readAuditSource } from './audit/audit-source.js';
export { auditGolds } from './audit/gold-audit.js';
export type { AuditReport } from './audit/gold-audit.js';
export { renderAuditText } from './audit/render-audit.js';

// Baseline vs candidate: runs with their identity, paired comparison, the CI gate
export { readRun } from './report/read-run.js';
export type { RunRecord } from './report/run-record.js';
export { findLadderRecords, readLadderRecord } from './report/ladder-record.js';
export type { LadderRecord } from './report/ladder-record.js';
export { compareRuns } from './report/compare-runs.js';
export type { RunComparison } from './report/compare-runs.js';
export { evaluateGate } from './report/comparison-gate.js';
export { renderComparisonMarkdown } from './report/render-comparison.js';
