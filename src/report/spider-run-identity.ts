/**
 * The run identity of a `text2sql-ladder spider` run, written beside its JSONL as
 * `<out>.run.json` (e.g. `verdicts.jsonl.run.json`), so that readers of the one-item-per-line
 * JSONL are not broken and `text2sql-ladder compare` finds it next to the file it reads.
 *
 * - dataset: each gold item's `{ id: index, content: { sql, db_id } }` (malformed lines as
 *   `{ error }`), and the gold file's digest;
 * - snapshots: every `DBDIR/<db_id>/*.sqlite` file of the db_ids the gold names, hashed;
 * - policies: the resolved comparison policy;
 * - provider: the prediction file (label = its name without extension, settings = its path and
 *   digest); no prompt and no model id (a prediction file does not say);
 * - settings: preset, keepDistinct, timeoutMs (ms; `null` = the engine's default), diagnostics.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ComparisonPolicy } from '../compare/policy.js';
import { isLadderError } from '../errors.js';
import { listSnapshots } from '../benchmarks/spider/list-snapshots.js';
import type { SpiderGoldItem } from '../benchmarks/spider/read-spider-files.js';
import {
  asDigest,
  hashDatasetItems,
  hashFileOrNull,
  RUN_IDENTITY_FORMAT,
  sortSnapshots,
  thisTool,
  type JsonValue,
  type RunIdentity,
  type SnapshotIdentity,
} from './run-identity.js';

/** What {@link identifySpiderRun} reads. */
export interface SpiderRunInput {
  readonly gold: readonly SpiderGoldItem[];
  readonly goldFile: string;
  readonly predFile: string;
  readonly dbDir: string;
  readonly policy: ComparisonPolicy;
  /** Command settings that change verdicts (preset, keepDistinct, timeoutMs, …). */
  readonly settings: { readonly [key: string]: JsonValue };
  /** Default: now. */
  readonly recordedAt?: Date;
}

/** The run file of a JSONL output: `<out>.run.json`. */
export function runFilePathOf(jsonlFile: string): string {
  return `${jsonlFile}.run.json`;
}

/** Computes the identity of a Spider run (reads every snapshot file once). */
export async function identifySpiderRun(input: SpiderRunInput): Promise<RunIdentity> {
  const items = input.gold.map((item) => ({ id: String(item.index), content: item.error === undefined ? { sql: item.sql, db_id: item.dbId } : { error: item.error } }));
  const dbIds = [...new Set(input.gold.flatMap((item) => (item.error === undefined ? [item.dbId] : [])))];
  const snapshots: SnapshotIdentity[] = [];
  for (const dbId of dbIds) {
    try {
      const found = await listSnapshots(input.dbDir, dbId, { checksums: true });
      for (const snapshot of found) snapshots.push({ database: dbId, role: null, name: snapshot.name, hash: snapshot.checksum === undefined ? null : asDigest(snapshot.checksum) });
    } catch (error) {
      // An unknown db_id is reported per item by the run; it has no snapshot to identify.
      if (!isLadderError(error)) throw error;
    }
  }
  const label = path.basename(input.predFile).replace(/\.[^.]+$/, '');
  return {
    format: RUN_IDENTITY_FORMAT,
    tool: thisTool(),
    source: 'spider',
    recordedAt: (input.recordedAt ?? new Date()).toISOString(),
    dataset: { contentHash: hashDatasetItems(items), items: items.length, files: [{ path: input.goldFile, hash: hashFileOrNull(input.goldFile) }] },
    snapshots: sortSnapshots(snapshots),
    policies: [input.policy as unknown as JsonValue],
    prompt: null,
    provider: { label, id: null, model: null, settings: { predictions: input.predFile, predictionsHash: hashFileOrNull(input.predFile) } },
    asOfDates: [],
    settings: input.settings,
  };
}

/**
 * Computes the identity and writes it to `<out>.run.json` (pretty JSON). The one call the
 * `spider` command makes after writing its JSONL.
 * @returns the path written.
 */
export async function recordSpiderRunIdentity(jsonlFile: string, input: SpiderRunInput): Promise<string> {
  const target = runFilePathOf(jsonlFile);
  await writeFile(target, `${JSON.stringify(await identifySpiderRun(input), null, 2)}\n`);
  return target;
}
