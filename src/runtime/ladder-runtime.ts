/**
 * A front end's runtime: the one SQLite engine (and, for PostgreSQL fixtures, the one PostgreSQL
 * engine), the one gold-result cache and the fixture resolutions that every check of that front
 * end shares. Each front end holds exactly one:
 * - promptfoo: src/promptfoo/runtime.ts (one per process, shared by the TypeScript sources and the
 *   compiled package loaded in the same process);
 * - vitest: matchers/matcher-engine.ts (one per test-file worker);
 * - the CLI: one per command run (`spider`, `check`), closed when the command ends;
 * - library callers (dataset gold verification, tests) create their own.
 *
 * The engine is created on first use, so a front end that only runs static checks never starts a
 * child process; after {@link LadderRuntime.close} the next use creates a new one. The gold cache
 * and the fixture resolutions outlive a close; L5's searchers (scratch folders) do not.
 */
import { GoldResultCache } from '../compare/gold-result-cache.js';
import { LadderError } from '../errors.js';
import { shownUrl } from '../engine/postgres/postgres-url.js';
import { createSqliteEngine } from '../engine/sqlite/sqlite-engine.js';
import type { SqliteEngine } from '../engine/sqlite/sqlite-engine.js';
import type { SqliteEngineOptions } from '../engine/sqlite/sqlite-engine-options.js';
import type { Engine, EngineName } from '../engine/engine.js';
import type { PostgresEngine } from '../engine/postgres/postgres-engine.js';
import type { PostgresEngineOptions } from '../engine/postgres/postgres-engine-options.js';
import type { ResolveFixtureOptions, ResolvedFixture } from '../fixtures/registry.js';
import type { Snapshot } from '../fixtures/snapshot.js';
import type { FixtureInvariant } from '../fixtures/fixture-invariant.js';
import type { SemanticService } from '../semantic/semantic-service.js';

/** Options of {@link createLadderRuntime}. */
export interface LadderRuntimeOptions {
  /** Options of the engine created on first use (engine defaults when absent). */
  readonly engine?: SqliteEngineOptions;
  /**
   * Options of the PostgreSQL engine, created when a PostgreSQL fixture is first used (a private
   * server unless `url`). Without `url`, the environment's `TEXT2SQL_LADDER_POSTGRES_URL` gives one
   * (never `DATABASE_URL`, which often points at a real database).
   */
  readonly postgres?: PostgresEngineOptions;
  /** Most (snapshot, gold) results the gold cache keeps (default 10 000). */
  readonly goldCacheEntries?: number;
  /** Where fixtures are found and built (see `resolveFixture`; defaults when absent). */
  readonly fixtures?: Omit<ResolveFixtureOptions, 'role'>;
}

/** One front end's shared engine, gold cache and fixtures. */
export interface LadderRuntime {
  /** The engine, created on first call. */
  engine(): SqliteEngine;
  /** True when the engine exists (created and not closed since). */
  hasEngine(): boolean;
  /**
   * The PostgreSQL engine, created on first call (its server starts on its first statement).
   * @throws LadderError `invalid_option` for bad `postgres` options.
   */
  postgresEngine(): Promise<PostgresEngine>;
  /** The engine for a fixture's dialect: {@link engine} for `sqlite`, {@link postgresEngine} for `postgres`. */
  engineFor(dialect: EngineName): Promise<Engine>;
  /** The engine of a snapshot (`snapshot.engine`, absent meaning SQLite): {@link engineFor} its engine. */
  engineForSnapshot(snapshot: Pick<Snapshot, 'engine'>): Promise<Engine>;
  /**
   * Sets the PostgreSQL engine's server (a front end's `postgres.url` option, a URL given as a
   * database) before its first use; the same server again is a no-op.
   * @throws LadderError `invalid_option` when the engine already runs on another server (one
   *   PostgreSQL server per runtime), naming both without their passwords.
   */
  usePostgres(options: Pick<PostgresEngineOptions, 'url' | 'databases'>): void;
  /** Gold results shared by every execution of this front end. */
  readonly goldCache: GoldResultCache;
  /**
   * L5's test suites and counterexample searchers, created on first call (the same promise after);
   * closed by `close`. The service's module is imported on this first call, so a front end that
   * never turns L5 on loads nothing of src/semantic/; the service imports the suite builder and
   * the search on its own first use.
   */
  semantic(): Promise<SemanticService>;
  /**
   * The invariants a fixture's manifest declares (`invariants:` in `<fixturesDir>/<name>/fixture.yaml`),
   * read once per name; empty when it declares none.
   * @throws LadderError `input_invalid` for a malformed declaration (with `file:line`).
   */
  fixtureInvariants(name: string, location?: Pick<ResolveFixtureOptions, 'fixturesDir'>): Promise<readonly FixtureInvariant[]>;
  /**
   * Resolves (and on first use builds) a fixture, once per (name, role, location).
   * @param location - `fixturesDir` / `cacheDir` for this call, over the runtime's `fixtures` options.
   * @throws LadderError `unknown_fixture` / `invalid_option` / `input_invalid` from the registry.
   */
  resolveFixture(name: string, role?: string, location?: Pick<ResolveFixtureOptions, 'fixturesDir' | 'cacheDir'>): Promise<ResolvedFixture>;
  /**
   * Closes the engine (if any) and waits for its children to exit, at most `waitMs` (default
   * {@link CLOSE_WAIT_MS}). Keeps the event loop alive while it waits: the engine unrefs idle
   * children, and a host that awaits this in an exit hook (promptfoo's afterAll) would otherwise
   * see Node exit with code 13 (unsettled top-level await) before it finished.
   */
  close(waitMs?: number): Promise<void>;
}

/** The environment variable every front end reads a PostgreSQL server URL from when none is configured. */
export const POSTGRES_URL_ENV = 'TEXT2SQL_LADDER_POSTGRES_URL';

/** `options` with the URL of {@link POSTGRES_URL_ENV} when they name none (the private server otherwise). */
function postgresDefaults(options: PostgresEngineOptions | undefined, env: NodeJS.ProcessEnv = process.env): PostgresEngineOptions {
  const fromEnv = env[POSTGRES_URL_ENV];
  if (options?.url !== undefined || fromEnv === undefined || fromEnv.trim() === '') return options ?? {};
  return { ...options, url: fromEnv.trim() };
}

/** `the private server` or `postgres://user@host/db (existing databases)`, never with a password. */
export function describeServer(url: string | undefined, databases: 'scratch' | 'existing' = 'scratch'): string {
  if (url === undefined) return 'the private server';
  return `${shownUrl(url)}${databases === 'existing' ? ' (existing databases)' : ''}`;
}

/** Longest wait for the engine's children to exit in {@link LadderRuntime.close}, in milliseconds. */
export const CLOSE_WAIT_MS = 5_000;

/**
 * Creates a runtime (nothing starts until the engine is first used).
 * @example
 * const runtime = createLadderRuntime({ engine: { poolSize: 2 } });
 * const result = await runLadder({ ..., engine: runtime.engine(), executionCache: runtime.goldCache }, rungs);
 * await runtime.close();
 */
export function createLadderRuntime(options: LadderRuntimeOptions = {}): LadderRuntime {
  let engine: SqliteEngine | undefined;
  let postgres: PostgresEngine | undefined;
  let postgresOptions: PostgresEngineOptions = postgresDefaults(options.postgres);
  // The PostgreSQL engine's module (and its driver) load on first use only.
  const postgresModule = (): Promise<typeof import('../engine/postgres/postgres-engine.js')> => import('../engine/postgres/postgres-engine.js');
  const goldCache = new GoldResultCache(options.goldCacheEntries === undefined ? {} : { maxEntries: options.goldCacheEntries });
  const fixtures = new Map<string, Promise<ResolvedFixture>>();
  let semantic: Promise<SemanticService> | undefined;
  const invariants = new Map<string, Promise<readonly FixtureInvariant[]>>();
  const runtime: LadderRuntime = {
    engine() {
      engine ??= createSqliteEngine(options.engine);
      return engine;
    },
    hasEngine: () => engine !== undefined,
    async postgresEngine() {
      if (postgres === undefined) {
        const { createPostgresEngine } = await postgresModule();
        postgres ??= createPostgresEngine(postgresOptions);
      }
      return postgres;
    },
    async engineFor(dialect) {
      return dialect === 'postgres' ? runtime.postgresEngine() : runtime.engine();
    },
    engineForSnapshot(snapshot) {
      return runtime.engineFor(snapshot.engine ?? 'sqlite');
    },
    usePostgres(server) {
      const wanted = { url: server.url, databases: server.databases ?? 'scratch' };
      const current = { url: postgresOptions.url, databases: postgresOptions.databases ?? 'scratch' };
      if (wanted.url === current.url && wanted.databases === current.databases) return;
      if (postgres !== undefined) {
        throw new LadderError(
          'invalid_option',
          `one PostgreSQL server per run: the engine already uses ${describeServer(current.url, current.databases)}, and ${describeServer(wanted.url, wanted.databases)} was asked for; give every item the same postgres.url`,
        );
      }
      const { url: _url, databases: _databases, ...rest } = postgresOptions;
      postgresOptions = wanted.url === undefined ? rest : { ...rest, url: wanted.url, databases: wanted.databases };
    },
    goldCache,
    semantic() {
      if (semantic === undefined) {
        const created = import('../semantic/semantic-service.js').then(({ createSemanticService }) => createSemanticService());
        semantic = created;
        // An import that failed (a broken install) is tried again by the next call.
        created.catch(() => {
          if (semantic === created) semantic = undefined;
        });
      }
      return semantic;
    },
    fixtureInvariants(name, location = {}) {
      const where = { ...options.fixtures, ...location };
      const key = `${name}\u0000${where.fixturesDir ?? ''}`;
      let pending = invariants.get(key);
      if (pending === undefined) {
        pending = Promise.all([import('../fixtures/registry.js'), import('../semantic/model/invariants.js'), import('node:path'), import('node:fs')]).then(([registry, declared, path, fs]) => {
          const manifest = path.join(where.fixturesDir ?? registry.defaultFixturesDir(), name, 'fixture.yaml');
          return fs.existsSync(manifest) ? declared.readFixtureInvariants(manifest) : [];
        });
        invariants.set(key, pending);
        pending.catch(() => invariants.delete(key));
      }
      return pending;
    },
    resolveFixture(name, role, location = {}) {
      const where = { ...options.fixtures, ...location };
      const key = `${name}\u0000${role ?? ''}\u0000${where.fixturesDir ?? ''}\u0000${where.cacheDir ?? ''}`;
      let pending = fixtures.get(key);
      if (pending === undefined) {
        // Loaded on first use: a front end that never names a fixture (the vitest matchers, the
        // spider command) does not load the fixture builder.
        pending = import('../fixtures/registry.js').then(({ resolveFixture }) =>
          resolveFixture(name, { ...where, ...(role === undefined ? {} : { role }), postgres: () => runtime.postgresEngine() }),
        );
        fixtures.set(key, pending);
        pending.catch(() => fixtures.delete(key));
      }
      return pending;
    },
    async close(waitMs = CLOSE_WAIT_MS) {
      const closingSemantic = semantic;
      semantic = undefined;
      await closingSemantic?.then((service) => service.close(), () => undefined);
      const closingPostgres = postgres;
      postgres = undefined;
      const closing = engine;
      engine = undefined;
      if (closing === undefined && closingPostgres === undefined) return;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      });
      try {
        await Promise.race([Promise.all([closing?.close(), closingPostgres?.close()]), deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return runtime;
}
