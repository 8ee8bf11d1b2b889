/**
 * `toBeSafeSql(policy?)` — L3 static safety, fail closed: one read-only query and nothing else
 * anywhere in its tree (no writes, DDL, PRAGMA, ATTACH, VACUUM, transactions, side-effect or
 * unknown functions), plus the policy's opt-in LIMIT and allowed-tables guardrails. Calls the L3
 * rung (`checkSafety`, src/rungs/safety.ts), as the promptfoo `safety` assertion does.
 */
import type { MatcherState } from 'vitest';
import { judgeSafety } from '../src/rungs/gates.js';
import type { ResolvedSafetyPolicy, SafetyPolicy } from '../src/safety/policy.js';
import type { Dialect } from '../src/sql/parse.js';
import { argumentTypeError, readDialect, readOptionsObject } from './arguments.js';
import { toMatcherResult } from './message.js';
import type { MatcherOutcome } from './message.js';

/**
 * The safety policy (src/safety/policy.ts: `maxLimit`, `allowedTables`, `allowedFunctions`,
 * `allowTableFunctions`, `allowSystemTables`; all off by default) plus the dialect.
 */
export interface SafeSqlPolicy extends SafetyPolicy {
  /** The dialect to read the SQL in. Default `sqlite` (printed in every message). */
  readonly dialect?: Dialect;
}

const NAME = 'toBeSafeSql';

/**
 * Asserts that the received SQL passes L3 static safety under `policy`. Synchronous.
 *
 * @param received - the SQL text (everything the model produced as SQL: a second statement is a
 *   violation).
 * @param policy - {@link SafeSqlPolicy}; omit it for the fixed rules only.
 * @returns vitest's matcher result; the failure message lists each violation with its kind,
 *   line, column and a caret under the SQL.
 * @throws TypeError when `received` is not a string, `policy` is not an object or
 *   `policy.dialect` is unknown; LadderError `invalid_option` for a bad or misspelt policy option.
 * @example
 * expect('SELECT name FROM customers LIMIT 10').toBeSafeSql({ maxLimit: 100 });
 * expect('SELECT * FROM customers; DROP TABLE orders').not.toBeSafeSql();
 */
export function toBeSafeSql(this: MatcherState, received: unknown, policy?: SafeSqlPolicy): MatcherOutcome {
  // Validate arguments.
  if (typeof received !== 'string') throw argumentTypeError(toBeSafeSql, NAME, 'received', 'a SQL string', received);
  const given = readOptionsObject(toBeSafeSql, NAME, 'policy', policy, 'a policy object');
  // Interpret: split the dialect off; checkSafety validates the rest of the policy.
  const { dialect: dialectOption, ...safetyPolicy } = given;
  const dialect = readDialect(toBeSafeSql, NAME, 'policy.dialect', dialectOption, 'sqlite');

  // checkSafety validates the policy (LadderError naming the option) before reading it.
  const result = judgeSafety({ sql: received, dialect, safetyPolicy: safetyPolicy as SafetyPolicy });
  return toMatcherResult(this, {
    matcherName: NAME,
    receivedLabel: 'sql',
    expectedLabel: policy === undefined ? '' : 'policy',
    expectation: `be safe ${dialect} SQL (one read-only query${describePolicy(result.details.policy)})`,
    received,
    result,
    source: received,
  });
}

function describePolicy(policy: ResolvedSafetyPolicy): string {
  const parts: string[] = [];
  if (policy.maxLimit !== undefined) parts.push(`LIMIT 1…${policy.maxLimit}`);
  if (policy.allowedTables !== undefined) parts.push(`tables ${policy.allowedTables.join(', ')} only`);
  return parts.length === 0 ? '' : `; ${parts.join('; ')}`;
}
