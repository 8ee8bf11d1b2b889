/**
 * The L5 verdict cache: a finished `checkSemantic` result, stored on disk under a content address
 * of everything that can change it, so that a rerun of an unchanged item costs one file read.
 *
 * The key (sha256, {@link verdictKey}) covers: the fixture's snapshots (name and content
 * checksum) and its `invariants:`, the golds and the prediction as they run (the policy's SQL
 * rewrites applied), the comparison policy, the item's `gold_result_ordered` and `as_of_date`,
 * L5's options (both steps' budgets, seed, NULL policy, empty-vs-NULL-row rule; not the cache
 * folders), the generator's, the distiller's and the suite format's versions, this file's format,
 * the package version, SQLite's version and the engine options that can change a result (deadline,
 * row, byte and memory caps, double-quote mode).
 *
 * A verdict is stored only when nothing in it depends on the machine's speed or load
 * ({@link machineBoundCause}): not when a search stopped at its time budget or a witness's
 * shrinking at its deadline, not when an item's suite was built under a time budget that stopped
 * it, and not when any statement of the verdict timed out, went over its memory cap or lost its
 * child process — as timeouts are never cached elsewhere (the gold-result and L6 caches). A
 * search that tried every database of its database budget is deterministic and is stored.
 *
 * Files: `<folder>/<first 2 hex>/<key>.v8`, Node's structured serialization of the result (it
 * keeps what JSON would not: `bigint`, `Uint8Array`, `-0`, `NaN`, ±Infinity cells), written under
 * a temporary name and renamed into place so that concurrent rows never read half a file. An
 * unreadable or foreign file is a miss, never an error.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { ComparisonPolicy } from '../compare/policy.js';
import type { Engine } from '../engine/engine.js';
import type { FixtureInvariant } from '../fixtures/fixture-invariant.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import type { RungResult } from '../rungs/rung-result.js';
import type { SemanticDetails, VerdictCacheStatus } from '../rungs/semantic-details.js';
import { contentKey, fileChecksum } from './suite/suite-cache.js';
import type { SemanticOptions } from './semantic-options.js';
import type { TestSuite } from './suite/suite-types.js';

/** Bumped when the stored layout or the meaning of a stored verdict changes. */
export const VERDICT_CACHE_FORMAT = 2;

/** Everything {@link verdictKey} reads besides the versions it looks up itself. */
export interface VerdictKeyInput {
  readonly snapshots: readonly Snapshot[];
  readonly invariants: readonly string[] | string;
  /** The golds as they run (policy rewrites applied), in the item's order. */
  readonly executedGolds: readonly string[];
  /** The prediction as it runs (policy rewrites applied). */
  readonly executedPrediction: string;
  readonly policy: ComparisonPolicy;
  readonly options: SemanticOptions;
  readonly goldOrdered: boolean | undefined;
  readonly asOfDate: string | undefined;
  readonly engine: Engine;
  /** Generator, distiller and suite-format versions, SQLite's version, the package version. */
  readonly versions: Readonly<Record<string, string | number>>;
}

/**
 * The content address of a verdict (sha256 hex) over the module doc's list. Snapshots without a
 * checksum are read and hashed (memoized per file identity).
 */
export function verdictKey(input: VerdictKeyInput): string {
  const step = <T extends object>(settings: T | false): unknown => {
    if (settings === false) return false;
    const { cacheDir: _suites, ...rest } = settings as T & { cacheDir?: string };
    return rest;
  };
  return contentKey({
    format: VERDICT_CACHE_FORMAT,
    versions: input.versions,
    snapshots: input.snapshots.map((s) => [s.name, s.checksum ?? checksumOf(s.path)]),
    invariants: input.invariants,
    golds: input.executedGolds,
    predicted: input.executedPrediction,
    policy: { ...input.policy },
    goldOrdered: input.goldOrdered ?? null,
    asOfDate: input.asOfDate ?? null,
    suite: step(input.options.suite),
    search: step(input.options.search),
    engine: engineSettings(input.engine),
  });
}

/** The engine options that can change a result (not the pool size). */
function engineSettings(engine: Engine): unknown {
  const options = (engine as { readonly options?: Record<string, unknown> }).options;
  if (options === undefined) return { dialect: engine.dialect };
  const { timeoutMs, maxRows, maxMemoryBytes, maxResultBytes, doubleQuotes } = options;
  return { dialect: engine.dialect, timeoutMs, maxRows, maxMemoryBytes, maxResultBytes, doubleQuotes };
}

const checksums = new Map<string, { readonly identity: string; readonly checksum: string }>();

/** sha256 of a file, remembered while its size, mtime and inode stay the same. */
function checksumOf(file: string): string {
  const resolved = path.resolve(file);
  let identity = 'missing';
  try {
    const s = statSync(resolved);
    identity = `${s.ino}/${s.size}/${s.mtimeMs}`;
  } catch {
    // A missing file: the verdict computation reports it; the key just never matches a real one.
  }
  const known = checksums.get(resolved);
  if (known !== undefined && known.identity === identity) return known.checksum;
  const checksum = identity === 'missing' ? 'missing' : fileChecksum(resolved);
  checksums.set(resolved, { identity, checksum });
  return checksum;
}

/** The file of a verdict in the cache folder. */
function verdictFile(folder: string, key: string): string {
  return path.join(folder, key.slice(0, 2), `${key}.v8`);
}

/** A stored verdict: the key it was stored under (checked on read) and the result. */
interface StoredVerdict {
  readonly format: number;
  readonly key: string;
  readonly result: RungResult<SemanticDetails>;
}

/**
 * Reads a stored verdict.
 * @returns the result as stored, or `undefined` when absent, unreadable, or stored under another
 *   key or format. Never throws.
 */
export function readVerdict(folder: string, key: string): RungResult<SemanticDetails> | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(verdictFile(folder, key));
  } catch {
    return undefined;
  }
  try {
    const stored = deserialize(bytes) as StoredVerdict;
    return stored.format === VERDICT_CACHE_FORMAT && stored.key === key ? stored.result : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stores a verdict (temporary file, then rename). A write that fails (a read-only or full disk)
 * leaves the cache as it was and reports why instead of throwing: a verdict is never lost because
 * it could not be cached.
 * @returns `null` when stored, else the error's message.
 */
export function storeVerdict(folder: string, key: string, result: RungResult<SemanticDetails>): string | null {
  const file = verdictFile(folder, key);
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temp, serialize({ format: VERDICT_CACHE_FORMAT, key, result } satisfies StoredVerdict));
    renameSync(temp, file);
    return null;
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // The folder itself could not be made: there is no temporary file to remove.
    }
    return (error as Error).message;
  }
}

/**
 * Why a verdict may not be stored (the module doc's rule), or `null` when it may.
 * @param details - the verdict's details.
 * @param transientFailures - statements of the snapshot and suite steps that timed out, went over
 *   their memory cap or lost their child.
 * @param suite - the suite the item was judged on (its golds' stop reasons), when the step ran.
 * @param executedGolds - the item's golds as they run.
 */
export function machineBoundCause(details: SemanticDetails, transientFailures: number, suite: TestSuite | null, executedGolds: readonly string[]): string | null {
  const search = details.search;
  if (transientFailures + (search?.transientFailures ?? 0) > 0) return 'a statement timed out, went over its memory cap or lost its child process';
  if (search?.stoppedBy === 'seconds') return 'the search stopped at its time budget';
  if (search?.witnesses.some((w) => w.shrink.stoppedBy === 'deadline') === true) return "a witness's shrinking stopped at the search's deadline";
  if (suite !== null) {
    const wanted = new Set(executedGolds);
    if (suite.golds.some((g) => wanted.has(g.executedSql) && g.stopReason === 'seconds')) return "the item's suite stopped at its time budget when it was built";
  }
  return null;
}

/** The verdict as the cache returns it: the stored result, `details.verdictCache` saying so. */
export function asCacheHit(stored: RungResult<SemanticDetails>): RungResult<SemanticDetails> {
  return withCacheStatus(stored, { status: 'hit' });
}

/** The result with `details.verdictCache` set. */
export function withCacheStatus(result: RungResult<SemanticDetails>, status: VerdictCacheStatus): RungResult<SemanticDetails> {
  return { ...result, details: { ...result.details, verdictCache: status } };
}

