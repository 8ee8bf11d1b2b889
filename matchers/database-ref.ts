/**
 * What the matchers accept as a database (`db`), and how it becomes an engine and snapshots:
 * - a path: a SQLite database file, opened read-only;
 * - a `postgres://` / `postgresql://` URL: a database you loaded on your own PostgreSQL server,
 *   read as the URL's role (which must not be a superuser: `databases: 'existing'`, docs/engine.md);
 * - `{ fixture, role?, fixturesDir?, snapshots? }`: a fixture (`fixtures/<name>/fixture.yaml`),
 *   built on first use; a `dialect: postgres` fixture on a private PostgreSQL server, or on the
 *   server of `TEXT2SQL_LADDER_POSTGRES_URL` when that is set. With `role`, everything runs as
 *   that role of the manifest (its tables, columns and rows: SQLite role copies, PostgreSQL
 *   `SET LOCAL ROLE` under row-level security).
 * One PostgreSQL server per test file: a second URL's server is misuse.
 */
import { snapshotNameOf, type Snapshot } from '../src/fixtures/snapshot.js';
import type { Engine, EngineName } from '../src/engine/engine.js';
import { isPostgresUrl, shownUrl, urlDatabase } from '../src/engine/postgres/postgres-url.js';
import type { LadderRuntime } from '../src/runtime/ladder-runtime.js';
import { argumentTypeError, isPlainObject, rejectUnknownOptions } from './arguments.js';

/** A matcher's `db`: a SQLite path, a PostgreSQL URL, or a fixture. */
export type MatcherDatabase = string | MatcherFixture;

/** A fixture as a matcher's `db`. */
export interface MatcherFixture {
  /** The fixture's name (its folder under `fixturesDir`). */
  readonly fixture: string;
  /** A role the manifest declares: run as it (default: none, the full databases). */
  readonly role?: string;
  /** Where fixture folders are (default: the package's bundled fixtures); relative to the cwd. */
  readonly fixturesDir?: string;
  /** The snapshots to use, by name (default: every snapshot of the fixture). */
  readonly snapshots?: string | readonly string[];
}

/** A matcher's database, resolved. */
export interface ResolvedDatabase {
  readonly engine: Engine;
  readonly dialect: EngineName;
  /** At least one; single-database matchers (L1, L2) use the first. */
  readonly snapshots: readonly Snapshot[];
  /** How messages name it: `db/shop.sqlite`, `postgres://app@db/shop`, `fixture shop_pg (base, edge)`. */
  readonly description: string;
}

type StackBoundary = (...args: never[]) => unknown;

/** The description of the accepted forms, for messages. */
export const DATABASE_EXPECTED = 'a SQLite database path, a postgres:// URL or { fixture, role?, fixturesDir?, snapshots? }';

/**
 * Resolves a matcher's `db` (see the module doc) on the matchers' runtime.
 * @throws TypeError naming `argumentName` for another kind of value, a URL that names no database,
 *   or snapshot names the fixture does not have; LadderError `unknown_fixture` / `invalid_option`
 *   from the fixture registry, `invalid_option` for a second PostgreSQL server, `engine_failure`
 *   when the server cannot be reached.
 */
export async function resolveMatcherDatabase(boundary: StackBoundary, matcherName: string, argumentName: string, value: unknown, runtime: LadderRuntime): Promise<ResolvedDatabase> {
  if (typeof value === 'string' && value !== '') {
    if (!isPostgresUrl(value)) {
      return { engine: runtime.engine(), dialect: 'sqlite', snapshots: [{ name: snapshotNameOf(value), path: value }], description: value };
    }
    const database = urlDatabase(value);
    if (database === undefined) throw argumentTypeError(boundary, matcherName, argumentName, 'a postgres:// URL that names a database (postgres://user@host/shop)', shownUrl(value));
    runtime.usePostgres({ url: value, databases: 'existing' });
    return { engine: await runtime.postgresEngine(), dialect: 'postgres', snapshots: [{ name: database, path: database, engine: 'postgres' }], description: shownUrl(value) };
  }
  if (!isPlainObject(value) || typeof value['fixture'] !== 'string' || value['fixture'] === '') throw argumentTypeError(boundary, matcherName, argumentName, DATABASE_EXPECTED, value);
  rejectUnknownOptions(boundary, matcherName, argumentName, value, ['fixture', 'role', 'fixturesDir', 'snapshots']);
  const role = value['role'];
  if (role !== undefined && (typeof role !== 'string' || role === '')) throw argumentTypeError(boundary, matcherName, `${argumentName}.role`, 'a role name the fixture declares', role);
  const fixturesDir = value['fixturesDir'];
  if (fixturesDir !== undefined && (typeof fixturesDir !== 'string' || fixturesDir === '')) throw argumentTypeError(boundary, matcherName, `${argumentName}.fixturesDir`, 'a folder path', fixturesDir);
  const fixture = await runtime.resolveFixture(value['fixture'], role as string | undefined, fixturesDir === undefined ? {} : { fixturesDir });
  const wanted = value['snapshots'];
  let snapshots: readonly Snapshot[] = fixture.snapshots;
  if (wanted !== undefined) {
    const names = typeof wanted === 'string' ? [wanted] : Array.isArray(wanted) && wanted.length > 0 && wanted.every((name) => typeof name === 'string') ? (wanted as string[]) : undefined;
    const unknown = names?.filter((name) => !fixture.snapshots.some((snapshot) => snapshot.name === name));
    if (names === undefined || unknown === undefined || unknown.length > 0) {
      throw argumentTypeError(boundary, matcherName, `${argumentName}.snapshots`, `names of snapshots of fixture ${fixture.name} (${fixture.snapshots.map((s) => s.name).join(', ')})`, unknown !== undefined && unknown.length > 0 ? unknown : wanted);
    }
    snapshots = names.map((name) => fixture.snapshots.find((snapshot) => snapshot.name === name)!);
  }
  return {
    engine: await runtime.engineFor(fixture.dialect),
    dialect: fixture.dialect,
    snapshots,
    description: `fixture ${fixture.name} (${snapshots.map((s) => s.name).join(', ')})${role === undefined ? '' : ` as role ${String(role)}`}`,
  };
}
