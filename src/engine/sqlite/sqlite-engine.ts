/**
 * The sandboxed SQLite engine: an {@link Engine} backed by a pool of child processes running
 * better-sqlite3.
 *
 * Guarantees:
 * - Only queries run (query-gate.ts): one statement, top level SELECT / WITH … SELECT / VALUES,
 *   read-only and row-returning; anything else is `not_a_query` / `multiple_statements` /
 *   `empty_statement`, refused before SQLite compiles it.
 * - Databases open read-only with `query_only = 1`; a missing path is `db_not_found` (never a new
 *   file); a connection whose state changed is discarded.
 * - Deadline per statement (`timeout`) and memory cap per child (`memory_limit`), enforced by a
 *   watchdog thread inside the child from the statement's own start: the child is killed and
 *   replaced, never the caller, and a busy parent changes nothing. Row and byte caps
 *   (`result_too_large`) bound what a result brings back. Temp storage stays in memory; no file
 *   is ever created, WAL-mode databases included (sqlite-session.ts).
 * - A child ends itself when the process that started it dies, whatever the signal.
 * - A database pinned after its checksum was verified (fixture snapshots, pinned-files.ts) that
 *   changed on disk since is `db_changed`, never read.
 * - Rows by position, column names apart (duplicates kept), integers beyond 2^53 as `bigint`.
 * - Double quotes: `legacy` (default) rewrites a double-quoted token that names no column into a
 *   string literal and says so (`doubleQuoteFallback`, `executedSql`); `strict` does not.
 */
import { LadderError } from '../../errors.js';
import { escapedOutcome, type Catalog, type Engine, type ExecutionOutcome, type ExplainOutcome } from '../engine.js';
import { databasePath, resolveRequest, resolveSqliteEngineOptions, type ResolvedSqliteEngineOptions, type SqliteEngineOptions } from './sqlite-engine-options.js';
import { checkPinnedFile } from './pinned-files.js';
import { createSqlitePool } from './sqlite-pool.js';
export { startSqliteChildAhead } from './sqlite-children.js';
import type { CatalogOutcome } from './sqlite-protocol.js';

/** The SQLite {@link Engine} with pool introspection for tests and diagnostics. */
export interface SqliteEngine extends Engine {
  readonly dialect: 'sqlite';
  /** The options in force, defaults applied. */
  readonly options: ResolvedSqliteEngineOptions;
  /** Process ids of the live child processes (empty before the first statement and after close). */
  readonly childPids: readonly number[];
  /**
   * Starts up to `children` child processes now (default `poolSize`), so that their start-up
   * (about one Node start each) overlaps the caller's own work; a no-op once they run or after
   * close. Results never depend on it.
   */
  warm(children?: number): void;
}


/**
 * Creates a SQLite engine. No child process starts until the first call.
 *
 * @param options - see {@link SqliteEngineOptions}: `poolSize` (default CPU count),
 *   `timeoutMs` (10 000 ms), `maxRows` (100 000), `maxMemoryBytes` (512 MiB RSS per child),
 *   `maxResultBytes` (64 MiB per result), `doubleQuotes` (`legacy`).
 * @returns the engine; call `close()` when done (an unclosed engine does not keep Node alive).
 * @throws LadderError `invalid_option` for unknown names, wrong kinds or out-of-range values.
 * @example
 * const engine = createSqliteEngine({ timeoutMs: 2000 });
 * const outcome = await engine.execute({ db: 'fixtures/shop.sqlite', sql: 'SELECT a.id, b.id FROM a, b' });
 * // { ok: true, result: { columns: ['id', 'id'], rows: [[1, 1]], doubleQuoteFallback: false, … } }
 * await engine.close();
 */
export function createSqliteEngine(options?: SqliteEngineOptions): SqliteEngine {
  const resolved = resolveSqliteEngineOptions(options);
  const pool = createSqlitePool({ size: resolved.poolSize, maxMemoryBytes: resolved.maxMemoryBytes });
  let closed = false;

  function ensureOpen(): void {
    if (closed) throw new LadderError('engine_closed', 'the engine is closed; create a new one with createSqliteEngine()');
  }

  async function runStatement(op: 'execute' | 'prepare' | 'explain', request: unknown): Promise<ExecutionOutcome | ExplainOutcome> {
    ensureOpen();
    const job = resolveRequest(request, resolved);
    const changed = checkPinnedFile(job.db);
    if (changed) return { ok: false, error: changed };
    return escapedOutcome((await pool.run({ op, ...job, maxResultBytes: resolved.maxResultBytes })) as ExecutionOutcome | ExplainOutcome);
  }

  return {
    dialect: 'sqlite',
    options: resolved,
    get childPids() {
      return pool.childPids;
    },
    warm(children = resolved.poolSize) {
      if (!closed) pool.warm(children);
    },
    async execute(request) {
      return (await runStatement('execute', request)) as ExecutionOutcome;
    },
    async prepare(request) {
      return (await runStatement('prepare', request)) as ExecutionOutcome;
    },
    async explain({ analyze: _analyze, ...request }) {
      // SQLite's plans are never run: `analyze` is PostgreSQL's (engine.ts, ExplainRequest).
      return (await runStatement('explain', request)) as ExplainOutcome;
    },
    async catalog(db: string): Promise<Catalog> {
      ensureOpen();
      const file = databasePath('db', db);
      const changed = checkPinnedFile(file);
      if (changed) throw new LadderError('engine_failure', `cannot read the catalog of ${file}: ${changed.message}`);
      const outcome = (await pool.run({
        op: 'catalog',
        db: file,
        sql: '',
        maxRows: resolved.maxRows,
        maxResultBytes: resolved.maxResultBytes,
        timeoutMs: resolved.timeoutMs,
        doubleQuotes: resolved.doubleQuotes,
      })) as CatalogOutcome;
      if (outcome.ok) return outcome.catalog;
      if (outcome.error.code === 'db_not_found') throw new LadderError('db_not_found', outcome.error.message);
      throw new LadderError(outcome.error.code === 'db_unavailable' ? 'db_unavailable' : 'engine_failure', `cannot read the catalog of ${file}: ${outcome.error.message}`);
    },
    async close() {
      closed = true;
      await pool.close();
    },
  };
}
