/**
 * promptfoo test generator for a Spider-format folder: one test per gold item, graded by the
 * execution rung (L4 across every `.sqlite` file of the item's database folder, as the official
 * test-suite evaluator does), so that a prediction file graded in promptfoo gets the same per-item
 * verdicts as `text2sql-ladder spider` with the same preset.
 *
 * ```yaml
 * tests:
 *   - path: file://../../datasets/spider-tests.ts:spiderTests
 *     config: { dir: /data/spider, preset: spider }     # every field optional (env vars below)
 * ```
 *
 * BIRD folders work the same way (`dev.json` with `SQL` fields, `dev_databases/` as `databases`).
 *
 * Config (each falls back to an environment variable, then a default):
 * | option        | env                  | default                                        |
 * |---------------|----------------------|------------------------------------------------|
 * | `dir`         | `SPIDER_DIR`         | — (required)                                   |
 * | `gold`        | `SPIDER_GOLD`        | `<dir>/dev_gold.sql` if present, else `<dir>/dev.json` |
 * | `databases`   | `SPIDER_DB_DIR`      | `<dir>/database`                               |
 * | `preset`      | `SPIDER_PRESET`      | `spider`                                       |
 * | `keepDistinct`| `SPIDER_KEEP_DISTINCT` (`1`) | false                                  |
 * | `timeoutMs`   | `SPIDER_TIMEOUT_MS`  | engine default (10 000)                        |
 * | `limit`       | `SPIDER_LIMIT`       | every item                                     |
 * Relative paths are read from the working directory.
 *
 * Each test: `vars` `{ id: spider-<i>, index: <i>, question, db_id, db_path: [snapshot files],
 * gold_sql }` (the replay provider's `lines` format keys on `index`), `metadata` `{ id, index,
 * db_id, source: <gold file>:<line>, tags: [db:<db_id>] }`, and the execution assertion with the
 * policy. An item whose database folder is missing gets no `db_path`, so its row is an ERROR that
 * names the item (the CLI reports it as not scored).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LadderError } from '../errors.js';
import { describeReceived, optionReader } from '../options.js';
import { PRESET_NAMES } from '../compare/policy.js';
import type { PresetName } from '../compare/policy.js';
import { listSnapshots } from '../benchmarks/spider/list-snapshots.js';
import { readSpiderGold } from '../benchmarks/spider/read-spider-files.js';
import type { PromptfooTestCase } from './dataset-tests.js';
import { failFastAtLoad } from './load-check.js';

/** The generator's config (all optional; see the module doc). */
export interface SpiderTestsConfig {
  readonly dir?: string;
  readonly gold?: string;
  readonly databases?: string;
  readonly preset?: PresetName;
  readonly keepDistinct?: boolean;
  readonly timeoutMs?: number;
  readonly limit?: number;
}

/** One Spider gold item with its question (questions come from dev.json when present). */
interface SpiderItem {
  readonly index: number;
  readonly line: number;
  readonly sql: string;
  readonly dbId: string;
  readonly question: string;
}

const KNOWN = ['dir', 'gold', 'databases', 'preset', 'keepDistinct', 'timeoutMs', 'limit'];

/** The `file://` reference of the execution assertion next to this module (source or dist). */
export function executionAssertionRef(): string {
  const here = fileURLToPath(import.meta.url);
  return `file://${path.join(path.dirname(here), '..', '..', 'assertions', `execution${path.extname(here)}`)}:execution`;
}

function misuse(message: string): LadderError {
  return new LadderError('invalid_option', `tests: spiderTests: ${message}`);
}

async function readDevJson(file: string): Promise<Array<{ question: string; db_id: string; query: string }>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch (error) {
    throw new LadderError('input_invalid', `${file}: cannot read Spider items (${(error as Error).message})`, { cause: error });
  }
  if (!Array.isArray(parsed)) throw new LadderError('input_invalid', `${file}: expected a JSON list of {question, db_id, query}`);
  return parsed.map((entry, i) => {
    const record = entry as Record<string, unknown>;
    // Spider names the gold `query`, BIRD `SQL`.
    const query = record?.['query'] ?? record?.['SQL'];
    if (typeof record?.['db_id'] !== 'string' || typeof query !== 'string') {
      throw new LadderError('input_invalid', `${file}: item ${i} needs string fields db_id and query (Spider) or SQL (BIRD)`);
    }
    return { question: typeof record['question'] === 'string' ? record['question'] : '', db_id: record['db_id'], query };
  });
}

/** Reads the gold items: dev_gold.sql (questions added from a sibling dev.json when present) or dev.json. */
async function readItems(goldFile: string): Promise<SpiderItem[]> {
  const devJson = goldFile.endsWith('.json') ? goldFile : path.join(path.dirname(goldFile), 'dev.json');
  const dev = existsSync(devJson) ? await readDevJson(devJson) : undefined;
  if (goldFile.endsWith('.json')) {
    return dev!.map((entry, index) => ({ index, line: index + 1, sql: entry.query, dbId: entry.db_id, question: entry.question }));
  }
  const gold = await readSpiderGold(goldFile);
  const bad = gold.find((item) => item.error !== undefined);
  if (bad) throw new LadderError('input_invalid', `${goldFile}:${bad.line}: ${bad.error}`);
  return gold.map((item) => ({
    index: item.index,
    line: item.line,
    sql: item.sql,
    dbId: item.dbId,
    question: dev?.[item.index]?.db_id === item.dbId ? dev[item.index]!.question : '',
  }));
}

function envNumber(name: string): number | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : Number(value);
}

/**
 * The generator promptfoo calls: in promptfoo's command line, a bad option or an unreadable gold
 * file ends the run with one line on stderr and exit code 2 (src/promptfoo/load-check.ts); called
 * from code, it throws.
 * @throws LadderError `invalid_option` for a missing folder or a bad option (naming it);
 *   `input_invalid` for an unreadable gold file.
 */
export function spiderTests(given: SpiderTestsConfig | null = {}): Promise<PromptfooTestCase[]> {
  return failFastAtLoad('tests: spiderTests', () => readSpiderTests(given));
}

async function readSpiderTests(given: SpiderTestsConfig | null): Promise<PromptfooTestCase[]> {
  // Validate arguments (a YAML `config:` left empty is null: no options).
  const read = optionReader(given, { prefix: 'config.', at: 'tests: spiderTests: ' });
  const config: SpiderTestsConfig = given ?? {};
  read.unknownKeys(KNOWN);
  read.string('dir');
  read.string('gold');
  read.string('databases');
  read.oneOf('preset', PRESET_NAMES);
  read.boolean('keepDistinct');
  read.positiveInteger('timeoutMs', 'ms');
  read.positiveInteger('limit');
  // Apply defaults (config, then environment).
  const dir = config.dir ?? process.env['SPIDER_DIR'];
  if (typeof dir !== 'string' || dir === '') throw misuse('config.dir (or SPIDER_DIR) must name a Spider-format folder (dev.json or dev_gold.sql, tables.json, database/)');
  if (!existsSync(dir)) throw misuse(`config.dir (or SPIDER_DIR): no folder ${path.resolve(dir)}`);
  const goldDefault = existsSync(path.join(dir, 'dev_gold.sql')) ? path.join(dir, 'dev_gold.sql') : path.join(dir, 'dev.json');
  const goldFile = config.gold ?? process.env['SPIDER_GOLD'] ?? goldDefault;
  const databases = config.databases ?? process.env['SPIDER_DB_DIR'] ?? path.join(dir, 'database');
  const preset = config.preset ?? ((process.env['SPIDER_PRESET'] || 'spider') as PresetName);
  const keepDistinct = config.keepDistinct ?? process.env['SPIDER_KEEP_DISTINCT'] === '1';
  const timeoutMs = config.timeoutMs ?? envNumber('SPIDER_TIMEOUT_MS');
  const limit = config.limit ?? envNumber('SPIDER_LIMIT');
  // Validate the interpreted options.
  if (!PRESET_NAMES.includes(preset)) throw misuse(`config.preset (or SPIDER_PRESET) must be one of ${PRESET_NAMES.join(', ')}; received ${describeReceived(preset)}`);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw misuse(`config.timeoutMs (or SPIDER_TIMEOUT_MS) must be a positive integer (ms); received ${describeReceived(timeoutMs)}`);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw misuse(`config.limit (or SPIDER_LIMIT) must be a positive integer; received ${describeReceived(limit)}`);
  if (!existsSync(goldFile)) throw misuse(`config.gold (or SPIDER_GOLD): no file ${path.resolve(goldFile)}`);

  const items = (await readItems(goldFile)).slice(0, limit);
  const snapshotsByDb = new Map<string, string[] | undefined>();
  for (const dbId of new Set(items.map((item) => item.dbId))) {
    try {
      snapshotsByDb.set(dbId, (await listSnapshots(databases, dbId)).map((snapshot) => snapshot.path));
    } catch {
      snapshotsByDb.set(dbId, undefined);
    }
  }
  const policy = keepDistinct ? { preset, keepDistinct: true } : preset;
  const assertion = {
    type: 'javascript',
    value: executionAssertionRef(),
    config: { policy, ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
  };
  return items.map((item) => {
    const dbPath = snapshotsByDb.get(item.dbId);
    return {
      description: `spider-${item.index} (${item.dbId}): ${item.question || item.sql}`,
      vars: {
        id: `spider-${item.index}`,
        index: item.index,
        question: item.question,
        db_id: item.dbId,
        gold_sql: item.sql,
        ...(dbPath !== undefined ? { db_path: dbPath } : {}),
      },
      metadata: { id: `spider-${item.index}`, index: item.index, db_id: item.dbId, source: `${goldFile}:${item.line}`, tags: [`db:${item.dbId}`] },
      options: { disableVarExpansion: true },
      assert: [{ ...assertion, config: { ...assertion.config } }],
    };
  });
}
