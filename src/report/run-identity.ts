/**
 * Run identity: what a graded run records about itself so that two runs can be compared honestly
 * (*How to evaluate SQL queries that run successfully but return the wrong answer*, "A pinned reference dataset version", "Record the database snapshot identifier,
 * model, and prompt version in experiment metadata"). A comparison of a baseline and a candidate
 * measures the prompt or model change only when both ran on the same items, the same snapshot
 * bytes and the same comparison policy; {@link compareRunIdentities} says where they differ.
 *
 * Producers: the promptfoo summary hook (`config.metadata.text2sqlLadder` of the promptfoo result
 * file and each entry of the summary JSON; src/report/promptfoo-run-identity.ts) and the `spider`
 * command (`<out>.run.json` beside the JSONL; src/report/spider-run-identity.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LadderError } from '../errors.js';
import { findPackageRoot, PACKAGE_NAME } from '../fixtures/package-root.js';
import { hashUserFile } from '../files/user-file.js';
import { isObject } from '../objects.js';

/** Format tag of a {@link RunIdentity}; bumped when a field changes meaning. */
export const RUN_IDENTITY_FORMAT = 'text2sql-ladder.run-identity/1';

/** A JSON value (what identities and settings are made of). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** The items a run graded. */
export interface DatasetIdentity {
  /**
   * `sha256:<hex>` of the canonical JSON of the graded items sorted by id — for promptfoo, each
   * test's `{ id, vars, tags }`; for Spider, each gold line's `{ id: index, sql, db_id }`. Reformatting a
   * dataset file does not change it; changing a question, a gold, a database, a tag or an as-of
   * date does.
   */
  readonly contentHash: string;
  /** Number of distinct items. */
  readonly items: number;
  /** Dataset files named by the items (promptfoo `metadata.source`, the Spider gold file), with the `sha256:<hex>` of their bytes (`null`: unreadable). */
  readonly files: readonly { readonly path: string; readonly hash: string | null }[];
}

/** One snapshot database a run executed on. */
export interface SnapshotIdentity {
  /** Fixture name, database path as the dataset wrote it (`db_path`), or Spider db_id. */
  readonly database: string;
  /** Role of a role-scoped copy; `null` for the full database. */
  readonly role: string | null;
  /** Snapshot name (`base`, `edge`, a Spider file name without `.sqlite`). */
  readonly name: string;
  /** `sha256:<hex>` of the database file's bytes; `null` when it could not be read. */
  readonly hash: string | null;
}

/** The prompt of a run (promptfoo). */
export interface PromptIdentity {
  /** Prompt label. */
  readonly label: string | null;
  /** promptfoo's prompt id (the digest of the prompt template or function), `sha256:<hex>`. */
  readonly id: string | null;
  /** `sha256:<hex>` of every rendered prompt, in item-id order (catches schema or rule text changes). */
  readonly renderedHash: string | null;
}

/** The provider (model) of a run. */
export interface ProviderIdentity {
  /** The column label (promptfoo provider label; Spider: the prediction file's name). */
  readonly label: string;
  /** Provider id (`openai:chat:gpt-4.1-mini`, `replay:warehouse-weak.jsonl`); `null` when unknown. */
  readonly id: string | null;
  /** Model id, from the provider id or its `model` setting; `null` when not known (e.g. a replay). */
  readonly model: string | null;
  /** Provider settings (temperature, max_tokens, …) with credentials removed. */
  readonly settings: { readonly [key: string]: JsonValue };
}

/** What a run records about itself. Every field is plain JSON. */
export interface RunIdentity {
  readonly format: typeof RUN_IDENTITY_FORMAT;
  /** The package that graded the run. */
  readonly tool: { readonly name: string; readonly version: string };
  /** Which front end produced the run. */
  readonly source: 'promptfoo' | 'spider';
  /** When the identity was recorded (ISO 8601). */
  readonly recordedAt: string;
  readonly dataset: DatasetIdentity;
  /** Every snapshot executed on, sorted by database, role, name. */
  readonly snapshots: readonly SnapshotIdentity[];
  /** The distinct resolved comparison policies the verdicts used (usually one). */
  readonly policies: readonly JsonValue[];
  readonly prompt: PromptIdentity | null;
  readonly provider: ProviderIdentity;
  /** Distinct `as_of_date` values of the items, sorted. */
  readonly asOfDates: readonly string[];
  /** Other settings that change verdicts (Spider: preset, keepDistinct, timeoutMs). */
  readonly settings: { readonly [key: string]: JsonValue };
}

/**
 * JSON with object keys sorted at every level and `undefined` members dropped, so equal values
 * give equal text. Arrays keep their order.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((entry) => (entry === undefined ? null : sortKeys(entry)));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const entry = (value as Record<string, unknown>)[key];
      if (entry !== undefined) out[key] = sortKeys(entry);
    }
    return out;
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * `sha256:<hex>` of a string (UTF-8) or bytes. The prefix names the algorithm and also keeps
 * promptfoo's output sanitizer from taking a bare 64-character hex string for a secret (it
 * replaces any such string with `[REDACTED]` in `out.json`).
 */
export function digestOf(data: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** A registry checksum (bare sha256 hex) as a digest; digests pass through. */
export function asDigest(checksum: string): string {
  return checksum.startsWith('sha256:') ? checksum : `sha256:${checksum}`;
}

/**
 * The dataset content hash: the digest of the canonical JSON of `items` sorted by id (code-unit
 * order). Each item's content is whatever defines it for the front end (see {@link DatasetIdentity}).
 */
export function hashDatasetItems(items: ReadonlyArray<{ readonly id: string; readonly content: unknown }>): string {
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return digestOf(canonicalJson(sorted.map((item) => ({ id: item.id, content: item.content }))));
}

/** The digest of a file's bytes, or `null` when it cannot be read. */
export function hashFileOrNull(file: string): string | null {
  try {
    return `sha256:${hashUserFile(file, { what: 'file' })}`;
  } catch {
    return null;
  }
}

let cachedVersion: string | undefined;

/** This package's version (its package.json, found from the package root). */
export function readPackageVersion(): string {
  if (cachedVersion !== undefined) return cachedVersion;
  const manifest = JSON.parse(readFileSync(path.join(findPackageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  cachedVersion = typeof manifest.version === 'string' ? manifest.version : 'unknown';
  return cachedVersion;
}

/** The `tool` field of identities made by this package. */
export function thisTool(): RunIdentity['tool'] {
  return { name: PACKAGE_NAME, version: readPackageVersion() };
}

/** promptfoo provider-id segments naming an API kind rather than a model (`openai:chat:<model>`). */
const API_KINDS = new Set(['chat', 'completion', 'completions', 'messages', 'responses', 'assistant', 'embedding', 'embeddings', 'realtime', 'converse', 'invoke', 'text']);

/**
 * The model id in a promptfoo provider id: `openai:chat:gpt-4.1-mini` → `gpt-4.1-mini`,
 * `anthropic:messages:claude-sonnet-4-20250514` → `claude-sonnet-4-20250514`,
 * `ollama:chat:qwen2.5-coder:7b` → `qwen2.5-coder:7b`, `openai:gpt-4o` → `gpt-4o`. A `model`
 * setting wins. `null` for file, package, exec and replay providers, whose id names no model.
 */
export function modelIdOf(providerId: string | null, settings: { readonly [key: string]: JsonValue } = {}): string | null {
  const fromSettings = settings['model'];
  if (typeof fromSettings === 'string' && fromSettings !== '') return fromSettings;
  if (providerId === null || /^(file|package|exec|python|golang|ruby|https?|replay|echo)(:|$)/.test(providerId)) return null;
  const parts = providerId.split(':');
  if (parts.length < 2) return null;
  const rest = API_KINDS.has(parts[1]!) ? parts.slice(2) : parts.slice(1);
  const model = rest.join(':');
  return model === '' ? null : model;
}

/** Setting names (lower-cased, non-alphanumerics removed) that hold credentials. */
const SECRET_NAME = /(apikey|secret|password|passwd|passphrase|credential|authorization|bearer|cookie|privatekey|accesskey|sessiontoken|accesstoken|authtoken|refreshtoken|^token$|^auth$|^headers?$)/;
/** Values that look like credentials whatever their name. */
const SECRET_VALUE = /^(sk-|sk_|pk_live|rk_|xox[abprs]-|ghp_|gho_|github_pat_|AKIA|ASIA|AIza)/;

/**
 * A provider's settings as JSON with credentials removed: entries whose name looks like a
 * credential (`apiKey`, `token`, `headers`, `password`, … — `max_tokens` is kept) or whose string
 * value looks like one (`sk-…`, `ghp_…`, `AKIA…`) are dropped, at every depth; functions and
 * other non-JSON values are dropped.
 */
export function redactSettings(config: unknown): { [key: string]: JsonValue } {
  const cleaned = clean(config);
  return cleaned !== null && typeof cleaned === 'object' && !Array.isArray(cleaned) ? (cleaned as { [key: string]: JsonValue }) : {};
}

function clean(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? undefined : value;
  if (Array.isArray(value)) return value.map((entry) => clean(entry)).filter((entry): entry is JsonValue => entry !== undefined);
  if (typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
      if (SECRET_NAME.test(key.toLowerCase().replace(/[^a-z0-9]/g, ''))) continue;
      const kept = clean(entry);
      if (kept !== undefined) out[key] = kept;
    }
    return out;
  }
  return undefined;
}

/** Distinct values by canonical JSON, in first-seen order. */
export function distinctJson<T>(values: Iterable<T>): T[] {
  const seen = new Map<string, T>();
  for (const value of values) {
    const key = canonicalJson(value);
    if (!seen.has(key)) seen.set(key, value);
  }
  return [...seen.values()];
}

/** Sorts snapshot identities by database, role, name (and drops exact duplicates). */
export function sortSnapshots(snapshots: Iterable<SnapshotIdentity>): SnapshotIdentity[] {
  const key = (s: SnapshotIdentity): string => `${s.database}\u0000${s.role ?? ''}\u0000${s.name}`;
  const unique = new Map<string, SnapshotIdentity>();
  for (const snapshot of snapshots) if (!unique.has(key(snapshot))) unique.set(key(snapshot), snapshot);
  return [...unique.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Reads a parsed JSON value as a {@link RunIdentity}, checking the fields a comparison relies on.
 * @param where - names the file (and location) in error messages.
 * @throws LadderError `input_invalid` naming `where` and the first bad field.
 */
export function parseRunIdentity(value: unknown, where: string): RunIdentity {
  const fail = (field: string, expected: string): never => {
    throw new LadderError('input_invalid', `${where}: run identity field ${field} must be ${expected}`);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('(top level)', 'an object');
  const record = value as Record<string, unknown>;
  if (record['format'] !== RUN_IDENTITY_FORMAT) fail('format', `"${RUN_IDENTITY_FORMAT}" (received ${JSON.stringify(record['format'])})`);
  const dataset = record['dataset'] as Record<string, unknown> | undefined;
  if (dataset === null || typeof dataset !== 'object' || typeof dataset['contentHash'] !== 'string') fail('dataset.contentHash', 'a string');
  if (!Array.isArray(record['snapshots'])) fail('snapshots', 'a list');
  for (const [index, snapshot] of (record['snapshots'] as unknown[]).entries()) {
    const entry = snapshot as Record<string, unknown> | null;
    if (entry === null || typeof entry !== 'object' || typeof entry['database'] !== 'string' || typeof entry['name'] !== 'string') fail(`snapshots[${index}]`, 'an object with database and name');
  }
  if (!Array.isArray(record['policies'])) fail('policies', 'a list');
  const provider = record['provider'] as Record<string, unknown> | undefined;
  if (provider === null || typeof provider !== 'object' || typeof provider['label'] !== 'string') fail('provider.label', 'a string');
  return value as RunIdentity;
}

/** One way two runs differ. */
export interface IdentityDifference {
  /** `dataset`, `snapshots` and `policy` differences make the comparison suspect (a warning, or an error with `--strict`); the others are informational. */
  readonly field: 'dataset' | 'snapshots' | 'policy' | 'identity' | 'tool' | 'prompt' | 'provider' | 'as_of_dates' | 'settings';
  /** True for the fields that decide whether the runs are comparable. */
  readonly blocking: boolean;
  /** One line for a person. */
  readonly message: string;
}

/** Identity facts a reader can compute from the items when no identity was recorded. */
export interface DerivedIdentity {
  /** {@link DatasetIdentity.contentHash} computed from the items, when the file holds them. */
  readonly datasetContentHash?: string;
  /** Policies read from the items' verdicts, when the file holds them. */
  readonly policies?: readonly JsonValue[];
}

/** A run as {@link compareRunIdentities} sees it. */
export interface IdentifiedRun {
  readonly identity: RunIdentity | undefined;
  readonly derived: DerivedIdentity;
}

/**
 * Where two runs differ, in this order: dataset content, snapshot checksums, comparison policy
 * (blocking), then package version, prompt, provider, as-of dates, other settings (informational).
 * Facts missing from a run (no identity recorded, e.g. a file written before identities existed)
 * give one blocking `identity` entry naming the run, and the dataset and policy checks fall back
 * to what the reader computed from the items.
 */
export function compareRunIdentities(baseline: IdentifiedRun, candidate: IdentifiedRun): IdentityDifference[] {
  const out: IdentityDifference[] = [];
  const b = baseline.identity;
  const c = candidate.identity;
  for (const [run, name] of [[baseline, 'baseline'], [candidate, 'candidate']] as const) {
    if (run.identity === undefined) {
      out.push({ field: 'identity', blocking: true, message: `the ${name} records no run identity (written before run identities or by another tool): snapshot checksums cannot be checked` });
    }
  }
  const datasetOf = (run: IdentifiedRun): string | undefined => run.identity?.dataset.contentHash ?? run.derived.datasetContentHash;
  const bData = datasetOf(baseline);
  const cData = datasetOf(candidate);
  if (bData !== undefined && cData !== undefined && bData !== cData) {
    const counts = b && c ? ` (${b.dataset.items} vs ${c.dataset.items} items)` : '';
    out.push({ field: 'dataset', blocking: true, message: `dataset content differs: ${short(bData)} vs ${short(cData)}${counts}` });
  }
  if (b && c) out.push(...snapshotDifferences(b.snapshots, c.snapshots));
  const policiesOf = (run: IdentifiedRun): readonly JsonValue[] | undefined => run.identity?.policies ?? run.derived.policies;
  const bPolicies = policiesOf(baseline);
  const cPolicies = policiesOf(candidate);
  if (bPolicies !== undefined && cPolicies !== undefined && bPolicies.length > 0 && cPolicies.length > 0) {
    const message = policyDifference(bPolicies, cPolicies);
    if (message !== undefined) out.push({ field: 'policy', blocking: true, message });
  }
  if (b && c) {
    if (b.tool.version !== c.tool.version) out.push({ field: 'tool', blocking: false, message: `${b.tool.name} ${b.tool.version} vs ${c.tool.version}` });
    const promptText = (p: PromptIdentity | null): string => (p === null ? '(none)' : `${p.label ?? '(no label)'}${p.id ? ` ${short(p.id)}` : ''}`);
    if (canonicalJson(b.prompt) !== canonicalJson(c.prompt)) {
      const rendered = b.prompt?.id === c.prompt?.id && b.prompt?.renderedHash !== c.prompt?.renderedHash ? ' (same template, different rendered prompts)' : '';
      out.push({ field: 'prompt', blocking: false, message: `prompt ${promptText(b.prompt)} vs ${promptText(c.prompt)}${rendered}` });
    }
    const providerText = (p: ProviderIdentity): string => `${p.label}${p.id && p.id !== p.label ? ` (${p.id})` : ''}${p.model ? ` model ${p.model}` : ''}`;
    if (canonicalJson(b.provider) !== canonicalJson(c.provider)) out.push({ field: 'provider', blocking: false, message: `provider ${providerText(b.provider)} vs ${providerText(c.provider)}` });
    if (canonicalJson(b.asOfDates) !== canonicalJson(c.asOfDates)) out.push({ field: 'as_of_dates', blocking: false, message: `as-of dates ${b.asOfDates.join(', ') || '(none)'} vs ${c.asOfDates.join(', ') || '(none)'}` });
    if (canonicalJson(b.settings) !== canonicalJson(c.settings)) out.push({ field: 'settings', blocking: false, message: `settings ${canonicalJson(b.settings)} vs ${canonicalJson(c.settings)}` });
  }
  return out;
}

function snapshotDifferences(base: readonly SnapshotIdentity[], cand: readonly SnapshotIdentity[]): IdentityDifference[] {
  const key = (s: SnapshotIdentity): string => `${s.database}${s.role === null ? '' : `@${s.role}`}/${s.name}`;
  const baseMap = new Map(base.map((s) => [key(s), s.hash]));
  const candMap = new Map(cand.map((s) => [key(s), s.hash]));
  const changed: string[] = [];
  for (const [name, sum] of baseMap) {
    if (!candMap.has(name)) continue;
    const other = candMap.get(name) ?? null;
    if (sum !== other) changed.push(`${name} ${sum === null ? 'unreadable' : short(sum)} vs ${other === null ? 'unreadable' : short(other)}`);
  }
  const onlyBase = [...baseMap.keys()].filter((name) => !candMap.has(name));
  const onlyCand = [...candMap.keys()].filter((name) => !baseMap.has(name));
  const out: IdentityDifference[] = [];
  if (changed.length > 0) out.push({ field: 'snapshots', blocking: true, message: `snapshot checksums differ: ${listSome(changed)}` });
  if (onlyBase.length > 0 || onlyCand.length > 0) {
    const parts = [onlyBase.length > 0 ? `only in the baseline: ${listSome(onlyBase)}` : '', onlyCand.length > 0 ? `only in the candidate: ${listSome(onlyCand)}` : ''].filter(Boolean);
    out.push({ field: 'snapshots', blocking: true, message: `snapshots differ: ${parts.join('; ')}` });
  }
  return out;
}

/** One line naming the policy fields that differ, or `undefined` when the policy sets are equal. */
function policyDifference(base: readonly JsonValue[], cand: readonly JsonValue[]): string | undefined {
  const text = (list: readonly JsonValue[]): string => canonicalJson([...list.map((p) => canonicalJson(p))].sort());
  if (text(base) === text(cand)) return undefined;
  if (base.length === 1 && cand.length === 1 && isObject(base[0]) && isObject(cand[0])) {
    const a = base[0];
    const b = cand[0];
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    const fields = keys.filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k])).map((k) => `${k} ${canonicalJson(a[k]) ?? 'absent'} vs ${canonicalJson(b[k]) ?? 'absent'}`);
    return `comparison policy differs: ${listSome(fields)}`;
  }
  return `comparison policy differs: ${base.length} vs ${cand.length} distinct policies`;
}


/** A digest shortened for display: `sha256:` and the first 12 hex digits. */
export function short(sum: string): string {
  return asDigest(sum).slice(0, 'sha256:'.length + 12);
}

function listSome(values: readonly string[], max = 5): string {
  return values.length <= max ? values.join(', ') : `${values.slice(0, max).join(', ')}, … (${values.length - max} more)`;
}
