/**
 * Runs L5 (`checkSemantic`: snapshots, distilled test suite, counterexample search) on every pair
 * of the equivalence corpus and tallies the verdicts per category: equivalent pairs refuted (false
 * refutations) and near-misses refuted. Shared by the corpus test on the repository's databases
 * and the check on the real Spider slice (tests-shared).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareResults } from '../../../src/compare/compare-results.js';
import { GoldResultCache } from '../../../src/compare/gold-result-cache.js';
import { resolvePolicy } from '../../../src/compare/policy.js';
import type { LabelledPair } from '../../../src/dataset/labelled-pairs.js';
import type { Engine } from '../../../src/engine/engine.js';
import type { FixtureInvariant } from '../../../src/fixtures/fixture-invariant.js';
import type { Snapshot } from '../../../src/fixtures/snapshot.js';
import type { RungResult } from '../../../src/rungs/rung-result.js';
import type { SemanticDetails } from '../../../src/rungs/semantic-details.js';
import { resolveFixture } from '../../../src/fixtures/registry.js';
import { checkSemantic } from '../../../src/semantic/check-semantic.js';
import { readFixtureInvariants } from '../../../src/semantic/model/invariants.js';
import { readSemanticOptions, type SemanticOptions } from '../../../src/semantic/semantic-options.js';
import { createSemanticService, type SemanticService } from '../../../src/semantic/semantic-service.js';
import { createSqliteEngine } from '../../../src/engine/sqlite/sqlite-engine.js';
import { createTempSqlite } from '../../helpers/temp-sqlite.js';
import { readLabelledPairs } from '../../../src/dataset/labelled-pairs.js';

/** The corpus file. */
export const CORPUS_FILE = path.resolve(import.meta.dirname, 'pairs.jsonl');

/** The reproductions of the Spider schemas (`<db_id>.sql`: the original CREATE statements, our own rows). */
const SPIDER_SCHEMAS = path.resolve(import.meta.dirname, 'spider-schemas');

/** Every category of the corpus, in the order docs/semantic.md lists them. */
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

/**
 * The corpus's databases from the repository alone: each reproduced Spider schema built into
 * `dir` (one snapshot named after its `db_id`), and the bundled warehouse fixture with its
 * invariants.
 */
export async function openRepositoryDatabases(dir: string): Promise<Map<string, CorpusDatabase>> {
  const databases = new Map<string, CorpusDatabase>();
  for (const file of readdirSync(SPIDER_SCHEMAS).filter((f) => f.endsWith('.sql'))) {
    const db = file.slice(0, -'.sql'.length);
    const target = path.join(dir, `${db}.sqlite`);
    const handle = new Database(target);
    try {
      handle.exec(readFileSync(path.join(SPIDER_SCHEMAS, file), 'utf8'));
    } finally {
      handle.close();
    }
    databases.set(db, { snapshots: [{ name: db, path: target }], invariants: [] });
  }
  const warehouse = await resolveFixture('warehouse');
  databases.set('warehouse', { snapshots: warehouse.snapshots, invariants: readFixtureInvariants(path.resolve(import.meta.dirname, '../../../fixtures/warehouse/fixture.yaml')) });
  return databases;
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

/**
 * Judges the pairs ({@link judgeCorpus}) and checks the target: no equivalent pair refuted, at
 * least 95 % of the near-misses refuted, and every near-miss L5 lets through carries a witness (its
 * label rests on it; equivalence-corpus.test.ts replays them). `LADDER_CORPUS_TABLE=1` prints the
 * tally (the table docs/semantic.md shows) and the pairs L5 got wrong.
 */
export async function expectCorpusTarget(input: {
  readonly pairs: readonly LabelledPair[];
  readonly databases: ReadonlyMap<string, CorpusDatabase>;
  readonly engine: Engine;
  readonly service: SemanticService;
  readonly cacheDir: string;
}): Promise<void> {
  const verdicts = await judgeCorpus({ ...input, options: corpusOptions(input.cacheDir) });
  const rows = tallyCorpus(verdicts);
  if (process.env['LADDER_CORPUS_TABLE'] === '1') {
    console.log(`${formatTally(rows)}\n${verdicts.filter((v) => v.refuted !== (v.pair.label === 'not_equivalent')).map((v) => `${v.pair.label} ${v.pair.id}: ${v.result.reason}`).join('\n')}`);
  }
  expect(verdicts.filter((v) => v.pair.label === 'equivalent' && v.refuted).map((v) => `${v.pair.id}: ${v.result.reason}`)).toEqual([]);
  const all = rows.find((r) => r.category === 'all')!;
  const missed = verdicts.filter((v) => v.pair.label === 'not_equivalent' && !v.refuted);
  expect(all.nearMissesRefuted / all.nearMisses, missed.map((v) => `${v.pair.id}: ${v.result.reason}`).join('\n')).toBeGreaterThanOrEqual(0.95);
  expect(missed.filter((v) => v.pair.witness === undefined).map((v) => v.pair.id)).toEqual([]);
}

/**
 * Registers a vitest block that judges the corpus's pairs on some of the repository's databases
 * and checks the target ({@link expectCorpusTarget}). The corpus is judged in several files, each
 * a share of the databases, so that a test run spreads it over its workers.
 * @param dbs - the `db` values whose pairs this block judges.
 */
export function describeCorpusRun(dbs: readonly string[]): void {
  const state: { engine?: ReturnType<typeof createSqliteEngine>; service?: SemanticService; temp?: ReturnType<typeof createTempSqlite>; databases?: Map<string, CorpusDatabase> } = {};
  beforeAll(async () => {
    state.temp = createTempSqlite('', { prefix: 'ladder-corpus-', name: 'unused.sqlite' });
    state.databases = await openRepositoryDatabases(state.temp.dir);
    state.engine = createSqliteEngine();
    state.service = createSemanticService();
  }, 600_000);
  afterAll(async () => {
    state.service?.close();
    await state.engine?.close();
    state.temp?.remove();
  });
  describe(`the equivalence corpus on ${dbs.join(', ')}`, () => {
    it('L5 with nulls: observed refutes no equivalent pair and at least 95 % of the near-misses', async () => {
      const pairs = readLabelledPairs(CORPUS_FILE).filter((p) => dbs.includes(p.db));
      expect(pairs.length).toBeGreaterThan(0);
      await expectCorpusTarget({ pairs, databases: state.databases!, engine: state.engine!, service: state.service!, cacheDir: path.join(state.temp!.dir, 'suites') });
    }, 3_600_000);
  });
}
