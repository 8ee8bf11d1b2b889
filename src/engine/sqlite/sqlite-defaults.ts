/**
 * Defaults of the SQLite engine's options other than `poolSize` (validated in
 * sqlite-engine-options.ts). On their own so that a command line can fork its first engine child
 * with the default memory cap before the engine's modules load (sqlite-children.ts).
 */

/** Defaults of the engine's options other than `poolSize` (checked against their type in sqlite-engine-options.ts). */
export const SQLITE_ENGINE_DEFAULTS = {
  timeoutMs: 10_000,
  maxRows: 100_000,
  maxMemoryBytes: 512 * 2 ** 20,
  maxResultBytes: 64 * 2 ** 20,
  doubleQuotes: 'legacy',
} as const;
