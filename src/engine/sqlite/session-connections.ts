/**
 * The connections of one engine child's session (sqlite-session.ts): one read-only connection per
 * absolute database path, checked before and after every job, and the queries each has prepared.
 * At most {@link MAX_OPEN_CONNECTIONS} stay open, least recently used closed first: L5 runs queries
 * on thousands of generated files, and a connection kept for each grew a child past its memory
 * cap (and held every deleted file's disk space) long before any query was expensive.
 *
 * Before a job ({@link SessionConnections.acquire}): one `stat` of the path. A file rebuilt at the
 * same path (new inode, size or mtime) closes the old connection and opens the new file, so no
 * statement reads a replaced file through a connection opened before the replacement.
 *
 * After a job ({@link SessionConnections.release}): the connection must still be open, with no
 * transaction (`sqlite3_get_autocommit`, a field read), or it is closed. Then the settings check
 * (`query_only` still 1, `temp_store` still MEMORY: one SQL query, about as long as a short
 * Spider statement) runs unless the job is *proven*: it ran only a statement that (a) passed the
 * text gate (one statement whose first word is SELECT, WITH or VALUES), (b) compiled from that
 * very text (no double-quote rewrite), (c) SQLite reported read-only (`sqlite3_stmt_readonly`) and
 * row-returning, and (d) ended without an error. Why that proves the settings unchanged: only a
 * PRAGMA changes `query_only` or `temp_store` (some while they compile), and only BEGIN or
 * SAVEPOINT opens a transaction; the text gate refuses both before SQLite sees them. The readonly
 * bit alone would not do: SQLite reports BEGIN, SAVEPOINT, ATTACH, DETACH and flag pragmas
 * read-only too (https://sqlite.org/c3ref/stmt_readonly.html). Every other job (an error, a
 * rewrite, a catalog read) gets the full check, as before. No application-defined function or
 * virtual table is ever registered on these connections, and `load_extension` is refused.
 *
 * Prepared queries: each connection keeps the last {@link MAX_PREPARED_QUERIES} queries that
 * passed both gates, by double-quote mode and exact text, so a text run again on the same file
 * (L1's prepare, then L4's execute and L6's explain) is not compiled again. A connection's
 * queries go with it when it closes, and so do its catalog and the root pages' tables, read once
 * per connection (the file is read-only, and a changed file gets a new connection).
 */
import Database from 'better-sqlite3';
import type { Catalog, ExecutionError } from '../engine.js';
import { fileIdentity, openReadOnly, sameFile, type FileIdentity } from './sqlite-open.js';
import { BoundedMap } from '../../bounded-map.js';

type Connection = Database.Database;
type Statement = Database.Statement<unknown[], unknown>;

/** A statement that passed prepare and both gates, with what the answer says about it. */
export interface PreparedQuery {
  readonly statement: Statement;
  /** Result column names, in order (duplicates kept). */
  readonly columns: readonly string[];
  /** The text that compiled (the request's text unless the double-quote fallback rewrote it). */
  readonly executedSql: string;
  readonly doubleQuoteFallback: boolean;
}

/** One open database. */
export interface SessionConnection {
  readonly connection: Connection;
  readonly identity: FileIdentity;
  /** Prepared queries by {@link queryKey}, least recently used first. */
  readonly queries: BoundedMap<string, PreparedQuery>;
  /** The database's catalog, once read (a file that changes gets a new connection). */
  catalog?: Catalog;
  /** Table of each b-tree root page (`sqlite_schema`), once read for an explain. */
  rootPageOwners?: ReadonlyMap<number, string>;
}

/**
 * Most connections a session keeps open. A connection to a small file holds about 100 KiB (schema,
 * page cache, prepared queries): enough for every snapshot of a run and a suite's databases.
 */
export const MAX_OPEN_CONNECTIONS = 128;

/** Most prepared queries kept per connection. */
export const MAX_PREPARED_QUERIES = 64;

/** The cache key of a query text under a double-quote mode. */
export function queryKey(mode: string, sql: string): string {
  return `${mode}\u0000${sql}`;
}

/** The cached query for `key`, marked most recently used; `undefined` when not cached. */
export function cachedQuery(open: SessionConnection, key: string): PreparedQuery | undefined {
  return open.queries.get(key);
}

/** Keeps `query` under `key`, dropping the least recently used one past {@link MAX_PREPARED_QUERIES}. */
export function keepQuery(open: SessionConnection, key: string, query: PreparedQuery): void {
  open.queries.set(key, query);
}

/** The connection cache of a session. */
export interface SessionConnections {
  /**
   * The connection for `file`, opened (or reopened when the file's identity changed) as needed.
   * @param file - absolute database path.
   * @returns the connection, or `db_not_found` / `db_unavailable` (cannot open) as an error.
   */
  acquire(file: string): SessionConnection | ExecutionError;
  /**
   * Ends a job on `open`: closes it unless it is still open with no transaction and, for a job
   * that is not `proven` (module doc), its settings are unchanged.
   */
  release(file: string, open: SessionConnection, proven: boolean): void;
  /** Closes every connection. */
  close(): void;
}

/**
 * Creates an empty connection cache.
 * @param maxCopyBytes - largest WAL-mode file read into a private in-memory copy (sqlite-open.ts).
 */
export function createSessionConnections(maxCopyBytes: number): SessionConnections {
  // Least recently used first; one dropped for room is closed (no job runs while another acquires).
  const connections = new BoundedMap<string, SessionConnection>(MAX_OPEN_CONNECTIONS, {
    refreshOnRead: true,
    onEvict: (_file, open) => {
      if (open.connection.open) open.connection.close();
    },
  });

  function discard(file: string, open: SessionConnection): void {
    if (connections.get(file) === open) connections.delete(file);
    if (open.connection.open) open.connection.close();
  }

  return {
    acquire(file) {
      const identity = fileIdentity(file);
      if (!('ino' in identity)) return identity;
      const cached = connections.get(file);
      if (cached && sameFile(cached.identity, identity)) return cached;
      if (cached) discard(file, cached);
      const opened = openReadOnly(file, maxCopyBytes);
      if (!(opened instanceof Database)) return opened;
      const open: SessionConnection = { connection: opened, identity, queries: new BoundedMap(MAX_PREPARED_QUERIES, { refreshOnRead: true }) };
      connections.set(file, open);
      return open;
    },
    release(file, open, proven) {
      const { connection } = open;
      if (connection.open && !connection.inTransaction && (proven || settingsUnchanged(connection))) return;
      discard(file, open);
    },
    close() {
      for (const open of connections.values()) open.connection.close();
      connections.clear();
    },
  };
}

/** `PRAGMA temp_store` value for MEMORY. */
export const TEMP_STORE_MEMORY = 2;

/** The settings check per connection (compiled once). */
const settingsChecks = new WeakMap<Connection, Statement>();

/** True when `query_only` is still 1 and temp storage still in memory. */
export function settingsUnchanged(connection: Connection): boolean {
  try {
    let check = settingsChecks.get(connection);
    if (!check) {
      check = connection
        .prepare(`SELECT (SELECT query_only FROM pragma_query_only) = 1 AND (SELECT temp_store FROM pragma_temp_store) = ${TEMP_STORE_MEMORY}`)
        .pluck()
        .safeIntegers(false);
      settingsChecks.set(connection, check);
    }
    return check.get() === 1;
  } catch {
    return false;
  }
}
