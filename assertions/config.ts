/**
 * The options every rung assertion and the ladder accept in their promptfoo `config` block.
 * All are optional; defaults in the table.
 *
 * | option        | kind                               | default     | used by                  |
 * |---------------|------------------------------------|-------------|--------------------------|
 * | `dialect`     | sqlite, postgres, mysql, bigquery, snowflake | `sqlite` | all (execution needs sqlite) |
 * | `timeoutMs`   | positive integer, milliseconds      | engine: 10 000 | L1 prepare, L2, L4, L6 |
 * | `doubleQuotes`| `legacy` / `strict`                 | `legacy`    | L1, L2, L4 (SQLite)       |
 * | `policy`      | preset name or ComparisonPolicy options (src/compare/policy.ts) | `default` | L4 |
 * | `safety`      | SafetyPolicy (src/safety/policy.ts): `maxLimit`, `allowedTables` (a list, or `role` for the item role's tables), … | LIMIT and allowed tables off | L3 |
 * | `efficiency`  | `true` or EfficiencyOptions          | off         | ladder (L6 after a passed L4) |
 * | `answer`      | `false` or GroundingOptions          | on (runs only when the output has a prose answer) | ladder (L7) |
 * | item fields   | `gold_sql`, `db`, `db_path`, `snapshots`, `role`, `expected_behavior` | from the test vars | see assertions/item.ts |
 *
 * Every problem is a LadderError('invalid_option') naming `config.<option>`; the assertion adds its
 * file. Unknown options are errors too (with a did-you-mean), so a misspelt option never silently
 * does nothing.
 */
import type { DoubleQuoteMode } from '../src/engine/engine.js';
import { LadderError, isLadderError } from '../src/errors.js';
import { resolvePolicy } from '../src/compare/policy.js';
import type { ComparisonPolicy } from '../src/compare/policy.js';
import { readGroundingOptions } from '../src/rungs/answer.js';
import { resolveSafetyPolicy } from '../src/safety/policy.js';
import type { SafetyPolicy } from '../src/safety/policy.js';
import { DIALECTS } from '../src/sql/parse.js';
import type { Dialect } from '../src/sql/parse.js';
import type { ConfigBlock } from './options.js';
import { readEnum, readObject, readPositiveInteger, rejectUnknownOptions } from './options.js';

/** Item fields a config may pin for every test (see assertions/item.ts). */
export const ITEM_FIELDS = ['gold_sql', 'db', 'db_path', 'snapshots', 'role', 'expected_behavior'] as const;

/** Options shared by every assertion. */
export const COMMON_OPTIONS = ['dialect', 'timeoutMs', 'doubleQuotes', ...ITEM_FIELDS] as const;

/** The interpreted options. */
export interface AssertionOptions {
  readonly dialect: Dialect;
  readonly timeoutMs: number | undefined;
  readonly doubleQuotes: DoubleQuoteMode | undefined;
  /** Resolved comparison policy (L4). */
  readonly policy: ComparisonPolicy;
  /** Safety policy as given (validated); `allowedTables: 'role'` is kept for the caller to expand. */
  readonly safety: (Omit<SafetyPolicy, 'allowedTables'> & { allowedTables?: readonly string[] | 'role' }) | undefined;
  /** `undefined` = L6 off. */
  readonly efficiency: Record<string, unknown> | undefined;
  /** `undefined` = L7 off; `{}` = on with defaults. */
  readonly answer: Record<string, unknown> | undefined;
}

/** Re-labels a library misuse error as being about `config.<option>`. */
function about(option: string, error: unknown): never {
  if (isLadderError(error)) throw new LadderError(error.code, `config.${option}: ${error.message}`, { cause: error });
  throw error;
}

/**
 * Reads and validates an assertion's config.
 * @param known - the options this assertion accepts (COMMON_OPTIONS plus its own).
 * @throws LadderError('invalid_option') naming `config.<option>`.
 */
export function readAssertionOptions(config: ConfigBlock, known: readonly string[]): AssertionOptions {
  rejectUnknownOptions(config, known);
  const dialect = readEnum(config, 'dialect', DIALECTS) ?? 'sqlite';
  const timeoutMs = readPositiveInteger(config, 'timeoutMs');
  const doubleQuotes = readEnum<DoubleQuoteMode>(config, 'doubleQuotes', ['legacy', 'strict']);

  let policy: ComparisonPolicy;
  try {
    const raw = config?.['policy'];
    policy = resolvePolicy(raw === null ? undefined : (raw as Parameters<typeof resolvePolicy>[0]));
  } catch (error) {
    about('policy', error);
  }

  const safetyRaw = readObject(config, 'safety');
  let safety: AssertionOptions['safety'];
  if (safetyRaw !== undefined) {
    const { allowedTables, ...rest } = safetyRaw;
    try {
      resolveSafetyPolicy({ ...(rest as SafetyPolicy), ...(allowedTables === 'role' ? { allowedTables: [] } : allowedTables !== undefined ? { allowedTables: allowedTables as string[] } : {}) });
    } catch (error) {
      about('safety', error);
    }
    safety = safetyRaw as AssertionOptions['safety'];
  }

  const efficiencyRaw = config?.['efficiency'];
  let efficiency: Record<string, unknown> | undefined;
  if (efficiencyRaw === true) efficiency = {};
  else if (efficiencyRaw === false || efficiencyRaw === undefined || efficiencyRaw === null) efficiency = undefined;
  else efficiency = readObject(config, 'efficiency');

  const answerRaw = config?.['answer'];
  let answer: Record<string, unknown> | undefined;
  if (answerRaw === false) answer = undefined;
  else if (answerRaw === true || answerRaw === undefined || answerRaw === null) answer = {};
  else answer = readObject(config, 'answer');
  if (answer !== undefined) {
    try {
      readGroundingOptions(answer);
    } catch (error) {
      about('answer', error);
    }
  }

  return { dialect, timeoutMs, doubleQuotes, policy, safety, efficiency, answer };
}
