/**
 * Runs L5 (`checkSemantic`: snapshots, distilled test suite, counterexample search) on every pair
 * of the equivalence corpus and tallies the verdicts per category: equivalent pairs refuted (false
 * refutations) and near-misses refuted. Shared by the corpus test on the repository's databases
 * and the check on the real Spider slice (tests-shared).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { compareResults } from '../../../src/compare/compare-results.js';
import { GoldResultCache } from '../../../src/compare/gold-result-cache.js';
import { resolvePolicy } from '../../../src/compare/policy.js';
import type { LabelledPair } from '../../../src/dataset/labelled-pairs.js';
import type { Engine } from '../../../src/engine/engine.js';
import type { FixtureInvariant } from '../../../src/fixtures/fixture-invariant.js';
import type { Snapshot } from '../../../src/fixtures/snapshot.js';
import type { RungResult } from '../../../src/rungs/rung-result.js';
import type { SemanticDetails } from '../../../src/rungs/semantic-details.js';
import { checkSemantic } from '../../../src/semantic/check-semantic.js';
import { readSemanticOptions, type SemanticOptions } from '../../../src/semantic/semantic-options.js';
import type { SemanticService } from '../../../src/semantic/semantic-service.js';

/** The corpus file. */
export const CORPUS_FILE = path.resolve(import.meta.dirname, 'pairs.jsonl');

/** Every category of the corpus, in the order of the issue that asked for it. */
export const CATEGORIES = [
  'in_exists_join',
  'count_star_pk',
  'count_fk_star',
  'between_comparisons',
  'distinct_unique_key',
  'max_order_limit',
  'commuted_join_predicate',
  'cte_subquery',
  'not_in_not_exists',
  'having_subquery',
  'join_elimination',
] as const;

/** A database of the corpus as L5 sees it. */
export interface CorpusDatabase {
  readonly snapshots: readonly Snapshot[];
  readonly invariants: readonly FixtureInvariant[];
}

/** One pair's verdict. */
export interface PairVerdict {
  readonly pair: LabelledPair;
  readonly result: RungResult<SemanticDetails>;
  /** True when L5 rejected the candidate (status `fail`). */
  readonly refuted: boolean;
}

/** The corpus target's options: `nulls: 'observed'`, the library's defaults otherwise (budgets bounded by databases, not seconds, so that the machine's load changes nothing). */
export function corpusOptions(cacheDir: string): SemanticOptions {
  return readSemanticOptions({ nulls: 'observed', cacheDir, suite: { maxSeconds: 3600 }, search: { maxSeconds: 3600 } });
}

/**
 * Judges every pair: the suite of each database is prepared with all of its golds first (as
 * `spider --test-suite` does), then each pair runs through `checkSemantic` under the default policy.
 */
export async function judgeCorpus(input: {
  readonly pairs: readonly LabelledPair[];
  readonly databases: ReadonlyMap<string, CorpusDatabase>;
  readonly engine: Engine;
  readonly service: SemanticService;
  readonly options: SemanticOptions;
  /** Pairs judged at once (default 2). */
  readonly concurrency?: number;
}): Promise<PairVerdict[]> {
  const policy = resolvePolicy('default');
  const cache = new GoldResultCache();
  if (input.options.suite !== false) {
    for (const [db, database] of input.databases) {
      const golds = [...new Set(input.pairs.filter((p) => p.db === db).map((p) => p.gold))];
      if (golds.length === 0) continue;
      await input.service.prepareSuite({ engine: input.engine, fixture: { snapshots: database.snapshots, invariants: database.invariants }, golds, policy, settings: input.options.suite });
    }
  }
  const verdicts: PairVerdict[] = new Array(input.pairs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < input.pairs.length) {
      const index = next;
      next += 1;
      const pair = input.pairs[index]!;
      const database = input.databases.get(pair.db);
      if (database === undefined) throw new Error(`${pair.id}: no database ${pair.db}`);
      const result = await checkSemantic({
        predictedSql: pair.candidate,
        golds: [pair.gold],
        snapshots: database.snapshots,
        invariants: database.invariants,
        engine: input.engine,
        policy,
        options: input.options,
        service: input.service,
        goldCache: cache,
      });
      verdicts[index] = { pair, result, refuted: result.status === 'fail' };
    }
  };
  await Promise.all(Array.from({ length: input.concurrency ?? 2 }, worker));
  return verdicts;
}

/** Per category: equivalent pairs and how many L5 refuted; near-misses and how many it refuted. */
export interface CategoryTally {
  readonly category: string;
  readonly equivalent: number;
  readonly equivalentRefuted: number;
  readonly nearMisses: number;
  readonly nearMissesRefuted: number;
}

/** The tally per category and in all (last row, category `all`). */
export function tallyCorpus(verdicts: readonly PairVerdict[]): CategoryTally[] {
  const rows = [...CATEGORIES, 'all'].map((category) => {
    const chosen = verdicts.filter((v) => category === 'all' || v.pair.category === category);
    const eq = chosen.filter((v) => v.pair.label === 'equivalent');
    const nm = chosen.filter((v) => v.pair.label === 'not_equivalent');
    return { category, equivalent: eq.length, equivalentRefuted: eq.filter((v) => v.refuted).length, nearMisses: nm.length, nearMissesRefuted: nm.filter((v) => v.refuted).length };
  });
  return rows;
}

/** The tally as the Markdown table docs/semantic.md shows. */
export function formatTally(rows: readonly CategoryTally[]): string {
  const pct = (n: number, of: number): string => (of === 0 ? 'n/a' : `${((100 * n) / of).toFixed(1)} %`);
  const lines = ['| category | equivalent pairs | refuted | near-misses | refuted |', '|---|---|---|---|---|'];
  for (const r of rows) {
    lines.push(`| ${r.category === 'all' ? '**all**' : `\`${r.category}\``} | ${r.equivalent} | ${r.equivalentRefuted} | ${r.nearMisses} | ${r.nearMissesRefuted} (${pct(r.nearMissesRefuted, r.nearMisses)}) |`);
  }
  return lines.join('\n');
}

/**
 * Replays a pair's `witness`: a database with the schema of `schemaDb` (tables, indexes and views,
 * no rows) and the witness's `INSERT` statements, written to `file`; both queries run on it.
 * @returns whether the candidate returns the gold's result there under the default policy (`false`
 *   confirms a `not_equivalent` label), and both outcomes' reasons.
 */
export async function replayWitness(pair: LabelledPair, schemaDb: string, file: string, engine: Engine): Promise<{ readonly match: boolean | 'undecided'; readonly detail: string }> {
  const source = new Database(schemaDb, { readonly: true });
  let ddl: string[];
  try {
    ddl = source.prepare("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'view', rowid").pluck().all() as string[];
  } finally {
    source.close();
  }
  const db = new Database(file);
  try {
    for (const statement of ddl) db.exec(statement);
    db.exec(pair.witness ?? '');
  } finally {
    db.close();
  }
  const [gold, candidate] = await Promise.all([engine.execute({ db: file, sql: pair.gold }), engine.execute({ db: file, sql: pair.candidate })]);
  if (!gold.ok) return { match: 'undecided', detail: `the gold fails: ${gold.error.message}` };
  if (!candidate.ok) return { match: false, detail: `the candidate fails: ${candidate.error.message}` };
  const verdict = compareResults(gold.result, candidate.result, resolvePolicy('default'), { goldSql: pair.gold });
  return { match: verdict.match, detail: verdict.reason };
}
