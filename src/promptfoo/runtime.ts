/**
 * The promptfoo front end's runtime (src/runtime/ladder-runtime.ts): one shared engine per engine kind (SQLite, PostgreSQL), fixture
 * resolutions, the gold-result cache, the L6 cache and the catalog cache for the whole process. Kept on `globalThis` under a
 * registered symbol, so that the TypeScript sources (`file://assertions/…`) and the compiled package
 * (`package:text2sql-ladder:assertions.…`) loaded in the same promptfoo process share one engine
 * instead of starting two pools.
 *
 * Closing: the ladder-summary extension's `afterAll` calls {@link closeSharedEngine}; a
 * `beforeExit` hook does the same when no extension is configured. The engine also `unref`s idle
 * children, so an unclosed engine never keeps promptfoo from exiting.
 */
import type { GoldResultCache } from '../compare/gold-result-cache.js';
import { EfficiencyCache } from '../efficiency/efficiency-cache.js';
import type { Engine, EngineName, ExecuteRequest } from '../engine/engine.js';
import type { SqliteEngineOptions } from '../engine/sqlite/sqlite-engine-options.js';
import type { ResolvedFixture } from '../fixtures/registry.js';
import { effectiveFixtureLocation } from './fixture-location.js';
import { promptfooReleaseWarning } from './promptfoo-version.js';
import type { FixtureLocation } from './fixture-location.js';
import { CatalogCache } from '../runtime/catalog-cache.js';
import { CLOSE_WAIT_MS, createLadderRuntime } from '../runtime/ladder-runtime.js';
import { enableParseStore } from '../sql/parse-store.js';
import type { LadderRuntime } from '../runtime/ladder-runtime.js';

interface RuntimeState {
  runtime: LadderRuntime | undefined;
  exitHook: boolean;
  efficiencyCache: EfficiencyCache | undefined;
  catalogCache: CatalogCache | undefined;
}

const STATE_KEY = Symbol.for('text2sql-ladder.assertions.runtime');

function state(): RuntimeState {
  const holder = globalThis as unknown as Record<symbol, RuntimeState | undefined>;
  let current = holder[STATE_KEY];
  if (current === undefined) {
    current = { runtime: undefined, exitHook: false, efficiencyCache: undefined, catalogCache: undefined };
    holder[STATE_KEY] = current;
  }
  return current;
}

/**
 * The promptfoo front end's runtime (engine, gold cache, fixtures), created on first use (which
 * also turns the parse store on: src/sql/parse-store.ts, and warns once about a promptfoo and Node
 * pair that is not tested: promptfoo-version.ts). The
 * first call's `engineOptions` configure the engine (defaults: pool size = available cores,
 * 10 000 ms deadline, legacy double quotes); per-assertion limits are applied with
 * {@link withRequestDefaults}, never by creating another engine.
 */
export function promptfooRuntime(engineOptions?: SqliteEngineOptions): LadderRuntime {
  const current = state();
  if (current.runtime === undefined) {
    // Evals repeat their texts from run to run: keep the parser's answers between runs.
    enableParseStore();
    const warning = promptfooReleaseWarning();
    if (warning !== undefined) process.stderr.write(`${warning}\n`);
    current.runtime = createLadderRuntime(engineOptions === undefined ? {} : { engine: engineOptions });
  }
  return current.runtime;
}

/** The process's shared SQLite engine (the runtime's), created on first use. */
export function getSharedEngine(options?: SqliteEngineOptions): Engine {
  const current = state();
  const engine = promptfooRuntime(options).engine();
  if (!current.exitHook) {
    current.exitHook = true;
    process.once('beforeExit', () => void closeSharedEngine());
  }
  return engine;
}

/**
 * The process's shared engine of a dialect: {@link getSharedEngine} for `sqlite`, the runtime's
 * PostgreSQL engine for `postgres` (its server starts on its first statement; the same exit hook
 * closes it).
 */
export async function getSharedEngineFor(engine: EngineName): Promise<Engine> {
  if (engine === 'sqlite') return getSharedEngine();
  const current = state();
  const postgres = await promptfooRuntime().postgresEngine();
  if (!current.exitHook) {
    current.exitHook = true;
    process.once('beforeExit', () => void closeSharedEngine());
  }
  return postgres;
}

/** Longest wait for the engine's children to exit in {@link closeSharedEngine}, in milliseconds. */
export const CLOSE_TIMEOUT_MS = CLOSE_WAIT_MS;

/**
 * Closes the shared engine (if any); the next {@link getSharedEngine} starts a new one. Waits at
 * most {@link CLOSE_TIMEOUT_MS} with the event loop kept alive (see `LadderRuntime.close`).
 */
export async function closeSharedEngine(): Promise<void> {
  const current = state();
  current.exitHook = false;
  await current.runtime?.close(CLOSE_TIMEOUT_MS);
}

/** The gold-result cache shared by every execution assertion in the process. */
export function sharedGoldCache(): GoldResultCache {
  return promptfooRuntime().goldCache;
}

/**
 * The L6 cache shared by every ladder and efficiency assertion in the process: each snapshot's
 * statistics and views, and each gold's plan, are read once per run (src/efficiency/efficiency-cache.ts).
 */
export function sharedEfficiencyCache(): EfficiencyCache {
  return (state().efficiencyCache ??= new EfficiencyCache());
}

/**
 * The catalogs shared by every assertion in the process: each database's tables and columns (L2's
 * names) are read once per file identity, not once per row (src/runtime/catalog-cache.ts).
 */
export function sharedCatalogCache(): CatalogCache {
  return (state().catalogCache ??= new CatalogCache());
}

/**
 * Resolves (and on first use builds) a fixture, once per (name, role, location) per process.
 * @param location - an assertion's own `fixturesDir` / `cacheDir`; the rest comes from
 *   {@link effectiveFixtureLocation} (the test generator's, the environment, the defaults).
 * @throws LadderError `unknown_fixture` / `invalid_option` from the registry (misuse).
 */
export function resolveFixtureOnce(name: string, role: string | undefined, location?: FixtureLocation): Promise<ResolvedFixture> {
  return promptfooRuntime().resolveFixture(name, role, effectiveFixtureLocation(location));
}

/** Per-request defaults an assertion applies on top of the shared engine. */
export interface RequestDefaults {
  /** Deadline per statement in milliseconds. */
  readonly timeoutMs?: number;
  /** Double-quote handling. */
  readonly doubleQuotes?: ExecuteRequest['doubleQuotes'];
}

/**
 * An engine view that fills in request fields the caller left out (a request's own values win).
 * `close()` on the view does nothing: the shared engine belongs to the process.
 */
export function withRequestDefaults(engine: Engine, defaults: RequestDefaults): Engine {
  if (defaults.timeoutMs === undefined && defaults.doubleQuotes === undefined) return engine;
  const fill = (request: ExecuteRequest): ExecuteRequest => {
    const timeoutMs = request.timeoutMs ?? defaults.timeoutMs;
    const doubleQuotes = request.doubleQuotes ?? defaults.doubleQuotes;
    return { ...request, ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(doubleQuotes !== undefined ? { doubleQuotes } : {}) };
  };
  // `options` mirrors SqliteEngine.options with these defaults applied, so that a rung keying a
  // cache on the double-quote mode (checkExecution) sees the mode the view runs under.
  const base = (engine as { readonly options?: object }).options;
  const view = {
    dialect: engine.dialect,
    options: { ...base, ...(defaults.timeoutMs !== undefined ? { timeoutMs: defaults.timeoutMs } : {}), ...(defaults.doubleQuotes !== undefined ? { doubleQuotes: defaults.doubleQuotes } : {}) },
    execute: (request: ExecuteRequest) => engine.execute(fill(request)),
    prepare: (request: ExecuteRequest) => engine.prepare(fill(request)),
    explain: (request: ExecuteRequest) => engine.explain(fill(request)),
    catalog: (db: string) => engine.catalog(db),
    close: async () => undefined,
  };
  return view;
}
