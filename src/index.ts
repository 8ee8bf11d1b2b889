/**
 * The public API of text2sql-ladder: a deliberate list, grouped by layer (see README, "API").
 * Adapters live elsewhere: promptfoo assertions in `text2sql-ladder/assertions`, vitest matchers
 * in `text2sql-ladder/vitest`.
 */

// Errors and the rung result shape
export { LadderError, isLadderError, isMisuseError, MISUSE_CODES } from './errors.js';
export type { LadderErrorCode } from './errors.js';
export { createRungResult, createSkippedResult, GATE_IDS, LADDER_RUNG_IDS, LADDER_SCORE_NAMES } from './rungs/rung-result.js';
export type { ExecutingRungId, GateId, LadderRungId, RungId, RungIssue, RungResult, RungStatus } from './rungs/rung-result.js';

// Engine
export { createSqliteEngine } from './engine/sqlite/sqlite-engine.js';
export type { SqliteEngine } from './engine/sqlite/sqlite-engine.js';
export { SQLITE_ENGINE_DEFAULTS } from './engine/sqlite/sqlite-engine-options.js';
export type { ResolvedSqliteEngineOptions, SqliteEngineOptions } from './engine/sqlite/sqlite-engine-options.js';
export type {
  Catalog, CatalogColumn, CatalogTable, Cell, DoubleQuoteMode, Engine, ExecuteRequest, ExecutionError,
  ExecutionErrorCode, ExecutionOutcome, ExplainOutcome, ExplainResult, PlanStep, QueryResult, Row,
} from './engine/engine.js';

// SQL layer
export { extractSql } from './sql/extract.js';
export type { SqlExtraction } from './sql/extract.js';
export { parseProviderOutput } from './sql/provider-output.js';
export type { DeclinedAnswer, ProviderAnswer, SqlAnswer } from './sql/provider-output.js';
export { DIALECTS, parseSql, positionAt } from './sql/parse.js';
export type { CstParse, Dialect, ParseError, ParseResult } from './sql/parse.js';
export type { QuotedKeyword } from './sql/keyword-identifiers.js';
export { SQLITE_IDENTIFIER_KEYWORDS, SQLITE_KEYWORDS } from './sql/sqlite-keywords.js';
export { collectReferences } from './sql/references.js';
export type {
  CollectReferencesInput, ColumnReference, ColumnResolution, CteReference, DoubleQuotedString, References, ReferencesFailure, ScopeInfo,
  TableFunctionReference, TableReference, UnresolvedName,
} from './sql/references.js';
export { catalogFromDdl, catalogFromObject, loadCatalog } from './sql/catalog.js';
export type { CatalogObject } from './sql/catalog.js';
export { normalizeSql } from './sql/normalize.js';
export type { NormalizeOptions, NormalizeResult } from './sql/normalize.js';

// Comparison
export { compareResults } from './compare/compare-results.js';
export type { CellDifference, CompareContext, RowSample, Verdict, VerdictFlag } from './compare/compare-results.js';
export { detectOuterOrderBy } from './compare/gold-ordering.js';
export type { GoldOrdering, TieSegment } from './compare/gold-ordering.js';
export { applySqlRewrites } from './benchmarks/spider/sql-rewrites.js';
export type { SqlRewrites } from './compare/policy.js';
export { PRESET_NAMES, PRESETS, resolvePolicy } from './compare/policy.js';
export type { ComparisonPolicy, FloatTolerance, PolicyInput, PresetName } from './compare/policy.js';
export { GoldResultCache } from './compare/gold-result-cache.js';
export type { CachedGoldRun, GoldRunKey } from './compare/gold-result-cache.js';
export type { Snapshot } from './fixtures/snapshot.js';
export { compareTables, rowSimilarity, tableSimilarity } from './compare/table-similarity.js';
export type { ResultTable, RowSimilarity, TableSimilarity, TableSimilarityOptions } from './compare/table-similarity.js';

// Rungs (L1–L7) and the ladder
export { checkSyntax } from './rungs/syntax.js';
export type { SyntaxDetails, SyntaxInput } from './rungs/syntax.js';
export { checkSchema } from './rungs/schema.js';
export type { SchemaDetails, SchemaFinding, SchemaInput } from './rungs/schema.js';
export { checkSafety } from './rungs/safety.js';
export type { SafetyDetails, SafetyInput, SafetyViolation } from './rungs/safety.js';
export { resolveSafetyPolicy } from './safety/policy.js';
export type { ResolvedSafetyPolicy, SafetyPolicy } from './safety/policy.js';
export { BLOCKED_FUNCTIONS, checkFunction } from './safety/functions.js';
export { readRecording, runRedTeam } from './harness/redteam.js';
export type { RecordedPrediction, RedTeamOptions, RedTeamReport, RedTeamResult } from './harness/redteam.js';
export { checkExecution } from './rungs/execution.js';
export type { ExecutionDetails, ExecutionFlag, ExecutionInput, GoldError, PredictedRun, SnapshotVerdict } from './rungs/execution.js';
export { checkEfficiency, DEFAULT_BUDGET_FACTOR, readEfficiencyOptions, runEfficiencyRung } from './rungs/efficiency.js';
export type { EfficiencyDetails, EfficiencyInput, EfficiencyOptions } from './rungs/efficiency.js';
export { checkAnswerGrounding, readGroundingOptions, runAnswerRung } from './rungs/answer.js';
export type { AnswerGroundingDetails, AnswerGroundingInput } from './rungs/answer.js';
export { runGates } from './rungs/gates.js';
export type { GateInput, GateRun } from './rungs/gates.js';
export { runLadder, ladderRungIds } from './rungs/ladder.js';
export type { LadderAnswer, LadderInput, LadderResult, LadderRungs } from './rungs/ladder.js';
export { createLadderRungs, executionFacts, LADDER_RUNGS } from './rungs/ladder-rungs.js';
export type { ExecutingRung, ExecutionFacts, LadderContext, LadderResults, LadderRungDetails, LadderRungOptions, LadderRungTable } from './rungs/ladder-rungs.js';

// One runtime per front end: engine, gold cache, fixtures
export { createLadderRuntime } from './runtime/ladder-runtime.js';
export type { LadderRuntime, LadderRuntimeOptions } from './runtime/ladder-runtime.js';

// Diagnostics (never gates)
export { multisetF1, scoreComponents, scoreSpiderComponents } from './rungs/components.js';
export { CLAUSE_NAMES, extractClauseComponents, extractSpiderUnits, SPIDER_COMPONENT_NAMES } from './sql/components.js';
export type { ClauseName, SpiderComponentName } from './sql/components.js';
export { tokenJaccard, toLabelledTree, treeEditDistance } from './sql/tree-edit-distance.js';
export type { LabelledTree } from './sql/tree-edit-distance.js';
export type { ComponentsDetails, ComponentsInput } from './rungs/components.js';
export { scoreExactMatch } from './rungs/exact-match.js';
export type { ExactMatchDetails, ExactMatchInput } from './rungs/exact-match.js';
export { scoreAstDistance } from './rungs/ast-distance.js';
export type { AstDistanceDetails, AstDistanceInput } from './rungs/ast-distance.js';
export { bestLinking, schemaElementsOf, scoreSchemaLinking } from './rungs/schema-linking.js';
export type { LinkingScores, SchemaElements, SchemaLinkingDetails, SchemaLinkingInput } from './rungs/schema-linking.js';
export { scoreResultSimilarity } from './rungs/result-similarity.js';
export type { ResultSimilarityDetails, ResultSimilarityInput } from './rungs/result-similarity.js';
export { diagnoseItem, resultSimilarityWithEngine, runDiagnostics, summarizeDiagnostics } from './diagnostics/diagnose.js';
export type { DiagnoseInput, DiagnosticsRow, DiagnosticsRun, DiagnosticsSummary } from './diagnostics/diagnose.js';

// Efficiency (L6) building blocks
export { analyzePlan } from './efficiency/plan-analysis.js';
export { applyBudget, comparePlans, PROXY_KINDS } from './efficiency/compare-plans.js';
export {
  computeRves, computeVes, createEngineTimingSource, DEFAULT_TIMING_RUNS, measureTimeRatio, removeOutliers, rvesReward, timeRatio,
} from './benchmarks/bird/ves.js';
export type { TimedItem, TimingSource } from './benchmarks/bird/ves.js';

// Answer grounding (L7) building blocks and the optional judge
export { extractNumbers } from './answer/extract-numbers.js';
export type { NumberMention } from './answer/extract-numbers.js';
export { groundNumbers } from './answer/ground.js';
export type { GroundedNumber, GroundingOptions, GroundingReport } from './answer/ground.js';
export { resultColumnUnits } from './answer/cell-units.js';
export type { CellUnit, ColumnUnitsInput } from './answer/cell-units.js';
export { buildFaithfulnessPrompt, parseFaithfulnessVerdict, runFaithfulnessJudge } from './judge/faithfulness.js';
export type { JudgeProvider } from './judge/faithfulness.js';

// Fixtures and datasets
export { listFixtures, resolveFixture } from './fixtures/registry.js';
export type { ResolvedFixture, ResolveFixtureOptions } from './fixtures/registry.js';
export { loadDataset } from './dataset/load.js';
export { verifyDatasetGolds } from './audit/verify-golds.js';
export type { GoldRun, ItemCheck, SnapshotCheck, VerifyGoldsOptions } from './audit/verify-golds.js';
export { runGoldsOnSnapshots } from './audit/verify-golds.js';
export type { GoldRunsInput, GoldSnapshotRuns } from './audit/verify-golds.js';
export {
  checkGoldResult,
  checkGoldRun,
  checkGoldsAgree,
  checkLimitCut,
  checkSameOnEverySnapshot,
  findClockReads,
  findLimitWithoutOrderBy,
  findOrderedLimitSubqueries,
  findRandomness,
  findTimezoneReads,
  GOLD_CHECK_KINDS,
  GOLD_CHECKS,
  goldVerdictFlags,
  planLimitCut,
  runGoldChecks,
} from './dataset/gold-checks.js';
export type {
  GoldCheck,
  GoldCheckInput,
  GoldCheckKind,
  GoldCheckKindInfo,
  GoldCheckSeverity,
  GoldFinding,
  GoldFindingKind,
  GoldResultFinding,
  GoldResultFindingKind,
  GoldResultInput,
  LimitCutPlan,
  OrderedLimitSubquery,
  FindingRows,
} from './dataset/gold-checks.js';
export type { DatasetError, DatasetItem, ExpectedBehavior, LoadedDataset } from './dataset/item.js';

// The gold audit (text2sql-ladder audit)
export { auditGolds } from './audit/gold-audit.js';
export type { AuditedItem, AuditOptions, AuditReport, GoldResultSummary } from './audit/gold-audit.js';
export { readAuditSource } from './audit/audit-source.js';
export type { AuditItem, AuditSource, ReadAuditSourceOptions, ResolvedSnapshots } from './audit/audit-source.js';
export { judgeRuns, readAuditRun } from './audit/audit-runs.js';
export type { AuditRun, JudgeRunsInput, RunVerdict } from './audit/audit-runs.js';
export { AUDIT_FINDING_KINDS } from './audit/audit-finding.js';
export type { AuditFinding, AuditFindingKind, AuditOnlyKind } from './audit/audit-finding.js';
export { createTwinFinder, goldShape } from './audit/twins.js';
export type { GoldShape, TwinFinder } from './audit/twins.js';
export { auditJson, renderAuditMarkdown, renderAuditText } from './audit/render-audit.js';
export type { RenderAuditOptions } from './audit/render-audit.js';

// Semantic correctness: test suites distilled from generated databases, fixture strength
export { buildTestSuite, evaluateOnSuite, findGold, suiteDatabasesFor } from './semantic/test-suite.js';
export type { BuildTestSuiteInput, EvaluateOnSuiteInput, GoldDisagreement, GoldSuite, SuiteDatabase, SuiteEvaluation, SuiteNeighbour, SuiteProgress, TestSuite } from './semantic/test-suite.js';
export { DEFAULT_SUITE_BUDGET, resolveSuiteBudget } from './semantic/distill.js';
export type { Coverage, SkippedDatabases, StopReason, SuiteBudget } from './semantic/distill.js';
export { fixtureStrength } from './semantic/fixture-strength.js';
export type { FixtureStrength, GoldStrength, StrengthGold, Survivor } from './semantic/fixture-strength.js';
export { bindInvariants, invariantViolationSql, readFixtureInvariants, validateInvariantShape } from './semantic/invariants.js';
export type { BoundInvariant, FixtureInvariant } from './semantic/invariants.js';
export { createGeneratorPlan, generateDatabase, GENERATOR_VERSION, removeRows, SIZE_TIERS, verifyDatabaseFile } from './semantic/generate-database.js';
export type { GeneratedDatabase, GenerateOptions, GenerateOutcome, GeneratorPlan, RowRange, RowRemoval } from './semantic/generate-database.js';
export { findNeighbours, listNeighbourCandidates, NEIGHBOUR_KINDS } from './semantic/neighbours.js';
export type { Neighbour, NeighbourCandidate, NeighbourKind, NeighbourSet } from './semantic/neighbours.js';
export { readSchema } from './semantic/schema-reader.js';
export type { DatabaseSchema, TableSchema } from './semantic/schema-reader.js';
export { createPrng } from './semantic/prng.js';
export type { Prng } from './semantic/prng.js';
export { dumpDatabase } from './semantic/dump-database.js';
export { createCounterexampleSearcher, searchCounterexample } from './semantic/counterexample-search.js';
export { DEFAULT_SEARCH_BUDGET, resolveSearchBudget, SEARCH_TIERS, SEARCH_TIMEOUT_MS } from './semantic/search-budget.js';
export type { ResolvedSearchBudget, SearchBudget } from './semantic/search-budget.js';
export type {
  CounterexampleSearcher,
  CounterexampleSearcherInput,
  NotRefutedOutcome,
  NotSearchedOutcome,
  RefutedOutcome,
  SearchInput,
  SearchOutcome,
  SearchStats,
  Witness,
} from './semantic/counterexample-search.js';
export { DEFAULT_EMPTY_VS_NULL_ROW, isEmptyVsNullRow } from './semantic/witness-check.js';
export type { EmptyVsNullRow } from './semantic/witness-check.js';
export { formatRefutationReason, formatResultInline, renderWitness } from './semantic/witness-format.js';
export type { WitnessTable } from './semantic/witness-format.js';
export { editDatabase, writeReorderedCopy } from './semantic/edit-database.js';
export type { DatabaseEdit, RowKey, RowReordering } from './semantic/edit-database.js';
export { defaultSuiteCacheDir } from './semantic/suite-cache.js';

// Spider-format files and evaluation
export { evaluateSpider } from './harness/evaluate-spider.js';
export type { EvaluateSpiderInput, EvaluateSpiderOutput, SpiderItemVerdict, SpiderSummary } from './harness/evaluate-spider.js';
export { parseSpiderGold, parseSpiderPredictions, readPredictions, readSpiderGold } from './benchmarks/spider/read-spider-files.js';
export type { SpiderGoldItem, SpiderPrediction } from './benchmarks/spider/read-spider-files.js';
export { listSnapshots } from './benchmarks/spider/list-snapshots.js';
export { HARDNESS_LEVELS, spiderHardness } from './benchmarks/spider/hardness.js';
export type { Hardness } from './benchmarks/spider/hardness.js';

// Reporting
export { rate, summarizeLadder } from './report/ladder-summary.js';
export type { ProviderSummary, Rate, SummaryRecord } from './report/ladder-summary.js';
export { formatRate, renderLadderSummary } from './report/render-summary.js';

// Baseline vs candidate: run identity, paired statistics, comparison, gate
export { compareRunIdentities, hashDatasetItems, RUN_IDENTITY_FORMAT } from './report/run-identity.js';
export type { DatasetIdentity, IdentityDifference, PromptIdentity, ProviderIdentity, RunIdentity, SnapshotIdentity } from './report/run-identity.js';
export { identifyPromptfooColumns, recordPromptfooRunIdentities } from './report/promptfoo-run-identity.js';
export { identifySpiderRun, recordSpiderRunIdentity, runFilePathOf } from './report/spider-run-identity.js';
export { mcnemarExact, pairedBootstrap } from './report/paired-statistics.js';
export type { BootstrapInterval, McNemarResult, PairedBootstrapOptions } from './report/paired-statistics.js';
export { readRun } from './report/read-run.js';
export type { MetricOutcome, RunItem, RunRecord } from './report/run-record.js';
export { compareRuns } from './report/compare-runs.js';
export type { CompareRunsOptions, ItemChange, MetricComparison, RunComparison, SliceComparison } from './report/compare-runs.js';
export { evaluateGate } from './report/comparison-gate.js';
export type { FailOn, GateCheck, GateOptions, GateResult } from './report/comparison-gate.js';
export { renderComparisonMarkdown, renderComparisonText } from './report/render-comparison.js';
