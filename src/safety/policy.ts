/**
 * The options of the L3 safety rung. The fixed rules (no writes, DDL, PRAGMA, ATTACH, VACUUM,
 * transactions, session changes, row locks, side-effect or unknown functions) always apply; the
 * policy only adds opt-in guardrails and vetted exceptions.
 */
import { LadderError } from '../errors.js';

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

const KNOWN_OPTIONS = new Set(['maxLimit', 'allowedTables', 'allowedFunctions', 'allowTableFunctions', 'allowSystemTables']);
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
 * @throws LadderError `invalid_option` naming the option, what was expected and what was received
 *   (misspelt option names get the right name suggested).
 */
export function resolveSafetyPolicy(policy: SafetyPolicy | undefined): ResolvedSafetyPolicy {
  // Apply defaults.
  const given = policy ?? {};
  // Validate arguments.
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new LadderError('invalid_option', `policy must be an object; received ${describe(given)}`);
  }
  for (const key of Object.keys(given)) {
    if (KNOWN_OPTIONS.has(key)) continue;
    const replacement = RENAMED[key];
    throw new LadderError(
      'invalid_option',
      replacement ? `policy.${key} is not an option; use policy.${replacement}` : `policy.${key} is not an option; known: ${[...KNOWN_OPTIONS].join(', ')}`,
    );
  }
  const { maxLimit, allowedTables, allowedFunctions, allowTableFunctions, allowSystemTables } = given;
  if (maxLimit !== undefined && (!Number.isSafeInteger(maxLimit) || maxLimit < 1)) {
    throw new LadderError('invalid_option', `policy.maxLimit must be an integer ≥ 1 (rows); received ${describe(maxLimit)}`);
  }
  checkNames('allowedTables', allowedTables);
  checkNames('allowedFunctions', allowedFunctions);
  if (allowTableFunctions !== undefined && typeof allowTableFunctions !== 'boolean') checkNames('allowTableFunctions', allowTableFunctions);
  if (allowSystemTables !== undefined && typeof allowSystemTables !== 'boolean') {
    throw new LadderError('invalid_option', `policy.allowSystemTables must be a boolean; received ${describe(allowSystemTables)}`);
  }
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
    throw new LadderError('invalid_option', `policy.${option} must be an array of non-empty names; received ${describe(value)}`);
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return JSON.stringify(value);
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}
