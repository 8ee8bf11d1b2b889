/**
 * The options of the L3 safety rung. The fixed rules (no writes, DDL, PRAGMA, ATTACH, VACUUM,
 * transactions, session changes, row locks, side-effect or unknown functions) always apply; the
 * policy only adds opt-in guardrails and vetted exceptions.
 */
import { invalidValue, isPlainRecord, rejectUnknownKeys } from '../options.js';

/** Options of `checkSafety`. Every field is optional; the defaults are the strict ones. */
export interface SafetyPolicy {
  /**
   * LIMIT policy, off by default. When set, the outermost query must end in `LIMIT n` (or
   * `FETCH FIRST n ROWS`) where `n` is an integer literal from 1 to `maxLimit` (rows).
   * Integer ≥ 1.
   */
  readonly maxLimit?: number;
  /**
   * Allowed-tables policy, off by default. When set, every real table named in any scope (UNION
   * branches, subqueries, EXISTS, CTE bodies, shadowing CTEs) must be listed. Entries are written
   * like SQL names without quotes (`orders`, `hr.orders`) and compared under the dialect's case
   * rules; an entry without schema covers the default schema (`main` in SQLite).
   */
  readonly allowedTables?: readonly string[];
  /** Extra function names (vetted UDFs) to allow on top of the dialect's allow-list. Default none. */
  readonly allowedFunctions?: readonly string[];
  /**
   * Table-valued functions in FROM (`json_each`, `generate_series`, …): `false` (default) blocks
   * all, `true` allows all but `pragma_*`, a list allows those names. `pragma_*` is never allowed.
   */
  readonly allowTableFunctions?: boolean | readonly string[];
  /**
   * SQLite internal tables (`sqlite_master`, `sqlite_schema`, `sqlite_stat1`, `sqlite_dbpage`,
   * `dbstat`, …). Default `false`: blocked as `system_table`.
   */
  readonly allowSystemTables?: boolean;
}

/** A policy with defaults applied and values validated. */
export interface ResolvedSafetyPolicy {
  readonly maxLimit: number | undefined;
  readonly allowedTables: readonly string[] | undefined;
  readonly allowedFunctions: readonly string[];
  readonly allowTableFunctions: boolean | readonly string[];
  readonly allowSystemTables: boolean;
}

const KNOWN_OPTIONS: readonly string[] = ['maxLimit', 'allowedTables', 'allowedFunctions', 'allowTableFunctions', 'allowSystemTables'];
const RENAMED: Readonly<Record<string, string>> = {
  max_limit: 'maxLimit',
  limit: 'maxLimit',
  allowed_tables: 'allowedTables',
  tables: 'allowedTables',
  allowed_functions: 'allowedFunctions',
  allow_table_functions: 'allowTableFunctions',
};

/**
 * Applies defaults and validates a policy.
 * @param naming.name - how messages name the policy (default `policy`; a promptfoo assertion
 *   passes `config.safety`).
 * @throws LadderError `invalid_option` naming the option, what was expected and what was received
 *   (misspelt option names get the right name suggested).
 */
export function resolveSafetyPolicy(policy: SafetyPolicy | undefined, naming: { readonly name?: string } = {}): ResolvedSafetyPolicy {
  const name = naming.name ?? 'policy';
  // Apply defaults.
  const given = policy ?? {};
  // Validate arguments.
  if (!isPlainRecord(given)) throw invalidValue(name, 'an object', given);
  rejectUnknownKeys(given, KNOWN_OPTIONS, { prefix: `${name}.`, renamed: RENAMED });
  const { maxLimit, allowedTables, allowedFunctions, allowTableFunctions, allowSystemTables } = given as SafetyPolicy;
  if (maxLimit !== undefined && (!Number.isSafeInteger(maxLimit) || maxLimit < 1)) throw invalidValue(`${name}.maxLimit`, 'an integer ≥ 1 (rows)', maxLimit);
  checkNames(`${name}.allowedTables`, allowedTables);
  checkNames(`${name}.allowedFunctions`, allowedFunctions);
  if (allowTableFunctions !== undefined && typeof allowTableFunctions !== 'boolean') checkNames(`${name}.allowTableFunctions`, allowTableFunctions);
  if (allowSystemTables !== undefined && typeof allowSystemTables !== 'boolean') throw invalidValue(`${name}.allowSystemTables`, 'a boolean', allowSystemTables);
  return {
    maxLimit,
    allowedTables,
    allowedFunctions: allowedFunctions ?? [],
    allowTableFunctions: allowTableFunctions ?? false,
    allowSystemTables: allowSystemTables ?? false,
  };
}

function checkNames(option: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
    throw invalidValue(option, 'an array of non-empty names', value);
  }
}
