/**
 * The options every rung assertion and the ladder accept in their promptfoo `config` block, read
 * with the library's typed readers (src/options.ts). All are optional; defaults in the table.
 *
 * | option        | kind                               | default     | used by                  |
 * |---------------|------------------------------------|-------------|--------------------------|
 * | `dialect`     | sqlite, postgres, mysql, bigquery, snowflake | the fixture's (`postgres` for a `dialect: postgres` fixture), else `sqlite` | all (execution runs on the fixture's engine) |
 * | `postgres`    | `{ url }`: the PostgreSQL server PostgreSQL fixtures are built on (a role with CREATEDB and CREATEROLE) | `TEXT2SQL_LADDER_POSTGRES_URL`, else a private server | fixture resolution |
 * | `timeoutMs`   | positive integer, milliseconds      | engine: 10 000 | L1 prepare, L2, L4, L6 |
 * | `doubleQuotes`| `legacy` / `strict`                 | `legacy`    | L1, L2, L4 (SQLite)       |
 * | `policy`      | preset name or ComparisonPolicy options (src/compare/policy.ts) | `default` | L4 |
 * | `safety`      | SafetyPolicy (src/safety/policy.ts): `maxLimit`, `allowedTables` (a list, or `role` for the item role's tables), … | LIMIT and allowed tables off | L3 |
 * | `efficiency`  | `true` or EfficiencyOptions          | off         | ladder (L6 after a passed L4) |
 * | `semantic`    | `true` or SemanticOptions (`suite`, `search`, `seed`, `nulls`, `emptyVsNullRow`, `cacheDir`) | off | ladder (L5 after a passed L4) |
 * | `answer`      | `false` or GroundingOptions          | on (runs only when the output has a prose answer) | ladder (L7) |
 * | `judge`       | `{ provider, calibration, share, … }` (src/judge/equivalence/judge-options.ts): the LLM equivalence judge where execution cannot settle an item | off | ladder (after the rungs) |
 * | `answerInEndToEnd` | boolean                         | `true`: when L7 runs, an ungrounded number makes the item not end-to-end correct; `false`: `end_to_end` judges the SQL only | ladder (L7 in `end_to_end`) |
 * | `fixturesDir` / `cacheDir` | folder paths, relative to the promptfoo config's folder | the test generator's, `TEXT2SQL_LADDER_FIXTURES` / `TEXT2SQL_LADDER_CACHE_DIR` (its `fixtures/`), the bundled fixtures | fixture resolution |
 * | item fields   | `gold_sql`, `db`, `db_path`, `snapshots`, `role`, `expected_behavior`, `gold_result_ordered` | from the test vars | see src/promptfoo/item.ts |
 *
 * Every problem is a LadderError('invalid_option') naming `config.<option>` in the library's one
 * message format; the assertion adds its file. Unknown options are errors too (with a
 * did-you-mean), so a misspelt option never silently does nothing.
 */
import type { DoubleQuoteMode } from '../engine/engine.js';
import type { GroundingOptions } from '../answer/ground.js';
import { resolvePolicy } from '../compare/policy.js';
import type { ComparisonPolicy, PolicyInput, PresetName } from '../compare/policy.js';
import { optionReader } from '../options.js';
import type { OptionReader } from '../options.js';
import { readGroundingOptions } from '../rungs/answer.js';
import { readEfficiencyOptions } from '../rungs/efficiency.js';
import type { EfficiencyOptions } from '../rungs/efficiency.js';
import { resolveSafetyPolicy } from '../safety/policy.js';
import type { SafetyPolicy } from '../safety/policy.js';
import { DIALECTS } from '../sql/parse.js';
import { OPTIONAL_RUNG_IDS, SCORES, type OptionalRungId } from '../rungs/scores.js';
import { readSemanticOptions, type SemanticOptions } from '../semantic/semantic-options.js';
import type { Dialect } from '../sql/parse.js';
import { readJudgeConfig, type JudgeConfig } from '../judge/equivalence/judge-options.js';
import { promptfooConfigDir } from './fixture-location.js';

/** A config block as promptfoo passes it (`context.config`, possibly absent). */
export type ConfigBlock = Readonly<Record<string, unknown>> | undefined;

/** Item fields a config may pin for every test (see src/promptfoo/item.ts). */
export const ITEM_FIELDS = ['gold_sql', 'db', 'db_path', 'snapshots', 'role', 'expected_behavior'] as const;

/** Options shared by every assertion. */
export const COMMON_OPTIONS = ['dialect', 'timeoutMs', 'doubleQuotes', 'fixturesDir', 'cacheDir', 'postgres', ...ITEM_FIELDS] as const;

/** The safety policy as configured: `allowedTables: role` is kept for the caller to expand per item. */
export type ConfiguredSafetyPolicy = Omit<SafetyPolicy, 'allowedTables'> & { readonly allowedTables?: readonly string[] | 'role' };

/** The interpreted options. */
export interface AssertionOptions {
  /** `config.dialect`, else `sqlite`; an item on a PostgreSQL fixture runs as `postgres` (`itemDialect`). */
  readonly dialect: Dialect;
  /** `config.dialect` as given (undefined when absent). */
  readonly explicitDialect: Dialect | undefined;
  readonly timeoutMs: number | undefined;
  readonly doubleQuotes: DoubleQuoteMode | undefined;
  /** Resolved comparison policy (L4). */
  readonly policy: ComparisonPolicy;
  /** Safety policy as given (validated). */
  readonly safety: ConfiguredSafetyPolicy | undefined;
  /** `undefined` = L5 off; otherwise its validated options. */
  readonly semantic: SemanticOptions | undefined;
  /** `undefined` = L6 off; otherwise its validated options. */
  readonly efficiency: EfficiencyOptions | undefined;
  /** `undefined` = L7 off; `{}` = on with defaults. */
  readonly answer: GroundingOptions | undefined;
  /** L7 counts in `end_to_end` when it runs (default true). */
  readonly answerInEndToEnd: boolean;
  /** The equivalence judge (read for the ladder's options only: L7's assertion has its own `judge`); `undefined` = off. */
  readonly judge?: JudgeConfig;
}

/** The options the ladder assertion accepts (assertions/ladder.ts; the test generator checks its `ladder` block against them at load). */
export const LADDER_OPTIONS = [...COMMON_OPTIONS, 'policy', 'safety', ...OPTIONAL_RUNG_IDS, 'answerInEndToEnd', 'gold_result_ordered', 'judge'] as const;

/** The reader of an assertion's `config` block (names every option `<prefix><option>`, default `config.<option>`). */
export function configReader(config: ConfigBlock, prefix = 'config.'): OptionReader {
  return optionReader(config, { prefix });
}

/**
 * Reads and validates an assertion's config.
 * @param known - the options this assertion accepts (COMMON_OPTIONS plus its own).
 * @param prefix - how messages name an option: `config.` (default; an assertion's own block) or
 *   `config.ladder.` (the test generator's `ladder` block, checked at load).
 * @throws LadderError('invalid_option') naming `<prefix><option>`.
 */
export function readAssertionOptions(config: ConfigBlock, known: readonly string[], prefix = 'config.'): AssertionOptions {
  const read = configReader(config, prefix);
  read.unknownKeys(known);
  const explicitDialect = read.oneOf('dialect', DIALECTS);
  const dialect = explicitDialect ?? 'sqlite';
  readPostgresOption(config);
  const timeoutMs = read.positiveInteger('timeoutMs', 'ms');
  const doubleQuotes = read.oneOf<DoubleQuoteMode>('doubleQuotes', ['legacy', 'strict']);
  const policy = resolvePolicy(read.raw('policy') as PresetName | PolicyInput | ComparisonPolicy | undefined, { name: `${prefix}policy` });

  const safetyRaw = read.record('safety');
  let safety: ConfiguredSafetyPolicy | undefined;
  if (safetyRaw !== undefined) {
    const { allowedTables, ...rest } = safetyRaw;
    // `role` is expanded per item (assertions/safety.ts); validate the rest now.
    resolveSafetyPolicy({ ...(rest as SafetyPolicy), ...(allowedTables === 'role' ? {} : allowedTables !== undefined ? { allowedTables: allowedTables as string[] } : {}) }, { name: `${prefix}safety` });
    safety = safetyRaw as ConfiguredSafetyPolicy;
  }

  // An optional rung's option: false → off; absent → its default (the score table's); true → on
  // with its defaults; an object → on with those options.
  const raw = (id: OptionalRungId): unknown => read.raw(id) ?? SCORES[id].defaultOn;
  const semanticRaw = raw('semantic');
  const semantic = semanticRaw === false ? undefined : readSemanticOptions(semanticRaw, { name: `${prefix}semantic` });
  const efficiencyRaw = raw('efficiency');
  const efficiency = efficiencyRaw === false ? undefined : efficiencyRaw === true ? {} : readEfficiencyOptions(read.record('efficiency', 'true, false or { budgetFactor, failOnProxies, timing }'), { name: `${prefix}efficiency` });
  const answerRaw = raw('answer');
  const answer = answerRaw === false ? undefined : answerRaw === true ? {} : readGroundingOptions(read.record('answer', 'true, false or { relativeTolerance, derivations, maxDerivationCells, decimalText }'), { name: `${prefix}answer` });

  const answerInEndToEnd = read.boolean('answerInEndToEnd') ?? true;
  const judge = known === LADDER_OPTIONS ? readJudgeConfig(read.raw('judge'), `${prefix}judge.`, promptfooConfigDir()) : undefined;

  return { dialect, explicitDialect, timeoutMs, doubleQuotes, policy, safety, semantic, efficiency, answer, answerInEndToEnd, ...(judge !== undefined ? { judge } : {}) };
}

/** `config.postgres`: the PostgreSQL server of the run's PostgreSQL fixtures. */
export interface PostgresOption {
  readonly url?: string;
  /** Always `scratch` when given: the items' fixtures are built on the server. */
  readonly databases?: 'scratch';
}

/**
 * Reads `config.postgres` (`{ url }`; see the table above), or `undefined` when absent.
 * `databases: existing` (only reading databases you loaded) is refused: promptfoo items run on
 * fixtures, which the ladder builds on the server.
 * @throws LadderError('invalid_option') naming `config.postgres.<key>`.
 */
export function readPostgresOption(config: ConfigBlock): PostgresOption | undefined {
  const block = configReader(config).record('postgres', '{ url }');
  if (block === undefined) return undefined;
  const read = optionReader(block, { prefix: 'config.postgres.' });
  read.unknownKeys(['url', 'databases'], { connectionString: 'url', DATABASE_URL: 'url' });
  const url = read.string('url', 'a postgres:// URL');
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) throw read.invalid('url', 'a postgres:// or postgresql:// URL', url.replace(/:[^:@/]*@/, ':***@'));
  const databases = read.oneOf('databases', ['scratch', 'existing'] as const);
  if (databases === 'existing') {
    throw read.invalid('databases', "scratch (the default): the items' fixtures are built on the server, which databases: existing forbids; to check SQL against a database you loaded, use `check --db postgres://…` or a matcher's db", databases);
  }
  if (databases !== undefined && url === undefined) throw read.invalid('databases', 'absent unless url is given', databases);
  return { ...(url === undefined ? {} : { url }), ...(databases === undefined ? {} : { databases }) };
}
