/**
 * Run identities of a promptfoo eval, one per column (prompt × provider), computed from the result
 * rows and the resolved config in the `afterAll` hook and stored where promptfoo keeps them:
 * `config.metadata.text2sqlLadder` of the eval (written to the `-o out.json` file and to the
 * viewer's database). The summary hook also attaches them to the summary JSON.
 *
 * ```json
 * "config": { "metadata": { "text2sqlLadder": { "format": "text2sql-ladder.promptfoo-runs/1",
 *   "columns": [ { "promptIdx": 0, "provider": "strong", "prompt": "text2sql", "identity": { … } } ] } } }
 * ```
 *
 * What each field is made of (see run-identity.ts for the types):
 * - dataset: each test's `{ id, vars, tags }` (the test case's vars, so the provider's output is not
 *   part of it), and the dataset files named by `metadata.source` with their digests;
 * - snapshots: per test, the fixture named by `db` (resolved with its `role`, restricted to
 *   `snapshots`) with the registry's checksums, or each `db_path` file hashed;
 * - policies: the resolved comparison policies of the execution verdicts;
 * - prompt: label, promptfoo's prompt id, a hash of every rendered prompt;
 * - provider: label, id, model id (from the id or a `model` setting), settings without credentials;
 * - settings: the ladder assertions' configs (`{ assertion, config }`).
 */
import path from 'node:path';
import { resolveFixture } from '../fixtures/registry.js';
import { snapshotNameOf } from '../fixtures/snapshot.js';
import {
  canonicalJson,
  distinctJson,
  hashDatasetItems,
  hashFileOrNull,
  modelIdOf,
  redactSettings,
  RUN_IDENTITY_FORMAT,
  digestOf,
  asDigest,
  sortSnapshots,
  thisTool,
  type JsonValue,
  type RunIdentity,
  type SnapshotIdentity,
} from './run-identity.js';
import { columnsOf, itemIdOf, policyOf, tagsOf, varsOf, type PromptfooColumn, type PromptfooPromptEntry, type PromptfooRow } from './promptfoo-rows.js';

/** Format tag of the `config.metadata.text2sqlLadder` entry. */
export const PROMPTFOO_RUNS_FORMAT = 'text2sql-ladder.promptfoo-runs/1';

/** One column's identity as stored in `config.metadata.text2sqlLadder.columns`. */
export interface PromptfooColumnIdentity {
  /** Index into `results.prompts` (rows with this `promptIdx`). */
  readonly promptIdx: number;
  readonly provider: string;
  readonly prompt: string;
  readonly identity: RunIdentity;
}

/** The `config.metadata.text2sqlLadder` entry. */
export interface PromptfooRunsMetadata {
  readonly format: typeof PROMPTFOO_RUNS_FORMAT;
  readonly columns: readonly PromptfooColumnIdentity[];
}

/** Resolves a fixture's snapshots with their checksums (the registry, or the runtime's cached resolution). */
export type FixtureSnapshotResolver = (name: string, role: string | undefined) => Promise<{ readonly snapshots: ReadonlyArray<{ readonly name: string; readonly checksum?: string | undefined }> }>;

/** The slice of promptfoo's `afterAll` context read here (also the shape of an `out.json`). */
export interface PromptfooEvalContext {
  readonly results?: readonly PromptfooRow[];
  readonly prompts?: ReadonlyArray<PromptfooPromptEntry | null>;
  /** The eval's resolved config; `metadata` is written. */
  readonly config?: { providers?: unknown; metadata?: Record<string, unknown> } | null;
}

/** Options of {@link identifyPromptfooColumns}. */
export interface IdentifyPromptfooOptions {
  /** Default: the fixture registry (`resolveFixture`). */
  readonly resolveFixture?: FixtureSnapshotResolver;
  /** Default: now. */
  readonly recordedAt?: Date;
}

/**
 * Computes the identity of every column of an eval.
 * Never throws for a malformed row: what cannot be read is left out (an unknown fixture, for
 * instance, errored its rows already).
 */
export async function identifyPromptfooColumns(context: PromptfooEvalContext, options: IdentifyPromptfooOptions = {}): Promise<PromptfooColumnIdentity[]> {
  const rows = context.results ?? [];
  const resolver = options.resolveFixture ?? ((name, role) => resolveFixture(name, role === undefined ? {} : { role }));
  const recordedAt = (options.recordedAt ?? new Date()).toISOString();
  const fixtureCache = new Map<string, Promise<SnapshotIdentity[]>>();
  const fileCache = new Map<string, string | null>();
  const out: PromptfooColumnIdentity[] = [];
  for (const column of columnsOf(context.prompts, rows)) {
    const columnRows = rows.filter((row) => (row.promptIdx ?? 0) === column.index);
    if (columnRows.length === 0) continue;
    const identity = await identifyColumn(column, columnRows, context.config?.providers, { resolver, recordedAt, fixtureCache, fileCache });
    out.push({ promptIdx: column.index, provider: column.provider, prompt: column.prompt, identity });
  }
  return out;
}

/**
 * Computes the identities and stores them in `context.config.metadata.text2sqlLadder` (creating
 * `metadata` when missing), where promptfoo writes them into the result file. The one call the
 * summary hook makes.
 * @returns the identities, for the summary JSON.
 */
export async function recordPromptfooRunIdentities(context: PromptfooEvalContext, options: IdentifyPromptfooOptions = {}): Promise<PromptfooColumnIdentity[]> {
  const columns = await identifyPromptfooColumns(context, options);
  const config = context.config;
  if (config && typeof config === 'object') {
    const entry: PromptfooRunsMetadata = { format: PROMPTFOO_RUNS_FORMAT, columns };
    config.metadata = { ...(config.metadata ?? {}), text2sqlLadder: entry };
  }
  return columns;
}

interface ColumnContext {
  readonly resolver: FixtureSnapshotResolver;
  readonly recordedAt: string;
  readonly fixtureCache: Map<string, Promise<SnapshotIdentity[]>>;
  readonly fileCache: Map<string, string | null>;
}

async function identifyColumn(column: PromptfooColumn, rows: readonly PromptfooRow[], providers: unknown, context: ColumnContext): Promise<RunIdentity> {
  const byId = new Map<string, PromptfooRow>();
  for (const row of rows) if (!byId.has(itemIdOf(row))) byId.set(itemIdOf(row), row);
  const items = [...byId].map(([id, row]) => ({ id, content: datasetContentOf(row) }));

  const sourceFiles = new Set<string>();
  for (const row of byId.values()) {
    const source = row.testCase?.metadata?.['source'];
    if (typeof source === 'string' && source !== '') sourceFiles.add(source.replace(/:\d+$/, ''));
  }
  const files = [...sourceFiles].sort().map((file) => ({ path: file, hash: cachedFileHash(file, context.fileCache) }));

  const snapshots: SnapshotIdentity[] = [];
  for (const row of byId.values()) snapshots.push(...(await snapshotsOf(row, context)));

  const policies = distinctJson(rows.map((row) => policyOf(row)).filter((policy) => policy !== undefined)) as JsonValue[];
  const asOfDates = [...new Set([...byId.values()].map((row) => varsOf(row)['as_of_date']).filter((date): date is string => typeof date === 'string'))].sort();

  const rendered = [...byId].map(([id, row]) => [id, row.prompt?.raw ?? null]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
  const first = rows[0]!;
  const providerId = first.provider?.id ?? null;
  const settings = providerSettingsOf(providers, column.provider, providerId);
  const assertions = distinctJson(rows.flatMap((row) => (row.testCase?.assert ?? []).flatMap((assertion) => (assertion ? [ladderAssertionSetting(assertion)] : [])))).filter((entry): entry is JsonValue => entry !== undefined);

  return {
    format: RUN_IDENTITY_FORMAT,
    tool: thisTool(),
    source: 'promptfoo',
    recordedAt: context.recordedAt,
    dataset: { contentHash: hashDatasetItems(items), items: items.length, files },
    snapshots: sortSnapshots(snapshots),
    policies,
    prompt: { label: column.prompt || null, id: promptIdOf(column.promptId ?? first.promptId ?? null), renderedHash: digestOf(canonicalJson(rendered)) },
    provider: { label: column.provider, id: providerId, model: modelIdOf(providerId, settings), settings },
    asOfDates,
    settings: assertions.length > 0 ? { assertions } : {},
  };
}

/** promptfoo's prompt id is a bare sha256 hex: stored as a digest (see {@link digestOf} on why). */
function promptIdOf(id: string | null): string | null {
  return id !== null && /^[0-9a-f]{64}$/.test(id) ? asDigest(id) : id;
}

/** The part of a test that defines the item: its id, vars and tags. */
export function datasetContentOf(row: PromptfooRow): unknown {
  return { vars: varsOf(row), tags: [...tagsOf(row)].sort() };
}

/** Assertion value `file:///abs/…/assertions/ladder.ts:ladder` → `assertions/ladder.ts:ladder` (no machine paths). */
function ladderAssertionSetting(assertion: { readonly type?: string; readonly value?: unknown; readonly config?: unknown }): JsonValue | undefined {
  if (typeof assertion.value !== 'string') return undefined;
  const value = assertion.value.startsWith('file://') ? assertion.value.split('/').slice(-2).join('/') : assertion.value;
  return { assertion: value, config: redactSettings(assertion.config ?? {}) };
}

async function snapshotsOf(row: PromptfooRow, context: ColumnContext): Promise<SnapshotIdentity[]> {
  const vars = varsOf(row);
  const role = typeof vars['role'] === 'string' && vars['role'] !== '' ? vars['role'] : undefined;
  const dbPaths = stringList(vars['db_path']);
  if (dbPaths.length > 0) {
    return dbPaths.map((file) => ({
      database: file,
      role: role ?? null,
      name: snapshotNameOf(file),
      hash: cachedFileHash(path.resolve(file), context.fileCache),
    }));
  }
  const db = vars['db'];
  if (typeof db !== 'string' || db === '') return [];
  const key = `${db}\u0000${role ?? ''}`;
  let pending = context.fixtureCache.get(key);
  if (pending === undefined) {
    pending = context.resolver(db, role).then(
      (fixture) => fixture.snapshots.map((snapshot) => ({ database: db, role: role ?? null, name: snapshot.name, hash: snapshot.checksum === undefined ? null : asDigest(snapshot.checksum) })),
      () => [],
    );
    context.fixtureCache.set(key, pending);
  }
  const all = await pending;
  const wanted = stringList(vars['snapshots']);
  return wanted.length === 0 ? all : all.filter((snapshot) => wanted.includes(snapshot.name));
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string' && value !== '') return [value];
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string' && entry !== '') : [];
}

function cachedFileHash(file: string, cache: Map<string, string | null>): string | null {
  if (!cache.has(file)) cache.set(file, hashFileOrNull(file));
  return cache.get(file) ?? null;
}

/** The settings of the config's provider entry with this label (else this id), credentials removed. */
function providerSettingsOf(providers: unknown, label: string, id: string | null): { [key: string]: JsonValue } {
  const list = Array.isArray(providers) ? providers : providers === undefined || providers === null ? [] : [providers];
  const entries = list.filter((entry): entry is Record<string, unknown> => entry !== null && typeof entry === 'object' && !Array.isArray(entry));
  const found = entries.find((entry) => entry['label'] === label) ?? entries.find((entry) => entry['id'] === id || entry['id'] === label);
  return redactSettings(found?.['config'] ?? {});
}

/**
 * The summary JSON entries with their run identities: each provider summary gets `runs`, the
 * identities of that provider's columns (one per prompt; usually one).
 */
export function withRunIdentities<T extends { readonly provider: string; readonly column?: number }>(summaries: readonly T[], identities: readonly PromptfooColumnIdentity[]): Array<T & { runs: RunIdentity[] }> {
  // A summary of one column (provider × prompt) takes that column's identity; otherwise the provider's.
  return summaries.map((summary) => ({
    ...summary,
    runs: identities.filter((entry) => (summary.column !== undefined ? entry.promptIdx === summary.column : entry.provider === summary.provider)).map((entry) => entry.identity),
  }));
}
