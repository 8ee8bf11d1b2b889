/**
 * Process-wide state of the promptfoo assertions: one shared engine, fixture resolutions and the
 * gold-result cache. Kept on `globalThis` under a registered symbol, so that the TypeScript sources
 * (`file://assertions/…`) and the compiled package (`package:text2sql-ladder:assertions.…`) loaded
 * in the same promptfoo process share one engine instead of starting two pools.
 *
 * Closing: the ladder-summary extension's `afterAll` calls {@link closeSharedEngine}; a
 * `beforeExit` hook does the same when no extension is configured. The engine also `unref`s idle
 * children, so an unclosed engine never keeps promptfoo from exiting.
 */
import { GoldResultCache } from '../src/compare/gold-result-cache.js';
import type { Engine, ExecuteRequest } from '../src/engine/engine.js';
import { createSqliteEngine } from '../src/engine/sqlite/sqlite-engine.js';
import type { SqliteEngineOptions } from '../src/engine/sqlite/sqlite-engine-options.js';
import { resolveFixture } from '../src/fixtures/registry.js';
import type { ResolvedFixture } from '../src/fixtures/registry.js';

interface RuntimeState {
  engine: Engine | undefined;
  fixtures: Map<string, Promise<ResolvedFixture>>;
  goldCache: GoldResultCache;
  exitHook: boolean;
}

const STATE_KEY = Symbol.for('text2sql-ladder.assertions.runtime');

function state(): RuntimeState {
  const holder = globalThis as unknown as Record<symbol, RuntimeState | undefined>;
  let current = holder[STATE_KEY];
  if (current === undefined) {
    current = { engine: undefined, fixtures: new Map(), goldCache: new GoldResultCache(), exitHook: false };
    holder[STATE_KEY] = current;
  }
  return current;
}

/**
 * The process's shared SQLite engine, created on first use with the engine defaults (pool size =
 * available cores, 10 000 ms deadline, legacy double quotes). Per-assertion limits are applied with
 * {@link withRequestDefaults}, never by creating another engine.
 */
export function getSharedEngine(options?: SqliteEngineOptions): Engine {
  const current = state();
  if (current.engine === undefined) {
    current.engine = createSqliteEngine(options);
    if (!current.exitHook) {
      current.exitHook = true;
      process.once('beforeExit', () => void closeSharedEngine());
    }
  }
  return current.engine;
}

/** Longest wait for the engine's children to exit in {@link closeSharedEngine}, in milliseconds. */
export const CLOSE_TIMEOUT_MS = 5_000;

/**
 * Closes the shared engine (if any); the next {@link getSharedEngine} starts a new one.
 *
 * The engine `unref`s idle children, so nothing would keep Node's event loop alive while `close()`
 * waits for them to exit: inside promptfoo's afterAll that drained the loop and Node exited with
 * code 13 (unsettled top-level await) before promptfoo wrote its results. A ref'd timer keeps the
 * loop alive for the wait, capped at {@link CLOSE_TIMEOUT_MS}.
 */
export async function closeSharedEngine(): Promise<void> {
  const current = state();
  const engine = current.engine;
  current.engine = undefined;
  current.exitHook = false;
  if (engine === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
  });
  try {
    await Promise.race([engine.close(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The gold-result cache shared by every execution assertion in the process. */
export function sharedGoldCache(): GoldResultCache {
  return state().goldCache;
}

/**
 * Resolves (and on first use builds) a fixture, once per (name, role) per process.
 * @throws LadderError `unknown_fixture` / `invalid_option` from the registry (misuse).
 */
export function resolveFixtureOnce(name: string, role: string | undefined): Promise<ResolvedFixture> {
  const key = `${name}\u0000${role ?? ''}`;
  const fixtures = state().fixtures;
  let pending = fixtures.get(key);
  if (pending === undefined) {
    pending = resolveFixture(name, role === undefined ? {} : { role });
    fixtures.set(key, pending);
    pending.catch(() => fixtures.delete(key));
  }
  return pending;
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
